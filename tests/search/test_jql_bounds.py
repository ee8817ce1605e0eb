"""A JQL query's time is bounded (HUB_JQL_TIMEOUT_SECONDS): past it the query is stopped and
answers 503 with Retry-After, and the hub's connection serves the next query."""

from __future__ import annotations

import pytest

from hub.services.search.jql.parser import MAX_CLAUSES, MAX_DEPTH, MAX_LENGTH, MAX_LIST, MAX_ORDER
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


def _alternating(levels: int) -> str:
    """``levels`` parentheses, each an OR or an AND (in turn) of a clause and the level inside."""
    query = "status = Open"
    for level in range(levels):
        query = f"(priority = Major {'AND' if level % 2 else 'OR'} {query})"
    return query


def _nested_nots(levels: int) -> str:
    """``levels`` levels of NOT and parentheses in turn, each with a clause beside the next."""
    query = "status = Open"
    for level in range(levels):
        query = f"NOT {query}" if level % 2 else f"(labels = l{level} OR {query})"
    return query


AT_THE_LIMIT = {
    "32 NOTs": "NOT " * MAX_DEPTH + "status = Open",
    "32 !s": "!" * MAX_DEPTH + "status = Open",
    "32 levels of alternating AND and OR": _alternating(MAX_DEPTH),
    "16 NOT (…)": "NOT (" * (MAX_DEPTH // 2) + "status = Open" + ")" * (MAX_DEPTH // 2),
    "32 levels of NOT and OR": _nested_nots(MAX_DEPTH),
    "32 levels of parentheses": "(" * MAX_DEPTH + "status = Open" + ")" * MAX_DEPTH,
}
BEYOND_THE_LIMIT = {
    "33 NOTs": "NOT " * (MAX_DEPTH + 1) + "status = Open",
    "33 levels of alternating AND and OR": _alternating(MAX_DEPTH + 1),
}


@pytest.mark.parametrize("query", AT_THE_LIMIT.values(), ids=AT_THE_LIMIT.keys())
def test_a_query_nested_to_the_documented_depth_answers_on_both_engines_and_saves(make_hub, query):
    hub = make_hub()
    load(hub, _issues(3), version=16)
    resp = hub.api("GET", "/api/v1/issues", params={"jql": query})
    assert resp.status_code == 200, resp.json
    saved = hub.api("POST", "/api/v1/filters", {"name": "deep", "jql": query})
    assert saved.status_code == 201, saved.json
    assert hub.api("GET", f"/api/v1/filters/{saved.json['id']}/issues").status_code == 200


@pytest.mark.parametrize("query", BEYOND_THE_LIMIT.values(), ids=BEYOND_THE_LIMIT.keys())
def test_a_query_nested_beyond_the_documented_depth_is_a_422_when_run_and_when_saved(make_hub, query):
    hub = make_hub()
    load(hub, _issues(3), version=16)
    message = f"Error in the JQL Query: The query is nested deeper than {MAX_DEPTH} levels of parentheses and NOT."
    resp = hub.api("GET", "/api/v1/issues", params={"jql": query})
    assert resp.status_code == 422 and resp.json["description"] == message, resp.json
    saved = hub.api("POST", "/api/v1/filters", {"name": "too deep", "jql": query})
    assert saved.status_code == 422 and saved.json["description"] == message, saved.json


def test_not_is_pushed_down_to_the_clauses_and_an_and_within_an_and_is_one_so_the_sql_stays_shallow():
    from hub.services.search.jql.parser import parse
    from hub.services.search.jql.shape import normal
    from hub.services.search.jql.tree import And, Clause, Not, Or

    def shown(node) -> str:
        if isinstance(node, Clause):
            return node.field.name
        if isinstance(node, Not):
            return f"!{shown(node.operand)}"
        joiner = " & " if isinstance(node, And) else " | "
        return "(" + joiner.join(shown(operand) for operand in node.operands) + ")"

    def reshaped(query: str) -> str:
        where = parse(query).where
        assert where is not None
        return shown(normal(where))

    assert reshaped("NOT NOT a = 1") == "a"
    assert reshaped("NOT " * MAX_DEPTH + "a = 1") == "a"
    assert reshaped("NOT (a = 1 AND b = 1)") == "(!a | !b)"
    assert reshaped("NOT (a = 1 OR NOT (b = 1 AND c = 1))") == "(!a & b & c)"
    assert reshaped("a = 1 AND (b = 1 AND (c = 1 OR d = 1))") == "(a & b & (c | d))"
    assert reshaped("(a = 1 OR b = 1) OR NOT (c = 1 AND d = 1)") == "(a | b | !c | !d)"
    assert isinstance(normal(parse("a = 1 OR b = 1").where), Or)


def _padded(length: int) -> str:
    """A query of exactly ``length`` characters."""
    head = 'status = "'
    return head + "x" * (length - len(head) - 1) + '"'


WITHIN = {
    "10,000 characters": _padded(MAX_LENGTH),
    "500 clauses": " OR ".join(["status = Open"] * MAX_CLAUSES),
    "a list of 1,000 values": "labels in (" + ", ".join(f"l{n}" for n in range(MAX_LIST)) + ")",
    "100 keys of ORDER BY": "ORDER BY " + ", ".join(["key", "updated"] * (MAX_ORDER // 2)),
}
BEYOND = {
    "10,001 characters": (_padded(MAX_LENGTH + 1), f"longer than {MAX_LENGTH} characters"),
    "501 clauses": (" OR ".join(["status = Open"] * (MAX_CLAUSES + 1)), f"more than {MAX_CLAUSES} clauses"),
    "a list of 1,001 values": ("labels in (" + ", ".join(f"l{n}" for n in range(MAX_LIST + 1)) + ")",
                               f"more than {MAX_LIST} values"),
    "101 keys of ORDER BY": ("ORDER BY " + ", ".join(["key"] * (MAX_ORDER + 1)), f"more than {MAX_ORDER} fields"),
}


def test_a_query_at_each_documented_limit_answers_and_saves_and_one_beyond_it_is_a_422_on_both_engines(make_hub):
    hub = make_hub()
    load(hub, _issues(3), version=16)
    for name, query in WITHIN.items():
        assert len(query) <= MAX_LENGTH, name
        resp = hub.api("GET", "/api/v1/issues", params={"jql": query})
        assert resp.status_code == 200, (name, resp.json)
        saved = hub.api("POST", "/api/v1/filters", {"name": name, "jql": query})
        assert saved.status_code == 201, (name, saved.json)
        assert hub.api("GET", f"/api/v1/filters/{saved.json['id']}/issues").status_code == 200, name
    for name, (query, words) in BEYOND.items():
        resp = hub.api("GET", "/api/v1/issues", params={"jql": query})
        assert resp.status_code == 422 and resp.json["field"] == "jql", (name, resp.json)
        if name != "10,001 characters":  # refused by the request's schema, in its own words
            assert words in resp.json["description"], (name, resp.json)
        saved = hub.api("POST", "/api/v1/filters", {"name": name, "jql": query})
        assert saved.status_code == 422, (name, saved.json)
