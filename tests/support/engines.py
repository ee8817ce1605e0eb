"""Real engines the tests run the hub on: a PostgreSQL server of the machine's own
packages, started once per test run on a loopback port in a throw-away cluster.

Nothing here is a mock. :func:`postgres_server` finds ``initdb`` and ``pg_ctl``
(Debian's ``postgresql`` package puts them under ``/usr/lib/postgresql/<v>/bin``),
creates a cluster under the system's temporary directory, starts it with
durability off (a test run needs no crash safety) and stops it at exit. As root,
which PostgreSQL refuses to run as, the server runs as the ``postgres`` user.
``HUB_TEST_POSTGRES_URL`` names a server to use instead (a superuser's URL).

When no server can be had, :func:`require` skips the test with the reason,
and fails it under ``CI=true``: CI installs what the tests need.
"""

from __future__ import annotations

import atexit
import contextlib
import glob
import itertools
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar
from urllib.parse import urlsplit, urlunsplit

import pytest

from tests.support.reaper import end_with_this_process, remove_after_this_process

T = TypeVar("T")


def require(reason: str | None) -> None:
    """Skip (or, with CI=true, fail) the calling test when ``reason`` says an engine is missing."""
    if reason is None:
        return
    if os.environ.get("CI") == "true":
        pytest.fail(f"cannot run in CI: {reason}")
    pytest.skip(reason)


def free_port() -> int:
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


def _postgres_bin() -> Path | None:
    found = shutil.which("pg_ctl")
    if found:
        return Path(os.path.realpath(found)).parent
    versions = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"),
                      key=lambda p: int(Path(p).parent.parent.name) if Path(p).parent.parent.name.isdigit() else 0)
    return Path(versions[-1]).parent if versions else None


@dataclass
class PostgresServer:
    """A running PostgreSQL server and a superuser's URL to it."""

    admin_url: str
    _counter: itertools.count
    _lock: threading.Lock
    _version: int | None = None

    def url(self, database: str) -> str:
        """The superuser's URL to ``database`` on this server."""
        parts = urlsplit(self.admin_url)
        return urlunsplit(parts._replace(path="/" + database))

    def execute(self, sql: str, database: str = "postgres") -> list[tuple]:
        """Run one statement outside a transaction (CREATE DATABASE needs that); its rows."""
        import psycopg

        with psycopg.connect(self.url(database), autocommit=True) as conn, conn.cursor() as cur:
            cur.execute(sql)
            return cur.fetchall() if cur.description else []

    def create_database(self, template: str | None = None, prefix: str = "hub_test") -> str:
        """A new, empty database (a copy of ``template`` if given); its name."""
        with self._lock:
            name = f"{prefix}_{os.getpid()}_{next(self._counter)}"
        suffix = f' TEMPLATE "{template}"' if template else ""
        if template and self._copies_files():
            # A copy of the small template file by file, rather than written through the WAL
            # (15's default), takes half the time; with fsync off its checkpoints cost nothing.
            suffix += " STRATEGY FILE_COPY"
        self.execute(f'CREATE DATABASE "{name}"{suffix}')
        return name

    def _copies_files(self) -> bool:
        """Whether CREATE DATABASE takes a STRATEGY here (PostgreSQL 15 and later)."""
        if self._version is None:
            self._version = int(self.execute("SHOW server_version_num")[0][0])
        return self._version >= 150000

    def drop_database(self, name: str) -> None:
        self.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


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


def _start() -> PostgresServer:
    """The test run's PostgreSQL server, started at the first call; or None and why not."""
    try:
        import psycopg  # noqa: F401
    except ImportError:
        raise Unavailable("psycopg is not installed (pip install -e '.[test,postgres]')") from None
    given = os.environ.get("HUB_TEST_POSTGRES_URL")
    if given:
        return PostgresServer(given, itertools.count(1), threading.Lock())
    bindir = _postgres_bin()
    if bindir is None or not (bindir / "initdb").exists():
        raise Unavailable("no PostgreSQL server found (apt-get install postgresql)")
    root = Path(tempfile.mkdtemp(prefix="hub-pg-"))
    remove_after_this_process(root)
    run_as: list[str] = []
    if os.geteuid() == 0:
        # PostgreSQL will not run as root: the cluster belongs to the postgres user.
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            raise Unavailable("running as root and there is no postgres user to run PostgreSQL as") from None
        shutil.chown(root, "postgres")
        run_as = ["runuser", "-u", "postgres", "--"]
    data = root / "data"
    _run([*run_as, str(bindir / "initdb"), "-D", str(data), "-A", "trust", "-U", "hub",
          "--encoding", "UTF8", "--locale", "C.UTF-8"], "initdb")
    def launch() -> int:
        port = free_port()
        options = (f"-p {port} -k {root} -c listen_addresses=127.0.0.1 -c fsync=off "
                   "-c synchronous_commit=off -c full_page_writes=off -c max_connections=300 "
                   "-c shared_buffers=128MB")
        log = root / f"log-{port}"
        try:
            _run([*run_as, str(bindir / "pg_ctl"), "-D", str(data), "-o", options, "-l", str(log),
                  "-w", "-t", "60", "start"], "pg_ctl start", log=log)
        except Unavailable as exc:
            if log.exists() and "already in use" in log.read_text(errors="replace"):
                raise PortTaken(str(exc)) from None
            raise
        return port

    port = on_free_ports(launch)
    atexit.register(_stop, run_as, bindir, data, root)
    # pg_ctl detached the postmaster: if this process is killed, SIGQUIT to it (an
    # immediate shutdown, whose children go with it), and the cluster is removed.
    end_with_this_process(int((data / "postmaster.pid").read_text().split()[0]), signal.SIGQUIT)
    return PostgresServer(f"postgresql://hub@127.0.0.1:{port}/postgres", itertools.count(1), threading.Lock())


def _run(argv: list[str], what: str, log: Path | None = None) -> None:
    done = subprocess.run(argv, capture_output=True, text=True, cwd="/")
    if done.returncode != 0:
        tail = log.read_text()[-2000:] if log and log.exists() else ""
        raise Unavailable(f"{what} failed ({done.returncode}): {done.stderr.strip()[-2000:]} {tail}")


def _stop(run_as: list[str], bindir: Path, data: Path, root: Path) -> None:
    with contextlib.suppress(OSError):
        subprocess.run([*run_as, str(bindir / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"],
                       capture_output=True, cwd="/", timeout=60)
    shutil.rmtree(root, ignore_errors=True)


postgres_server = once(_start)
