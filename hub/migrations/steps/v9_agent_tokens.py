"""v8 → v9: each agent row knows the token that registered it.

- ``agent_status.token_id``: the token whose heartbeat or claim last wrote the
  row. An agent token may register a bounded number of agent ids
  (``HUB_AGENTS_PER_TOKEN``), counted by this column. Rows from before v9 get
  NULL: no token is known for them, so they count against none until their
  agent is heard from again, when the row takes that request's token (and
  counts against it like any id the token registers).
- ``agent_status_token (token_id, last_seen_at)``: the count of one token's
  agent ids seen since a time is one index range.
- ``agent_status_last_seen (last_seen_at)``: the overview's and the metrics'
  counts, and forgetting agents unseen for ``HUB_AGENT_FORGET_HOURS``, read an
  index range rather than every row.
"""

from __future__ import annotations

import sqlite3

VERSION = 9


def apply(conn: sqlite3.Connection) -> None:
    conn.execute("ALTER TABLE agent_status ADD COLUMN token_id INTEGER")
    conn.execute("CREATE INDEX agent_status_token ON agent_status (token_id, last_seen_at)")
    conn.execute("CREATE INDEX agent_status_last_seen ON agent_status (last_seen_at)")
