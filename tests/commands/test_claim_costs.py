"""What a claim and a report cost in SQL statements, and the last_seen throttle."""

from __future__ import annotations

import json
import sqlite3
from contextlib import contextmanager

import falcon.testing
import pytest

from hub import dialect, startup
from hub.api.app import create_app
from hub.assembly import build
from hub.config import Config
from hub.db import database
from hub.metrics import Metrics
from hub.services.commands.agents import AgentService
from hub.services.commands.dispatch import Dispatcher
from hub.services.commands.work_signal_sqlite import SqliteWorkSignal
from tests.support.hubs import MovableClock

pytestmark = pytest.mark.backends("sqlite", "postgresql")

LEASE = 60
T = "2026-11-02T09:00:00+00:00"


@contextmanager
def statements():
    """The SQL statements run on this thread's connection meanwhile (on PostgreSQL:
    those the database runs for the hub, which psycopg cannot trace)."""
    seen: list[str] = []
    if dialect.current().postgres:
        db = database.obj
        run = db.execute_sql

        def traced(sql, params=None, commit=None):
            seen.append(sql)
            return run(sql, params, commit)

        db.execute_sql = traced
        try:
            yield seen
        finally:
            del db.execute_sql
        return
    conn = database.connection()
    conn.set_trace_callback(seen.append)
    try:
        yield seen
    finally:
        conn.set_trace_callback(None)


def raw(config: Config, sql: str, rows=()) -> list[tuple]:
    if config.database_url:
        with database.atomic():
            for row in rows:
                database.execute_sql(sql, row)
            if rows:
                return []
            cursor = database.execute_sql(sql)
            return [tuple(r) for r in cursor.fetchall()] if cursor.description else []
    conn = sqlite3.connect(config.db_path)
    try:
        if rows:
            conn.executemany(sql, rows)
            result = []
        else:
            result = conn.execute(sql).fetchall()
        conn.commit()
        return result
    finally:
        conn.close()


def enqueue(config: Config, count: int, start: int = 0) -> None:
    raw(config, "INSERT INTO command (type, params, status, created_at) VALUES (?, ?, 'queued', ?)",
        [("refresh", json.dumps({"jql": f"key = A-{n}"}), T) for n in range(start, start + count)])


@pytest.fixture
def clock():
    return MovableClock()


@pytest.fixture
def app(config: Config, clock):
    """The app over a real database, with an agent token; the clock stands still."""
    config = Config(data_dir=config.data_dir, database_url=config.database_url, lease_seconds=LEASE,
                    max_deliveries=3)
    startup.prepare(config)
    built = build(config, lambda run_id: None, clock)
    client = falcon.testing.TestClient(create_app(built))
    headers = {"Authorization": f"Bearer {built.services.tokens.add('agent', 'agent')}"}

    def post(path: str, body: dict):
        resp = client.simulate_post(path, json=body, headers=headers)
        assert resp.status_code == 200, resp.json
        return resp.json

    return config, post


def own_dispatcher(clock, signal: SqliteWorkSignal) -> Dispatcher:
    """A dispatcher of its own (not the app's) on ``signal``: the in-process one on either
    engine, as a PostgreSQL hub's would also NOTIFY, a statement more than the claim's own."""
    return Dispatcher(LEASE, 3, signal, clock, metrics=Metrics(), agents=AgentService(clock))


@pytest.fixture
def dispatcher(app, clock):
    return own_dispatcher(clock, SqliteWorkSignal())


def claim_and_done(post, agent_id: str = "agent-1") -> tuple[list[str], list[str]]:
    with statements() as claim:
        [command] = post("/agent/v1/claim", {"agent_id": agent_id, "version": 14})["commands"]
    with statements() as done:
        post(f"/agent/v1/commands/{command['id']}/done",
             {"result": {"total": 0}, "agent_id": agent_id, "delivery": command["deliveries"]})
    return claim, done


def test_a_claim_and_a_done_are_a_few_statements_however_long_the_queue(app):
    config, post = app
    enqueue(config, 3)
    claim_and_done(post)  # the agent is written as seen
    claim, done = claim_and_done(post)
    # token, BEGIN, expiry, claim, the run opened, COMMIT
    assert len(claim) <= 6, claim
    # token, BEGIN, the command finished, its run closed, COMMIT
    assert len(done) <= 5, done

    enqueue(config, 500, start=3)
    raw(config, "UPDATE command SET status = 'done' WHERE id <= 100 AND status = 'queued'")
    longer_claim, longer_done = claim_and_done(post)
    assert (len(longer_claim), len(longer_done)) == (len(claim), len(done))


