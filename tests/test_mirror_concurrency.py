"""State pages that share issues, loaded by several processes at once: none fails (no
deadlock, no serialization error), and the mirror ends as loading the pages one after
the other, in the order they took effect, ends. On SQLite the pages take turns at the
write lock; on PostgreSQL two pages that share an issue wait for each other's keys
(hub/dialect/mirror.py), and the others load side by side."""

from __future__ import annotations

import itertools
import multiprocessing
from concurrent.futures import ProcessPoolExecutor

import pytest

from hub import startup
from hub.config import Config
from hub.db import database, open_hub_database
from tests import mirror_load

pytestmark = pytest.mark.backends("sqlite", "postgresql")

PROCESSES = 3
PAGES = 60


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
    if database.obj is not None and getattr(database.obj, "database", None) == name:
        database.obj.close()
    server.drop_database(name)


def test_overlapping_pages_loaded_at_once_end_as_one_after_the_other(config, backend, replay_config):
    startup.prepare(config)
    db = open_hub_database(config)
    database.execute_sql(log_table(backend))
    db.close()
    seed = 21
    spawn = multiprocessing.get_context("spawn")
    with spawn.Manager() as manager, ProcessPoolExecutor(PROCESSES, mp_context=spawn) as pool:
        start = manager.Barrier(PROCESSES)
        loads = [pool.submit(mirror_load.load_pages, str(config.data_dir), config.database_url, worker, seed,
                             PAGES, start) for worker in range(PROCESSES)]
        # A page that failed (a deadlock, a serialization failure) raises its error here.
        assert [load.result() for load in loads] == [PAGES] * PROCESSES

    db = open_hub_database(config)
    order = [tuple(row) for row in database.execute_sql("SELECT worker, page FROM load_log ORDER BY seq")]
    at_once = mirror_load.snapshot()
    db.close()
    assert sorted(order) == [(worker, page) for worker in range(PROCESSES) for page in range(PAGES)]
    # Each process's pages took effect in its order; and the processes did load at once.
    for worker in range(PROCESSES):
        assert [page for w, page in order if w == worker] == list(range(PAGES))
    assert sum(1 for before, after in itertools.pairwise(order) if before[0] != after[0]) > PROCESSES

    startup.prepare(replay_config)
    db = open_hub_database(replay_config)
    pages = {worker: mirror_load.pages_of(seed, worker, PAGES) for worker in range(PROCESSES)}
    for worker, page in order:
        mirror_load.load_one(worker, page, pages[worker][page], log=False)
    one_after_the_other = mirror_load.snapshot()
    db.close()
    assert at_once["issue"], "nothing was loaded"
    for table in mirror_load.TABLES:
        assert at_once[table] == one_after_the_other[table], table
