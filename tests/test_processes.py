"""``hub serve`` and ``hub worker`` as real processes, over real HTTP through waitress."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import time
import urllib.request
from pathlib import Path

from tests.dbfactory import make_db, schema_version
from tests.test_cli import HUB


def start(*args: str, data_dir: Path) -> subprocess.Popen:
    env = {**os.environ, "HUB_DATA_DIR": str(data_dir), "HUB_PORT": "0", "PYTHONUNBUFFERED": "1"}
    return subprocess.Popen([HUB, *args], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)


def wait_for_line(proc: subprocess.Popen, pattern: str, timeout: float = 30) -> re.Match:
    deadline = time.monotonic() + timeout
    seen = []
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            raise AssertionError(f"process ended before {pattern!r}: {''.join(seen)}")
        seen.append(line)
        match = re.search(pattern, line)
        if match:
            return match
    raise AssertionError(f"no {pattern!r} within {timeout}s: {''.join(seen)}")


def stop(proc: subprocess.Popen) -> int:
    proc.send_signal(signal.SIGTERM)
    try:
        return proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()


def get_json(url: str) -> dict:
    with urllib.request.urlopen(url, timeout=10) as resp:
        return json.loads(resp.read())


def test_serve_migrates_then_serves_with_the_worker_in_process(tmp_path):
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    make_db(data_dir / "hub.sqlite", 2)
    proc = start("serve", data_dir=data_dir)
    try:
        assert wait_for_line(proc, r"schema v2 → v7; backup")
        token = wait_for_line(proc, r"created admin token 'admin' .*: (\S+)$").group(1)
        url = wait_for_line(proc, r"serving on (http://\S+)").group(1)
        assert get_json(url + "/healthz") == {"status": "ok", "schema_version": 7}
        admin_file = data_dir / "admin.token"
        assert admin_file.read_text().strip() == token
        assert admin_file.stat().st_mode & 0o777 == 0o600
        request = urllib.request.Request(url + "/api/v1/agents",
                                         headers={"Authorization": f"Bearer {token}"})
        with urllib.request.urlopen(request, timeout=10) as resp:
            agents = json.loads(resp.read())["items"]
        assert [(a["agent_id"], a["online"]) for a in agents] == [("agent-1", False)]
        assert (data_dir / "queue.sqlite").stat().st_mode & 0o777 == 0o600
    finally:
        assert stop(proc) == 0
    assert schema_version(data_dir / "hub.sqlite") == 7

    # A second start has tokens already: no new admin token.
    proc = start("serve", data_dir=data_dir)
    try:
        line = wait_for_line(proc, r"serving on|created admin token")
        assert line.group(0) == "serving on"
    finally:
        assert stop(proc) == 0


def test_serve_without_worker_and_a_separate_worker(tmp_path):
    data_dir = tmp_path / "data"
    server = start("serve", "--no-worker", data_dir=data_dir)
    worker = None
    try:
        url = wait_for_line(server, r"serving on (http://\S+)").group(1)
        assert get_json(url + "/healthz")["status"] == "ok"
        worker = start("worker", data_dir=data_dir)
        wait_for_line(worker, r"Huey consumer started")
        assert worker.poll() is None
    finally:
        assert stop(server) == 0
        if worker is not None:
            assert stop(worker) == 0


def call(url: str, token: str, path: str, body=None) -> dict:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url + path, data=data, method="POST" if data else "GET",
                                     headers={"Authorization": f"Bearer {token}",
                                              "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as resp:
        return json.loads(resp.read())


def full_run(url: str, agent: str, interface: str, keys: list[str]) -> None:
    command = call(url, interface, "/api/v1/commands", {"type": "refresh"})
    [claimed] = call(url, agent, "/agent/v1/claim", {"agent_id": "a", "version": 14})["commands"]
    assert claimed["id"] == command["id"]
    issues = [{"key": key, "id": key.split("-")[1]} for key in keys]
    call(url, agent, f"/agent/v1/commands/{claimed['id']}/state", {"issues": issues})
    call(url, agent, f"/agent/v1/commands/{claimed['id']}/done", {"result": {"total": len(keys)}})


def neighbour_flags(db: Path) -> dict:
    import sqlite3

    conn = sqlite3.connect(db)
    try:
        return dict(conn.execute("SELECT key, neighbor FROM issue"))
    finally:
        conn.close()


def wait_for_flags(db: Path, expected: dict, timeout: float = 30) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        flags = neighbour_flags(db)
        if flags == expected:
            return flags
        time.sleep(0.1)
    return neighbour_flags(db)


def prepared_hub(data_dir: Path) -> tuple[str, str]:
    """A migrated hub with one project and a token per role."""
    import sqlite3

    from tests.test_cli import run_hub

    agent = run_hub("token", "add", "agent", "--role", "agent", data_dir=data_dir).stdout.strip()
    interface = run_hub("token", "add", "ui", "--role", "interface", data_dir=data_dir).stdout.strip()
    conn = sqlite3.connect(data_dir / "hub.sqlite")
    conn.execute("INSERT INTO setting VALUES ('jql_scope', 'project = AURORA')")
    conn.execute("INSERT INTO project (label, name, created_at) VALUES ('AWPCA', 'АРМ КА', '2026-11-01T00:00:00+00:00')")
    conn.commit()
    conn.close()
    return agent, interface


def test_the_in_process_worker_marks_neighbours_after_a_full_run(tmp_path):
    data_dir = tmp_path / "data"
    agent, interface = prepared_hub(data_dir)
    proc = start("serve", data_dir=data_dir)
    try:
        url = wait_for_line(proc, r"serving on (http://\S+)").group(1)
        full_run(url, agent, interface, ["X-1", "X-2"])
        time.sleep(1.1)  # the next run starts in a later second than these fetches
        full_run(url, agent, interface, ["X-1"])
        assert wait_for_flags(data_dir / "hub.sqlite", {"X-1": 0, "X-2": 1}) == {"X-1": 0, "X-2": 1}
    finally:
        assert stop(proc) == 0


def test_a_separate_worker_runs_the_tasks_the_api_enqueues(tmp_path):
    data_dir = tmp_path / "data"
    agent, interface = prepared_hub(data_dir)
    server = start("serve", "--no-worker", data_dir=data_dir)
    worker = None
    try:
        url = wait_for_line(server, r"serving on (http://\S+)").group(1)
        full_run(url, agent, interface, ["X-1", "X-2"])
        time.sleep(1.1)
        full_run(url, agent, interface, ["X-1"])
        time.sleep(0.5)
        assert neighbour_flags(data_dir / "hub.sqlite") == {"X-1": 0, "X-2": 0}  # no worker yet
        worker = start("worker", data_dir=data_dir)
        assert wait_for_flags(data_dir / "hub.sqlite", {"X-1": 0, "X-2": 1}) == {"X-1": 0, "X-2": 1}
    finally:
        assert stop(server) == 0
        if worker is not None:
            assert stop(worker) == 0


def test_serve_on_a_busy_port_says_so(tmp_path):
    import socket

    from tests.test_cli import run_hub

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = run_hub("serve", "--no-worker", data_dir=tmp_path / "data", HUB_PORT=str(port))
    assert result.returncode == 1
    assert f"cannot listen on 127.0.0.1:{port}" in result.stderr
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "data" / "admin.token").exists()
