"""What the hub refuses of a write before queuing it (docs/writes.md, "What the hub checks first"):
asked over HTTP by a token granted writes, against the screens and catalogues a v19 agent loaded
through its state pages; each refusal a 422 naming the field, and nothing queued."""

from __future__ import annotations

import pytest

from tests.support.protocol import claim, db_rows, enqueue, issue, report

pytestmark = pytest.mark.backends("sqlite", "postgresql")

RESOLUTION = {"name": "Resolution", "required": True, "type": "resolution", "allowed": ["Fixed", "Won't Fix"],
              "operations": ["set"]}
TRANSITIONS = [
    {"id": "301", "name": "Stop Progress", "to": "Open", "fields": {}},
    {"id": "31", "name": "Resolve Issue", "to": "Resolved", "fields": {"resolution": RESOLUTION}},
]
EDIT_FIELDS = {
    "summary": {"name": "Summary", "required": True, "type": "string", "operations": ["set"]},
    "priority": {"name": "Priority", "required": False, "type": "priority", "allowed": ["Major", "Minor"],
                 "operations": ["set"]},
    "assignee": {"name": "Assignee", "required": False, "type": "user", "operations": ["set"]},
    "fixVersions": {"name": "Fix Version/s", "required": False, "type": "array", "items": "version",
                    "allowed": ["1.0", "1.1"], "operations": ["set", "add", "remove"]},
    "timetracking": {"name": "Time Tracking", "required": False, "type": "timetracking", "operations": ["set"]},
    "customfield_10300": {"name": "Team", "required": False, "type": "option", "allowed": ["Платформа", "Core"],
                          "custom": "com.atlassian.jira.plugin.system.customfieldtypes:select",
                          "operations": ["set"]},
}
CATALOGUES = {
    "priorities": [{"id": "3", "name": "Major"}, {"id": "4", "name": "Minor"}],
    "issue_types": [{"id": "1", "name": "Bug", "subtask": False}, {"id": "5", "name": "Sub-task", "subtask": True}],
    "link_types": [{"id": "10000", "name": "Blocks", "outward": "blocks", "inward": "is blocked by"}],
    "users": [{"name": "ivanov", "key": "JIRAUSER10100", "display_name": "Иван Иванов"}],
}
CREATE_META = [
    {"project": "AURORA", "issue_type": "Bug", "fields": {
        "summary": {"name": "Summary", "required": True, "type": "string", "operations": ["set"]},
        "reporter": {"name": "Reporter", "required": True, "type": "user", "operations": ["set"]},
        "components": {"name": "Component/s", "required": True, "type": "array", "items": "component",
                       "allowed": ["Backend", "API"], "operations": ["set"]}}},
    {"project": "AURORA", "issue_type": "Sub-task", "fields": {}},
]


def mirrored(hub, *, screens: bool = True) -> None:
    """AURORA-12 (In Progress, blocking AURORA-13) and AURORA-13, with the screens, catalogues and
    create screens a v19 agent sends (``screens`` False: as an agent before v19 left them)."""
    meta = {"transitions": TRANSITIONS, "edit_fields": EDIT_FIELDS} if screens else {}
    command = enqueue(hub, "key in (AURORA-12, AURORA-13)")
    claim(hub, version=19 if screens else 18)
    body = {"issues": [issue("AURORA-12", status="In Progress", links=[{"type": "Blocks", "outward": "AURORA-13"}],
                             **meta), issue("AURORA-13", status="Open")],
            "neighbors": [], "catalogues": CATALOGUES, **({"create_meta": CREATE_META} if screens else {})}
    assert report(hub, command["id"], "state", body).status_code == 200
    assert report(hub, command["id"], "done", {"result": {"total": 2}}).status_code == 200


def writer(hub) -> dict:
    return {"Authorization": f"Bearer {hub.built.services.tokens.add('alice', 'interface', write=True)}"}


@pytest.fixture
def alice(hub):
    hub._alice = writer(hub)
    return hub


def refused(hub, method: str, path: str, body=None, **kwargs) -> dict:
    """The 422 of a write asked for, after which no write is queued."""
    resp = hub.client.simulate_request(method, path, json=body, headers=hub._alice, **kwargs)
    assert resp.status_code == 422, resp.json
    assert db_rows(hub, "SELECT count(*) FROM write") == [(0,)]
    return resp.json


def taken(hub, method: str, path: str, body=None, **kwargs) -> dict:
    resp = hub.client.simulate_request(method, path, json=body, headers=hub._alice, **kwargs)
    assert resp.status_code == 202, resp.json
    return resp.json


def test_a_transition_to_a_status_jira_does_not_offer_names_to_and_lists_those_it_does(alice):
    mirrored(alice)
    error = refused(alice, "POST", "/api/v1/issues/AURORA-12/transitions", {"to": "Closed"})
    assert error["field"] == "to"
    said = error["description"]
    assert "AURORA-12 is In Progress; it can go to: Open (Stop Progress), Resolved (Resolve Issue)" in said


@pytest.mark.parametrize("to", ["resolved", "Resolve Issue", "31"])
def test_a_transition_is_found_by_target_status_name_or_id_in_any_case(alice, to):
    mirrored(alice)
    taken(alice, "POST", "/api/v1/issues/AURORA-12/transitions", {"to": to, "fields": {"resolution": "Fixed"}})


def test_a_transition_without_a_required_field_of_its_screen_names_it_with_its_allowed_values(alice):
    mirrored(alice)
    error = refused(alice, "POST", "/api/v1/issues/AURORA-12/transitions", {"to": "Resolved"})
    assert error["field"] == "fields.resolution"
    assert "allowed: Fixed, Won't Fix" in error["description"]


