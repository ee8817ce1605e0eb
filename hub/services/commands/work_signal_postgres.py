"""The work signal of a PostgreSQL hub
(:class:`hub.services.commands.work_signal.WorkSignal`): this process's claims
woken at once, and every other node's through PostgreSQL's ``LISTEN``/``NOTIFY``
on the channel :data:`CHANNEL`.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
import weakref

import peewee

from hub.db import database
from hub.services.commands.work_signal import Generations, WorkSignal

log = logging.getLogger(__name__)

# The channel every node of one database listens on.
CHANNEL = "hub_work"
# How long the listener waits for a notification before it looks whether it
# should stop; and how long it waits before connecting again after losing its
# connection (doubled up to RECONNECT_MAX_SECONDS while the server stays away).
LISTEN_TICK_SECONDS = 1.0
RECONNECT_FIRST_SECONDS = 0.5
RECONNECT_MAX_SECONDS = 30.0


class PostgresWorkSignal(WorkSignal):
    """Wakes long-polling claims in this process and in every other process on the
    same PostgreSQL database.

    ``notify`` wakes this process's claims at once and sends ``NOTIFY`` on
    :data:`CHANNEL` through the hub's own connection: inside a transaction
    PostgreSQL delivers it at COMMIT (and never, on ROLLBACK), so no node looks
    for work that is not visible yet. One thread per process holds a
    connection of its own that ``LISTEN``\\ s, started by the first claim that
    waits, and wakes the claims waiting here when a notification comes from
    another process. While that connection is lost, claims still look every
    ``dispatch.POLL_SECONDS``: a lost notification delays work, never loses it.
    """

    def __init__(self, url: str) -> None:
        self._here = Generations()
        self._url = url
        # Names this process's notifications, so that the listener does not
        # wake claims a second time for what notify() woke already.
        self._origin = uuid.uuid4().hex
        self._start_lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._listening = threading.Event()
        self._stopping = threading.Event()
        # A signal nobody holds any more (a hub built and let go) stops its listener.
        weakref.finalize(self, self._stopping.set)

    def notify(self) -> None:
        """Wake this process's claims, and send ``NOTIFY`` for the other processes'."""
        inside = database.in_transaction()
        if not inside:
            self._here.bump()
        # Inside a transaction the wake-up here waits for COMMIT too: the
        # listener hears the notification back (no origin named) and wakes
        # them then, when the work can be seen.
        payload = "" if inside else self._origin
        try:
            database.execute_sql("SELECT pg_notify(?, ?)", (CHANNEL, payload))
        except (peewee.OperationalError, peewee.InterfaceError) as exc:
            if inside:
                raise
            # The work is committed; the other nodes find it at their next look.
            log.warning("work signal: could not notify the other nodes (%s); "
                        "they will see the work within a second", exc)

    def generation(self) -> int:
        """A number that changes at every notification: read it before looking for work."""
        return self._here.current()

    def wait(self, seen: int, timeout: float) -> None:
        """Return once the generation is no longer ``seen``, or after ``timeout`` seconds.
        The first call starts the listener and waits (within ``timeout``) until it
        listens, so that no notification sent after this wait began is missed."""
        began = time.monotonic()
        self.start(timeout)
        self._here.wait(seen, max(0.0, timeout - (time.monotonic() - began)))

    def start(self, timeout: float = 5.0) -> bool:
        """Start the listener if it is not running; whether it listens within ``timeout``."""
        with self._start_lock:
            if self._thread is None or not self._thread.is_alive():
                if self._stopping.is_set():
                    return False
                self._thread = threading.Thread(
                    target=_listen, name="work-signal", daemon=True,
                    args=(weakref.ref(self), self._url, self._origin, self._stopping, self._listening))
                self._thread.start()
        return self._listening.wait(timeout)

    @property
    def listening(self) -> bool:
        """Whether the listener's connection is up and listening."""
        return self._listening.is_set()

    def close(self) -> None:
        """Stop the listener and close its connection (within LISTEN_TICK_SECONDS)."""
        self._stopping.set()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(LISTEN_TICK_SECONDS * 3)


def _listen(signal: weakref.ref, url: str, origin: str, stopping: threading.Event,
            listening: threading.Event) -> None:
    """The listener thread of a :class:`PostgresWorkSignal` it holds only weakly: it ends
    when the signal is closed or no longer held (its finalizer sets ``stopping``)."""
    import psycopg

    def bump() -> None:
        held = signal()
        if held is not None:
            held._here.bump()

    pause = RECONNECT_FIRST_SECONDS
    while not stopping.is_set():
        try:
            with psycopg.connect(url, autocommit=True, connect_timeout=10) as conn:
                conn.execute(f"LISTEN {CHANNEL}")
                pause = RECONNECT_FIRST_SECONDS
                # Whatever was sent while this process was not listening
                # is found by the claims' next look: have them look now.
                bump()
                listening.set()
                while not stopping.is_set():
                    for note in conn.notifies(timeout=LISTEN_TICK_SECONDS):
                        if note.payload != origin:
                            bump()
        except psycopg.Error as exc:
            listening.clear()
            if stopping.is_set():
                break
            log.warning("work signal: lost the listening connection (%s); "
                        "claims look every second until it is back", exc)
            stopping.wait(pause)
            pause = min(pause * 2, RECONNECT_MAX_SECONDS)
    listening.clear()
