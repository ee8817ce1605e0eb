"""A PostgreSQL hub's connections: one per thread, kept across requests, and opened
anew when the server ended one or it grew old, without failing more than the
request that found it gone."""

from __future__ import annotations

import threading

import pytest

import hub.db as hub_db
from hub.db import database

pytestmark = pytest.mark.backends("postgresql")

ASK = ("GET", "/api/v1/commands")


def backends(hub, postgres_template) -> list[int]:
    """The server processes serving this hub's connections now."""
    server, _ = postgres_template
    name = hub.config.database_url.rsplit("/", 1)[1]
    return [pid for (pid,) in server.execute(
        f"SELECT pid FROM pg_stat_activity WHERE datname = '{name}' AND application_name = 'sdlc-hub'")]


def test_a_thread_keeps_its_one_connection_across_requests(hub, postgres_template):
    for _ in range(20):
        assert hub.api(*ASK).status_code == 200
    assert len(backends(hub, postgres_template)) == 1


def test_each_thread_has_a_connection_of_its_own(hub, postgres_template):
    mine = database.execute_sql("SELECT pg_backend_pid()").fetchone()[0]
    theirs = []

    def other() -> None:
        theirs.append(database.execute_sql("SELECT pg_backend_pid()").fetchone()[0])
        database.close()

    thread = threading.Thread(target=other)
    thread.start()
    thread.join()
    assert theirs and theirs[0] != mine


def test_a_connection_the_server_ended_is_replaced_at_the_next_request(hub, postgres_template):
    assert hub.api(*ASK).status_code == 200
    server, _ = postgres_template
    [pid] = backends(hub, postgres_template)
    assert server.execute(f"SELECT pg_terminate_backend({pid})") == [(True,)]
    statuses = [hub.api(*ASK).status_code for _ in range(3)]
    # The request that found the connection gone may fail (503: retry), never more than it.
    assert statuses[0] in (200, 503) and statuses[1:] == [200, 200], statuses
    [again] = backends(hub, postgres_template)
    assert again != pid


def test_a_connection_past_its_age_is_opened_anew_between_transactions(hub, postgres_template, monkeypatch):
    assert hub.api(*ASK).status_code == 200
    [first] = backends(hub, postgres_template)
    monkeypatch.setattr(hub_db, "CONNECTION_MAX_AGE_SECONDS", 0)
    assert hub.api(*ASK).status_code == 200
    [second] = backends(hub, postgres_template)
    assert second != first
