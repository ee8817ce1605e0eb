"""PostgreSQL's search index caught up after the pages (hub/services/search/fulltext_backlog_postgres.py):
a page marks the keys whose text it changes and the vectors are computed after it
commits, by the node's thread or, for what a killed node left, by the worker's task.
Search finds what a page wrote as soon as it commits, whether or not the backlog has
been drained, and the drains that race pages of the same issues leave the index as
the issues are."""

from __future__ import annotations

import random
import threading

import psycopg
import pytest

from hub.clock import Clock, iso
from hub.db import database
from hub.services.mirror.loading import MirrorService, RunContext
from hub.services.search.fulltext_backlog_postgres import PostgresSearchBacklog
from tests.support import comment, issue, jira_id, load, wait_until
from tests.support.search_rows import index_agrees

pytestmark = pytest.mark.backends("postgresql")


def found(hub, q: str) -> list[str]:
    resp = hub.api("GET", "/api/v1/issues", params={"q": q})
    assert resp.status_code == 200, resp.json
    return [row["key"] for row in resp.json["items"]]


def marked(hub) -> list[str]:
    with psycopg.connect(hub.config.database_url, autocommit=True) as conn:
        return [key for (key,) in conn.execute("SELECT key FROM issue_fts_stale ORDER BY key")]


def indexed(hub) -> list[str]:
    with psycopg.connect(hub.config.database_url, autocommit=True) as conn:
        return [key for (key,) in conn.execute("SELECT key FROM issue_fts ORDER BY key")]


def test_a_page_s_issues_are_found_before_the_backlog_indexes_them(hub):
    hub.built.services.backlog.close()  # this node's thread drains nothing from here on
    load(hub, [issue("AURORA-1", summary="Bright lantern"),
               issue("AURORA-2", summary="Quiet harbour", comments=[comment("1", "ёлочный шар")])])
    assert marked(hub) == ["AURORA-1", "AURORA-2"] and indexed(hub) == []
    assert found(hub, "lantern") == ["AURORA-1"]
    assert found(hub, "елочный") == ["AURORA-2"]
    load(hub, [issue("AURORA-1", summary="Dim candle")])
    assert found(hub, "lantern") == [] and found(hub, "candle") == ["AURORA-1"]

    assert PostgresSearchBacklog(hub.config.database_url).drain() == 2
    assert marked(hub) == [] and indexed(hub) == ["AURORA-1", "AURORA-2"]
    assert found(hub, "lantern") == [] and found(hub, "candle") == ["AURORA-1"]
    assert found(hub, "елочный") == ["AURORA-2"]
    index_agrees()


def test_the_node_s_thread_indexes_what_a_page_marked(hub):
    load(hub, [issue(f"AURORA-{n}", summary=f"Lantern number {n}") for n in range(1, 6)])
    wait_until(lambda: not marked(hub), message="the node's thread to drain the backlog")
    assert indexed(hub) == [f"AURORA-{n}" for n in range(1, 6)]
    assert found(hub, "lantern number 3") == ["AURORA-3"]
    index_agrees()


def test_what_a_killed_node_left_marked_is_indexed_by_the_worker_s_task(hub):
    from worker import tasks

    hub.built.services.backlog.close()  # the node that loaded the page died before it drained
    load(hub, [issue("AURORA-1", summary="Lantern")])
    assert marked(hub) == ["AURORA-1"]
    assert tasks.drain_search_backlog.call_local() == 1
    assert marked(hub) == [] and indexed(hub) == ["AURORA-1"]
    assert tasks.drain_search_backlog.call_local() == 0
    index_agrees()


def test_the_metrics_count_the_issues_waiting_for_the_index(hub):
    hub.built.services.backlog.close()
    load(hub, [issue("AURORA-1"), issue("AURORA-2")])

    def waiting() -> str:
        return hub.client.simulate_get("/metrics", headers=hub.headers("admin")).text

    assert "\nhub_search_backlog_issues 2.0\n" in waiting()
    PostgresSearchBacklog(hub.config.database_url).drain()
    assert "\nhub_search_backlog_issues 0.0\n" in waiting()


def test_a_moved_issue_s_old_key_leaves_the_index(hub):
    load(hub, [issue("AURORA-1", summary="Lantern", id=jira_id("AURORA-1"))])
    wait_until(lambda: not marked(hub), message="the first page indexed")
    hub.built.services.backlog.close()
    load(hub, [issue("BOREAS-7", summary="Lantern", id=jira_id("AURORA-1"))])
    assert marked(hub) == ["AURORA-1", "BOREAS-7"]
    assert found(hub, "lantern") == ["BOREAS-7"]
    PostgresSearchBacklog(hub.config.database_url).drain()
    assert indexed(hub) == ["BOREAS-7"] and found(hub, "lantern") == ["BOREAS-7"]
    index_agrees()


def test_drains_racing_pages_of_the_same_issues_leave_the_index_as_the_issues_are(hub):
    """Four writers load pages of one set of issues, each with new words, while two
    drains run; no statement fails, and the index ends as the issues' text is."""
    hub.built.services.backlog.close()
    keys = [f"AURORA-{n}" for n in range(1, 41)]
    load(hub, [issue(key, summary="first") for key in keys])
    backlog = PostgresSearchBacklog(hub.config.database_url, batch=7)
    stop = threading.Event()
    failures: list[BaseException] = []

    def writer(seed: int) -> None:
        rng = random.Random(seed)
        mirror = MirrorService()
        try:
            for round_ in range(15):
                page = rng.sample(keys, 12)
                states = [issue(key, summary=f"word{seed}x{round_} {key}") for key in page]
                now = iso(Clock().now())
                with database.atomic():
                    mirror.load_page(states, [], RunContext(full=False, started_at=now, now=now))
        except Exception as exc:  # reported by the test, whatever it is
            failures.append(exc)
        finally:
            database.close()

    def drainer() -> None:
        try:
            with backlog.connect() as conn:
                while not stop.is_set():
                    backlog.drain(conn)
        except Exception as exc:  # reported by the test, whatever it is
            failures.append(exc)

    writers = [threading.Thread(target=writer, args=(seed,)) for seed in range(4)]
    drainers = [threading.Thread(target=drainer) for _ in range(2)]
    for thread in (*writers, *drainers):
        thread.start()
    for thread in writers:
        thread.join()
    stop.set()
    for thread in drainers:
        thread.join()
    assert failures == []
    backlog.drain()
    assert marked(hub) == [] and indexed(hub) == sorted(keys)
    index_agrees()
