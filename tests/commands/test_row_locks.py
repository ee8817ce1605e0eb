"""Check-then-write rules on PostgreSQL, where writers do not take turns as SQLite's
do: a note added while the issue moves to a new key lands on the new key, an edit
that meets a delete in between is refused, not written into nothing, a batch
made for a project being removed finds it gone rather than naming no project, and the
markings of many issues at once (neighbours, gone) lock their rows in the order a page
does, so that neither deadlocks with a page, even one that moves an issue."""

from __future__ import annotations

import threading

import psycopg
import pytest

from hub.errors import ContractError, NotFound
from tests.support import claim, enqueue, issue, jira_id, report, wait_until

pytestmark = pytest.mark.backends("postgresql")

NOW = "2026-11-02T09:00:00+00:00"


def waiting_on_a_lock(url: str) -> int:
    """How many connections of the hub wait on a lock now."""
    with psycopg.connect(url, autocommit=True) as conn:
        return conn.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                            "AND application_name = 'sdlc-hub' AND wait_event_type = 'Lock'").fetchone()[0]


def in_thread(call) -> tuple[threading.Thread, list]:
    """``call()`` in a thread of its own (its own connection); what it returned or raised."""
    from hub.db import database

    outcome: list = []

    def run() -> None:
        try:
            outcome.append(call())
        except (NotFound, ContractError) as exc:
            outcome.append(exc)
        finally:
            database.close()

    thread = threading.Thread(target=run)
    thread.start()
    return thread, outcome


def test_a_note_added_while_the_issue_moves_lands_on_its_new_key(hub):
    url = hub.config.database_url
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("INSERT INTO issue (key, id, fetched_at) VALUES ('AURORA-1', '10001', %s)", (NOW,))
    issues = hub.built.services.issues
    with psycopg.connect(url) as mover:
        # The loader's move, held open: the issue re-keyed, its notes and its old key following.
        mover.execute("UPDATE issue SET key = 'AURORA-7' WHERE key = 'AURORA-1'")
        mover.execute("UPDATE issue_note SET key = 'AURORA-7' WHERE key = 'AURORA-1'")
        mover.execute("INSERT INTO issue_alias (old_key, key, moved_at) VALUES ('AURORA-1', 'AURORA-7', %s)", (NOW,))
        thread, outcome = in_thread(lambda: issues.add_note("AURORA-1", "test-interface", "a note"))
        wait_until(lambda: waiting_on_a_lock(url), message="the note waiting on the issue's row")
        mover.commit()
    thread.join()
    [note] = outcome
    assert note.key == "AURORA-7"
    with psycopg.connect(url) as conn:
        assert conn.execute("SELECT key, body FROM issue_note").fetchall() == [("AURORA-7", "a note")]


def test_an_edit_that_meets_a_delete_is_refused(hub):
    url = hub.config.database_url
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("INSERT INTO issue (key, id, fetched_at) VALUES ('AURORA-1', '10001', %s)", (NOW,))
    issues = hub.built.services.issues
    note = issues.add_note("AURORA-1", "test-interface", "first words")
    with psycopg.connect(url) as deleter:
        deleter.execute("DELETE FROM issue_note WHERE id = %s", (note.id,))
        thread, outcome = in_thread(lambda: issues.edit_note(note.id, "second words", by="test-interface",
                                                             role="interface"))
        wait_until(lambda: waiting_on_a_lock(url), message="the edit waiting on the note's row")
        deleter.commit()
    thread.join()
    assert len(outcome) == 1 and isinstance(outcome[0], NotFound), outcome


def test_a_batch_made_while_its_project_is_removed_finds_it_gone(hub):
    url = hub.config.database_url
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("INSERT INTO project (label, name, created_at) VALUES ('AWPCA', 'АРМ КА', %s)", (NOW,))
    batches = hub.built.services.batches
    with psycopg.connect(url) as remover:
        # The removal, held open after its check: the project's row locked and deleted.
        remover.execute("SELECT 1 FROM project WHERE label = 'AWPCA' FOR UPDATE")
        remover.execute("DELETE FROM project WHERE label = 'AWPCA'")
        thread, outcome = in_thread(lambda: batches.create("sprint 12", "test-interface", project="AWPCA"))
        wait_until(lambda: waiting_on_a_lock(url), message="the batch waiting on the project's row")
        remover.commit()
    thread.join()
    assert len(outcome) == 1 and isinstance(outcome[0], ContractError), outcome
    with psycopg.connect(url) as conn:
        assert conn.execute("SELECT count(*) FROM batch").fetchone() == (0,)


