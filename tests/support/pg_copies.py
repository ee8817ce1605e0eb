"""Copies of the run's PostgreSQL template, made ahead of the tests that take them.

Each test on PostgreSQL gets a database of its own, a copy of a migrated template. Its
``CREATE DATABASE … TEMPLATE`` writes every file of it anew (tens of milliseconds of the
machine's CPU, most of it the kernel's) and waits on two checkpoints (tenths of a second on
a busy machine), and its ``DROP DATABASE`` waits too. A thread of
the test process makes the next copies while a test runs and takes back the ones given back,
so that a test starts on a copy already made: the test still has a database of its own at
the template's schema and rows; only the waiting moves off its path.

A copy given back is not dropped but reset (tests/support/pg_reset.py): its connections
ended, its tables emptied and the template's rows and sequences put back, then handed to the
next taker. Only a copy whose schema a test changed is dropped, and a new one made.
"""

from __future__ import annotations

import queue
import threading

from devservers.postgres import PostgresServer
from tests.support.pg_reset import TemplateState

# Copies kept ready: two cover a test that takes one while the next is being made.
AHEAD = 2


class TemplateCopies:
    """Databases copied from ``template`` on ``server``, :data:`AHEAD` kept ready by a thread.

    :meth:`take` hands out a copy of its own to each caller (made at once if none is ready);
    :meth:`give_back` has it reset in the background for the next taker (or dropped, if its
    schema is no longer the template's); :meth:`close` stops the thread and drops what is
    left, before the template itself goes.
    """

    def __init__(self, server: PostgresServer, template: str, ahead: int = AHEAD):
        self.server = server
        self.template = template
        self.ahead = ahead
        self.state = TemplateState.read(server.url(template))
        self.reused = 0  # copies given back and handed out again
        self._ready: queue.Queue[str] = queue.Queue()
        self._given_back: list[str] = []
        self._changed = threading.Condition()
        self._closed = False
        self._thread = threading.Thread(target=self._work, name="template-copies", daemon=True)
        self._thread.start()

    def take(self) -> str:
        """The name of a new database at the template's schema, for the caller alone."""
        try:
            name = self._ready.get_nowait()
        except queue.Empty:
            # None ready (the thread is making one, or failed): this one is made here, now.
            return self.server.create_database(template=self.template)
        with self._changed:
            self._changed.notify()
        return name

    def give_back(self, name: str) -> None:
        """Have the database ``name`` (of :meth:`take`) reset for the next taker, any connection
        left to it ended; or dropped, if a test changed its schema."""
        with self._changed:
            self._given_back.append(name)
            self._changed.notify()

    def ready(self) -> int:
        """How many copies are made and not taken yet."""
        return self._ready.qsize()

    def close(self) -> None:
        """Stop making copies, and drop the ready ones and those given back."""
        with self._changed:
            self._closed = True
            self._changed.notify()
        self._thread.join(timeout=120)
        left = list(self._given_back)
        while not self._ready.empty():
            left.append(self._ready.get_nowait())
        for name in left:
            self.server.drop_database(name)

    def _work(self) -> None:
        while True:
            with self._changed:
                self._changed.wait_for(lambda: self._closed or self._given_back or self._ready.qsize() < self.ahead)
                if self._closed:
                    return
                given = self._given_back.pop(0) if self._given_back else None
            # A failure here leaves the work to take() and close(), which do it in the caller's
            # thread and raise there, where a test reports it.
            try:
                if given is not None:
                    self._recycle(given)
                else:
                    self._ready.put(self.server.create_database(template=self.template))
            except Exception:
                if given is not None:
                    with self._changed:
                        self._given_back.append(given)
                return

    def _recycle(self, name: str) -> None:
        """Reset ``name`` and make it ready again; drop it if it cannot be reset."""
        self.server.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                            f" WHERE datname = '{name}' AND pid <> pg_backend_pid()")
        if self.state.reset(self.server.url(name)):
            self.reused += 1
            self._ready.put(name)
        else:
            self.server.drop_database(name)
