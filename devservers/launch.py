"""How a server is had once per run: on free loopback ports, tried again when a port is
taken first, or the reason it cannot be had on this machine (:class:`Unavailable`), kept
for the rest of the run so that nothing tries again."""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def free_port() -> int:
    """A loopback port free now (another process may take it before it is bound)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class PortTaken(Exception):
    """A server exited because a port found free for it was taken before it bound it."""


PORT_ATTEMPTS = 3


def on_free_ports(launch: Callable[[], T]) -> T:
    """``launch()`` (which starts a server on ports of :func:`free_port`), again while it
    raises :class:`PortTaken`, at most :data:`PORT_ATTEMPTS` times: a port found free may be
    taken by another process before the server binds it, and the test processes start their
    servers at the same moment."""
    for _ in range(PORT_ATTEMPTS - 1):
        try:
            return launch()
        except PortTaken:
            pass
    try:
        return launch()
    except PortTaken as exc:
        raise Unavailable(f"a port of the server was taken {PORT_ATTEMPTS} times: {exc}") from None


class Unavailable(Exception):
    """An engine cannot be had on this machine; the message says why (and how to get it)."""


def once(start: Callable[[], T]) -> Callable[[], tuple[T | None, str | None]]:
    """``start`` called at the first call only (under a lock), its engine or the reason it
    raised (:class:`Unavailable`) kept for the rest of the run: ``(engine, None)`` or ``(None, why)``."""
    lock = threading.Lock()
    outcome: list[tuple[T | None, str | None]] = []

    def get() -> tuple[T | None, str | None]:
        with lock:
            if not outcome:
                try:
                    outcome.append((start(), None))
                except Unavailable as exc:
                    outcome.append((None, str(exc)))
            return outcome[0]

    get.__doc__ = start.__doc__
    return get
