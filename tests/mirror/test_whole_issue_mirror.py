"""The whole of a Jira issue in the mirror (protocol v15, schema v10): every field, every sprint,
worklogs and Jira's catalogues, loaded through the agent protocol and read back from the database."""

from __future__ import annotations

import json

import pytest

from tests.support import db_rows, enqueue, issue, load, report
from tests.support.search_rows import index_agrees

pytestmark = pytest.mark.backends("sqlite", "postgresql")

TIME = "2026-10-22T13:05:11.000+0300"
TIME_UTC = "2026-10-22T10:05:11+00:00"
SPRINTS = [
    {"id": 12, "name": "AURORA Sprint 12", "state": "closed", "start": "2026-09-01T09:00:00.000+0300",
     "end": "2026-09-14T18:00:00.000+0300", "complete": "2026-09-14T17:00:00.000+0300", "board_id": 3,
     "goal": "Cards"},
    {"id": 13, "name": "AURORA Sprint 13", "state": "closed", "start": None, "end": None,
     "complete": None, "board_id": 3, "goal": None},
    {"id": 14, "name": "AURORA Sprint 14", "state": "active", "board_id": 3},
]
WORKLOGS = [
    {"id": "40001", "author": "ivanov", "started": TIME, "time_spent": 3600, "comment": "review",
     "created": TIME, "updated": TIME},
    {"id": "40002", "author": "petrov", "started": "2026-10-23T09:00:00.000+0300", "time_spent": 5400.0,
     "comment": None, "created": TIME, "updated": TIME},
]
CUSTOM = {
    "customfield_10002": {"name": "Story Points", "type": "number",
                          "custom": "com.atlassian.jira.plugin.system.customfieldtypes:float", "value": 5.0},
    "customfield_10300": {"name": "Team", "type": "option",
                          "custom": "com.atlassian.jira.plugin.system.customfieldtypes:select",
                          "value": "Платформа"},
    "customfield_10301": {"name": "Area", "type": "option-with-child",
                          "custom": "com.atlassian.jira.plugin.system.customfieldtypes:cascadingselect",
                          "value": {"parent": "Backend", "child": "Billing"}},
    "customfield_10302": {"name": "Notes for QA", "type": "string", "custom": None,
                          "value": "check the zanzibar flow"},
}
CATALOGUES = {
    "priorities": [{"id": "1", "name": "Blocker"}, {"id": "2", "name": "Critical"}, {"id": "3", "name": "Major"}],
    "statuses": [{"id": "1", "name": "Open", "category": "To Do", "category_key": "new"},
                 {"id": "3", "name": "In Progress", "category": "In Progress", "category_key": "indeterminate"}],
    "resolutions": [{"id": "1", "name": "Fixed"}],
    "issue_types": [{"id": "1", "name": "Bug", "subtask": False}, {"id": "5", "name": "Sub-task", "subtask": True}],
    "link_types": [{"id": "10000", "name": "Blocks", "outward": "blocks", "inward": "is blocked by"}],
    "users": [{"name": "ivanov", "key": "JIRAUSER10100", "display_name": "Иван Иванов"},
              {"name": "petrov", "key": "petrov", "display_name": "Pyotr Petrov"}],
}


def rich(key: str = "AURORA-12", **more) -> dict:
    return issue(key, resolution="Fixed", resolved=TIME, components=["Backend", "API"],
                 fix_versions=[{"id": "10100", "name": "2.3", "released": False, "release_date": "2026-12-20"}],
                 affects_versions=[{"id": "10090", "name": "2.2", "released": True, "release_date": None}],
                 environment="Chrome 130, staging-kappa", parent_key="AURORA-1", time_original_estimate=28800,
                 time_estimate=3600.0, time_spent=9000, sprint="AURORA Sprint 14", sprints=SPRINTS,
                 worklogs=WORKLOGS, custom_fields=CUSTOM, **more)


NEW_COLUMNS = ("resolution, resolved, resolved_at, components, fix_versions, affects_versions, environment,"
               " parent_key, time_original_estimate, time_estimate, time_spent, custom_fields, custom_text")


