"""Periodic tasks run once per period, however many workers run them.

Every worker's consumer enqueues each periodic task on its schedule; with
several workers on one queue (or each on its own), as many copies come round
as there are workers. Before a copy runs, it claims its period here: a
compare-and-set on a row of the ``setting`` table per task
(``period.<task>``, the start of the last period claimed, in the hub's time
format). The row moves forward only, in one statement, so of the copies of
one period exactly one claims it, on either engine: SQLite takes writers one
at a time, and PostgreSQL's ``INSERT … ON CONFLICT DO UPDATE … WHERE``
re-reads the row a concurrent claim committed before it decides.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from hub.clock import Clock, iso
from hub.db import database

PREFIX = "period."
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)

_CLAIM = ("INSERT INTO setting (key, value) VALUES (?, ?) "
          "ON CONFLICT (key) DO UPDATE SET value = excluded.value WHERE setting.value < excluded.value")


def period_start(moment: datetime, period: timedelta) -> datetime:
    """The start of the period of length ``period`` (counted from the Unix epoch, in
    UTC) that holds ``moment``: the minute, the hour."""
    aware = moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
    return _EPOCH + ((aware.astimezone(UTC) - _EPOCH) // period) * period


@dataclass(frozen=True)
class PeriodClaim:
    """A run's claim of its period: ``start`` (the period's, as written), the
    ``moment`` the claim was made at, and whether this run ``won`` the period."""

    task: str
    start: str
    moment: datetime
    won: bool


class PeriodService:
    """Claims of a task's period, for :mod:`worker.tasks`."""

    def __init__(self, clock: Clock):
        self._clock = clock

    def claim(self, task: str, period: timedelta) -> PeriodClaim:
        """Claim the current period of ``task``; ``won`` is False when another run
        claimed this period already (the caller then does not run)."""
        now = self._clock.now()
        start = iso(period_start(now, period))
        with database.atomic():
            won = database.execute_sql(_CLAIM, (PREFIX + task, start)).rowcount == 1
        return PeriodClaim(task, start, now, won)

    def last(self, task: str) -> str | None:
        """The start of the last period claimed for ``task``, as written; None if never."""
        row = database.execute_sql("SELECT value FROM setting WHERE key = ?", (PREFIX + task,)).fetchone()
        return row[0] if row else None
