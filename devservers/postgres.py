"""A PostgreSQL server of the machine's own packages, started once per run on a loopback
port in a throw-away cluster, for the tests and the benchmarks.

:func:`postgres_server` finds ``initdb`` and ``pg_ctl`` (Debian's ``postgresql`` package
puts them under ``/usr/lib/postgresql/<v>/bin``), creates a cluster under the system's
temporary directory, starts it with durability off (a test run or a benchmark needs no crash
safety) and stops it at exit; killed, the process's reaper (:mod:`devservers.reaper`) ends it.
As root, which PostgreSQL refuses to run as, the server runs as the ``postgres`` user.
``HUB_TEST_POSTGRES_URL`` names a server to use instead (a superuser's URL).
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
import subprocess
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from devservers.launch import PortTaken, Unavailable, free_port, on_free_ports, once
from devservers.reaper import end_with_this_process, remove_after_this_process


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


def _start() -> PostgresServer:
    """The run's PostgreSQL server, started at the first call; or None and why not."""
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
