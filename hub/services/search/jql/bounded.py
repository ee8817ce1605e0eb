"""A bound on the time a query of the mirror may take, and the caller answered
:class:`~hub.errors.TooSlow` (503 with Retry-After) past it instead of holding a thread.

- SQLite: the progress handler on the thread's connection interrupts a statement past the
  block's deadline: the bound is on the block's statements in all.
- PostgreSQL: the block runs in a transaction of its own whose ``statement_timeout`` is the
  bound (``SET LOCAL``: it ends with the transaction, and the connection's next user has its
  own); the server cancels a statement past it (SQLSTATE 57014, query_canceled). The bound is
  on each statement; the block's few statements each have it. JIT compilation is off there too
  (``SET LOCAL jit = off``): its compile time, seconds for a history clause, exceeded the query's.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager

import peewee

from hub import dialect
from hub.db import database
from hub.errors import TooSlow

# SQLite calls the handler every this many virtual machine steps: about a hundredth of a
# millisecond apart in most statements, so an interrupted query stops soon after its
# deadline at little cost. FTS5 merging a prefix's words (``a*``) takes few steps, each
# reading a page of its index: at 10,000 the handler came a third of a second apart there.
_STEPS = 1_000
# PostgreSQL's SQLSTATE for a statement cancelled, by its statement_timeout here.
QUERY_CANCELED = "57014"


@contextmanager
def bounded(seconds: float, *, what: str = "The query") -> Iterator[None]:
    """Run the block's statements for at most ``seconds`` (wall time); TooSlow if not."""
    bound = _postgres if dialect.current().postgres else _sqlite
    with bound(seconds, what):
        yield


def _too_slow(seconds: float, what: str) -> TooSlow:
    return TooSlow(f"{what} ran longer than {seconds:g} s and was stopped; narrow it or retry later.",
                   retry_after=max(1, round(seconds)))


@contextmanager
def _sqlite(seconds: float, what: str) -> Iterator[None]:
    connection = database.connection()
    deadline = time.monotonic() + seconds
    connection.set_progress_handler(lambda: time.monotonic() > deadline, _STEPS)
    try:
        yield
    # sqlite3's own error when the statement was stopped while its rows were read: Peewee
    # wraps only what executing it raised, and SQLite runs a statement as its rows are read.
    except (peewee.OperationalError, sqlite3.OperationalError) as exc:
        if "interrupted" not in str(exc):
            raise
        raise _too_slow(seconds, what) from None
    finally:
        connection.set_progress_handler(None, 0)


@contextmanager
def _postgres(seconds: float, what: str) -> Iterator[None]:
    try:
        with database.atomic():
            # A whole number of milliseconds, at least one (0 would be no bound at all).
            database.execute_sql(f"SET LOCAL statement_timeout = {max(1, round(seconds * 1000))}")
            # No JIT compilation: a history clause's plan is costed above jit_above_cost, and
            # compiling it took 3–4 s of the bound for a query that runs in a fraction of one.
            database.execute_sql("SET LOCAL jit = off")
            yield
    except peewee.OperationalError as exc:
        if sqlstate(exc) != QUERY_CANCELED:
            raise
        raise _too_slow(seconds, what) from None


def sqlstate(exc: BaseException) -> str | None:
    """The SQLSTATE of a PostgreSQL error as Peewee raises it (psycopg's error is its cause)."""
    for cause in (exc, getattr(exc, "orig", None), exc.__cause__, exc.__context__):
        state = getattr(cause, "sqlstate", None)
        if state:
            return str(state)
    return None
