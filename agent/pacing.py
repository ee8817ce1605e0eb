"""Pacing Jira requests to the token bucket Jira Data Center (8.6+) announces in its answers' headers.

Data Center's rate limiting gives each user a bucket of ``X-RateLimit-Limit`` tokens; a request
takes one, ``X-RateLimit-FillRate`` tokens come back every ``X-RateLimit-Interval-Seconds`` (in one
batch, up to the limit), and an empty bucket answers 429 with a ``Retry-After``. Every answer says
what is left in ``X-RateLimit-Remaining``. An agent that only reacts to the 429s spends a long run
bouncing off an empty bucket; one that reads the headers waits, before it asks, until the bucket
has refilled, and meets no 429 at all.

What the pacer waits on is only ever what Jira's latest answer announced: an answer without the
headers (rate limiting turned off or lifted for the user, a proxy or a Jira that limits some
endpoints only, a 429 of a proxy's own) ends the pacing until an answer announces a bucket again,
a bucket configured anew is taken as it now is, and a waiting thread looks again as soon as any
answer comes. No wait lasts past the moment the bucket itself could need to fill up from empty
(``ceil(Limit / FillRate)`` intervals after the answer that announced it), nor past the
``Retry-After`` that answer gave (when it said more than 0), nor past an hour after it.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from agent.retry import GaveUp, told_wait

log = logging.getLogger(__name__)

# No wait on the rate limit is longer, whatever the headers say: past an hour they are more likely
# wrong than the bucket that slow, and the request's own answer says how the bucket stands.
LONGEST_WAIT = 3600.0
# A waiting thread looks at the stop this often; an answer to another thread wakes it at once.
LOOK_EVERY = 0.25


@dataclass(frozen=True)
class Bucket:
    """A bucket as one answer announced it."""

    limit: int
    remaining: int
    fill_rate: int
    interval: float

    def refill_time(self) -> float:
        """Seconds the bucket takes to fill up from empty: the longest any wait on it could need."""
        return math.ceil(self.limit / self.fill_rate) * self.interval

    def shape(self) -> tuple[int, int, float]:
        """The bucket's configuration, without what is left in it."""
        return self.limit, self.fill_rate, self.interval


def announced(headers: Mapping[str, str]) -> Bucket | None:
    """The bucket an answer's headers announce; None when Jira limits nothing (or says too little to pace by)."""
    try:
        bucket = Bucket(int(headers["X-RateLimit-Limit"]), int(headers["X-RateLimit-Remaining"]),
                        int(headers["X-RateLimit-FillRate"]), float(headers["X-RateLimit-Interval-Seconds"]))
    except (KeyError, ValueError):
        return None
    if bucket.limit < 1 or bucket.fill_rate < 1 or not 0 < bucket.interval < math.inf:
        return None
    return bucket


