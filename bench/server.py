"""A hub served in a subprocess on a scratch data dir, and a scratch PostgreSQL database, for
the benchmarks."""

from __future__ import annotations

import http.client
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

HUB = str(Path(sys.executable).parent / "hub")
AGENT = str(Path(sys.executable).parent / "hub-agent")


def hub_command(data_dir: Path, *args: str) -> str:
    """Run ``hub ARGS`` on ``data_dir``; its stdout."""
    env = {**os.environ, "HUB_DATA_DIR": str(data_dir)}
    return subprocess.run([HUB, *args], env=env, capture_output=True, text=True, check=True).stdout


def serve(data_dir: Path, **settings: str) -> tuple[subprocess.Popen, int]:
    """``hub serve --no-worker`` on a free port; the process and the port.

    Its output (a line per request) goes to a file beside ``data_dir``, as it would
    to a journal: read from a pipe, it would need a reader in the benchmark's own
    process, taking turns at the GIL with what the benchmark measures.
    """
    env = {**os.environ, **settings, "HUB_DATA_DIR": str(data_dir), "HUB_PORT": "0",
           "PYTHONUNBUFFERED": "1"}
    log_path = data_dir.parent / f"{data_dir.name}-serve.log"
    with open(log_path, "wb") as log:
        proc = subprocess.Popen([HUB, "serve", "--no-worker"], env=env, stdout=log, stderr=subprocess.STDOUT)
    while True:
        match = re.search(r"serving on http://[^:]+:(\d+)", log_path.read_text(errors="replace"))
        if match:
            return proc, int(match.group(1))
        if proc.poll() is not None:
            raise SystemExit(f"hub serve ended before serving:\n{log_path.read_text(errors='replace')[-2000:]}")
        time.sleep(0.02)


class KeepAlive:
    """One keep-alive HTTP connection to a hub on loopback, with a token."""

    def __init__(self, port: int, token: str):
        self._conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        self._headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}

    def post(self, path: str, body: bytes) -> dict:
        self._conn.request("POST", path, body=body, headers=self._headers)
        resp = self._conn.getresponse()
        data = resp.read()
        if resp.status not in (200, 201):
            raise SystemExit(f"POST {path}: {resp.status} {data[:300]!r}")
        return json.loads(data)

    def close(self) -> None:
        self._conn.close()


def timed_gets(port: int, token: str, path: str, count: int) -> tuple[list[float], int, bytes]:
    """``count`` GETs of ``path`` over one keep-alive connection, as a client that reads each
    answer whole; the times, the last status and its body (stopping at the first that is not 200)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    times: list[float] = []
    status, body = 0, b"{}"
    try:
        for _ in range(count):
            started = time.perf_counter()
            conn.request("GET", path, headers={"Authorization": f"Bearer {token}"})
            resp = conn.getresponse()
            body = resp.read()
            times.append(time.perf_counter() - started)
            status = resp.status
            if status != 200:
                break
    finally:
        conn.close()
    return times, status, body


def throwaway_postgres():
    """A PostgreSQL server started as the tests start theirs (:mod:`devservers.postgres`), once
    per run and stopped at exit: ``(server, None)``, or ``(None, why)`` when none can be had."""
    from devservers.postgres import postgres_server

    return postgres_server()


def postgres_server_for(url: str | None):
    """The PostgreSQL server a benchmark makes its databases on: the one ``url`` (a
    superuser's, from ``--database-url``) names, or :func:`throwaway_postgres`'s; exits
    saying why when there is none."""
    if url:
        import itertools
        import threading

        from devservers.postgres import PostgresServer

        return PostgresServer(url, itertools.count(1), threading.Lock())
    server, reason = throwaway_postgres()
    if server is None:
        raise SystemExit(f"no PostgreSQL server: {reason}")
    return server


@contextmanager
def postgres_database(url: str | None, prefix: str = "hub_bench") -> Iterator[str]:
    """The URL of an empty PostgreSQL database to measure on: ``url`` (the one a benchmark's
    ``--postgres-url`` names), or a new one on :func:`throwaway_postgres`'s server, dropped
    afterwards."""
    if url:
        yield url
        return
    server, reason = throwaway_postgres()
    if server is None:
        raise SystemExit(f"no PostgreSQL to measure on: {reason}; name one with --postgres-url")
    name = server.create_database(prefix=prefix)
    try:
        yield server.url(name)
    finally:
        server.drop_database(name)


def stop(proc: subprocess.Popen | None) -> None:
    if proc is not None:
        proc.terminate()
        proc.wait(timeout=60)


class ScratchHub(ExitStack):
    """A migrated hub on a new scratch dir, for ``with``; on exit what was started
    stops (last started first) and the dir goes.

    ``work`` is the scratch dir, ``data_dir`` the hub's, ``proc`` the served hub
    (once :meth:`serve` ran); :meth:`callback` adds anything else to stop on the
    way out.
    """

    def __init__(self, prefix: str, directory: str | None = None):
        super().__init__()
        self.work = Path(tempfile.mkdtemp(prefix=prefix, dir=directory))
        self.data_dir = self.work / "data"
        self.proc: subprocess.Popen | None = None
        self.callback(shutil.rmtree, self.work, ignore_errors=True)

    def __enter__(self) -> ScratchHub:
        super().__enter__()
        try:
            hub_command(self.data_dir, "migrate")
        except BaseException:
            self.close()
            raise
        return self

    def token(self, name: str, role: str) -> str:
        """A new token of ``role`` (``hub token add``: on the database ``HUB_DATABASE_URL``
        names, when it is set, as for the hub's other commands)."""
        return hub_command(self.data_dir, "token", "add", name, "--role", role).strip()

    def serve(self, **settings: str) -> int:
        """:func:`serve` this hub until the ``with`` ends; the port."""
        self.proc, port = serve(self.data_dir, **settings)
        self.callback(stop, self.proc)
        return port

    def serve_with_agent(self, jira_url: str, jira_token: str) -> tuple[int, str, subprocess.Popen]:
        """This hub served with the scope ``project = AURORA`` and one project, and ``hub-agent``
        running against it and the Jira at ``jira_url``: ``(port, interface token, agent)``. The
        agent's output is a pipe, read by whoever waits on its lines; it stops when the ``with`` ends."""
        agent_token = self.token("agent", "agent")
        ui_token = self.token("ui", "interface")
        hub_command(self.data_dir, "scope", "set", "project = AURORA")
        hub_command(self.data_dir, "project", "add", "AWPCA", "--name", "Bench")
        port = self.serve()
        agent = subprocess.Popen([AGENT, "run", "--hub", f"http://127.0.0.1:{port}", "--token", agent_token,
                                  "--jira", jira_url, "--jira-token", jira_token, "--agent-id", "bench"],
                                 env={**os.environ, "PYTHONUNBUFFERED": "1"}, stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT, text=True)
        self.callback(stop, agent)
        while not re.search(r"running as", agent.stdout.readline() or "ended"):  # type: ignore[union-attr]
            if agent.poll() is not None:
                raise SystemExit("hub-agent ended before running")
        return port, ui_token, agent
