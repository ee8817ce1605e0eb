"""The servers a process starts — a test run's, a benchmark's — end with it, however it ends:
SIGKILL included.

A test process (or a benchmark) stops its servers itself when it ends well (``atexit``, fixtures,
``finally``). When it is killed — SIGKILL, an out-of-memory kill, a CI job cancelled
— nothing of it runs, and a server in a session of its own (PostgreSQL's postmaster,
which ``pg_ctl`` detaches) or not in the killed process group would run on. So each
test process has one watchdog: a small Python process in a session of its own, started
at the first server, that holds the read end of a pipe whose write end only the test
process holds. The watchdog reads the servers it is told of; when the pipe ends, the
test process is gone, and it signals each server still running, then removes the
directories it was told of.

Why not ``prctl(PR_SET_PDEATHSIG)``: it fires when the *thread* that started the child
ends (tests start servers from threads too), is lost across ``fork`` (``pg_ctl`` and
``runuser`` fork the server) and when the child's user changes (PostgreSQL runs as
``postgres`` when the tests run as root).

A process is named by its id and its start time (``/proc/<pid>/stat``), so a server
that already ended and whose id was reused is never signalled. Linux only, as the
servers' packages are; elsewhere nothing is watched.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterable
from pathlib import Path

# How long a server that a gentler signal did not end is given before SIGKILL.
GRACE_SECONDS = 10

_lock = threading.Lock()
_watchdog: subprocess.Popen | None = None


def start_time(pid: int) -> str | None:
    """The process's start time in clock ticks since boot (``/proc/<pid>/stat``'s 22nd field),
    None once it has ended (a zombie included)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()
    except OSError:
        return None
    return None if fields[0] == b"Z" else fields[19].decode()


def _tell(line: str) -> None:
    """One line to this process's watchdog, started at the first."""
    global _watchdog
    if not sys.platform.startswith("linux"):
        return
    with _lock:
        if _watchdog is None or _watchdog.poll() is not None:
            # Its own session: a Ctrl-C of the test run reaches it neither (it ignores SIGINT
            # too), and it waits for the test process's orderly end.
            _watchdog = subprocess.Popen([sys.executable, "-I", __file__], stdin=subprocess.PIPE,
                                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                         start_new_session=True, text=True, cwd="/")
        assert _watchdog.stdin is not None
        with contextlib.suppress(OSError):
            _watchdog.stdin.write(line + "\n")
            _watchdog.stdin.flush()


def end_with_this_process(pid: int, signum: int = signal.SIGKILL) -> None:
    """Have ``pid`` sent ``signum`` (then SIGKILL, :data:`GRACE_SECONDS` later) if this process
    ends while it runs."""
    start = start_time(pid)
    if start is not None:
        _tell(f"watch {pid} {start} {int(signum)}")


def remove_after_this_process(path: Path) -> None:
    """Have ``path`` removed (after the servers have ended) if this process is killed."""
    _tell(f"remove {os.fspath(path)}")


def watchdog_pid() -> int | None:
    """This process's watchdog's id, None before the first server."""
    return None if _watchdog is None else _watchdog.pid


def _signal(pids: Iterable[int], signum: int) -> None:
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, signum)


def watch(lines: Iterable[str]) -> None:
    """The watchdog: reads ``watch <pid> <start> <signal>`` and ``remove <path>`` lines until
    they end, which is the end of the test process; then ends what still runs, and removes."""
    watched: dict[int, tuple[str, int]] = {}
    removed: list[str] = []
    for line in lines:
        verb, _, rest = line.rstrip("\n").partition(" ")
        if verb == "watch":
            pid_text, start, signum_text = rest.split()
            watched[int(pid_text)] = (start, int(signum_text))
        elif verb == "remove":
            removed.append(rest)

    def running() -> dict[int, tuple[str, int]]:
        return {pid: how for pid, how in watched.items() if start_time(pid) == how[0]}

    for pid, (_start, signum) in running().items():
        _signal([pid], signum)
    deadline = time.monotonic() + GRACE_SECONDS
    while running() and time.monotonic() < deadline:
        time.sleep(0.05)
    _signal(running(), signal.SIGKILL)
    deadline = time.monotonic() + GRACE_SECONDS
    while running() and time.monotonic() < deadline:  # what a server wrote goes once it has ended
        time.sleep(0.05)
    for path in removed:
        shutil.rmtree(path, ignore_errors=True)


if __name__ == "__main__":
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    watch(sys.stdin)
