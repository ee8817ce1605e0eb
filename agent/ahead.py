"""Running a producer one step ahead of its consumer, in a thread of its own."""

from __future__ import annotations

import contextlib
import queue
import threading
from collections.abc import Iterable, Iterator
from typing import Generic, TypeVar

T = TypeVar("T")
_ITEM, _END, _ERROR = range(3)


class OneAhead(Generic[T]):
    """Iterate ``items`` while a thread already computes the next one.

    The producer starts on the next item only once the consumer has taken the one before, so it
    runs exactly one step ahead: a refresh maps the next Jira page while the hub stores the previous
    one, and never more than that, so a cancel or a stop costs one step of work at most. Stages chain:
    a ``OneAhead`` over a ``OneAhead`` keeps three steps in flight, one in each. An exception in the
    producer is raised to the consumer in its turn, after the items before it. ``close()`` (or
    leaving the ``with`` block) makes the producer stop after the step it is in; it is not waited
    for, since that step may be a Jira request waiting out a rate limit.
    """

    def __init__(self, items: Iterable[T], name: str = "ahead"):
        self._items = items
        self._ready: queue.Queue = queue.Queue(maxsize=1)
        self._taken = threading.Semaphore(0)
        self._closed = threading.Event()
        self._thread = threading.Thread(target=self._produce, name=name, daemon=True)
        self._thread.start()

    def _produce(self) -> None:
        try:
            for item in self._items:
                self._ready.put((_ITEM, item))
                self._taken.acquire()  # the next step starts while the consumer works on this one
                if self._closed.is_set():
                    return
            self._ready.put((_END, None))
        except BaseException as exc:  # handed to the consumer, which decides what it means
            self._ready.put((_ERROR, exc))

    def __iter__(self) -> Iterator[T]:
        while True:
            kind, value = self._ready.get()
            if kind == _END:
                return
            if kind == _ERROR:
                raise value
            self._taken.release()
            yield value

    def close(self) -> None:
        """Stop the producer after its current step; what it had ready is dropped."""
        self._closed.set()
        self._taken.release()  # a producer waiting for its item to be taken wakes up and stops
        with contextlib.suppress(queue.Empty):
            self._ready.get_nowait()  # what was ready is dropped, not held until the producer ends

    def __enter__(self) -> OneAhead[T]:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