def test_a_transition_s_value_outside_the_allowed_ones_is_refused(alice):
    mirrored(alice)
    error = refused(alice, "POST", "/api/v1/issues/AURORA-12/transitions",
                    {"to": "Resolved", "fields": {"resolution": "Done"}})
    assert error["field"] == "fields.resolution"


def test_an_issue_whose_screens_the_mirror_does_not_know_is_left_to_jira(alice):
    mirrored(alice, screens=False)
    taken(alice, "POST", "/api/v1/issues/AURORA-12/transitions", {"to": "Closed"})
    taken(alice, "PATCH", "/api/v1/issues/AURORA-12", {"fields": {"votes": 3}})


@pytest.mark.parametrize(("fields", "field"), [
    ({"votes": 3}, "fields.votes"),
    ({"priority": "Blocker"}, "fields.priority"),
    ({"fix_versions": {"add": ["2.0"]}}, "fields.fix_versions"),
    ({"Team": "Nobody"}, "fields.Team"),
    ({"assignee": "nobody"}, "fields.assignee"),
])
def test_an_edit_off_the_edit_screen_or_outside_its_values_names_the_field(alice, fields, field):
    mirrored(alice)
    assert refused(alice, "PATCH", "/api/v1/issues/AURORA-12", {"fields": fields})["field"] == field


def test_an_edit_by_the_mirror_s_names_jira_s_ids_and_custom_names_is_taken(alice):
    mirrored(alice)
    taken(alice, "PATCH", "/api/v1/issues/AURORA-12", {"fields": {
        "priority": "minor", "fixVersions": ["1.1"], "customfield_10300": "Core", "original_estimate": "2h",
        "assignee": "IVANOV", "summary": "New"}})


def test_a_priority_outside_jira_s_catalogue_is_refused_without_an_edit_screen(alice):
    mirrored(alice, screens=False)
    assert refused(alice, "PATCH", "/api/v1/issues/AURORA-12", {"fields": {"priority": "Urgent"}})["field"] == \
        "fields.priority"


@pytest.mark.parametrize(("body", "field"), [
    ({"time_spent": "an hour"}, "time_spent"),
    ({"time_spent": "0m"}, "time_spent"),
    ({"time_spent": "1h", "started": "yesterday"}, "started"),
    ({"time_spent": "1h", "started": "2026-12-07T20:30:00"}, "started"),
    ({"time_spent": "1h", "adjust_estimate": "new"}, "new_estimate"),
    ({"time_spent": "1h", "adjust_estimate": "manual", "reduce_by": "lots"}, "reduce_by"),
    ({"time_spent": "1h", "new_estimate": "2h"}, "new_estimate"),
])
def test_a_work_log_jira_could_not_read_names_the_member(alice, body, field):
    mirrored(alice)
    assert refused(alice, "POST", "/api/v1/issues/AURORA-12/worklogs", body)["field"] == field


def test_a_work_log_in_jira_s_forms_is_taken(alice):
    mirrored(alice)
    for body in ({"time_spent": "1w 2d 3h 30m"}, {"time_spent": 5400}, {"time_spent": "1.5h"},
                 {"time_spent": "45m", "started": "2026-12-07T20:30:00.000+0300", "adjust_estimate": "new",
                  "new_estimate": "3h"}):
        taken(alice, "POST", "/api/v1/issues/AURORA-12/worklogs", body)


@pytest.mark.parametrize(("body", "field"), [
    ({"project": "ZEUS", "issue_type": "Bug", "summary": "New"}, "project"),
    ({"project": "AURORA", "issue_type": "Epic", "summary": "New"}, "issue_type"),
    ({"project": "AURORA", "issue_type": "Bug", "summary": "New"}, "fields.components"),
    ({"project": "AURORA", "issue_type": "Bug", "summary": "New", "fields": {"components": ["UI"]}},
     "fields.components"),
    ({"project": "AURORA", "issue_type": "Sub-task", "summary": "New"}, "parent"),
])
def test_a_new_issue_the_create_screens_refuse_names_the_field(alice, body, field):
    mirrored(alice)
    assert refused(alice, "POST", "/api/v1/issues", body)["field"] == field


def test_a_new_issue_on_its_create_screen_is_taken(alice):
    mirrored(alice)
    taken(alice, "POST", "/api/v1/issues", {"project": "AURORA", "issue_type": "bug", "summary": "New",
                                            "fields": {"components": ["API"]}})
    taken(alice, "POST", "/api/v1/issues", {"project": "AURORA", "issue_type": "Sub-task", "summary": "New",
                                            "parent": "AURORA-12"})


def test_a_link_of_a_type_jira_does_not_have_names_the_type(alice):
    mirrored(alice)
    assert refused(alice, "POST", "/api/v1/issues/AURORA-12/links",
                   {"type": "Duplicates", "outward": "AURORA-13"})["field"] == "type"
    taken(alice, "POST", "/api/v1/issues/AURORA-13/links", {"type": "is blocked by", "inward": "AURORA-12"})


def test_a_link_removed_by_type_and_issue_must_be_one_the_mirror_holds(alice):
    mirrored(alice)
    error = refused(alice, "DELETE", "/api/v1/issues/AURORA-13/links",
                    params={"type": "Blocks", "outward": "AURORA-12"})
    assert error["field"] == "outward"
    taken(alice, "DELETE", "/api/v1/issues/AURORA-13/links", params={"type": "blocks", "inward": "AURORA-12"})
    taken(alice, "DELETE", "/api/v1/issues/AURORA-12/links/10999")  # by Jira's id: left to Jira