class Pacer:
    """The agent's view of its Jira bucket, shared by every thread that talks to Jira.

    ``before()`` takes a token before a request (waiting while the bucket is likely empty), ``after()``
    learns the bucket from the request's answer. The estimate errs low, never high: an answer's
    ``Remaining`` is counted down by every request taken since this one (they may have been served
    before it, or be in flight) and every earlier one in flight as it was sent, and a batch of
    ``FillRate`` is counted only once a whole ``Interval`` has passed since the answer came (one
    batch falls in every interval, wherever its phase). So requests from the search, the one-ahead
    mapping and attachment fetches running side by side never spend more than Jira holds. An
    answer that announces no bucket ends the pacing (see the module's docstring), and a wait is
    bounded by the bucket's own refill time and Jira's ``Retry-After``. ``on_wait`` is told
    ``"waiting 3 s on Jira's rate limit (0 of 100 left)"`` as a
    wait starts and None as it ends; ``stopping``, once set, ends a wait with GaveUp.
    """

    def __init__(self, on_wait: Callable[[str | None], None] | None = None,
                 stopping: threading.Event | None = None):
        self.on_wait = on_wait
        # Set, it cuts a wait short with GaveUp: an interval may be a minute or an hour, too long to hold a stop.
        self.stopping = stopping or threading.Event()
        self.waited = 0.0  # seconds spent waiting, in all
        self.longest = 0.0  # the longest one wait lasted, in seconds
        self._lock = threading.Lock()
        self._answered = threading.Condition(self._lock)  # notified as each answer comes
        self._issued = 0  # tickets handed out, one a request
        self._in_flight: set[int] = set()
        self._bucket: Bucket | None = None
        self._told: float | None = None  # the Retry-After (> 0) of the answer the bucket was learnt from
        self._base = 0  # tokens Jira held at least, at ``_at``, counting every ticket up to ``_base_ticket``
        self._base_ticket = 0
        self._at = 0.0
        # When each ticket in flight was sent, and how many others were in flight then.
        self._sent: dict[int, tuple[float, int]] = {}
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

    def _pause(self, now: float) -> float:
        """Seconds still to wait before a request; 0: go now."""
        bucket = self._bucket
        if bucket is None:
            return 0.0
        tokens, refill = self._available(bucket, now)
        # One token is left alone on a bucket of more than a few: Jira calls its Remaining
        # "as accurate as it can be", and a 429 costs far more than a token's wait.
        if tokens >= 1 + (bucket.limit > 4):
            return 0.0
        # Past what the bucket could need since Jira last told of it, or past the Retry-After it
        # said, the estimate is the one wrong (a request whose answer was lost, a refill it did not
        # see): the request goes, and its answer tells. Counted from that answer, not from the
        # wait's start: a thread that waited while others took the batches has not waited too long.
        bound = min(bucket.refill_time(), self._told or LONGEST_WAIT, LONGEST_WAIT)
        return max(0.0, min(max(0.01, refill - now), self._at + bound - now))

    def before(self) -> int:
        """Wait until the bucket surely holds a token, take it; the ticket goes to ``after()``."""
        began: float | None = None
        try:
            while True:
                with self._lock:
                    now = time.monotonic()
                    pause = self._pause(now)
                    if pause <= 0:
                        return self._take()
                    if self.stopping.is_set():
                        raise GaveUp("waiting on Jira's rate limit (stopping)")
                    if began is not None:
                        # Woken early by any answer: it may announce another bucket, or none.
                        self._answered.wait(min(pause, LOOK_EVERY))
                        continue
                    began = now
                    assert self._bucket is not None  # a pause is only ever on a bucket
                    message = (f"waiting {math.ceil(pause)} s on Jira's rate limit"
                               f" ({self._bucket.remaining} of {self._bucket.limit} left)")
                if self.on_wait:
                    self.on_wait(message)
                # A paced run waits about once an interval: only the long waits are worth a line at info.
                log.log(logging.INFO if pause >= 5 else logging.DEBUG, "%s", message)
        finally:
            if began is not None:
                took = time.monotonic() - began
                with self._lock:
                    self.waited += took
                    self.longest = max(self.longest, took)
                if self.on_wait:
                    self.on_wait(None)

    def _take(self) -> int:
        self._issued += 1
        self._in_flight.add(self._issued)
        self._sent[self._issued] = (time.monotonic(), len(self._in_flight) - 1)
        return self._issued

    def unpaced(self) -> int:
        """A ticket taken without waiting, for a request that must go whatever the bucket (the probe
        of whether Jira answers); its answer still goes to ``after()``, and teaches the pacer."""
        with self._lock:
            return self._take()

    def after(self, ticket: int, headers: Mapping[str, str] | None, status: int = 200) -> None:
        """The answer to ``ticket`` came (``headers`` None: no answer, a network error)."""
        with self._lock:
            self._in_flight.discard(ticket)
            (sent, overlapping), now = self._sent.pop(ticket, (0.0, 0)), time.monotonic()
            if headers is None:
                return  # nothing heard of the bucket; the request is still counted as spent
            self._answered.notify_all()
            bucket = announced(headers)
            if bucket is None:
                # Jira no longer announces a bucket to this user, or this answer did not pass by it (a
                # proxy's own 429, an endpoint not limited): the pacing waits on nothing it no longer
                # says; a 429 is waited out by the retry, as its Retry-After says.
                self._bucket = self._last = self._phase = self._told = None
                return
            if self._bucket is not None and bucket.shape() != self._bucket.shape():
                # Configured anew: when the old bucket's refills fell says nothing of the new one's.
                self._last = self._phase = None
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
            # Every ticket after this one, and every earlier one in flight when this one was sent
            # (answered since or not: Jira's threads may serve them in any order), may have been
            # served after Jira counted this Remaining: all are taken off it.
            later = self._issued - ticket
            earlier = overlapping
            self._bucket = bucket
            # "0" is what Jira says while tokens are left: it says nothing of when they come back.
            self._told = told_wait(headers) or None
            self._base = bucket.remaining - later - earlier
            self._base_ticket = self._issued
            self._at = now
