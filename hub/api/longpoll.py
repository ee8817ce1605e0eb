"""A bounded share of the worker threads for long-polls.

A long-poll (a claim with ``wait``, ``GET /api/v1/attachments/{id}?wait=``)
holds a waitress worker thread for as long as it waits. Without a bound, as
many pollers as there are threads freeze the hub: nothing else is answered.
:class:`LongPolls` lets at most ``HUB_LONG_POLL_THREADS`` wait at once; a poll
that finds no slot free answers at once with what is there now, and a
``Retry-After`` that tells the client when to come back.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import falcon

# Seconds a poll turned away should wait before polling again: long enough that
# a crowd of pollers past the share costs a few requests a second each, short
# enough that none of them notices much delay.
RETRY_AFTER_SECONDS = 2


# How /openapi.json describes the header on a poll that was not let wait.
RETRY_AFTER_HEADER = {200: {"Retry-After": {
    "description": "sent when no long-poll slot was free: the answer is what is there now; "
                   "poll again after this many seconds",
    "required": False, "schema": {"type": "string"}}}}


def never_gone() -> bool:
    """The client of a call made outside an HTTP server never goes away."""
    return False


class LongPolls:
    """At most ``slots`` long-polls wait at once; the others answer at once."""

    def __init__(self, slots: int, retry_after: int = RETRY_AFTER_SECONDS):
        self._slots = threading.BoundedSemaphore(slots)
        self._lock = threading.Lock()
        self._waiting = 0
        self.size = slots
        self.retry_after = retry_after

    @contextmanager
    def slot(self, resp: falcon.Response) -> Iterator[bool]:
        """Take a slot without blocking; yields whether the caller may wait.

        When no slot is free, ``resp`` gets ``Retry-After`` and the caller must
        answer with what is there now.
        """
        taken = self._slots.acquire(blocking=False)
        if not taken:
            resp.set_header("Retry-After", str(self.retry_after))
            yield False
            return
        with self._lock:
            self._waiting += 1
        try:
            yield True
        finally:
            with self._lock:
                self._waiting -= 1
            self._slots.release()

    @property
    def waiting(self) -> int:
        """How many long-polls hold a slot now."""
        return self._waiting


def client_gone(req: falcon.Request) -> Callable[[], bool]:
    """A callable that tells whether the request's client has closed its connection.

    waitress puts ``waitress.client_disconnected`` in the environ; it only sees
    a close while a request runs if ``channel_request_lookahead`` > 0 (``hub
    serve`` sets it). Other servers: the client is taken to be there.
    """
    return req.env.get("waitress.client_disconnected") or never_gone