def test_expiry_at_claim_takes_back_many_leases_in_as_many_statements_as_one(app, dispatcher, clock):
    config, _post = app
    enqueue(config, 1)
    [one] = dispatcher.claim("agent-x", 14)
    clock.advance(LEASE + 1)
    with statements() as single:
        dispatcher.claim("agent-y", 14, types=["fetch_attachment"])  # nothing to claim
    assert dispatcher.expire_leases() == {"requeued": 0, "failed": 0}

    enqueue(config, 40, start=1)
    claimed = dispatcher.claim("agent-x", 14, limit=50)
    assert len(claimed) == 41
    # The first command is on its last delivery: it fails, the rest go back.
    raw(config, f"UPDATE command SET deliveries = 3 WHERE id = {one['id']}")
    clock.advance(LEASE + 1)
    with statements() as many:
        assert dispatcher.claim("agent-y", 14, types=["fetch_attachment"]) == []
    assert len(many) == len(single)

    rows = raw(config, "SELECT id, status, agent_id, token_id, claimed_at, lease_until, error "
                       "FROM command ORDER BY id")
    first, rest = rows[0], rows[1:]
    assert first[1:3] == ("failed", "agent-x")
    assert first[6] == "lease expired on delivery 3 of 3 (HUB_MAX_DELIVERIES): given up"
    assert {r[1:] for r in rest} == {("queued", None, None, None, None, None)}
    runs = raw(config, "SELECT status, error FROM sync_run WHERE status != 'done'")
    assert set(runs) == {("failed", "lease of agent agent-x expired")}
    assert len(runs) == 41 + 1  # the first delivery's run of the first command too


def test_an_expiry_at_claim_wakes_waiting_claims(app, dispatcher, clock):
    config, _ = app
    enqueue(config, 1)
    signal = SqliteWorkSignal()
    waker = own_dispatcher(clock, signal)
    waker.claim("agent-x", 14)
    clock.advance(LEASE + 1)
    before = signal.generation()
    assert waker.claim("agent-y", 14, types=["fetch_attachment"]) == []
    assert signal.generation() == before + 1


def seen_writes(log: list[str]) -> int:
    return sum(1 for s in log if s.startswith('INSERT INTO "agent_status"'))


def test_last_seen_is_written_at_most_once_a_second(app, dispatcher, clock):
    config, _ = app
    with statements() as log:
        for _ in range(5):
            dispatcher.claim("agent-1", 14)
            dispatcher.heartbeat("agent-1", 14)
    assert seen_writes(log) == 1
    clock.advance(1)
    with statements() as log:
        dispatcher.claim("agent-1", 14)
        dispatcher.claim("agent-2", 14)  # another agent is its own
        dispatcher.claim("agent-1", 15)  # a new version is news
    assert seen_writes(log) == 3
    assert raw(config, "SELECT agent_id, version, last_seen_at FROM agent_status ORDER BY 1") == [
        ("agent-1", 15, "2026-11-02T09:00:01+00:00"), ("agent-2", 14, "2026-11-02T09:00:01+00:00")]


def test_a_changed_state_or_detail_is_always_written(app, dispatcher, clock):
    config, _ = app
    with statements() as log:
        dispatcher.heartbeat("agent-1", 14, "idle", None)
        dispatcher.heartbeat("agent-1", 14, "idle", None)  # the same: no write
        dispatcher.heartbeat("agent-1", 14, "working", "refresh 7")
        dispatcher.heartbeat("agent-1", 14, "working", "refresh 8")
        dispatcher.heartbeat("agent-1", 14)  # says nothing of its state: keeps it
    assert seen_writes(log) == 3
    assert raw(config, "SELECT state, detail FROM agent_status") == [("working", "refresh 8")]


def test_a_write_undone_is_not_taken_as_written(app, dispatcher, clock):
    """The throttle remembers only what was committed."""
    config, _ = app
    with pytest.raises(ZeroDivisionError), database.atomic():
        dispatcher.heartbeat("agent-1", 14, "idle")
        raise ZeroDivisionError("a failure inside the transaction")
    assert raw(config, "SELECT count(*) FROM agent_status") == [(0,)]
    dispatcher.heartbeat("agent-1", 14, "idle")
    assert raw(config, "SELECT state FROM agent_status") == [("idle",)]


def test_a_sqlite_without_returning_is_refused_when_the_database_opens(tmp_path, monkeypatch):
    from hub.db import SQLiteTooOld, open_database

    monkeypatch.setattr(sqlite3, "sqlite_version_info", (3, 34, 1))
    monkeypatch.setattr(sqlite3, "sqlite_version", "3.34.1")
    with pytest.raises(SQLiteTooOld, match=r"SQLite 3\.34\.1 is too old: the hub needs 3\.35\.0"):
        open_database(tmp_path / "hub.sqlite")
