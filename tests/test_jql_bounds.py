"""A JQL query's time is bounded (HUB_JQL_TIMEOUT_SECONDS): past it the query is stopped and
answers 503 with Retry-After, and the hub's connection serves the next query."""

from __future__ import annotations

import pytest

from tests.support import load

pytestmark = pytest.mark.backends("sqlite", "postgresql")


def _issues(n: int) -> list[dict]:
    return [{"key": f"AURORA-{i}", "id": str(10000 + i), "summary": f"Crash number {i} on Safari",
             "status": "Open", "labels": [f"l{i % 7}", "backend"], "description": "word " * 50}
            for i in range(1, n + 1)]


def test_a_query_past_its_time_bound_answers_503_with_retry_after(make_hub):
    hub = make_hub(jql_timeout_seconds=0.001)
    load(hub, _issues(100), version=16)
    # Many clauses over every issue's labels and the index: far more than a millisecond's work.
    heavy = " OR ".join(f'(labels != x{n} AND text ~ "safari{n}*" OR issue in linkedIssues(AURORA-{n + 1}))'
                        for n in range(100))
    resp = hub.api("GET", "/api/v1/issues", params={"jql": heavy})
    assert resp.status_code == 503, resp.json
    assert resp.headers["Retry-After"] == "1"
    assert "stopped" in resp.json["description"]
    # The connection's handler is gone with the query: the plain list answers as ever.
    assert hub.api("GET", "/api/v1/issues").status_code == 200


def test_a_query_within_its_bound_answers(make_hub):
    hub = make_hub(jql_timeout_seconds=30)
    load(hub, _issues(20), version=16)
    resp = hub.api("GET", "/api/v1/issues", params={"jql": "labels = l3 ORDER BY key"})
    assert resp.status_code == 200
    assert [item["key"] for item in resp.json["items"]] == ["AURORA-3", "AURORA-10", "AURORA-17"]


def test_a_query_of_the_mirror_alone_past_its_bound_answers_503_and_the_next_answers(make_hub):
    hub = make_hub(jql_timeout_seconds=0.001)
    load(hub, [{**issue, "labels": [f"l{n}" for n in range(30)]} for issue in _issues(100)], version=16)
    # No clause matches: every one is read over every issue's 30 labels, far more than a millisecond.
    heavy = " OR ".join(f"labels = x{n} OR issue in linkedIssues(AURORA-{n + 1})" for n in range(100))
    resp = hub.api("GET", "/api/v1/issues", params={"jql": heavy})
    assert resp.status_code == 503, resp.json
    assert resp.headers["Retry-After"] == "1" and "stopped" in resp.json["description"]
    # The bound ended with the query: the connection's next statements have none.
    assert hub.api("GET", "/api/v1/issues").status_code == 200
    if hub.config.backend == "postgresql":
        from hub.db import database

        assert database.execute_sql("SHOW statement_timeout").fetchone()[0] == "0"
