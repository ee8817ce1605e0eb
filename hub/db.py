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
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

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
        return open_postgres(config.database_url, busy_timeout_seconds=config.busy_timeout_seconds)
    return open_database(config.db_path, busy_timeout_seconds=config.busy_timeout_seconds)


SQLITE_LOCK_TYPES = ("IMMEDIATE", "DEFERRED", "EXCLUSIVE")
# A connection is opened anew after this long, between transactions: a server
# restarted, failed over or behind a pooler that drops old connections costs one
# reconnect per thread rather than errors.
CONNECTION_MAX_AGE_SECONDS = 30 * 60
# How long a node waits for PostgreSQL to accept a new connection before the
# request answers 503.
CONNECT_TIMEOUT_SECONDS = 10


class HubPostgres(PostgresqlDatabase):
    """PostgreSQL through psycopg 3, taking the hub's SQL as SQLite spells it.

    - A statement written with ``?`` placeholders gets psycopg's ``%s`` (and
      its literal ``%`` doubled); Peewee's own statements already use ``%s``.
    - ``atomic("IMMEDIATE")`` names SQLite's lock type: on PostgreSQL a write
      transaction is READ COMMITTED, and what the one-writer rule gave on SQLite
      is taken with row locks (or :func:`hub.dialect.hold`) where it is needed.
      ``atomic("DEFERRED")``, a read that must see one snapshot, is REPEATABLE READ.
    - Connections are Peewee's: one per thread that uses the database, opened at
      its first statement and kept for the thread's life (waitress's threads and
      the worker's live as long as the process). Between transactions a
      connection that the server dropped, that broke, or that is older than
      :data:`CONNECTION_MAX_AGE_SECONDS` is closed and opened anew, so one lost
      connection fails at most the statement it was running.
    - A lock waited on longer than the busy timeout fails the statement
      (``lock_timeout``, SQLSTATE 55P03), which the API answers as it answers
      SQLite's busy database: 503 with Retry-After.
    """

    _state: Any  # Peewee's per-thread connection state (its stubs do not declare it)

    def __init__(self, url: str, *, busy_timeout_seconds: float = 30, **kwargs):
        self._lock_timeout_ms = int(busy_timeout_seconds * 1000)
        kwargs.setdefault("connect_timeout", CONNECT_TIMEOUT_SECONDS)
        kwargs.setdefault("application_name", "sdlc-hub")
        super().__init__(url, prefer_psycopg3=True, **kwargs)

    def atomic(self, *args, **kwargs):
        if args and args[0] in SQLITE_LOCK_TYPES:
            args = args[1:]
        return super().atomic(*args, **kwargs)

    def begin(self, isolation_level=None):
        # Through the models' proxy, atomic("IMMEDIATE") arrives here as an isolation level.
        # DEFERRED is what the services ask for a read that must see one snapshot
        # (a scrape's figures, the cleanup's plan): REPEATABLE READ gives that here.
        if isolation_level == "DEFERRED":
            isolation_level = "REPEATABLE READ"
        elif isolation_level in SQLITE_LOCK_TYPES:
            isolation_level = None
        return super().begin(isolation_level)

    def _initialize_connection(self, conn):
        self._state.opened_at = time.monotonic()
        nul_free_text(conn)
        # SET rather than a startup option: poolers such as PgBouncer refuse those.
        conn.execute(f"SET lock_timeout = {self._lock_timeout_ms}")

    def cursor(self, named_cursor=None):
        if not self._state.closed and not self._state.transactions and self._stale(self._state.conn):
            self._discard()
        return super().cursor(named_cursor)

    def rollback(self):
        # A connection the server dropped has no transaction left to roll back: let
        # the error that ended it be the one raised, and reconnect at the next statement.
        if not self._state.closed and self._broken(self._state.conn):
            return
        super().rollback()

    def _stale(self, conn) -> bool:
        opened = getattr(self._state, "opened_at", 0.0)
        return self._broken(conn) or time.monotonic() - opened > CONNECTION_MAX_AGE_SECONDS

    @staticmethod
    def _broken(conn) -> bool:
        return bool(conn.closed or conn.broken)

    def _discard(self) -> None:
        """Forget this thread's connection (closing it if it still can be)."""
        conn = self._state.conn
        self._state.reset()
        conn.close()  # psycopg closes a broken connection without raising

    def execute_sql(self, sql, params=None, commit=None):
        if "?" in sql:
            sql = qmark_to_format(sql)
        return super().execute_sql(sql, params)


# What PostgreSQL's text holds in place of U+0000, which it cannot hold at all.
NUL_STANDS_FOR = "\ufffd"


def nul_free_text(conn) -> None:
    """Make ``conn`` (psycopg's) send every ``str`` with U+0000 as U+FFFD.

    PostgreSQL's text holds no NUL, so a Jira text or a name that has one would fail
    its whole statement (a page of issues refused for one character). The
    replacement character is what a reader sees of a character the text cannot
    hold; SQLite keeps the NUL. Query parameters are refused with a NUL before any
    statement (:func:`hub.api.validation.query`), so nothing is compared with one.
    """
    from psycopg.types.string import StrBinaryDumper, StrDumperUnknown

    class NulFreeText(StrDumperUnknown):
        def dump(self, obj: str):
            return super().dump(obj.replace("\x00", NUL_STANDS_FOR) if "\x00" in obj else obj)

    class NulFreeBinaryText(StrBinaryDumper):
        def dump(self, obj: str):
            return super().dump(obj.replace("\x00", NUL_STANDS_FOR) if "\x00" in obj else obj)

    conn.adapters.register_dumper(str, NulFreeText)
    conn.adapters.register_dumper(str, NulFreeBinaryText)


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


def open_postgres(url: str, *, busy_timeout_seconds: float = 30) -> HubPostgres:
    """Open the PostgreSQL database at ``url`` for the models and bind them to it."""
    db = HubPostgres(url, busy_timeout_seconds=busy_timeout_seconds)
    database.initialize(db)
    return db