def columns(hub, key: str = "AURORA-12") -> dict:
    names = [name.strip() for name in NEW_COLUMNS.split(",")]
    row = db_rows(hub, f"SELECT {NEW_COLUMNS} FROM issue WHERE key = ?", key)[0]
    return dict(zip(names, row, strict=True))


def sprints_of(hub, key: str = "AURORA-12") -> list[int]:
    return [sid for (sid,) in db_rows(hub, "SELECT sprint_id FROM issue_sprint WHERE key = ? ORDER BY 1", key)]


def worklogs_of(hub, key: str = "AURORA-12") -> list[tuple]:
    return db_rows(hub, "SELECT worklog_id, author, started, started_at, time_spent, comment FROM issue_worklog"
                        " WHERE key = ? ORDER BY worklog_id", key)


def test_a_v15_state_is_mirrored_whole(hub):
    load(hub, [rich()], version=15, catalogues=CATALOGUES)

    stored = columns(hub)
    assert stored["resolution"] == "Fixed"
    assert (stored["resolved"], stored["resolved_at"]) == (TIME, TIME_UTC)
    assert json.loads(stored["components"]) == ["Backend", "API"]
    assert json.loads(stored["fix_versions"]) == rich()["fix_versions"]
    assert json.loads(stored["affects_versions"]) == rich()["affects_versions"]
    assert stored["environment"] == "Chrome 130, staging-kappa"
    assert stored["parent_key"] == "AURORA-1"
    # Whole seconds, as integers, whatever JSON number the agent wrote.
    assert (stored["time_original_estimate"], stored["time_estimate"], stored["time_spent"]) == (28800, 3600, 9000)
    [(stored_estimate,)] = db_rows(hub, "SELECT time_estimate FROM issue")
    assert type(stored_estimate) is int  # not the REAL 3600.0
    assert json.loads(stored["custom_fields"]) == CUSTOM
    assert stored["custom_text"] == "Платформа\nBackend\nBilling\ncheck the zanzibar flow"

    assert sprints_of(hub) == [12, 13, 14]
    assert db_rows(hub, "SELECT sprint_id, name, state, start_date, end_date, complete_date, board_id, goal"
                        " FROM sprint ORDER BY 1") == [
        (12, "AURORA Sprint 12", "closed", SPRINTS[0]["start"], SPRINTS[0]["end"], SPRINTS[0]["complete"], 3, "Cards"),
        (13, "AURORA Sprint 13", "closed", None, None, None, 3, None),
        (14, "AURORA Sprint 14", "active", None, None, None, 3, None)]
    assert db_rows(hub, "SELECT sprint FROM issue") == [("AURORA Sprint 14",)]

    assert worklogs_of(hub) == [
        ("40001", "ivanov", TIME, TIME_UTC, 3600, "review"),
        ("40002", "petrov", "2026-10-23T09:00:00.000+0300", "2026-10-23T06:00:00+00:00", 5400, None)]

    assert db_rows(hub, "SELECT kind, jira_id, name, position, detail FROM jira_catalogue"
                        " ORDER BY kind, position") == [
        ("issue_type", "1", "Bug", 0, '{"subtask": false}'), ("issue_type", "5", "Sub-task", 1, '{"subtask": true}'),
        ("link_type", "10000", "Blocks", 0, '{"outward": "blocks", "inward": "is blocked by"}'),
        ("priority", "1", "Blocker", 0, "{}"), ("priority", "2", "Critical", 1, "{}"),
        ("priority", "3", "Major", 2, "{}"), ("resolution", "1", "Fixed", 0, "{}"),
        ("status", "1", "Open", 0, '{"category": "To Do", "category_key": "new"}'),
        ("status", "3", "In Progress", 1, '{"category": "In Progress", "category_key": "indeterminate"}')]
    assert db_rows(hub, "SELECT name, user_key, display_name FROM jira_user ORDER BY 1") == [
        ("ivanov", "JIRAUSER10100", "Иван Иванов"), ("petrov", "petrov", "Pyotr Petrov")]


