"""Jira's screens in the mirror (protocol v19, schema v15): an issue's transitions and edit screen,
and the projects' create screens, loaded from state pages over HTTP and read back through the API."""

from __future__ import annotations

import json

import pytest

from tests.support.protocol import claim, db_rows, enqueue, issue, load, report

pytestmark = pytest.mark.backends("sqlite", "postgresql")

RESOLUTION = {"name": "Resolution", "required": True, "type": "resolution", "allowed": ["Fixed", "Won't Fix"],
              "operations": ["set"]}
TRANSITIONS = [
    {"id": "31", "name": "Resolve Issue", "to": "Resolved", "fields": {"resolution": RESOLUTION}},
    {"id": "301", "name": "Stop Progress", "to": "Open", "fields": {}},
]
EDIT_FIELDS = {
    "summary": {"name": "Summary", "required": True, "type": "string", "operations": ["set"]},
    "priority": {"name": "Priority", "required": False, "type": "priority", "allowed": ["Major", "Minor"],
                 "operations": ["set"]},
    "customfield_10002": {"name": "Story Points", "required": False, "type": "number",
                          "custom": "com.atlassian.jira.plugin.system.customfieldtypes:float", "operations": ["set"]},
}
BUG = {"summary": {"name": "Summary", "required": True, "type": "string", "operations": ["set"]},
       "components": {"name": "Component/s", "required": True, "type": "array", "items": "component",
                      "allowed": ["Backend", "API"], "operations": ["add", "set", "remove"]}}


def page(hub, issues=(), create_meta=None, version=19):
    """One refresh whose one state page sends ``issues`` (and ``create_meta``); the answer of the page."""
    command = enqueue(hub, "key in (X)")
    claim(hub, version=version)
    body: dict = {"issues": list(issues), "neighbors": []}
    if create_meta is not None:
        body["create_meta"] = create_meta
    resp = report(hub, command["id"], "state", body)
    if resp.status_code == 200:
        assert report(hub, command["id"], "done", {"result": {"total": len(issues)}}).status_code == 200
    return resp


def screens(hub, key="AURORA-12"):
    [(transitions, edit_fields)] = db_rows(hub, "SELECT transitions, edit_fields FROM issue WHERE key = ?", key)
    return (None if transitions is None else json.loads(transitions),
            None if edit_fields is None else json.loads(edit_fields))


def test_an_issue_s_transitions_and_edit_screen_are_mirrored_and_listed(hub):
    assert page(hub, [issue("AURORA-12", status="In Progress", transitions=TRANSITIONS,
                            edit_fields=EDIT_FIELDS)]).status_code == 200

    assert screens(hub) == (TRANSITIONS, EDIT_FIELDS)
    resp = hub.api("GET", "/api/v1/issues/AURORA-12/transitions")
    assert resp.status_code == 200, resp.json
    assert resp.json == {"items": TRANSITIONS, "known": True}


def test_a_page_without_the_screens_keeps_them_and_a_null_forgets_them(hub):
    page(hub, [issue("AURORA-12", transitions=TRANSITIONS, edit_fields=EDIT_FIELDS)])

    # A state that sends neither the screens nor the status keeps both.
    load(hub, [issue("AURORA-12", summary="Renamed")], version=18)
    assert screens(hub) == (TRANSITIONS, EDIT_FIELDS)

    page(hub, [issue("AURORA-12", transitions=[], edit_fields=None)])
    assert screens(hub) == ([], None)
    assert hub.api("GET", "/api/v1/issues/AURORA-12/transitions").json == {"items": [], "known": True}


def test_a_status_sent_without_the_screens_leaves_them_unknown_not_another_statuss(hub):
    page(hub, [issue("AURORA-12", status="In Progress", transitions=TRANSITIONS, edit_fields=EDIT_FIELDS)])

    # An agent before v19 moved the issue on: the transitions kept would be In Progress's.
    load(hub, [issue("AURORA-12", status="Resolved")], version=18)
    assert screens(hub) == (None, None)
    assert hub.api("GET", "/api/v1/issues/AURORA-12/transitions").json == {"items": [], "known": False}


def test_an_issue_no_v19_agent_loaded_has_its_transitions_unknown(hub):
    load(hub, [issue("AURORA-12")], version=18)

    assert screens(hub) == (None, None)
    assert hub.api("GET", "/api/v1/issues/AURORA-12/transitions").json == {"items": [], "known": False}
    assert hub.api("GET", "/api/v1/issues/AURORA-99/transitions").status_code == 404


def test_a_create_screen_sent_replaces_the_one_held_of_its_project_and_type(hub):
    page(hub, create_meta=[{"project": "AURORA", "issue_type": "Bug", "fields": BUG},
                           {"project": "AURORA", "issue_type": "Task", "fields": {}},
                           {"project": "ZEUS", "issue_type": "Bug", "fields": {}}])
    page(hub, create_meta=[{"project": "AURORA", "issue_type": "Task", "fields": {"summary": BUG["summary"]}}])

    resp = hub.api("GET", "/api/v1/create-meta?project=AURORA")
    assert resp.status_code == 200, resp.json
    assert [(item["issue_type"], item["fields"]) for item in resp.json["items"]] == [
        ("Bug", BUG), ("Task", {"summary": BUG["summary"]})]
    assert all(item["project"] == "AURORA" and item["updated_at"] for item in resp.json["items"])
    bugs = hub.api("GET", "/api/v1/create-meta?issue_type=bug").json["items"]
    assert [(item["project"], item["issue_type"]) for item in bugs] == [("AURORA", "Bug"), ("ZEUS", "Bug")]
    assert db_rows(hub, "SELECT count(*) FROM create_meta") == [(3,)]


def test_a_page_naming_one_create_screen_twice_keeps_the_later(hub):
    assert page(hub, create_meta=[{"project": "AURORA", "issue_type": "Bug", "fields": {}},
                                  {"project": "AURORA", "issue_type": "Bug", "fields": BUG}]).status_code == 200

    assert hub.api("GET", "/api/v1/create-meta").json["items"][0]["fields"] == BUG


@pytest.mark.parametrize(("body", "field"), [
    ({"issues": [issue("AURORA-12", transitions=[{"name": "Resolve Issue"}])]}, "issues.0.transitions.0"),
    ({"issues": [issue("AURORA-12", edit_fields={"bad field": {}})]}, "issues.0.edit_fields"),
    ({"issues": [issue("AURORA-12", edit_fields={"priority": {"allowed": "Major"}})]},
     "issues.0.edit_fields.priority.allowed"),
    ({"create_meta": [{"project": "aurora", "issue_type": "Bug", "fields": {}}]}, "create_meta.0.project"),
    ({"create_meta": [{"project": "AURORA", "issue_type": "Bug", "fields": None}]}, "create_meta.0.fields"),
])
def test_a_screen_not_in_the_protocol_s_shape_is_refused_naming_it(hub, body, field):
    command = enqueue(hub, "key in (X)")
    claim(hub, version=19)
    resp = report(hub, command["id"], "state", {"issues": [], "neighbors": [], **body})
    assert resp.status_code == 422, resp.json
    assert resp.json.get("field", "").startswith(field), resp.json
