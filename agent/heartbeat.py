"""What the agent's heartbeats tell the hub, kept by the commands as they run.

A heartbeat goes every third of the lease, and at once when what it tells operators changes: a new
problem with Jira (a sign-in page, a refused credential, a 429 or a network error it retries), a wait
on Jira's rate limit beginning, Jira answering or not any more. The periodic heartbeat keeps the
leases; the one sent at once is what lets the operations page show trouble when it starts, not up
to a third of the lease later.
"""

from __future__ import annotations

import threading

# A burst of changes (a Jira that comes and goes) is told at most this often.
LEAST_GAP = 1.0


class Status:
    """The agent's state and detail as its next heartbeat tells them; ``changed`` is set whenever
    something the operators should hear of at once may have changed (see :meth:`news`)."""

    def __init__(self) -> None:
        self.changed = threading.Event()
        self._lock = threading.Lock()
        self._details: dict[int, str] = {}  # each running command's progress, by command id
        self._running: set[int] = set()
        self._problem: str | None = None
        # Waits on Jira's rate limit: how many threads wait now, what the last said, and whether one
        # ended since the last heartbeat (a wait shorter than the heartbeat's period is still told).
        self._rate_waiting, self._rate_wait, self._rate_wait_ended = 0, "", False

    # --- what the commands say ----------------------------------------------------------

    def begin(self, command_id: int) -> None:
        """A command is in hand: the agent is ``working`` until it ends, whatever it waits on."""
        with self._lock:
            self._running.add(command_id)

    def end(self, command_id: int) -> None:
        """The command ended (done, failed, dropped or stopped)."""
        with self._lock:
            self._running.discard(command_id)
            self._details.pop(command_id, None)

    def running(self) -> list[int]:
        """The commands in hand now, oldest first: the heartbeat's ``holding`` (v19)."""
        with self._lock:
            return sorted(self._running)

    def say(self, command_id: int, detail: str) -> None:
        """The command's progress, e.g. ``project = AURORA: page 3 of 7``."""
        with self._lock:
            self._details[command_id] = detail

    @property
    def problem(self) -> str | None:
        """The last trouble with Jira, told until a command runs through (then None)."""
        return self._problem

    @problem.setter
    def problem(self, said: str | None) -> None:
        with self._lock:
            new, self._problem = said != self._problem, said
        if new:
            self.changed.set()

    def rate_waits(self, message: str | None) -> None:
        """The pacer's ``on_wait``: a wait on Jira's rate limit begins (its message) or ends (None)."""
        with self._lock:
            if message:
                self._rate_waiting += 1
                self._rate_wait = message
            else:
                self._rate_waiting -= 1
                self._rate_wait_ended = True
        if message:
            self.changed.set()

    # --- what the heartbeat tells -------------------------------------------------------

    def news(self) -> tuple[str | None, bool]:
        """What a heartbeat is sent at once for when it differs from what the last one told: the
        problem, and whether a wait on the rate limit is told (one going on, or one since the last)."""
        with self._lock:
            return self._problem, bool(self._rate_waiting or self._rate_wait_ended)

    def report(self) -> tuple[str, str | None]:
        """``(state, detail)`` for a heartbeat: ``working`` while any command is in hand (waiting on
        Jira's rate limit or a retry included), and the detail led by the rate-limit wait (the one going
        on, or the last since the heartbeat before), then the problem, then each command's progress."""
        with self._lock:
            rate = self._rate_wait if self._rate_waiting or self._rate_wait_ended else None
            self._rate_wait_ended = False
            state = "working" if self._running else "idle"
            progress = "; ".join(detail for detail in self._details.values() if detail) or None
            told = [said for said in (rate, self._problem, progress) if said]
        return state, "; ".join(told) or None