def test_an_agent_v14_page_leaves_the_new_fields_as_they_were(hub):
    load(hub, [rich()], version=15, catalogues=CATALOGUES)
    before = (columns(hub), sprints_of(hub), worklogs_of(hub),
              db_rows(hub, "SELECT * FROM sprint"), db_rows(hub, "SELECT * FROM jira_catalogue"))

    # What an agent of protocol v14 sends: the fields it knew, nothing of v15.
    load(hub, [issue("AURORA-12", summary="Renamed", status="Closed", sprint="AURORA Sprint 14",
                     comments=[], changes=[], attachments=[], links=[])], version=14)

    assert db_rows(hub, "SELECT summary, status FROM issue") == [("Renamed", "Closed")]
    assert (columns(hub), sprints_of(hub), worklogs_of(hub),
            db_rows(hub, "SELECT * FROM sprint"), db_rows(hub, "SELECT * FROM jira_catalogue")) == before


def test_a_v15_page_without_worklogs_keeps_the_worklogs(hub):
    load(hub, [rich()], version=15)
    page = rich(summary="Again")
    del page["worklogs"]
    load(hub, [page], version=15)
    assert len(worklogs_of(hub)) == 2

    # Sent, they replace the issue's list, like comments.
    load(hub, [issue("AURORA-12", worklogs=[WORKLOGS[1]])], version=15)
    assert [w[0] for w in worklogs_of(hub)] == ["40002"]
    load(hub, [issue("AURORA-12", worklogs=[])], version=15)
    assert worklogs_of(hub) == []


def test_null_clears_a_field_and_lists_fall_back_to_empty(hub):
    load(hub, [rich()], version=15)
    load(hub, [issue("AURORA-12", resolution=None, resolved=None, components=None, fix_versions=None,
                     environment=None, parent_key=None, time_spent=None, custom_fields=None)], version=15)
    stored = columns(hub)
    assert (stored["resolution"], stored["resolved"], stored["resolved_at"]) == (None, None, None)
    assert (stored["components"], stored["fix_versions"], stored["custom_fields"]) == ("[]", "[]", "{}")
    assert (stored["environment"], stored["parent_key"], stored["time_spent"], stored["custom_text"]) == (
        None, None, None, None)
    # What was not sent is kept.
    assert json.loads(stored["affects_versions"]) == rich()["affects_versions"]
    assert stored["time_original_estimate"] == 28800


def test_sent_sprints_replace_the_issues_sprints_and_each_sprint_takes_its_last_sending(hub):
    load(hub, [rich()], version=15)
    moved = {**SPRINTS[2], "state": "closed", "complete": TIME}
    nxt = {"id": 15, "name": "AURORA Sprint 15", "state": "active", "board_id": 3}
    load(hub, [issue("AURORA-12", sprints=[moved, nxt], sprint="AURORA Sprint 15"),
               issue("AURORA-13", sprints=[{**nxt, "goal": "Ship 2.3"}])], version=15)

    assert sprints_of(hub) == [14, 15] and sprints_of(hub, "AURORA-13") == [15]
    # Sprints no issue names any more stay known: they are Jira's, and the past of the issues.
    assert db_rows(hub, "SELECT sprint_id, state, complete_date, goal FROM sprint ORDER BY 1") == [
        (12, "closed", SPRINTS[0]["complete"], "Cards"), (13, "closed", None, None),
        (14, "closed", TIME, None), (15, "active", None, "Ship 2.3")]


