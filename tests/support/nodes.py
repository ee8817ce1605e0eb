"""Several hub processes on one database, for tests/operations/test_nodes.py and bench/nodes.py: nodes
(``hub serve --no-worker``) and workers (``hub worker``) as real processes on loopback ports,
and HTTP clients that know which node answered what.

Nothing here is a mock: each node is the installed ``hub`` console script, with the
``HUB_*`` settings a deployment of several nodes gives it (one ``HUB_DATABASE_URL``, one
``HUB_QUEUE_URL``, one store). Their output is read all along (a node logs a line per
request at INFO, and a pipe nobody reads would stall it).
"""

from __future__ import annotations

import atexit
import contextlib
import http.client
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from devservers.reaper import end_with_this_process, remove_after_this_process
from tests.support import start, wait_for_line
from tests.support.engines import PortTaken, Unavailable, free_port, on_free_ports, once

# What a node's death looks like to a client: the connection refused, reset or
# closed before a whole answer came.
NODE_DOWN = (ConnectionError, http.client.RemoteDisconnected, http.client.IncompleteRead,
             http.client.BadStatusLine, TimeoutError, OSError)


def engine_settings(database_url: str | None, queue_url: str | None = None, **settings: str) -> dict[str, str]:
    """The ``HUB_*`` variables every process of one hub shares."""
    env = dict(settings)
    if database_url:
        env["HUB_DATABASE_URL"] = database_url
    if queue_url:
        env["HUB_QUEUE_URL"] = queue_url
    return env


@dataclass
class Node:
    """A ``hub serve --no-worker`` process and the URL it serves on."""

    proc: subprocess.Popen
    url: str

    @property
    def port(self) -> int:
        return int(self.url.rsplit(":", 1)[1])

    def kill(self) -> None:
        """SIGKILL: no goodbye, as when a machine dies."""
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=30)


def start_node(data_dir: Path, settings: dict[str, str], timeout: float = 60) -> Node:
    """A node on a free loopback port, once it says it serves."""
    [node] = start_nodes(1, data_dir, settings, timeout)
    return node


def start_nodes(count: int, data_dir: Path, settings: dict[str, str], timeout: float = 60) -> list[Node]:
    """``count`` nodes started at once, once each says it serves."""
    procs = [start("serve", "--no-worker", data_dir=data_dir, **settings) for _ in range(count)]
    try:
        return [Node(proc, wait_for_line(proc, r"serving on (http://\S+)", timeout=timeout).group(1))
                for proc in procs]
    except AssertionError:
        stop_all(*procs)
        raise


def start_worker(data_dir: Path, settings: dict[str, str]) -> subprocess.Popen:
    """A ``hub worker`` process (its lines in ``proc.lines``, see tests.support.start)."""
    return start("worker", data_dir=data_dir, **settings)


def stop_all(*procs: subprocess.Popen | Node | None) -> None:
    """SIGTERM to each process still running, all at once, then wait for each (SIGKILL after 30 s)."""
    running = [p.proc if isinstance(p, Node) else p for p in procs if p is not None]
    running = [p for p in running if p.poll() is None]
    for process in running:
        with contextlib.suppress(OSError):
            process.send_signal(signal.SIGTERM)
    for process in running:
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=30)


def first_admin_token(data_dir: Path) -> str:
    """The admin token the first node made (and kept in ``admin.token``)."""
    return (data_dir / "admin.token").read_text().strip()


class NodeDown(Exception):
    """The node did not answer: its process is gone, or going."""


