"""The hub under a crowd, over real HTTP through waitress on loopback.

Long-polls past their share of threads, clients that leave mid-poll, downloads
nobody reads, idle connections: each must leave the hub answering. Every wait
here is bounded; the bounds are generous (seconds where the hub takes
milliseconds), so a slow machine does not fail them and a starved hub does.
"""

from __future__ import annotations

import contextlib
import hashlib
import http.client
import json
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.support import HUB, created_hub, run_script, stop, wait_for_line
from tests.support.engine_rows import engine_settings

# long: crowds of clients on a live hub, most of a minute per engine.
pytestmark = [pytest.mark.backends("sqlite", "postgresql"), pytest.mark.long]

MB = 1024 * 1024
# A hub that answers within this is not starved; a starved one took 28 s and more.
PROMPT = 5.0


class Served:
    """A ``hub serve --no-worker`` subprocess on a free loopback port, with tokens; on
    PostgreSQL when ``database_url`` is given."""

    def __init__(self, data_dir: Path, database_url: str | None = None, **settings: str):
        self.data_dir = created_hub(data_dir, database_url)
        self.tokens = {role: run_script("token", "add", f"t-{role}", "--role", role,
                                        data_dir=data_dir, database_url=database_url).stdout.strip()
                       for role in ("agent", "interface")}
        env = {**os.environ, **settings, "HUB_DATA_DIR": str(data_dir), "HUB_PORT": "0",
               "PYTHONUNBUFFERED": "1", **engine_settings(database_url)}
        self.proc = subprocess.Popen([HUB, "serve", "--no-worker"], env=env, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True)
        self.port = int(wait_for_line(self.proc, r"serving on http://[^:]+:(\d+)").group(1))
        # Keep reading its output so that the pipe never fills and blocks it.
        self.output: list[str] = []
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self) -> None:
        for line in self.proc.stdout:
            self.output.append(line)

    def headers(self, role: str | None) -> dict:
        return {"Authorization": f"Bearer {self.tokens[role]}"} if role else {}

    def request(self, method: str, path: str, role: str | None = None, body=None,
                headers: dict | None = None, timeout: float = 60):
        """One request on its own connection: ``(status, headers, body bytes)``."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            # Refused (413) and closed before the whole body went: the answer is still there to read.
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                conn.request(method, path, body=None if body is None else
                             (body if isinstance(body, bytes) else json.dumps(body)),
                             headers={**self.headers(role), "Content-Type": "application/json",
                                      **(headers or {})})
            resp = conn.getresponse()
            return resp.status, dict(resp.getheaders()), resp.read()
        finally:
            conn.close()

    def json(self, method: str, path: str, role: str | None = None, body=None) -> tuple[int, dict]:
        status, _, data = self.request(method, path, role, body)
        return status, json.loads(data) if data else {}

    def raw(self, method: str, path: str, role: str | None, body=None,
            extra: str = "") -> socket.socket:
        """Send a request on a raw socket and return it unread."""
        payload = b"" if body is None else json.dumps(body).encode()
        head = (f"{method} {path} HTTP/1.1\r\nHost: hub\r\n"
                + "".join(f"{k}: {v}\r\n" for k, v in self.headers(role).items())
                + f"Content-Type: application/json\r\nContent-Length: {len(payload)}\r\n{extra}\r\n")
        sock = socket.create_connection(("127.0.0.1", self.port), timeout=60)
        sock.sendall(head.encode() + payload)
        return sock

    def healthz_seconds(self) -> float:
        started = time.monotonic()
        status, body = self.json("GET", "/healthz")
        assert status == 200 and body["status"] == "ok"
        return time.monotonic() - started

    def close(self) -> None:
        assert stop(self.proc) == 0, "".join(self.output)


@pytest.fixture
def serve(tmp_path, database_url, request):
    """``serve(**settings)``: a new hub of its own (its data dir, and on PostgreSQL its database)."""
    started: list[Served] = []
    databases = []  # on PostgreSQL, those of the hubs after the first

    def start(**settings: str) -> Served:
        url = database_url
        if database_url and started:
            server, template = request.getfixturevalue("postgres_template")
            databases.append((server, server.create_database(template=template)))
            url = server.url(databases[-1][1])
        served = Served(tmp_path / f"data{len(started)}", url, **settings)
        started.append(served)
        return served

    yield start
    for served in started:
        served.close()
    for server, name in databases:
        server.drop_database(name)


def list_attachment(hub: Served, size: int = 10) -> None:
    """Issue X-1 listing attachment 31337 (never fetched: its state is ``none``)."""
    status, refresh = hub.json("POST", "/api/v1/commands", "interface",
                               {"type": "refresh", "params": {"jql": "key = X-1"}})
    assert status == 201
    status, claimed = hub.json("POST", "/agent/v1/claim", "agent",
                               {"agent_id": "setup", "version": 14, "types": ["refresh"]})
    assert [c["id"] for c in claimed["commands"]] == [refresh["id"]]
    status, _ = hub.json("POST", f"/agent/v1/commands/{refresh['id']}/state", "agent", {"issues": [
        {"key": "X-1", "id": "1", "attachments": [{"id": "31337", "filename": "big.bin", "size": size}]}]})
    assert status == 200
    status, _ = hub.json("POST", f"/agent/v1/commands/{refresh['id']}/done", "agent",
                         {"result": {"total": 1}})
    assert status == 200


class Poll:
    """A long-poll on a raw socket, read by a thread of its own."""

    def __init__(self, hub: Served, kind: str, n: int, wait: int = 30):
        if kind == "claim":
            # fetch_attachment only: the refreshes the test enqueues are another agent's.
            self.sock = hub.raw("POST", "/agent/v1/claim", "agent", {
                "agent_id": f"poller-{n}", "version": 14, "types": ["fetch_attachment"], "wait": wait})
        else:
            self.sock = hub.raw("GET", f"/api/v1/attachments/31337?wait={wait}&known=none", "interface")
        self.status: int | None = None
        self.retry_after: str | None = None
        self.answered = threading.Event()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        resp = http.client.HTTPResponse(self.sock)
        try:
            resp.begin()
            self.status, self.retry_after = resp.status, resp.getheader("Retry-After")
            resp.read()
        except OSError:  # closed by the test
            pass
        except http.client.HTTPException:
            pass
        finally:
            self.answered.set()

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)
        self.sock.close()


def settle(polls: list[Poll], answered: int, timeout: float = 20) -> None:
    """Wait until at least ``answered`` of ``polls`` have their answer."""
    deadline = time.monotonic() + timeout
    while sum(p.answered.is_set() for p in polls) < answered and time.monotonic() < deadline:
        time.sleep(0.05)


def test_64_long_polling_agents_leave_the_hub_answering(serve):
    # The defaults, 32 threads, 16 of them for long-polls; the 64 pollers share one
    # agent token, each with its own agent_id, so the token has room for them all.
    hub = serve(HUB_AGENTS_PER_TOKEN="100")
    list_attachment(hub)
    polls = [Poll(hub, "claim", n) for n in range(64)] + [Poll(hub, "wait", n) for n in range(64)]
    try:
        share = 16
        settle(polls, len(polls) - share)
        answered = [p for p in polls if p.answered.is_set()]
        waiting = [p for p in polls if not p.answered.is_set()]
        # Past the share, polls answer at once with what is there, and say when to come back.
        assert len(waiting) == share
        assert {(p.status, p.retry_after) for p in answered} == {(200, "2")}

        assert hub.healthz_seconds() < PROMPT
        # Another agent's whole round trip goes through meanwhile.
        started = time.monotonic()
        status, command = hub.json("POST", "/api/v1/commands", "interface",
                                   {"type": "refresh", "params": {"jql": "key = X-2"}})
        assert status == 201
        status, claimed = hub.json("POST", "/agent/v1/claim", "agent",
                                   {"agent_id": "other", "version": 14, "types": ["refresh"]})
        assert [c["id"] for c in claimed["commands"]] == [command["id"]]
        status, _ = hub.json("POST", f"/agent/v1/commands/{command['id']}/done", "agent",
                             {"result": {"total": 0}})
        assert status == 200
        assert time.monotonic() - started < PROMPT
        # Those holding a slot are still waiting: nothing cut them short.
        assert not any(p.answered.is_set() for p in waiting)
    finally:
        for p in polls:
            p.close()


def probe_gets_slots(hub: Served, count: int) -> bool:
    """Whether ``count`` polls at once all get a slot (none is told to come back)."""
    probes = [Poll(hub, "wait", n, wait=1) for n in range(count)]
    try:
        settle(probes, count, timeout=10)
        return all(p.answered.is_set() and p.status == 200 and p.retry_after is None for p in probes)
    finally:
        for p in probes:
            p.close()


def test_a_poll_whose_client_has_gone_stops_waiting(serve):
    hub = serve(HUB_THREADS="4", HUB_LONG_POLL_THREADS="2")
    list_attachment(hub)
    holders = [Poll(hub, "claim", 0), Poll(hub, "wait", 0)]
    time.sleep(0.5)
    turned_away = Poll(hub, "wait", 1)
    assert turned_away.answered.wait(PROMPT) and turned_away.retry_after == "2"
    assert not any(p.answered.is_set() for p in holders)

    for p in holders:  # both clients leave 28 s before their polls would end
        p.close()
    deadline = time.monotonic() + 10
    while not probe_gets_slots(hub, 2):
        assert time.monotonic() < deadline, "the slots of closed polls were not given back"
        time.sleep(0.2)


def upload(hub: Served, size: int) -> bytes:
    """List, request, claim, upload and finish attachment 31337 with ``size`` bytes."""
    list_attachment(hub, size)
    status, _fetched = hub.json("POST", "/api/v1/attachments/31337/fetch", "interface")
    assert status == 201
    status, claimed = hub.json("POST", "/agent/v1/claim", "agent",
                               {"agent_id": "a", "version": 14, "types": ["fetch_attachment"]})
    command_id = claimed["commands"][0]["id"]
    content = hashlib.shake_256(b"crowd").digest(size)
    status, _, body = hub.request("PUT", f"/agent/v1/commands/{command_id}/file", "agent", content,
                                  {"Content-Type": "application/octet-stream"})
    assert status == 200, body
    status, _ = hub.json("POST", f"/agent/v1/commands/{command_id}/done", "agent",
                         {"result": json.loads(body)})
    assert status == 200
    return content


def test_stalled_range_readers_hold_no_thread(serve):
    # A body past waitress's 16 MiB output watermark: a worker thread writing
    # it to a client that does not read would block there.
    size = 24 * MB
    hub = serve(HUB_THREADS="8", HUB_LONG_POLL_THREADS="2")
    content = upload(hub, size)
    stalled = []
    try:
        for n in range(40):  # five times the threads
            sock = socket.socket()
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            sock.settimeout(30)
            sock.connect(("127.0.0.1", hub.port))
            sock.sendall((f"GET /api/v1/attachments/31337/content HTTP/1.1\r\nHost: hub\r\n"
                          f"Authorization: Bearer {hub.tokens['interface']}\r\n"
                          f"Range: bytes={n}-\r\n\r\n").encode())
            stalled.append(sock)
        time.sleep(1.0)  # let every download start and fill its socket
        assert hub.healthz_seconds() < PROMPT
        # And the downloads are whole once read.
        status, headers, body = hub.request("GET", "/api/v1/attachments/31337/content", "interface",
                                            headers={"Range": f"bytes={size - 10 * MB}-"})
        assert status == 206 and body == content[size - 10 * MB:]
        assert headers["Content-Range"] == f"bytes {size - 10 * MB}-{size - 1}/{size}"
        first = stalled[5]
        first.settimeout(30)
        received = b""
        while len(received) < 64 * 1024:
            received += first.recv(65536)
        head, _, start = received.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 206") and start == content[5:5 + len(start)]
    finally:
        for sock in stalled:
            sock.close()


def test_idle_connections_do_not_lock_anyone_out(serve):
    hub = serve()
    idle = []
    try:
        for _ in range(300):  # three times waitress's default connection_limit
            idle.append(socket.create_connection(("127.0.0.1", hub.port), timeout=30))
        time.sleep(0.5)
        assert hub.healthz_seconds() < PROMPT
    finally:
        for sock in idle:
            sock.close()


def test_an_upload_of_exactly_the_limit_is_accepted_and_one_byte_more_is_413(serve):
    limit = 2 * MB  # below HUB_MAX_JSON_BYTES and above it: both limits are the hub's own
    for settings in ({"HUB_MAX_UPLOAD_BYTES": str(limit)},
                     {"HUB_MAX_UPLOAD_BYTES": str(limit), "HUB_MAX_JSON_BYTES": str(MB)}):
        hub = serve(**settings)
        list_attachment(hub, limit)
        status, _fetched = hub.json("POST", "/api/v1/attachments/31337/fetch", "interface")
        status, claimed = hub.json("POST", "/agent/v1/claim", "agent",
                                   {"agent_id": "a", "version": 14, "types": ["fetch_attachment"]})
        command_id = claimed["commands"][0]["id"]
        path = f"/agent/v1/commands/{command_id}/file"
        status, _, body = hub.request("PUT", path, "agent", b"x" * (limit + 1))
        assert status == 413, body
        status, _, body = hub.request("PUT", path, "agent", b"x" * limit)
        assert status == 200, body
        assert json.loads(body)["size"] == limit


def test_upload_leftovers_of_a_dead_process_go_at_start_and_a_live_ones_stay(tmp_path, database_url):
    data_dir = tmp_path / "data"
    tmp = data_dir / "files" / ".tmp"
    tmp.mkdir(parents=True)
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    live = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        names = {"dead": f"{dead.pid}-{'a' * 32}.part", "live": f"{live.pid}-{'b' * 32}.part",
                 "old-style": f"{'c' * 32}.part"}
        for name in names.values():
            (tmp / name).write_bytes(b"half an upload")
        hub = Served(data_dir, database_url)
        try:
            assert sorted(p.name for p in tmp.iterdir()) == [names["live"]]
        finally:
            hub.close()
    finally:
        live.kill()
        live.wait()


def test_head_through_waitress_sends_headers_only_and_keeps_the_connection_usable(serve):
    hub = serve()
    content = upload(hub, 3 * MB)
    conn = http.client.HTTPConnection("127.0.0.1", hub.port, timeout=30)
    try:
        for method, status, length in (("HEAD", 200, len(content)), ("GET", 200, len(content))):
            conn.request(method, "/api/v1/attachments/31337/content", headers=hub.headers("interface"))
            resp = conn.getresponse()
            body = resp.read()
            assert resp.status == status and resp.getheader("Content-Length") == str(length)
            assert body == (b"" if method == "HEAD" else content)
        conn.request("HEAD", "/healthz")
        resp = conn.getresponse()
        assert resp.status == 200 and resp.read() == b""
    finally:
        conn.close()
