"""Whether the hub can do its work: read and write its database, find room on its
disk, and count on a worker for its periodic tasks.

``/healthz`` asks :meth:`HealthService.check`. Each answer is cheap: the write
probe (a :class:`WriteProbe`: a real committed write through a connection of its
own, to hub.sqlite, :class:`hub.services.operations.health_sqlite.SqliteWriteProbe`,
or to PostgreSQL, :class:`hub.services.operations.health_postgres.PostgresWriteProbe`,
the builder choosing by the settings) runs at most every few seconds, and its
result stands in between. A write that failed in a request (disk full, read-only,
I/O error) is reported for a minute after, with SQLite's own words, since the
probe may pass while a bigger write fails.
"""

from __future__ import annotations

import os
import threading
import time
from datetime import timedelta
from typing import Protocol

import peewee

from hub.clock import Clock, iso
from hub.config import Config
from hub.db import database
from hub.models import Setting

PROBE_EVERY_SECONDS = 5.0
# The probe's own connection gives up after this long (connect, lock wait, statement).
PROBE_TIMEOUT_SECONDS = 2
# A write failure seen by a request is news for this long.
FAILURE_NEWS_SECONDS = 60.0
# Below this much free space the next pages or uploads are likely to fail.
LOW_DISK_BYTES = 16 * 1024 * 1024
# The worker's periodic tasks run every minute; three missed minutes is a stop.
WORKER_STALE_SECONDS = 180
WORKER_SEEN_KEY = "worker_seen_at"
PROBE_KEY = "health_probe"


class WriteProbe(Protocol):
    """A committed write to the hub's database through a connection of its own, by engine."""

    def __call__(self, now: str) -> str | None:
        """Write ``now`` under :data:`PROBE_KEY` and commit: None if the write went in (or
        another writer held the lock: busy, not broken), else what stopped it, in words
        an operator can act on."""
        ...  # pragma: no cover


class HealthService:
    """The hub's health as ``/healthz`` reports it, on ``config``'s data dir, with the
    engine's write ``probe``."""

    def __init__(self, config: Config, clock: Clock, probe: WriteProbe):
        self._config = config
        self._clock = clock
        self._probe_write = probe
        self._started = time.monotonic()
        self._lock = threading.Lock()
        self._probed_at = float("-inf")
        self._probe_problem: str | None = None
        self._failure: tuple[float, str] | None = None

    def check(self) -> dict:
        """``{status: "ok", schema_version}``, or ``status: "unavailable"`` with the
        ``problems`` found, each in words an operator can act on."""
        try:
            version = int(Setting.get_by_id("schema_version").value)
        except peewee.DatabaseError as exc:
            return {"status": "unavailable", "schema_version": None,
                    "problems": [f"cannot read the database: {exc}"]}
        problems = [p for p in (self._disk(), self._writes(), self._worker()) if p]
        if not problems:
            return {"status": "ok", "schema_version": version}
        return {"status": "unavailable", "schema_version": version, "problems": problems}

    def write_failed(self, cause: str) -> None:
        """Note a database write that failed for a reason of the machine's, not the
        request's (disk full, read-only, I/O error)."""
        with self._lock:
            self._failure = (time.monotonic(), cause)

    def worker_seen(self) -> None:
        """The worker is running its periodic tasks: say so where every process sees it."""
        with database.atomic():
            (Setting.insert(key=WORKER_SEEN_KEY, value=iso(self._clock.now()))
             .on_conflict(conflict_target=[Setting.key], preserve=[Setting.value]).execute())

    # -- the checks --------------------------------------------------------------

    def _disk(self) -> str | None:
        try:
            stat = os.statvfs(self._config.data_dir)
        except OSError as exc:
            return f"cannot read the free space of {self._config.data_dir}: {exc.strerror or exc}"
        free = stat.f_bavail * stat.f_frsize
        if free < LOW_DISK_BYTES:
            return f"the disk of {self._config.data_dir} is (nearly) full: {free} bytes free"
        return None

    def _writes(self) -> str | None:
        now = time.monotonic()
        with self._lock:
            if now - self._probed_at >= PROBE_EVERY_SECONDS:
                self._probed_at = now
                self._probe_problem = self._probe()
            failure = self._failure
        if failure is not None and now - failure[0] < FAILURE_NEWS_SECONDS:
            return f"a database write failed {now - failure[0]:.0f} s ago: {failure[1]}"
        return self._probe_problem

    def _probe(self) -> str | None:
        """Commit one small write through a connection of its own; None if it went in."""
        return self._probe_write(iso(self._clock.now()))

    def _worker(self) -> str | None:
        now = self._clock.now()
        line = iso(now - timedelta(seconds=WORKER_STALE_SECONDS))
        row = Setting.get_or_none(Setting.key == WORKER_SEEN_KEY)
        seen = row.value if row is not None else None
        if seen is not None and seen >= line:
            return None
        if seen is None and time.monotonic() - self._started < WORKER_STALE_SECONDS:
            return None  # a worker starting beside this process has not reported yet
        since = f"since {seen}" if seen else "since this process started"
        return (f"no worker has run the periodic tasks {since} (lease expiry, neighbour "
                "marking, cleanup): run 'hub worker', or 'hub serve' without --no-worker")
