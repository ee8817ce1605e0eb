"""The hub's database connection: SQLite in WAL mode, every write ``BEGIN IMMEDIATE``;
or PostgreSQL, when ``HUB_DATABASE_URL`` names one.

The models bind to :data:`database`, a proxy that :func:`open_hub_database`
points at the configured engine (:func:`open_database` for a SQLite file,
:func:`open_postgres` for a URL). The schema itself belongs to
:mod:`hub.migrations`: open the database only after
:func:`hub.migrations.migrate` has run.

The services write their SQL once, in SQLite's spelling with ``?`` for each
parameter; :class:`HubPostgres` hands it to psycopg in its own. What differs
beyond spelling is in :mod:`hub.dialect`.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING

from peewee import Database, DatabaseProxy, PostgresqlDatabase, SqliteDatabase

from hub.clock import jira_to_utc
from hub.errors import HubError

if TYPE_CHECKING:
    from hub.config import Config

database = DatabaseProxy()
# Claims and reports take their command in one UPDATE … RETURNING (3.35).
MIN_SQLITE_VERSION = (3, 35, 0)


class SQLiteTooOld(HubError):
    """The SQLite library Python was built with lacks what the hub needs."""

    title = "SQLite too old"


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
    waits for the write lock instead. Raises SQLiteTooOld below SQLite 3.35.
    """
    if sqlite3.sqlite_version_info < MIN_SQLITE_VERSION:
        raise SQLiteTooOld(
            f"SQLite {sqlite3.sqlite_version} is too old: the hub needs "
            f"{'.'.join(map(str, MIN_SQLITE_VERSION))} or later (UPDATE … RETURNING); "
            "use a Python built with a newer SQLite")
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
    # JQL compares names case-insensitively in every script; SQLite's lower() and NOCASE
    # fold ASCII alone, so queries fold through Python's str.casefold (Cyrillic too).
    db.register_function(casefold, "casefold", 1, deterministic=True)
    # created is kept as Jira wrote it (with its offset): JQL compares it in UTC.
    db.register_function(jira_to_utc, "jira_utc", 1, deterministic=True)
    database.initialize(db)
    return db


def casefold(text: object) -> object:
    """SQL ``casefold(x)``: ``x`` folded as :meth:`str.casefold` folds it; other values as they are."""
    return text.casefold() if isinstance(text, str) else text


def open_hub_database(config: Config) -> Database:
    """The database ``config`` names, opened and bound to the models."""
    if config.database_url:
        return open_postgres(config.database_url)
    return open_database(config.db_path, busy_timeout_seconds=config.busy_timeout_seconds)


class HubPostgres(PostgresqlDatabase):
    """PostgreSQL through psycopg 3, taking the hub's SQL as SQLite spells it.

    - A statement written with ``?`` placeholders gets psycopg's ``%s`` (and
      its literal ``%`` doubled); Peewee's own statements already use ``%s``.
    - ``atomic("IMMEDIATE")`` and ``atomic("DEFERRED")`` name SQLite's lock
      types: on PostgreSQL every transaction is READ COMMITTED, and what the
      one-writer rule gave on SQLite is taken with row locks where it is needed.
    """

    def atomic(self, *args, **kwargs):
        if args and args[0] in ("IMMEDIATE", "DEFERRED", "EXCLUSIVE"):
            args = args[1:]
        return super().atomic(*args, **kwargs)

    def execute_sql(self, sql, params=None, commit=None):
        if "?" in sql:
            sql = qmark_to_format(sql)
        return super().execute_sql(sql, params)


def qmark_to_format(sql: str) -> str:
    """``sql`` with each ``?`` placeholder outside quotes as ``%s`` and any other ``%`` as ``%%``.

    A Peewee query can hold a fragment written with ``?`` (``SQL("… ?", …)``)
    beside its own ``%s``: those are kept.
    """
    out: list[str] = []
    quote: str | None = None
    for i, char in enumerate(sql):
        if quote:
            if char == quote:
                quote = None
        elif char in "'\"":
            quote = char
        elif char == "?":
            out.append("%s")
            continue
        elif char == "%" and sql[i + 1:i + 2] == "s":
            out.append(char)
            continue
        out.append("%%" if char == "%" else char)
    return "".join(out)


def open_postgres(url: str) -> HubPostgres:
    """Open the PostgreSQL database at ``url`` for the models and bind them to it."""
    db = HubPostgres(url, prefer_psycopg3=True)
    database.initialize(db)
    return db
