"""v13 → v14: nothing changes on SQLite; the version is PostgreSQL's v14, where the hub's SQL
functions are marked as PostgreSQL requires (``hub/migrations/postgres/v14_parallel_safe.py``).

The two engines keep one schema version: ``hub migrate-to`` moves a SQLite hub only onto a
PostgreSQL schema of its own version, and ``/healthz`` reports one number for both. SQLite's
``jira_utc`` is a Python function (``hub.clock.jira_to_utc``) and its ``CAST(… AS REAL)`` is its
own, which PostgreSQL's v14 reads alike: there is nothing in this file's database to change.
"""

from __future__ import annotations

import sqlite3

VERSION = 14


def apply(conn: sqlite3.Connection) -> None:
    """Nothing to do: the version is recorded by the runner."""
    del conn
