"""v11 → v12: saved filters — a JQL query kept in the hub under a name, by the token that saved it.

- ``saved_filter (id, name, jql, owner_token_id, created_at, updated_at)``: ``owner_token_id`` is
  the saving token's id (token ids are never reused; a revoked token's filters stay, and only an
  admin token may then change them); a name is unique per owner (index ``saved_filter_owner_name``).
- Index ``issue_change_field_key (field, key, from_value, from_string, to_value, to_string)``: JQL's
  ``WAS`` asks, per issue, whether any change of one field went from or to a value; the index answers
  it on its own (a seek per issue, no table row read), and reads one field's changes alone.
- Index ``issue_current_sprint (sprint)``: ``sprint = …`` also matches an issue's current sprint by
  name (for issues loaded before the mirror kept ``issue_sprint``); without it, every issue is read.
- Index ``issue_priority (priority)``: ``priority in (Blocker, Critical)``, a team's filter as
  common as status, reads the few issues of those priorities rather than every issue.
"""

from __future__ import annotations

import sqlite3

VERSION = 12


def apply(conn: sqlite3.Connection) -> None:
    conn.execute("""CREATE TABLE saved_filter (
                      id             INTEGER PRIMARY KEY AUTOINCREMENT,
                      name           TEXT NOT NULL,
                      jql            TEXT NOT NULL,
                      owner_token_id INTEGER,
                      created_at     TEXT NOT NULL,
                      updated_at     TEXT NOT NULL
                    )""")
    conn.execute("CREATE UNIQUE INDEX saved_filter_owner_name ON saved_filter (owner_token_id, name)")
    conn.execute("CREATE INDEX issue_change_field_key ON issue_change"
                 " (field, key, from_value, from_string, to_value, to_string)")
    conn.execute("CREATE INDEX issue_current_sprint ON issue (sprint)")
    conn.execute("CREATE INDEX issue_priority ON issue (priority)")
