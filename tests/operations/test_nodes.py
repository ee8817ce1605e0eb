"""Several hub processes on one database: a command enqueued through one node wakes claims
waiting on another, periodic tasks run once per period however many workers run, the queue
on PostgreSQL; and a cluster of three nodes and a worker that loses a node midway (tests/support/cluster.py)."""

from __future__ import annotations

import queue
import re
import threading
import time
from collections import Counter, defaultdict
from datetime import UTC, datetime, timedelta

import pytest

from hub.config import Config
from hub.db import database
from hub.services.commands.work_signal_postgres import PostgresWorkSignal
from hub.services.operations.periods import PeriodService, period_start
from tests.support import created_hub, wait_until
from tests.support.cluster import rows, run_cluster, shared_store
from tests.support.engines import require
from tests.support.nodes import (
    Http,
    Ledger,
    engine_settings,
    first_admin_token,
    make_token,
    redis_server,
    start_node,
    start_worker,
    stop_all,
)

pytestmark = pytest.mark.long


@pytest.fixture
def shared_database(request):
    """A database of its own at the current schema, for processes to share: its URL."""
    server, template = request.getfixturevalue("postgres_template")
    name = server.create_database(template=template)
    yield server.url(name)
    server.drop_database(name)


# -- the work signal -------------------------------------------------------------------------


@pytest.mark.backends("postgresql")
def test_a_notification_reaches_the_signal_of_another_connection_once_committed_never_on_rollback(hub):
    here = hub.built.services.signal
    elsewhere = PostgresWorkSignal(hub.config.database_url)
    try:
        assert isinstance(here, PostgresWorkSignal)
        assert elsewhere.start(timeout=30)
        seen = elsewhere.generation()
        with database.atomic() as transaction:
            here.notify()
            transaction.rollback()
        with database.atomic():
            here.notify()
        wait_until(lambda: elsewhere.generation() != seen, message="the committed notification")
        # PostgreSQL delivers in commit order and drops a rolled-back NOTIFY: one wake-up came.
        assert elsewhere.generation() == seen + 1
    finally:
        elsewhere.close()
        here.close()
    assert not elsewhere.listening


@pytest.mark.backends("postgresql")
def test_the_listener_comes_back_when_its_connection_is_killed(hub, postgres_template):
    server, _ = postgres_template
    signal = hub.built.services.signal
    try:
        assert signal.start(timeout=30)
        mine = "SELECT pid FROM pg_stat_activity WHERE query LIKE 'LISTEN%' AND datname = current_database()"
        [(pid,)] = server.execute(mine, hub.config.database_url.rsplit("/", 1)[1])
        server.execute(f"SELECT pg_terminate_backend({pid})")
        wait_until(lambda: server.execute(mine, hub.config.database_url.rsplit("/", 1)[1]) not in ([], [(pid,)]),
                   message="a new listening connection")
        seen = signal.generation()
        PostgresWorkSignal(hub.config.database_url).notify()
        wait_until(lambda: signal.generation() != seen, message="the wake-up after the reconnection")
    finally:
        signal.close()


@pytest.mark.backends("postgresql")
def test_a_signal_let_go_stops_its_listener_and_closes_its_connection(hub):
    import gc

    signal = PostgresWorkSignal(hub.config.database_url)
    assert signal.start(timeout=30)
    thread = signal._thread
    del signal
    gc.collect()
    wait_until(lambda: not thread.is_alive(), message="the listener's end")


def test_a_command_enqueued_through_a_node_wakes_a_listener_of_another_process(shared_database, data_dir):
    node = start_node(data_dir, engine_settings(shared_database))
    listener = PostgresWorkSignal(shared_database)
    try:
        assert listener.start(timeout=30)
        interface = make_token(node.url, first_admin_token(data_dir), "ui", "interface")
        seen = listener.generation()
        status, body = Http([node.url], interface, Ledger()).json(
            node.url, "POST", "/api/v1/commands", {"type": "refresh", "params": {"jql": "project = AURORA"}})
        assert status == 201, body
        wait_until(lambda: listener.generation() != seen, message="the node's NOTIFY")
    finally:
        listener.close()
        stop_all(node)


