"""What tests of either engine need to look at or hold a hub's database from outside
the hub: its rows (as ``tests.support.db_rows`` does, on the engine the hub runs on),
every table's content at once, and another writer holding a table.

Each opens a connection of its own, as another process would: nothing goes through
the hub's models or connections.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator

from hub.db import qmark_to_format


def rows(config, sql: str, *args) -> list[tuple]:
    """The rows of ``sql`` (written with ``?``) on ``config``'s database."""
    if config.database_url:
        import psycopg

        with psycopg.connect(config.database_url, autocommit=True) as conn:
            return conn.execute(qmark_to_format(sql), args).fetchall()
    conn = sqlite3.connect(config.db_path)
    try:
        return conn.execute(sql, args).fetchall()
    finally:
        conn.close()


def execute(config, sql: str, *args) -> None:
    """Run and commit one statement (written with ``?``) on ``config``'s database."""
    if config.database_url:
        import psycopg

        with psycopg.connect(config.database_url, autocommit=True) as conn:
            conn.execute(qmark_to_format(sql), args)
        return
    conn = sqlite3.connect(config.db_path)
    try:
        conn.execute(sql, args)
        conn.commit()
    finally:
        conn.close()


def tables(config) -> list[str]:
    """The hub's tables, by name."""
    if config.database_url:
        return [name for (name,) in rows(
            config, "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() ORDER BY 1")]
    return [name for (name,) in rows(
        config, "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
                "AND name NOT LIKE 'issue_fts%' ORDER BY 1")]


def snapshot(config) -> dict[str, list[str]]:
    """Every table's rows, each as text, sorted: equal snapshots mean nothing was written."""
    return {table: sorted(map(repr, rows(config, f'SELECT * FROM "{table}"'))) for table in tables(config)}


def stored_text(config) -> str:
    """Every value of every table, as one text (what a reader of the database would see)."""
    return " ".join(str(value) for table in tables(config)
                    for row in rows(config, f'SELECT * FROM "{table}"') for value in row)


@contextlib.contextmanager
def writer_holding(config, table: str):
    """Another writer holding ``table`` while the block runs: on SQLite the whole
    database (BEGIN IMMEDIATE), on PostgreSQL the table (LOCK … IN EXCLUSIVE MODE:
    reads go on, writes wait)."""
    if config.database_url:
        import psycopg

        with psycopg.connect(config.database_url) as conn:
            conn.execute(f'LOCK TABLE "{table}" IN EXCLUSIVE MODE')
            try:
                yield
            finally:
                conn.rollback()
        return
    conn = sqlite3.connect(config.db_path, isolation_level=None)
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield
    finally:
        conn.execute("ROLLBACK")
        conn.close()


def engine_settings(database_url: str | None) -> dict[str, str]:
    """The ``HUB_*`` variable that points a ``hub`` command at ``database_url`` (none: SQLite)."""
    return {"HUB_DATABASE_URL": database_url} if database_url else {}


def engine_env(config) -> dict[str, str]:
    """The ``HUB_*`` variables that point a ``hub`` command at ``config``'s database."""
    return engine_settings(config.database_url)


@contextlib.contextmanager
def engine_database(request, backend: str) -> Iterator[str | None]:
    """For a module's hub (or mirror) on ``backend``: None on SQLite (the data dir's file), else the URL
    of a PostgreSQL database of its own at the current schema, dropped afterwards."""
    if backend != "postgresql":
        yield None
        return
    copies = request.getfixturevalue("postgres_copies")
    name = copies.take()
    try:
        yield copies.server.url(name)
    finally:
        from hub.db import database

        if database.obj is not None and getattr(database.obj, "database", None) == name:
            database.obj.close()
        copies.give_back(name)
