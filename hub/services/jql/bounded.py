"""A bound on the time a query of the mirror may take: SQLite's progress handler on the
thread's connection interrupts a statement past its deadline, and the caller is answered
:class:`~hub.errors.TooSlow` (503 with Retry-After) instead of holding a thread."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

import peewee

from hub.db import database
from hub.errors import TooSlow

# SQLite calls the handler every this many virtual machine steps: about a tenth of a
# millisecond apart, so an interrupted query stops soon after its deadline at little cost.
_STEPS = 10_000


@contextmanager
def bounded(seconds: float, *, what: str = "The query") -> Iterator[None]:
    """Run the block's statements for at most ``seconds`` (wall time) in all; TooSlow if not."""
    connection = database.connection()
    deadline = time.monotonic() + seconds
    connection.set_progress_handler(lambda: time.monotonic() > deadline, _STEPS)
    try:
        yield
    except peewee.OperationalError as exc:
        if "interrupted" not in str(exc):
            raise
        raise TooSlow(f"{what} ran longer than {seconds:g} s and was stopped; narrow it or retry later.",
                      retry_after=max(1, round(seconds))) from None
    finally:
        connection.set_progress_handler(None, 0)
