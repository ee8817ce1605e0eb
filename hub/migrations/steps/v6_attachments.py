"""v5 → v6: empty attachment lists and the record of fetched attachment files.

Attachment lists appear with the first ``refresh`` by a v14 agent; rows of
``attachment_file`` only with a ``fetch_attachment`` that finished.
"""

import sqlite3

VERSION = 6


def apply(conn: sqlite3.Connection) -> None:
    conn.execute(
        """CREATE TABLE issue_attachment (
             attachment_id TEXT PRIMARY KEY,
             key           TEXT NOT NULL,
             filename      TEXT NOT NULL,
             size          INTEGER,
             mime_type     TEXT,
             author        TEXT,
             created       TEXT,
             created_at    TEXT
           )"""
    )
    conn.execute("CREATE INDEX issue_attachment_key ON issue_attachment (key)")
    conn.execute(
        """CREATE TABLE attachment_file (
             attachment_id TEXT PRIMARY KEY,
             file          TEXT NOT NULL,
             size          INTEGER NOT NULL,
             fetched_at    TEXT NOT NULL
           )"""
    )
