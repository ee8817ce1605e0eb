"""Waking long-polling claims when work arrives."""

from __future__ import annotations

import threading


class WorkSignal:
    """Wakes long-polling claims in this process when work is enqueued.

    Claims in other processes do not hear it; they find the work at their next
    poll, a second later at most.
    """

    def __init__(self) -> None:
        self._condition = threading.Condition()
        self._generation = 0

    def notify(self) -> None:
        with self._condition:
            self._generation += 1
            self._condition.notify_all()

    def generation(self) -> int:
        return self._generation

    def wait(self, seen: int, timeout: float) -> None:
        with self._condition:
            self._condition.wait_for(lambda: self._generation != seen, timeout)
