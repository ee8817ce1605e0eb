"""The neighbour marking a full run owes survives a busy, broken or replaced queue."""

from __future__ import annotations

import contextlib
import sqlite3
import time

import pytest

from hub.models import SyncRun
from tests.support import (
    claim,
    full_run,
    hub_config,
    issue,
    neighbour_flags,
    next_second,
    prepared_hub,
    report,
    start,
    stop,
    wait_for_flags,
    wait_for_line,
    with_projects,
)

# long: it waits out a locked queue's timeout and the worker's periodic minute: most of a minute per engine.
pytestmark = [pytest.mark.backends("sqlite", "postgresql"), pytest.mark.long]


class BrokenQueue:
    """What the API calls after a full run's done, failing as a busy queue does (the
    queue is queue.sqlite whichever engine holds the hub's tables)."""

    def __init__(self):
        self.calls = []

    def __call__(self, run_id: int) -> None:
        self.calls.append(run_id)
        raise sqlite3.OperationalError("database is locked")


@pytest.fixture
def hub_without_queue(make_hub):
    queue = BrokenQueue()
    hub = make_hub(on_full_run_done=queue)
    with_projects()
    return hub.client, {role: hub.headers(role) for role in ("agent", "interface")}, queue


def run_full(client, headers, keys):
    command = client.simulate_post("/api/v1/commands", json={"type": "refresh"},
                                   headers=headers["interface"]).json
    client.simulate_post("/agent/v1/claim", json={"agent_id": "a", "version": 14},
                         headers=headers["agent"])
    client.simulate_post(f"/agent/v1/commands/{command['id']}/state",
                         json={"issues": [{"key": k, "id": k.split("-")[1]} for k in keys]},
                         headers=headers["agent"])
    return client.simulate_post(f"/agent/v1/commands/{command['id']}/done",
                                json={"result": {"total": len(keys)}}, headers=headers["agent"])


def test_a_full_runs_done_answers_200_when_the_queue_refuses_the_task(hub_without_queue, caplog):
    client, headers, queue = hub_without_queue
    run_full(client, headers, ["X-1", "X-2"])
    next_second()  # the next run starts in a later second than these fetches
    done = run_full(client, headers, ["X-1"])

    assert done.status_code == 200 and done.json["status"] == "done"
    assert len(queue.calls) == 2
    assert "could not enqueue the neighbour marking" in caplog.text
    assert [r.neighbors_due for r in SyncRun.select().order_by(SyncRun.id)] == [1, 1]

    from worker import tasks

    assert tasks.pay_neighbour_marking.call_local() == 2
    assert {i: f for i, f in neighbour_flags_of(client)} == {"X-1": 0, "X-2": 1}
    assert [r.neighbors_due for r in SyncRun.select()] == [0, 0]
    assert tasks.pay_neighbour_marking.call_local() == 0


def neighbour_flags_of(client):
    from hub.models import Issue

    return [(i.key, i.neighbor) for i in Issue.select()]


def test_marking_that_ran_settles_the_debt(hub):
    """The task that was enqueued and ran leaves nothing owed (Huey in immediate mode)."""

    with_projects()
    command = hub.api("POST", "/api/v1/commands", {"type": "refresh"}).json
    claim(hub)
    report(hub, command["id"], "state", {"issues": [issue("A-1")]})
    assert report(hub, command["id"], "done", {"result": {"total": 1}}).status_code == 200
    assert [r.neighbors_due for r in SyncRun.select()] == [0]


@contextlib.contextmanager
def api_apart(data_dir, database_url):
    """``hub serve --no-worker`` on a prepared hub (on PostgreSQL when ``database_url`` is
    given; its queue is queue.sqlite either way): its URL, tokens and a worker starter."""
    agent, interface = prepared_hub(data_dir, database_url)
    server = start("serve", "--no-worker", data_dir=data_dir, database_url=database_url)
    workers = []
    try:
        url = wait_for_line(server, r"serving on (http://\S+)").group(1)
        yield url, agent, interface, lambda: workers.append(
            start("worker", data_dir=data_dir, database_url=database_url))
    finally:
        assert stop(server) == 0
        for worker in workers:
            assert stop(worker) == 0


def test_a_deleted_queue_under_a_separate_worker_still_gets_the_marking_done(tmp_path, database_url):
    """queue.sqlite deleted while the API and a separate worker run: what the API
    enqueues lands where no worker reads, and the worker's periodic task pays the
    debt anyway (within its minute)."""
    data_dir = tmp_path / "data"
    with api_apart(data_dir, database_url) as (url, agent, interface, start_worker):
        start_worker()
        full_run(url, agent, interface, ["X-1", "X-2"])
        (data_dir / "queue.sqlite").unlink()
        next_second()
        full_run(url, agent, interface, ["X-1"])
        flags = wait_for_flags(hub_config(data_dir, database_url), {"X-1": 0, "X-2": 1}, timeout=90)
        assert flags == {"X-1": 0, "X-2": 1}


def test_a_busy_queue_does_not_hold_the_done(tmp_path, database_url):
    """While another process holds queue.sqlite's write lock, the done still answers
    200 within the queue's short timeout, and a worker started later does the marking."""
    data_dir = tmp_path / "data"
    db = hub_config(data_dir, database_url)
    with api_apart(data_dir, database_url) as (url, agent, interface, start_worker):
        full_run(url, agent, interface, ["X-1", "X-2"])
        next_second()
        lock = sqlite3.connect(data_dir / "queue.sqlite", isolation_level=None)
        lock.execute("BEGIN EXCLUSIVE")
        try:
            started = time.monotonic()
            full_run(url, agent, interface, ["X-1"])  # raises unless every call is 2xx
            assert time.monotonic() - started < 25
        finally:
            lock.execute("ROLLBACK")
            lock.close()
        assert neighbour_flags(db) == {"X-1": 0, "X-2": 0}
        start_worker()
        assert wait_for_flags(db, {"X-1": 0, "X-2": 1}) == {"X-1": 0, "X-2": 1}
