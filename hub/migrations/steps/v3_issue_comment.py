"""v2 → v3: an empty ``issue_comment`` table for the comments agents v10+ send."""

import sqlite3

VERSION = 3


def apply(conn: sqlite3.Connection) -> None:
    conn.execute(
        """CREATE TABLE issue_comment (
             key        TEXT NOT NULL,
             comment_id TEXT NOT NULL,
             author     TEXT,
             created    TEXT,
             updated    TEXT,
             body       TEXT NOT NULL DEFAULT '',
             PRIMARY KEY (key, comment_id)
           )"""
    )
