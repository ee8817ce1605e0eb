"""v14 → v15: writes to Jira, queued in the hub and applied by an agent (protocol v19).

- ``token.may_write`` (0 for every existing token): an interface token granted writes
  (``hub token add NAME --role interface --write``); admin tokens may write whatever it holds.
- ``command.serial_key``: commands that share one are claimed one at a time, oldest first (a
  write's is ``issue:<KEY>``, so writes to one issue reach Jira in the order they were made).
  The partial index ``command_serial (serial_key, id)`` finds an older open one with one seek.
- ``write``: one row per write an interface asked for — who (``token_id``, ``requested_by``, the
  token's name, kept should the token be revoked), what (``op``, ``key`` or a new issue's
  ``project``, ``params`` as the agent applies them, ``base``: the values its maker saw), its
  outcome (``status``, ``error``, ``conflict``, ``result``), its command and, for an attachment,
  the sha256 of its upload in the file store (``file``). ``write_idempotency`` makes a token's
  ``Idempotency-Key`` name one write.
- ``issue.transitions`` and ``issue.edit_fields``: the transitions Jira offers from the issue's
  status, with their screens' fields, and its edit screen's fields (JSON; NULL until an agent of
  v19 loads the issue). ``create_meta``: the create screen of each project and issue type.
"""

from __future__ import annotations

import sqlite3

VERSION = 15


def apply(conn: sqlite3.Connection) -> None:
    conn.execute("ALTER TABLE token ADD COLUMN may_write INTEGER NOT NULL DEFAULT 0")
    conn.execute("ALTER TABLE command ADD COLUMN serial_key TEXT")
    conn.execute("CREATE INDEX command_serial ON command (serial_key, id) WHERE serial_key IS NOT NULL")
    conn.execute("ALTER TABLE issue ADD COLUMN transitions TEXT")
    conn.execute("ALTER TABLE issue ADD COLUMN edit_fields TEXT")
    conn.execute("""CREATE TABLE write (
                      id              INTEGER PRIMARY KEY AUTOINCREMENT,
                      op              TEXT NOT NULL,
                      key             TEXT,
                      project         TEXT,
                      params          TEXT NOT NULL DEFAULT '{}',
                      base            TEXT,
                      token_id        INTEGER,
                      requested_by    TEXT NOT NULL,
                      idempotency_key TEXT,
                      status          TEXT NOT NULL,
                      error           TEXT,
                      conflict        TEXT,
                      result          TEXT,
                      command_id      INTEGER,
                      file            TEXT,
                      created_at      TEXT NOT NULL,
                      updated_at      TEXT NOT NULL
                    )""")
    conn.execute("CREATE UNIQUE INDEX write_idempotency ON write (token_id, idempotency_key) "
                 "WHERE idempotency_key IS NOT NULL")
    conn.execute("CREATE INDEX write_key ON write (key, id)")
    conn.execute("CREATE INDEX write_command ON write (command_id)")
    conn.execute("CREATE INDEX write_status ON write (status, id)")
    conn.execute("""CREATE TABLE create_meta (
                      project    TEXT NOT NULL,
                      issue_type TEXT NOT NULL,
                      fields     TEXT NOT NULL DEFAULT '{}',
                      updated_at TEXT NOT NULL,
                      PRIMARY KEY (project, issue_type)
                    )""")
