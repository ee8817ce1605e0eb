"""The list names people as the issue does: ``GET /api/v1/issues`` (listed, searched or by JQL)
and a saved filter's issues answer ``people``, the display names of the logins the page's
issues name (assignee, reporter) that the mirror knows as Jira's users."""

from __future__ import annotations

import pytest

from tests.support.protocol import issue, load

pytestmark = pytest.mark.backends("sqlite", "postgresql")

USERS = [{"name": "ivanov", "key": "JIRAUSER1", "display_name": "Иван Иванов"},
         {"name": "petrov", "key": "JIRAUSER2", "display_name": "Pyotr Petrov"},
         {"name": "sidorov", "key": "JIRAUSER3", "display_name": "Sidor Sidorov"}]


def mirrored(hub) -> None:
    load(hub, [issue("AURORA-1", status="Open", assignee="ivanov", reporter="petrov", summary="Card payments"),
               issue("AURORA-2", status="Open", assignee="stranger", reporter="petrov", summary="Card limits"),
               issue("AURORA-3", status="Open", summary="Unassigned work")],
         catalogues={"users": USERS})


def test_the_list_names_the_people_its_page_names(hub):
    mirrored(hub)
    resp = hub.api("GET", "/api/v1/issues")
    assert resp.status_code == 200
    # sidorov is named by no issue of the page; the stranger is no user the mirror knows.
    assert resp.json["people"] == {"ivanov": "Иван Иванов", "petrov": "Pyotr Petrov"}


def test_a_page_names_only_its_own_issues_people(hub):
    mirrored(hub)
    resp = hub.api("GET", "/api/v1/issues?assignee=stranger")
    assert [item["key"] for item in resp.json["items"]] == ["AURORA-2"]
    assert resp.json["people"] == {"petrov": "Pyotr Petrov"}
    assert hub.api("GET", "/api/v1/issues?assignee=nobody").json["people"] == {}


def test_a_search_and_a_jql_query_name_their_people_too(hub):
    mirrored(hub)
    searched = hub.api("GET", "/api/v1/issues?q=payments")
    assert [item["key"] for item in searched.json["items"]] == ["AURORA-1"]
    assert searched.json["people"] == {"ivanov": "Иван Иванов", "petrov": "Pyotr Petrov"}
    queried = hub.api("GET", "/api/v1/issues", params={"jql": "key = AURORA-2"})
    assert queried.status_code == 200 and queried.json["people"] == {"petrov": "Pyotr Petrov"}


def test_a_saved_filters_issues_name_their_people(hub):
    mirrored(hub)
    saved = hub.api("POST", "/api/v1/filters", {"name": "mine", "jql": "assignee = ivanov"})
    assert saved.status_code == 201, saved.json
    resp = hub.api("GET", f"/api/v1/filters/{saved.json['id']}/issues")
    assert resp.status_code == 200 and resp.json["people"] == {"ivanov": "Иван Иванов", "petrov": "Pyotr Petrov"}
