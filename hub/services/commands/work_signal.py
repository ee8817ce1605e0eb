"""Waking long-polling claims when work arrives: the interface, one per engine.

A claim that finds no work waits on the hub's work signal (at most
``dispatch.POLL_SECONDS`` at a time, then it looks again). What enqueues work
notifies the signal once the work is committed. Two implementations, chosen
once by the builder (:mod:`hub.assembly`):

- :class:`hub.services.commands.work_signal_sqlite.SqliteWorkSignal`, for one
  SQLite hub: a condition in this process.
- :class:`hub.services.commands.work_signal_postgres.PostgresWorkSignal`, for
  several nodes on one PostgreSQL database: the same condition, and PostgreSQL's
  ``LISTEN``/``NOTIFY`` to carry a notification to every other node, so that a
  command enqueued through one node wakes an agent long-polling another at once
  rather than at its next look.

Both count notifications with :class:`Generations`, the condition a claim waits on.
"""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod


class WorkSignal(ABC):
    """What the queue, the dispatcher, attachments and sync runs ask of the hub's work signal."""

    @abstractmethod
    def notify(self) -> None:
        """Work was enqueued: wake the claims waiting for it, once it is committed."""

    @abstractmethod
    def generation(self) -> int:
        """A number that changes at every notification: read it before looking for work."""

    @abstractmethod
    def wait(self, seen: int, timeout: float) -> None:
        """Return once the generation is no longer ``seen``, or after ``timeout`` seconds."""

    @abstractmethod
    def close(self) -> None:
        """Release what the signal holds (a listening connection, a thread)."""


class Generations:
    """The claims of this process waiting for work: a counter bumped at every wake-up,
    and the condition they wait on until it moves."""

    def __init__(self) -> None:
        self._condition = threading.Condition()
        self._generation = 0

    def bump(self) -> None:
        """Wake every claim waiting here."""
        with self._condition:
            self._generation += 1
            self._condition.notify_all()

    def current(self) -> int:
        """The number of wake-ups so far."""
        return self._generation

    def wait(self, seen: int, timeout: float) -> None:
        """Return once the count is no longer ``seen``, or after ``timeout`` seconds."""
        with self._condition:
            self._condition.wait_for(lambda: self._generation != seen, timeout)
