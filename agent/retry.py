"""Retrying HTTP requests: network errors, 5xx and 429 are waited out, bounded; anything else is the caller's."""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from email.utils import parsedate_to_datetime

import httpx

log = logging.getLogger(__name__)

RETRIED_STATUSES = {429, 500, 502, 503, 504}


@dataclass(frozen=True)
class Backoff:
    """Exponential backoff with full jitter: ``first`` doubling up to ``longest``, ``attempts`` tries in all."""

    first: float = 1.0
    longest: float = 30.0
    attempts: int = 6
    # A server's Retry-After is honoured up to this; past it the server is more likely wrong than busy.
    longest_told: float = 300.0

    def pause(self, attempt: int) -> float:
        ceiling = min(self.longest, self.first * (2 ** attempt))
        # Jitter spreads agents that lost the same server at once, so they do not come back at once.
        return random.uniform(ceiling / 2, ceiling)


def retry_after(response: httpx.Response) -> float | None:
    """Seconds from a ``Retry-After`` header (seconds or an HTTP date); None without one."""
    return told_wait(response.headers)


def told_wait(headers: Mapping[str, str]) -> float | None:
    """Seconds from the ``Retry-After`` of an answer's headers (seconds or an HTTP date); None without one."""
    value = headers.get("Retry-After")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
    except (TypeError, ValueError):
        return None


class GaveUp(Exception):
    """Retries ran out; ``reason`` says what the last try met."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


def send(request: Callable[[], httpx.Response], backoff: Backoff, what: str,
         stopping: threading.Event | None = None, on_wait: Callable[[str], None] | None = None) -> httpx.Response:
    """Call ``request`` until it answers something other than a retried status or a network error.

    The response of the last try is returned when it is a retried status and tries ran out,
    so the caller can tell the operator what the server said; network errors raise GaveUp.
    """
    for attempt in range(backoff.attempts):
        try:
            response = request()
        except httpx.TransportError as exc:
            reason = f"{what} unreachable: {exc.__class__.__name__}: {exc}"
            if attempt + 1 == backoff.attempts:
                raise GaveUp(reason) from exc
            pause = backoff.pause(attempt)
        else:
            if response.status_code not in RETRIED_STATUSES or attempt + 1 == backoff.attempts:
                return response
            reason = f"{what} answered {response.status_code}"
            told = retry_after(response)
            # "0" is what Data Center's rate limiting says while tokens are left: on a 429 or a 5xx it
            # would have every try spent at once, so the backoff decides then.
            pause = min(told, backoff.longest_told) if told else backoff.pause(attempt)
            response.close()
        # Said every time: an agent that waits in silence on an unreachable Jira
        # or hub looks hung to whoever just started it.
        log.warning("%s; trying again in %.1f s (attempt %d of %d)", reason, pause, attempt + 1,
                    backoff.attempts)
        if on_wait:
            on_wait(reason)
        if stopping is not None:
            if stopping.wait(pause):
                raise GaveUp(reason + " (stopping)")
        else:
            time.sleep(pause)
    raise GaveUp(f"{what}: no attempts")  # only with attempts = 0
