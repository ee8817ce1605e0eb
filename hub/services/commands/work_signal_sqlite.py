"""The work signal of a SQLite hub: a condition in this process
(:class:`hub.services.commands.work_signal.WorkSignal`)."""

from __future__ import annotations

from hub.services.commands.work_signal import Generations, WorkSignal


class SqliteWorkSignal(WorkSignal):
    """Wakes long-polling claims in this process when work is enqueued.

    Claims in other processes do not hear it; they find the work at their next
    poll, a second later at most.
    """

    def __init__(self) -> None:
        self._here = Generations()

    def notify(self) -> None:
        """Work was enqueued (and committed): wake the claims waiting here."""
        self._here.bump()

    def generation(self) -> int:
        """A number that changes at every notification: read it before looking for work."""
        return self._here.current()

    def wait(self, seen: int, timeout: float) -> None:
        """Return once the generation is no longer ``seen``, or after ``timeout`` seconds."""
        self._here.wait(seen, timeout)

    def close(self) -> None:
        """Release what the signal holds (nothing here)."""
