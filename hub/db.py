"""The hub's database connection: SQLite in WAL mode, every write ``BEGIN IMMEDIATE``.

The models bind to :data:`database`, a proxy that :func:`open_database` points
at the configured file. The schema itself belongs to :mod:`hub.migrations`:
open the database only after :func:`hub.migrations.migrate` has run.
"""

from __future__ import annotations

from pathlib import Path

from peewee import DatabaseProxy, SqliteDatabase

database = DatabaseProxy()


class HubDatabase(SqliteDatabase):
    """SQLite that keeps the real cause when a COMMIT fails.

    When a COMMIT fails with "database or disk is full" (or an I/O error),
    SQLite has already rolled the transaction back; Peewee's ``atomic`` then
    sends ROLLBACK, which fails with "cannot rollback - no transaction is
    active" and hides the real error. Roll back only what is still open.
    """

    def rollback(self):
        if self.is_closed() or self.connection().in_transaction:
            super().rollback()


def open_database(path: Path, *, busy_timeout_seconds: float = 30) -> HubDatabase:
    """Open ``path`` for the models and bind them to it.

    Every transaction starts with ``BEGIN IMMEDIATE``: in WAL mode a deferred
    transaction that reads and then writes fails with SQLITE_BUSY at once when
    another writer got in between, whatever the busy timeout; an immediate one
    waits for the write lock instead.
    """
    db = HubDatabase(
        str(path),
        timeout=busy_timeout_seconds,
        lock_type="IMMEDIATE",
        pragmas={
            "journal_mode": "wal",
            "busy_timeout": int(busy_timeout_seconds * 1000),
            # WAL with synchronous=NORMAL is durable across application
            # crashes and loses at most the last commits on power loss.
            "synchronous": "normal",
        },
    )
    database.initialize(db)
    return db