@pytest.mark.backends("postgresql")
def test_a_command_enqueued_through_one_node_wakes_a_long_poll_on_another(hub, monkeypatch):
    import falcon.testing

    from hub.api.app import create_app
    from hub.assembly import build
    from hub.services.commands import dispatch

    # Another node: its own services and work signal (its own listening connection) on the
    # same database. A claim there looks again only after a minute, unless the signal wakes it.
    monkeypatch.setattr(dispatch, "POLL_SECONDS", 60)
    other = build(hub.config, lambda run_id: None)
    node_b = falcon.testing.TestClient(create_app(other))
    answers: queue.Queue = queue.Queue()

    def long_poll() -> None:
        began = time.monotonic()
        answer = node_b.simulate_post("/agent/v1/claim", headers=hub.headers("agent"),
                                      json={"agent_id": "agent-b", "version": 18, "wait": 20})
        answers.put((answer, time.monotonic() - began))

    try:
        poller = threading.Thread(target=long_poll, daemon=True)
        poller.start()
        gate = node_b.app._router.find("/agent/v1/claim")[0]._polls
        wait_until(lambda: gate.waiting == 1, message="the long-poll on node B")
        command = hub.api("POST", "/api/v1/commands", {"type": "refresh", "params": {"jql": "project = AURORA"}})
        assert command.status_code == 201
        answer, waited = answers.get(timeout=30)
        assert answer.status_code == 200
        assert [c["id"] for c in answer.json["commands"]] == [command.json["id"]]
        # Woken, not timed out: the claim answered while most of its 20 s were still to run.
        assert waited < 10, waited
    finally:
        other.services.signal.close()


# -- periodic tasks ----------------------------------------------------------------------------

_redis_dbs = iter(range(1, 16))


def _next_redis_db() -> int:
    """A Redis database number of its own for a test (Redis has 16)."""
    return next(_redis_dbs)


PERIOD_MINUTE = timedelta(minutes=1)
PERIOD_HOUR = timedelta(hours=1)



@pytest.mark.backends("sqlite", "postgresql")
def test_a_period_is_claimed_once_and_only_forward(hub):
    periods = PeriodService(_Fixed("2026-11-30T10:15:42+00:00"))
    minute = periods.claim("expire_leases", PERIOD_MINUTE)
    assert (minute.won, minute.start) == (True, "2026-11-30T10:15:00+00:00")
    assert not periods.claim("expire_leases", PERIOD_MINUTE).won
    assert periods.claim("forget_agents", PERIOD_HOUR).start == "2026-11-30T10:00:00+00:00"
    earlier = PeriodService(_Fixed("2026-11-30T10:14:59+00:00"))
    assert not earlier.claim("expire_leases", PERIOD_MINUTE).won  # a slow clock's worker
    assert PeriodService(_Fixed("2026-11-30T10:16:00+00:00")).claim("expire_leases", PERIOD_MINUTE).won
    assert periods.last("expire_leases") == "2026-11-30T10:16:00+00:00"
    assert period_start(datetime(2026, 11, 30, 10, 59, 59), PERIOD_HOUR) == datetime(2026, 11, 30, 10, tzinfo=UTC)


RAN = re.compile(r"periodic task (\w+): running for the period from (\S+)")
PASSED = re.compile(r"periodic task (\w+): the period from (\S+) was run by another worker")


@pytest.fixture
def redis_url() -> str:
    url, reason = redis_server()
    require(reason)
    return url