@dataclass
class Ledger:
    """Every answer the nodes gave, by node and status, and every 5xx in full."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    statuses: Counter = field(default_factory=Counter)
    server_errors: list[tuple[str, str, str, int, bytes]] = field(default_factory=list)
    down: Counter = field(default_factory=Counter)

    def record(self, node: str, method: str, path: str, status: int, body: bytes) -> None:
        with self.lock:
            self.statuses[(node, status)] += 1
            if status >= 500:
                self.server_errors.append((node, method, path, status, body[:500]))

    def refused(self, node: str) -> None:
        with self.lock:
            self.down[node] += 1


class Http:
    """One client's keep-alive connections to the nodes, each answer recorded in ``ledger``."""

    def __init__(self, nodes: list[str], token: str, ledger: Ledger, timeout: float = 60):
        self.nodes = nodes
        self.token = token
        self.ledger = ledger
        self.timeout = timeout
        self._conns: dict[str, http.client.HTTPConnection] = {}

    def _conn(self, node: str) -> http.client.HTTPConnection:
        conn = self._conns.get(node)
        if conn is None:
            host, port = re.match(r"http://([^:/]+):(\d+)", node).groups()
            conn = self._conns[node] = http.client.HTTPConnection(host, int(port), timeout=self.timeout)
        return conn

    def request(self, node: str, method: str, path: str, body: bytes | None = None,
                headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
        """One request to ``node``: (status, headers, body); NodeDown when it does not answer."""
        conn = self._conn(node)
        try:
            conn.request(method, path, body=body,
                         headers={"Authorization": f"Bearer {self.token}", **(headers or {})})
            resp = conn.getresponse()
            data = resp.read()
        except NODE_DOWN as exc:
            conn.close()
            self._conns.pop(node, None)
            self.ledger.refused(node)
            raise NodeDown(f"{node}: {exc!r}") from exc
        if resp.will_close:
            conn.close()
            self._conns.pop(node, None)
        self.ledger.record(node, method, path, resp.status, data)
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, data

    def json(self, node: str, method: str, path: str, body=None) -> tuple[int, dict]:
        status, _, data = self.request(node, method, path,
                                       None if body is None else json.dumps(body).encode(),
                                       {"Content-Type": "application/json"})
        return status, json.loads(data) if data else {}

    def close(self) -> None:
        for conn in self._conns.values():
            conn.close()
        self._conns.clear()


def make_token(url: str, admin: str, name: str, role: str) -> str:
    """A new token made through a node's admin API."""
    status, body = Http([url], admin, Ledger()).json(url, "POST", "/api/v1/tokens", {"name": name, "role": role})
    assert status == 201, (status, body)
    return body["token"]


def _start_redis() -> str:
    """A Redis server of the machine's own packages (``redis-server``), started once per test run on
    a loopback port, in memory only, stopped at exit: ``(url, None)``, or ``(None, why)`` for
    :func:`tests.support.engines.require` (through :func:`tests.support.engines.once`)."""
    binary = shutil.which("redis-server") or next(
        (p for p in ("/usr/bin/redis-server", "/usr/sbin/redis-server") if os.access(p, os.X_OK)), None)
    if binary is None:
        raise Unavailable("no redis-server found (apt-get install redis-server)")
    try:
        import redis
    except ImportError:
        raise Unavailable("the redis client is not installed (pip install -e '.[test]')") from None
    return on_free_ports(lambda: _launch_redis(binary, redis))


def _launch_redis(binary: str, redis) -> str:
    """``redis-server`` on a port of :func:`free_port`, waited for until it answers: this
    server, not whatever took the port (its process id tells)."""
    port = free_port()
    log = Path(tempfile.mkdtemp(prefix="hub-redis-")) / "log"
    proc = subprocess.Popen([binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                             "--appendonly", "no", "--daemonize", "no", "--loglevel", "warning",
                             "--logfile", str(log)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd="/")
    atexit.register(shutil.rmtree, log.parent, True)  # after the server, which is stopped first
    atexit.register(_stop_redis, proc)
    end_with_this_process(proc.pid)
    remove_after_this_process(log.parent)
    url = f"redis://127.0.0.1:{port}/0"
    client = redis.Redis.from_url(url, socket_connect_timeout=1, socket_timeout=1)
    deadline = time.monotonic() + 30
    while proc.poll() is None and time.monotonic() < deadline:
        try:
            if client.info("server")["process_id"] == proc.pid:
                return url
        except redis.RedisError:  # not up yet, or not a Redis that answers
            pass
        time.sleep(0.05)
    _stop_redis(proc)
    said = log.read_text(errors="replace")[-1000:] if log.exists() else ""
    if "in use" in said:
        raise PortTaken(said)
    raise Unavailable(f"redis-server did not start: {said}")


def _stop_redis(proc: subprocess.Popen) -> None:
    proc.terminate()
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=10)


redis_server = once(_start_redis)
