"""Pacing Jira requests to the token bucket Jira Data Center (8.6+) announces in its answers' headers.

Data Center's rate limiting gives each user a bucket of ``X-RateLimit-Limit`` tokens; a request
takes one, ``X-RateLimit-FillRate`` tokens come back every ``X-RateLimit-Interval-Seconds`` (in one
batch, up to the limit), and an empty bucket answers 429 with a ``Retry-After``. Every answer says
what is left in ``X-RateLimit-Remaining``. An agent that only reacts to the 429s spends a long run
bouncing off an empty bucket; one that reads the headers waits, before it asks, until the bucket
has refilled, and meets no 429 at all.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from agent.retry import GaveUp

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Bucket:
    """A bucket as one answer announced it."""

    limit: int
    remaining: int
    fill_rate: int
    interval: float


def announced(headers: Mapping[str, str]) -> Bucket | None:
    """The bucket an answer's headers announce; None when Jira limits nothing (or says too little to pace by)."""
    try:
        bucket = Bucket(int(headers["X-RateLimit-Limit"]), int(headers["X-RateLimit-Remaining"]),
                        int(headers["X-RateLimit-FillRate"]), float(headers["X-RateLimit-Interval-Seconds"]))
    except (KeyError, ValueError):
        return None
    if bucket.limit < 1 or bucket.fill_rate < 1 or bucket.interval <= 0:
        return None
    return bucket


class Pacer:
    """The agent's view of its Jira bucket, shared by every thread that talks to Jira.

    ``before()`` takes a token before a request (waiting while the bucket is likely empty), ``after()``
    learns the bucket from the request's answer. The estimate errs low, never high: an answer's
    ``Remaining`` is counted down by every request taken since this one (they may have been served
    before it, or be in flight), and a batch of ``FillRate`` is counted only once a whole
    ``Interval`` has passed since the answer came (one batch falls in every interval, wherever its
    phase). So requests from the search, the one-ahead mapping and attachment fetches running side by
    side never spend more than Jira holds. ``on_wait`` is told ``"waiting 3 s on Jira's rate limit
    (0 of 100 left)"`` as a wait starts and None as it ends; ``stopping``, once set, ends a wait
    with GaveUp.
    """

    def __init__(self, on_wait: Callable[[str | None], None] | None = None,
                 stopping: threading.Event | None = None):
        self.on_wait = on_wait
        # Set, it cuts a wait short with GaveUp: an interval may be a minute or an hour, too long to hold a stop.
        self.stopping = stopping or threading.Event()
        self.waited = 0.0  # seconds spent waiting, in all
        self._lock = threading.Lock()
        self._issued = 0  # tickets handed out, one a request
        self._in_flight: set[int] = set()
        self._bucket: Bucket | None = None
        self._base = 0  # tokens Jira held at least, at ``_at``, counting every ticket up to ``_base_ticket``
        self._base_ticket = 0
        self._at = 0.0
        self._sent: dict[int, float] = {}  # when each ticket in flight was sent
        self._last: tuple[float, float, int] | None = None  # (sent, answered, Remaining) of the last answer
        self._phase: tuple[float, float] | None = None

    def _credits(self, bucket: Bucket, now: float) -> tuple[int, float]:
        """Batches surely added since the last answer, and the moment the next is surely in.

        Without the bucket's phase a batch counts once a whole interval has passed since the answer
        came; once an answer has shown a batch landing between two others (``_phase``: the latest
        moment it could have landed, and how unsure that is), batches fall at that moment plus whole
        intervals, and one counts once it is past the answer by more than the unsureness."""
        interval = bucket.interval
        if self._phase is None:
            batches = math.floor((now - self._at) / interval)
            return batches, self._at + (batches + 1) * interval
        landed, unsure = self._phase
        first = self._at + unsure  # batches at or before this may be in the answer's Remaining already
        batches = max(0, math.floor((now - landed) / interval) - math.floor((first - landed) / interval))
        return batches, landed + (math.floor((max(now, first) - landed) / interval) + 1) * interval

    def _available(self, bucket: Bucket, now: float) -> tuple[float, float]:
        """Tokens surely left now, and the moment the next batch is surely in."""
        batches, refill = self._credits(bucket, now)
        tokens = min(bucket.limit, self._base + batches * bucket.fill_rate) - (self._issued - self._base_ticket)
        return tokens, refill

    def before(self) -> int:
        """Wait until the bucket surely holds a token, take it; the ticket goes to ``after()``."""
        told = False
        try:
            while True:
                with self._lock:
                    if self._bucket is None:
                        return self._take()
                    now = time.monotonic()
                    tokens, refill = self._available(self._bucket, now)
                    # One token is left alone on a bucket of more than a few: Jira calls its Remaining
                    # "as accurate as it can be", and a 429 costs far more than a token's wait.
                    if tokens >= 1 + (self._bucket.limit > 4):
                        return self._take()
                    pause = max(0.01, refill - now)
                    message = (f"waiting {math.ceil(pause)} s on Jira's rate limit"
                               f" ({self._bucket.remaining} of {self._bucket.limit} left)")
                    self.waited += pause
                if self.on_wait and not told:
                    self.on_wait(message)
                    told = True
                # A paced run waits about once an interval: only the long waits are worth a line at info.
                log.log(logging.INFO if pause >= 5 else logging.DEBUG, "%s", message)
                if self.stopping.wait(pause):
                    raise GaveUp("waiting on Jira's rate limit (stopping)")
        finally:
            if told and self.on_wait:
                self.on_wait(None)

    def _take(self) -> int:
        self._issued += 1
        self._in_flight.add(self._issued)
        self._sent[self._issued] = time.monotonic()
        return self._issued

    def after(self, ticket: int, headers: Mapping[str, str] | None, status: int = 200) -> None:
        """The answer to ``ticket`` came (``headers`` None: no answer, a network error)."""
        with self._lock:
            self._in_flight.discard(ticket)
            sent, now = self._sent.pop(ticket, 0.0), time.monotonic()
            bucket = announced(headers) if headers is not None else None
            if bucket is None:
                return
            if status == 429:
                self._phase = None  # the bucket is not the one this pacer thought: back to the safe credit
            elif self._last is not None and sent >= self._last[1] and bucket.remaining > self._last[2]:
                # Sent after the last answer came and holding more: a batch landed between the two
                # requests being served, so after the last was sent and before this one came back.
                # Kept only if it places the batches more closely than what was known.
                unsure = now - self._last[0]
                if unsure < bucket.interval / 2 and (self._phase is None or unsure < self._phase[1]):
                    self._phase = (now, unsure)
            self._last = (sent, now, bucket.remaining)
            # Every ticket after this one, and every earlier one still in flight, may have been served
            # after Jira counted this Remaining: all are taken off it.
            later = self._issued - ticket
            earlier = sum(1 for t in self._in_flight if t < ticket)
            self._bucket = bucket
            self._base = bucket.remaining - later - earlier
            self._base_ticket = self._issued
            self._at = now