@pytest.mark.parametrize("engine", ["sqlite", "sqlite+redis", "postgresql"])
def test_two_workers_run_each_periodic_task_once_per_period(engine, request, data_dir):
    if engine == "postgresql":
        url = request.getfixturevalue("shared_database")
        settings = engine_settings(url, queue_url=url)
    else:
        created_hub(data_dir)
        redis = request.getfixturevalue("redis_url") if engine == "sqlite+redis" else None
        # One queue for both workers: queue.sqlite in the data dir, or a Redis of their own.
        settings = engine_settings(None, queue_url=redis and f"{redis.rsplit('/', 1)[0]}/{_next_redis_db()}")
    # Both workers enqueue every periodic task as they start: let them start in the same minute.
    wait_until(lambda: datetime.now(UTC).second < 45, timeout=20, message="a minute's first 45 s")
    workers = [start_worker(data_dir, settings) for _ in range(2)]
    outcomes: dict[tuple[str, str], list[str]] = defaultdict(list)

    said: list[list[str]] = [[] for _ in workers]

    def both_copies_came_round() -> bool:
        for worker, lines in zip(workers, said, strict=True):
            while True:
                try:
                    line = worker.lines.get_nowait()
                except queue.Empty:
                    break
                assert line is not None, f"a worker ended: {''.join(lines)[-3000:]}"
                lines.append(line)
                for pattern, outcome in ((RAN, "ran"), (PASSED, "passed")):
                    if found := pattern.search(line):
                        outcomes[found.groups()].append(outcome)
        return len(outcomes[_minute_task_of(outcomes)]) >= 2 if outcomes else False

    try:
        wait_until(both_copies_came_round, timeout=90, message="two copies of one period")
    finally:
        stop_all(*workers)
    runs = Counter(key for key, seen in outcomes.items() for outcome in seen if outcome == "ran")
    assert all(n == 1 for n in runs.values()), outcomes
    twice = [key for key, seen in outcomes.items() if len(seen) >= 2]
    assert twice and all(sorted(outcomes[key]) == ["passed", "ran"] for key in twice), outcomes


def _minute_task_of(outcomes) -> tuple[str, str]:
    """The (task, period) of note_worker_alive seen most often: the one both workers enqueued."""
    alive = [key for key in outcomes if key[0] == "note_worker_alive"]
    return max(alive, key=lambda key: len(outcomes[key])) if alive else ("", "")


# -- the queue -------------------------------------------------------------------------------


def test_the_queue_on_postgresql_is_hueys_own_storage_shared_by_every_process(shared_database, data_dir):
    from huey.storage import PostgresStorage

    from worker.instance import HubHuey

    config = Config(data_dir=data_dir, database_url=shared_database, queue_url=shared_database)
    one, other = HubHuey().configure(config), HubHuey().configure(config)
    try:
        assert isinstance(one.storage, PostgresStorage)
        one.storage.enqueue(b"mark_neighbours(7)")
        assert other.storage.dequeue() == b"mark_neighbours(7)"
        assert one.storage.dequeue() is None
        assert not (data_dir / "queue.sqlite").exists()
    finally:
        one.storage.close()
        other.storage.close()


def test_processes_that_configure_the_queue_at_once_create_its_tables_once(shared_database, data_dir):
    from concurrent.futures import ThreadPoolExecutor

    from worker.instance import HubHuey

    config = Config(data_dir=data_dir, database_url=shared_database, queue_url=shared_database)
    barrier = threading.Barrier(8)

    def configure(_) -> None:
        barrier.wait()
        HubHuey().configure(config).storage.close()

    with ThreadPoolExecutor(8) as pool:
        list(pool.map(configure, range(8)))  # each one's error, if any, raised here
    tables = rows(shared_database, "SELECT tablename FROM pg_tables WHERE tablename LIKE 'huey%' ORDER BY 1")
    assert tables == [("huey_counter",), ("huey_kv",), ("huey_schedule",), ("huey_task",)]


def test_the_queue_on_redis_is_hueys_redis_storage_shared_by_every_process(redis_url, data_dir):
    from huey.storage import RedisStorage

    from worker.instance import HubHuey

    config = Config(data_dir=data_dir, queue_url=f"{redis_url.rsplit('/', 1)[0]}/{_next_redis_db()}")
    one, other = HubHuey().configure(config), HubHuey().configure(config)
    assert isinstance(one.storage, RedisStorage)
    one.storage.flush_queue()
    one.storage.enqueue(b"mark_neighbours(7)")
    assert other.storage.dequeue() == b"mark_neighbours(7)"
    assert one.storage.queue_size() == 0
    assert not (data_dir / "queue.sqlite").exists()


class _Fixed:
    def __init__(self, moment: str):
        self.moment = datetime.fromisoformat(moment)

    def now(self) -> datetime:
        return self.moment



# -- three nodes, a worker, twelve agents, one node lost ----------------------------------------


def test_three_nodes_and_a_worker_lose_a_node_midway_and_lose_no_command(shared_database, data_dir):
    with shared_store(data_dir) as store:
        run_cluster(shared_database, data_dir, store)
