"""State pages that share issues, loaded by several processes at once: none fails (no
deadlock, no serialization error), and the mirror ends as loading the pages one after
the other, in the order they took effect, ends. On SQLite the pages take turns at the
write lock; on PostgreSQL two pages that share an issue wait for each other's keys
(hub/dialect/mirror.py), and the others load side by side."""

from __future__ import annotations

import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from threading import BrokenBarrierError

import pytest

from hub import startup
from hub.config import Config
from hub.db import database, open_hub_database
from tests import mirror_load

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
    startup.prepare(config)
    startup.prepare(replay_config)
    replay = open_hub_database(replay_config)
    at_once = open_hub_database(config)
    database.execute_sql(log_table(backend))
    seed, seen, switches = 21, 0, 0
    pages = {worker: mirror_load.pages_of(seed, worker, ROUNDS * PAGES) for worker in range(PROCESSES)}
    spawn = multiprocessing.get_context("spawn")
    try:
        with spawn.Manager() as manager, ProcessPoolExecutor(PROCESSES, mp_context=spawn) as pool:
            steps = manager.Barrier(PROCESSES + 1)
            loads = [pool.submit(mirror_load.load_rounds, str(config.data_dir), config.database_url, worker,
                                 seed, ROUNDS, PAGES, steps) for worker in range(PROCESSES)]
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
            # A page that failed (a deadlock, a serialization failure) raises its error here.
            assert [load.result() for load in loads] == [ROUNDS * PAGES] * PROCESSES
    finally:
        at_once.close()
        replay.close()
    assert loaded["issue"], "nothing was loaded"
    # The processes did load at once: the pages of one round interleave.
    assert switches > ROUNDS
