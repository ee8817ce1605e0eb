"""Issue keys in any case, as Jira reads them: ``aurora-121`` is AURORA-121 in the issue's
path and its sub-resources, in a search and in JQL; a moved issue's old key too."""

from __future__ import annotations

import pytest

from tests.support import comment, issue, jira_id, load

pytestmark = pytest.mark.backends("sqlite", "postgresql")

KEYS = ["aurora-121", "Aurora-121", "aURORA-121"]


def test_an_issue_asked_in_any_case_answers_under_its_key_with_its_path(hub):
    load(hub, [issue("AURORA-121", comments=[comment("101")])])
    for asked in KEYS:
        resp = hub.api("GET", f"/api/v1/issues/{asked}")
        assert resp.status_code == 200, resp.json
        assert resp.json["key"] == "AURORA-121"
        assert resp.headers["Content-Location"] == "/api/v1/issues/AURORA-121"
        assert [c["id"] for c in hub.api("GET", f"/api/v1/issues/{asked}/comments").json["items"]] == ["101"]
    assert "Content-Location" not in hub.api("GET", "/api/v1/issues/AURORA-121").headers


def test_a_note_posted_to_a_lower_case_key_is_the_issues(hub):
    load(hub, [issue("AURORA-121")])
    assert hub.api("POST", "/api/v1/issues/aurora-121/notes", {"body": "seen"}).status_code == 201
    assert [n["key"] for n in hub.api("GET", "/api/v1/issues/AURORA-121/notes").json["items"]] == ["AURORA-121"]


def test_a_search_and_jql_find_a_key_in_any_case(hub):
    load(hub, [issue("AURORA-121"), issue("AURORA-12")])
    for asked in KEYS:
        for query in ({"q": asked}, {"q": f"key:{asked}"}, {"jql": f"key = {asked}"},
                      {"jql": f"key in ({asked}, nope-1)"}):
            resp = hub.api("GET", "/api/v1/issues", params=query)
            assert resp.status_code == 200, (query, resp.json)
            assert [i["key"] for i in resp.json["items"]] == ["AURORA-121"], query


def test_an_old_key_of_a_moved_issue_in_any_case_is_the_issue_under_its_key_now(hub):
    load(hub, [issue("AURORA-121")])
    load(hub, [issue("OPS-7", id=jira_id("AURORA-121"))])
    resp = hub.api("GET", "/api/v1/issues/aurora-121")
    assert resp.status_code == 200 and resp.json["key"] == "OPS-7"
    assert resp.headers["Content-Location"] == "/api/v1/issues/OPS-7"
    assert [i["key"] for i in hub.api("GET", "/api/v1/issues", params={"q": "aurora-121"}).json["items"]] == ["OPS-7"]


def test_a_look_alike_in_another_alphabet_is_still_no_key(hub):
    load(hub, [issue("AURORA-121")])
    for asked in ("\u0430urora-121", "aurora-\u0661\u0662\u0661"):  # a Cyrillic а; Arabic-Indic digits
        resp = hub.api("GET", f"/api/v1/issues/{asked}")
        assert resp.status_code == 404 and "is not an issue key" in resp.json["description"]


def test_a_parent_filter_takes_a_key_in_any_case(hub):
    load(hub, [issue("AURORA-120"), issue("AURORA-121", parent_key="AURORA-120")])
    resp = hub.api("GET", "/api/v1/issues", params={"parent": "aurora-120"})
    assert resp.status_code == 200, resp.json
    assert [i["key"] for i in resp.json["items"]] == ["AURORA-121"]


def test_a_value_of_the_wrong_shape_is_refused_in_words_with_an_example(hub):
    """What a person types into a filter: the answer says what was meant, not the pattern."""
    for params, words in (
            ({"parent": "aurora 120"}, "parent: \"aurora 120\" is not an issue key: Jira's keys are a project key "
                                       "and a number, like AURORA-12"),
            ({"updated_since": "2026-11-01"}, 'updated_since: "2026-11-01" is not a UTC time: write a date and '
                                              "time like 2026-11-01T00:00:00Z")):
        resp = hub.api("GET", "/api/v1/issues", params=params)
        assert resp.status_code == 422 and resp.json["field"] == next(iter(params))
        assert resp.json["description"] == words
        assert "^" not in resp.json["description"]
    resp = hub.api("GET", "/api/v1/issues/aurora~1")
    assert resp.status_code == 404 and resp.json["description"].startswith("'aurora~1' is not an issue key")
