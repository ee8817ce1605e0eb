"""v1 → v2: commands count their deliveries; a command already claimed counts 1."""

import sqlite3

VERSION = 2


def apply(conn: sqlite3.Connection) -> None:
    conn.execute("ALTER TABLE command ADD COLUMN deliveries INTEGER NOT NULL DEFAULT 0")
    conn.execute("UPDATE command SET deliveries = 1 WHERE status = 'claimed'")