def test_two_saves_of_one_filter_name_at_once_make_one_filter(hub):
    from hub.db import database
    from hub.errors import Conflict
    from hub.services.issues.saved_filters import Owner

    filters = hub.built.services.filters
    with psycopg.connect(hub.config.database_url) as conn:
        [(token_id,)] = conn.execute("SELECT id FROM token WHERE name = 'test-interface'").fetchall()
    owner = Owner(token_id, "interface")
    savers = 4

    def save(starting: threading.Barrier, outcome: list, name: str) -> None:
        try:
            database.connect(reuse_if_open=True)  # connected before the race, not during it
            starting.wait()
            outcome.append(filters.create(owner, name, "project = AURORA"))
        except Conflict as exc:
            outcome.append(exc)
        finally:
            database.close()

    for round_ in range(10):
        starting, outcome = threading.Barrier(savers), []
        threads = [threading.Thread(target=save, args=(starting, outcome, f"mine {round_}")) for _ in range(savers)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert len(outcome) == savers, outcome
        assert len([made for made in outcome if not isinstance(made, Conflict)]) == 1, outcome


def test_marking_neighbours_while_a_page_writes_known_issues_locks_them_in_key_order(hub):
    """A full run's marking turns many issues into neighbours in one UPDATE, holding no key
    locks; a page locks the known issues it writes in key order. The marking must lock its
    rows in that order too: here AURORA-2's row lies first in the table, and a marking that
    locked rows as it found them would hold it while waiting for AURORA-1, which the page
    holds while it goes on to AURORA-2: a deadlock, one of the two refused."""
    url = hub.config.database_url
    with psycopg.connect(url, autocommit=True) as conn:
        for key in ("AURORA-2", "AURORA-1"):  # in this order: AURORA-2's row first in the heap
            conn.execute("INSERT INTO issue (key, id, fetched_at, neighbor) VALUES (%s, %s, %s, 0)",
                         (key, key[-1], NOW))
        run_id = conn.execute(
            "INSERT INTO sync_run (query, status, started_at, finished_at, issues_loaded, neighbors_due) "
            "VALUES ('project = AURORA', 'done', '2026-11-02T10:00:00+00:00', '2026-11-02T10:05:00+00:00', 5, 1) "
            "RETURNING id").fetchone()[0]
    runs = hub.built.services.runs
    with psycopg.connect(url) as page:
        # The page's upserts of known issues, in key order, the first one made and held.
        page.execute("UPDATE issue SET fetched_at = '2026-11-02T10:04:00+00:00' WHERE key = 'AURORA-1'")
        thread, outcome = in_thread(lambda: runs.mark_neighbours(run_id))
        wait_until(lambda: waiting_on_a_lock(url), message="the marking waiting on AURORA-1's row")
        page.execute("UPDATE issue SET fetched_at = '2026-11-02T10:04:00+00:00' WHERE key = 'AURORA-2'")
        page.commit()
    thread.join()
    # Both issues were loaded by the run after all: neither is a neighbour.
    assert outcome == [0]
    with psycopg.connect(url) as conn:
        assert conn.execute("SELECT key, neighbor FROM issue ORDER BY key").fetchall() == [
            ("AURORA-1", 0), ("AURORA-2", 0)]


def test_a_check_marking_issues_gone_while_a_page_writes_them_locks_them_in_key_order(hub):
    """A check's result marks the keys Jira did not return gone in one UPDATE, holding no
    key locks: like the neighbours' marking, it locks its rows in key order, the page's."""
    url = hub.config.database_url
    with psycopg.connect(url, autocommit=True) as conn:
        for key in ("AURORA-2", "AURORA-1"):  # AURORA-2's row first in the heap
            conn.execute("INSERT INTO issue (key, id, fetched_at, neighbor) VALUES (%s, %s, %s, 1)",
                         (key, key[-1], NOW))
        conn.execute("INSERT INTO command (type, params, created_at) VALUES "
                     "('check_issues', '{\"keys\": [\"AURORA-1\", \"AURORA-2\"]}', %s)", (NOW,))
    [command] = claim(hub, version=16, types=["check_issues"])
    done = {"result": {"checked": 2, "missing": ["AURORA-1", "AURORA-2"]}}
    with psycopg.connect(url) as page:
        # A refresh loads both while the check is out: Jira has them, whatever the check says.
        page.execute("UPDATE issue SET fetched_at = '2099-01-01T00:00:00+00:00' WHERE key = 'AURORA-1'")
        thread, outcome = in_thread(lambda: report(hub, command["id"], "done", done))
        wait_until(lambda: waiting_on_a_lock(url), message="the marking waiting on AURORA-1's row")
        page.execute("UPDATE issue SET fetched_at = '2099-01-01T00:00:00+00:00' WHERE key = 'AURORA-2'")
        page.commit()
    thread.join()
    assert [resp.status_code for resp in outcome] == [200], [resp.json for resp in outcome]
    with psycopg.connect(url) as conn:
        assert conn.execute("SELECT key FROM issue WHERE gone_at IS NOT NULL").fetchall() == []


def test_a_page_that_moves_an_issue_locks_every_issue_row_it_writes_in_key_order_first(hub):
    """A page that moves AURORA-9 to AURORA-3 re-keys the epic of AURORA-2, which points at the
    old key, and writes its own AURORA-1: it locks all their rows before it writes any, in key
    order, the markings' order. Here the page meets a row another writer holds (AURORA-9's)
    while a marking of neighbours runs: a page that had locked AURORA-2 as its move found it
    and went on to AURORA-1 afterwards would meet the marking holding AURORA-1 and waiting for
    AURORA-2, a deadlock, one of the two refused."""
    url = hub.config.database_url
    with psycopg.connect(url, autocommit=True) as conn:
        for key, epic in (("AURORA-1", None), ("AURORA-2", "AURORA-9"), ("AURORA-9", None)):
            conn.execute("INSERT INTO issue (key, id, fetched_at, neighbor, epic_key) VALUES (%s, %s, %s, 0, %s)",
                         (key, jira_id(key), NOW, epic))
        run_id = conn.execute(
            "INSERT INTO sync_run (query, status, started_at, finished_at, issues_loaded, neighbors_due) "
            "VALUES ('project = AURORA', 'done', '2026-11-02T10:00:00+00:00', '2026-11-02T10:05:00+00:00', 5, 1) "
            "RETURNING id").fetchone()[0]
    command = enqueue(hub, "project = AURORA")
    claim(hub)
    page = {"issues": [issue("AURORA-1"), issue("AURORA-3", id=jira_id("AURORA-9"))]}
    with psycopg.connect(url) as writer:
        writer.execute("SELECT 1 FROM issue WHERE key = 'AURORA-9' FOR UPDATE")
        loading, loaded = in_thread(lambda: report(hub, command["id"], "state", page))
        wait_until(lambda: waiting_on_a_lock(url) == 1, message="the page waiting on AURORA-9's row")
        marking, marked = in_thread(lambda: hub.built.services.runs.mark_neighbours(run_id))
        wait_until(lambda: waiting_on_a_lock(url) == 2, message="the marking waiting on the page")
        writer.rollback()
    loading.join()
    marking.join()
    assert [resp.status_code for resp in loaded] == [200], [resp.json for resp in loaded]
    # The marking came after the page: of the three, only AURORA-2 was not loaded by the run.
    assert marked == [1]
    with psycopg.connect(url) as conn:
        assert conn.execute("SELECT key, neighbor, epic_key FROM issue ORDER BY key").fetchall() == [
            ("AURORA-1", 0, None), ("AURORA-2", 1, "AURORA-3"), ("AURORA-3", 0, None)]
