"""v6 → v7: tokens in a table of their own, the token that claimed a command, the
neighbour marking a full run still owes, and an attachment's fetches found by index.

- ``token (id, name UNIQUE, role, sha256 UNIQUE, created_at)``: a request finds its
  token by the index on ``sha256`` instead of decoding every ``setting`` row. Each
  ``setting`` row ``token:<name>`` (JSON ``{"role", "sha256", "created_at"}``) is
  moved into it and deleted: a hub of version 6 refuses a v7 database, so nothing
  reads those rows any more, and a revoked token must not live on in a copy. A row
  that does not read as a token (it could never authenticate) is left where it is,
  with a warning.
- ``command.token_id``: the token that claimed the command. Commands claimed before
  the migration have NULL; their holder is known by ``agent_id`` alone.
- ``sync_run.neighbors_due``: 1 while a finished full run's neighbour marking has
  not been done. Existing runs owe nothing.
- ``command_attachment``: a partial index on the ``attachment_id`` in the params of
  ``fetch_attachment`` commands, then ``id``, so an attachment's state reads its
  newest and its open fetches with an index seek instead of every command. Only
  ``fetch_attachment`` rows are indexed, so the ``params`` of other commands (some
  v3 ones are not JSON) are never parsed. Queries must repeat the expression and
  the ``WHERE`` exactly, and compare it with a value that has no column affinity,
  or SQLite will not use the index.
"""

from __future__ import annotations

import json
import logging
import sqlite3

VERSION = 7

log = logging.getLogger("hub.migrations")

# The v6 format, frozen here: the step must not depend on the live token code.
_PREFIX = "token:"
_ROLES = ("agent", "interface", "admin")


def apply(conn: sqlite3.Connection) -> None:
    conn.execute(
        """CREATE TABLE token (
             id         INTEGER PRIMARY KEY AUTOINCREMENT,
             name       TEXT NOT NULL UNIQUE,
             role       TEXT NOT NULL,
             sha256     TEXT NOT NULL UNIQUE,
             created_at TEXT NOT NULL
           )"""
    )
    rows = conn.execute(
        "SELECT key, value FROM setting WHERE substr(key, 1, ?) = ? ORDER BY key",
        (len(_PREFIX), _PREFIX)).fetchall()
    for key, value in rows:
        record = _token_record(value)
        if record is None:
            log.warning("setting %r does not read as a token; left as it is", key)
            continue
        conn.execute(
            "INSERT INTO token (name, role, sha256, created_at) VALUES (?, ?, ?, ?)",
            (key[len(_PREFIX):], record["role"], record["sha256"], record["created_at"]))
        conn.execute("DELETE FROM setting WHERE key = ?", (key,))
    conn.execute("ALTER TABLE command ADD COLUMN token_id INTEGER")
    conn.execute("ALTER TABLE sync_run ADD COLUMN neighbors_due INTEGER NOT NULL DEFAULT 0")
    conn.execute(
        "CREATE INDEX sync_run_neighbors_due ON sync_run (id) WHERE neighbors_due = 1")
    # A report or an expired lease finds its command's run without a scan.
    conn.execute("CREATE INDEX sync_run_command ON sync_run (command_id)")
    conn.execute(
        "CREATE INDEX command_attachment ON command (json_extract(params, '$.attachment_id'), id)"
        " WHERE type = 'fetch_attachment'")


def _token_record(value: str) -> dict | None:
    try:
        record = json.loads(value)
    except ValueError:
        return None
    if not (isinstance(record, dict) and record.get("role") in _ROLES
            and isinstance(record.get("sha256"), str) and isinstance(record.get("created_at"), str)):
        return None
    return record
