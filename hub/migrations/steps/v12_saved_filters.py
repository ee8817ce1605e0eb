"""v11 → v12: saved filters — a JQL query kept in the hub under a name, by the token that saved it.

- ``saved_filter (id, name, jql, owner_token_id, created_at, updated_at)``: ``owner_token_id`` is
  the saving token's id (token ids are never reused; a revoked token's filters stay, and only an
  admin token may then change them); a name is unique per owner (index ``saved_filter_owner_name``).
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
