"""``hub serve`` and ``hub worker`` as real processes, over real HTTP through waitress."""

from __future__ import annotations

import json
import urllib.request

import pytest

from hub.migrations import CURRENT_VERSION
from tests.support import (
    call,
    engine_rows,
    full_run,
    get_json,
    hub_config,
    neighbour_flags,
    next_second,
    prepared_hub,
    run_hub,
    start,
    stop,
    wait_for_flags,
    wait_for_line,
)
from tests.support.dbfactory import make_db, schema_version
from tests.support.engine_rows import engine_settings

pytestmark = pytest.mark.backends("sqlite", "postgresql")


def first_start(proc, data_dir) -> tuple[str, str]:
    """What a hub's first ``hub serve`` says and leaves: its admin token (printed, and in
    ``admin.token``, 0600) and its URL, healthy at the current schema."""
    token = wait_for_line(proc, r"created admin token 'admin' .*: (\S+)$").group(1)
    url = wait_for_line(proc, r"serving on (http://\S+)").group(1)
    assert get_json(url + "/healthz") == {"status": "ok", "schema_version": CURRENT_VERSION}
    admin_file = data_dir / "admin.token"
    assert admin_file.read_text().strip() == token
    assert admin_file.stat().st_mode & 0o777 == 0o600
    return token, url


@pytest.mark.backends("sqlite")  # a hub.sqlite of schema v2 migrated on: SQLite's migration history
def test_serve_migrates_then_serves_with_the_worker_in_process(tmp_path):
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    make_db(data_dir / "hub.sqlite", 2)
    # The sample agent was last heard from on 2026-10-22: remembered that long, it is listed.
    proc = start("serve", data_dir=data_dir, HUB_AGENT_FORGET_HOURS="100000")
    try:
        assert wait_for_line(proc, rf"schema v2 → v{CURRENT_VERSION}; backup")
        token, url = first_start(proc, data_dir)
        request = urllib.request.Request(url + "/api/v1/agents",
                                         headers={"Authorization": f"Bearer {token}"})
        with urllib.request.urlopen(request, timeout=10) as resp:
            agents = json.loads(resp.read())["items"]
        assert [(a["agent_id"], a["online"]) for a in agents] == [("agent-1", False)]
        assert (data_dir / "queue.sqlite").stat().st_mode & 0o777 == 0o600
    finally:
        assert stop(proc) == 0
    assert schema_version(data_dir / "hub.sqlite") == CURRENT_VERSION

    # A second start has tokens already: no new admin token.
    proc = start("serve", data_dir=data_dir)
    try:
        line = wait_for_line(proc, r"serving on|created admin token")
        assert line.group(0) == "serving on"
    finally:
        assert stop(proc) == 0


def test_serve_on_a_new_hub_makes_the_admin_token_once(tmp_path, database_url):
    data_dir = tmp_path / "data"
    proc = start("serve", data_dir=data_dir, database_url=database_url)
    try:
        token, url = first_start(proc, data_dir)
        assert call(url, token, "/api/v1/agents")["items"] == []
        assert (data_dir / "queue.sqlite").stat().st_mode & 0o777 == 0o600
    finally:
        assert stop(proc) == 0

    # A second start has tokens already: no new admin token.
    proc = start("serve", data_dir=data_dir, database_url=database_url)
    try:
        line = wait_for_line(proc, r"serving on|created admin token")
        assert line.group(0) == "serving on"
    finally:
        assert stop(proc) == 0
    assert engine_rows.rows(hub_config(data_dir, database_url), "SELECT name, role FROM token") == [
        ("admin", "admin")]


def test_serve_without_worker_and_a_separate_worker(tmp_path, database_url):
    data_dir = tmp_path / "data"
    server = start("serve", "--no-worker", data_dir=data_dir, database_url=database_url)
    worker = None
    try:
        url = wait_for_line(server, r"serving on (http://\S+)").group(1)
        assert get_json(url + "/healthz")["status"] == "ok"
        worker = start("worker", data_dir=data_dir, database_url=database_url)
        wait_for_line(worker, r"Huey consumer started")
        assert worker.poll() is None
    finally:
        assert stop(server) == 0
        if worker is not None:
            assert stop(worker) == 0


def test_the_in_process_worker_marks_neighbours_after_a_full_run(tmp_path, database_url):
    data_dir = tmp_path / "data"
    agent, interface = prepared_hub(data_dir, database_url)
    proc = start("serve", data_dir=data_dir, database_url=database_url)
    try:
        url = wait_for_line(proc, r"serving on (http://\S+)").group(1)
        full_run(url, agent, interface, ["X-1", "X-2"])
        next_second()  # the next run starts in a later second than these fetches
        full_run(url, agent, interface, ["X-1"])
        flags = wait_for_flags(hub_config(data_dir, database_url), {"X-1": 0, "X-2": 1})
        assert flags == {"X-1": 0, "X-2": 1}
    finally:
        assert stop(proc) == 0


def test_a_separate_worker_runs_the_tasks_the_api_enqueues(tmp_path, database_url):
    data_dir = tmp_path / "data"
    db = hub_config(data_dir, database_url)
    agent, interface = prepared_hub(data_dir, database_url)
    server = start("serve", "--no-worker", data_dir=data_dir, database_url=database_url)
    worker = None
    try:
        url = wait_for_line(server, r"serving on (http://\S+)").group(1)
        full_run(url, agent, interface, ["X-1", "X-2"])
        next_second()
        full_run(url, agent, interface, ["X-1"])
        # Both full runs owe the marking; with no worker yet, nobody has paid it.
        owed = "SELECT count(*) FROM sync_run WHERE neighbors_due = 1"
        assert engine_rows.rows(db, owed) == [(2,)]
        assert neighbour_flags(db) == {"X-1": 0, "X-2": 0}
        worker = start("worker", data_dir=data_dir, database_url=database_url)
        assert wait_for_flags(db, {"X-1": 0, "X-2": 1}) == {"X-1": 0, "X-2": 1}
    finally:
        assert stop(server) == 0
        if worker is not None:
            assert stop(worker) == 0


def test_serve_on_a_busy_port_says_so(tmp_path, database_url):
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = run_hub("serve", "--no-worker", data_dir=tmp_path / "data", HUB_PORT=str(port),
                         **engine_settings(database_url))
    assert result.returncode == 1
    assert f"cannot listen on 127.0.0.1:{port}" in result.stderr
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "data" / "admin.token").exists()
    assert engine_rows.rows(hub_config(tmp_path / "data", database_url), "SELECT count(*) FROM token") == [(0,)]
