"""v12 → v13: the web interface's sessions — a sign-in exchanges a token for a cookie.

- ``web_session (id, sha256, token_id, created_at, last_seen_at, expires_at)``: one row per
  signed-in browser. The session id itself (the cookie's value) is never stored, only its
  sha256 (unique: a request finds its session by that index, as it finds a token). ``token_id``
  is the token that signed in; revoking the token deletes its sessions in the same transaction
  (index ``web_session_token``), and a session is only ever read joined to its token. The worker's
  housekeeping deletes the expired ones (index ``web_session_expires``).
"""

from __future__ import annotations

import sqlite3

VERSION = 13


def apply(conn: sqlite3.Connection) -> None:
    conn.execute("""CREATE TABLE web_session (
                      id           INTEGER PRIMARY KEY AUTOINCREMENT,
                      sha256       TEXT NOT NULL UNIQUE,
                      token_id     INTEGER NOT NULL,
                      created_at   TEXT NOT NULL,
                      last_seen_at TEXT NOT NULL,
                      expires_at   TEXT NOT NULL
                    )""")
    conn.execute("CREATE INDEX web_session_token ON web_session (token_id)")
    conn.execute("CREATE INDEX web_session_expires ON web_session (expires_at)")