def test_catalogues_sent_replace_those_held_and_users_are_added_or_updated(hub):
    load(hub, [issue("AURORA-12")], version=15, catalogues=CATALOGUES)
    load(hub, [issue("AURORA-12")], version=15, catalogues={
        "priorities": [{"id": "3", "name": "Major"}, {"id": "1", "name": "Blocker"}],
        "users": [{"name": "ivanov", "display_name": "Ivan Ivanov"}, {"name": "sidorov", "key": "JIRAUSER10300"}]})

    assert db_rows(hub, "SELECT jira_id, position FROM jira_catalogue WHERE kind = 'priority' ORDER BY 2") == [
        ("3", 0), ("1", 1)]
    # Catalogues not sent are kept.
    assert db_rows(hub, "SELECT count(*) FROM jira_catalogue WHERE kind = 'status'") == [(2,)]
    # A user sent without a key keeps the key held.
    assert db_rows(hub, "SELECT name, user_key, display_name FROM jira_user ORDER BY 1") == [
        ("ivanov", "JIRAUSER10100", "Ivan Ivanov"), ("petrov", "petrov", "Pyotr Petrov"),
        ("sidorov", "JIRAUSER10300", None)]


def test_a_word_only_the_environment_or_a_custom_text_field_holds_finds_the_issue(hub):
    load(hub, [rich(), issue("AURORA-13", summary="Other")], version=15)

    def found(q: str) -> list[str]:
        resp = hub.api("GET", "/api/v1/issues", params={"q": q})
        assert resp.status_code == 200, resp.json
        return [item["key"] for item in resp.json["items"]]

    assert found("kappa") == ["AURORA-12"]
    assert found("zanzibar") == ["AURORA-12"]
    assert found("платформа") == ["AURORA-12"]
    # Changed by a later page, the old word no longer matches.
    load(hub, [issue("AURORA-12", environment="Firefox", custom_fields={})], version=15)
    assert found("kappa") == [] and found("zanzibar") == [] and found("firefox") == ["AURORA-12"]
    index_agrees()


def test_neighbours_carry_the_whole_issue_too(hub):
    load(hub, [issue("AURORA-12", links=[{"type": "Blocks", "outward": "OTHER-7"}])],
         neighbors=[rich("OTHER-7")], version=15)
    assert columns(hub, "OTHER-7")["resolution"] == "Fixed"
    assert sprints_of(hub, "OTHER-7") == [12, 13, 14] and len(worklogs_of(hub, "OTHER-7")) == 2


@pytest.mark.parametrize(("field", "value", "named"), [
    ("sprints", [{"id": "14", "name": "S"}], "issues.0.sprints.0.id"),
    ("sprints", [{"id": 14}], "issues.0.sprints.0.name"),
    ("worklogs", [{"id": "w-1"}], "issues.0.worklogs.0.id"),
    ("worklogs", [{"id": "1", "time_spent": -5}], "issues.0.worklogs.0.time_spent"),
    ("fix_versions", [{"id": "10100"}], "issues.0.fix_versions.0.name"),
    ("custom_fields", {"customfield 1": {"name": "x", "value": 1}}, "issues.0.custom_fields"),
    ("custom_fields", {"customfield_1": {"value": 1}}, "issues.0.custom_fields.customfield_1.name"),
    ("parent_key", "aurora-1", "issues.0.parent_key"),
    ("time_spent", 1.5, "issues.0.time_spent"),
])
def test_a_malformed_v15_field_is_a_422_naming_it_and_nothing_is_written(hub, field, value, named):
    command = enqueue(hub, "key in (X)")
    hub.agent("POST", "/agent/v1/claim", {"agent_id": "agent-1", "version": 15})
    resp = report(hub, command["id"], "state", {"issues": [issue("AURORA-12", **{field: value})]})
    assert resp.status_code == 422, resp.json
    assert resp.json["field"] == named
    assert db_rows(hub, "SELECT count(*) FROM issue") == [(0,)]


def test_a_malformed_catalogue_is_a_422_naming_it(hub):
    command = enqueue(hub, "key in (X)")
    hub.agent("POST", "/agent/v1/claim", {"agent_id": "agent-1", "version": 15})
    resp = report(hub, command["id"], "state", {"issues": [issue("AURORA-12")],
                                                "catalogues": {"link_types": [{"id": "10000"}]}})
    assert resp.status_code == 422, resp.json
    assert resp.json["field"] == "catalogues.link_types.0.name"
    assert db_rows(hub, "SELECT count(*) FROM issue") == [(0,)]
