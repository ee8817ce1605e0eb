"""State pages that share issues, loaded by several processes at once: none fails (no
deadlock, no serialization error), and the mirror ends as loading the pages one after
the other, in the order they took effect, ends. On SQLite the pages take turns at the
write lock; on PostgreSQL two pages that share an issue wait for each other's keys
(hub/dialect/mirror.py), and the others load side by side. Pages that move issues
(tests/support/mirror_load.py's moving pages) re-key issues they do not send: those are
waited for too, before anything is written."""

from __future__ import annotations

import multiprocessing
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from threading import BrokenBarrierError

import pytest

from hub import startup
from hub.config import Config
from hub.db import database, open_hub_database
from hub.dialect.mirror import _KEY_LOCKS, _lock_number
from hub.services.mirror.loading import MirrorService, RunContext
from tests.support import mirror_load, wait_until

pytestmark = pytest.mark.backends("sqlite", "postgresql")

PROCESSES = 3
ROUNDS = 40
# Pages each process loads in a round; the mirror is compared after every round, before
# later pages overwrite what went wrong.
PAGES = 2


def log_table(backend: str) -> str:
    seq = "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY" if backend == "postgresql" else "INTEGER PRIMARY KEY"
    return f"CREATE TABLE load_log (seq {seq}, worker BIGINT NOT NULL, page BIGINT NOT NULL)"


@pytest.fixture
def replay_config(backend, tmp_path, request):
    """A second, empty hub of the same engine: where the pages are loaded one after the other."""
    if backend != "postgresql":
        yield Config(data_dir=tmp_path / "replay")
        return
    server, template = request.getfixturevalue("postgres_template")
    name = server.create_database(template=template)
    yield Config(data_dir=tmp_path / "replay", database_url=server.url(name))
    server.drop_database(name)


def test_overlapping_pages_loaded_at_once_end_as_one_after_the_other(config, backend, replay_config):
    loaded_at_once(config, backend, replay_config, moving=False)


def test_overlapping_pages_that_move_issues_loaded_at_once_end_as_one_after_the_other(
        config, backend, replay_config):
    loaded_at_once(config, backend, replay_config, moving=True)


def loaded_at_once(config: Config, backend: str, replay_config: Config, *, moving: bool) -> None:
    """PROCESSES processes load ROUNDS rounds of PAGES pages each at once; after each round
    the mirror is compared with the same pages loaded one after the other, in the order
    they took effect in, and no page may have needed loading again."""
    startup.prepare(config)
    startup.prepare(replay_config)
    replay = open_hub_database(replay_config)
    at_once = open_hub_database(config)
    database.execute_sql(log_table(backend))
    seed, seen, switches = 21, 0, 0
    pages = {worker: mirror_load.pages_of(seed, worker, ROUNDS * PAGES, moving) for worker in range(PROCESSES)}
    if moving:
        for db in (at_once, replay):
            database.initialize(db)
            mirror_load.load_one(-1, 0, mirror_load.seed_page(), log=False)
        database.initialize(at_once)
    spawn = multiprocessing.get_context("spawn")
    try:
        with spawn.Manager() as manager, ProcessPoolExecutor(PROCESSES, mp_context=spawn) as pool:
            steps = manager.Barrier(PROCESSES + 1)
            loads = [pool.submit(mirror_load.load_rounds, str(config.data_dir), config.database_url, worker,
                                 seed, ROUNDS, PAGES, steps, moving) for worker in range(PROCESSES)]
            try:
                for round_ in range(ROUNDS):
                    steps.wait(120)  # they load
                    steps.wait(120)  # they have loaded
                    database.initialize(at_once)
                    order = [tuple(row) for row in database.execute_sql(
                        "SELECT worker, page FROM load_log WHERE seq > ? ORDER BY seq", (seen,))]
                    seen += len(order)
                    switches += sum(1 for n in range(1, len(order)) if order[n - 1][0] != order[n][0])
                    assert sorted(order) == [(worker, page) for worker in range(PROCESSES)
                                             for page in range(round_ * PAGES, (round_ + 1) * PAGES)]
                    loaded = mirror_load.snapshot()
                    database.initialize(replay)
                    for worker, page in order:
                        mirror_load.load_one(worker, page, pages[worker][page], log=False)
                    assert loaded == mirror_load.snapshot(), f"round {round_}, pages in the order {order}"
            except BrokenBarrierError:
                pass  # a process failed: its error is raised below
            except BaseException:
                steps.abort()  # the processes stop waiting for the next round
                raise
            # A page that failed otherwise raises its error here.
            results = [load.result() for load in loads]
    finally:
        at_once.close()
        replay.close()
    assert [count for count, _ in results] == [ROUNDS * PAGES] * PROCESSES
    # No page met a deadlock or a serialization failure (an agent would have heard 503).
    assert [retried for _, retried in results] == [[]] * PROCESSES
    assert loaded["issue"], "nothing was loaded"
    if moving:
        assert loaded["issue_alias"], "nothing was moved"
    # The processes did load at once: the pages of one round interleave.
    assert switches > ROUNDS


def load_states(states: list[dict]) -> None:
    run = RunContext(full=False, started_at=mirror_load.START, now="2026-11-02T10:00:00+00:00")
    try:
        with database.atomic():
            MirrorService().load_page(states, [], run)
    finally:
        database.close()  # (the thread's own connection)


# Advisory locks are PostgreSQL's: on SQLite a page holds the one write lock.
@pytest.mark.backends("postgresql")
def test_a_move_found_by_jira_id_waits_for_the_old_key_holding_no_key_after_it(config):
    startup.prepare(config)
    db = open_hub_database(config)
    old = "AURORA-12"
    # A new key whose lock comes after the old key's: a page that waited for the old key
    # while holding the new one would invert the order every writer takes them in.
    new = next(key for key in (f"OPS-{n}" for n in range(1, 100)) if _lock_number(key) > _lock_number(old))
    child = {"key": "AURORA-14", "id": "10014", "epic_key": old, "parent_key": old}
    load_states([{"key": old, "id": "10012", "summary": "Radar"}, child])
    import psycopg

    try:
        with psycopg.connect(config.database_url) as other, ThreadPoolExecutor(1) as pool:
            # Another writer holds the old key, then wants the new one, in the one order.
            other.execute("SELECT pg_advisory_xact_lock(%s, %s)", (_KEY_LOCKS, _lock_number(old)))
            page = pool.submit(load_states, [{"key": new, "id": "10012", "summary": "Radar"}])
            wait_until(lambda: page.done() or other.execute(
                "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted").fetchone()[0])
            assert not page.done(), page.exception()
            # Not a deadlock: the page lets go of the new key before it waits for the old one.
            other.execute("SELECT pg_advisory_xact_lock(%s, %s)", (_KEY_LOCKS, _lock_number(new)))
            other.rollback()
            page.result(timeout=30)
        database.initialize(db)
        assert database.execute_sql("SELECT key, id FROM issue ORDER BY key").fetchall() == [
            ("AURORA-14", "10014"), (new, "10012")]
        assert database.execute_sql("SELECT epic_key, parent_key FROM issue WHERE key = 'AURORA-14'").fetchall() == [
            (new, new)]
        assert database.execute_sql("SELECT old_key, key FROM issue_alias").fetchall() == [(old, new)]
    finally:
        db.close()
