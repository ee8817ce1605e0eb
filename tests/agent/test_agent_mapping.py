"""Jira's issue JSON → the hub's state object: sprints, links, users, custom fields of every type,
versions, worklogs, times, and Jira's catalogues."""

from __future__ import annotations

import pytest

from agent import mapping
from agent.handlers.fetch_attachment import looks_like_html
from agent.queries import search_where, updated_clause
from demo.fakejira import (
    CUSTOM as TEAM_FIELDS,
)
from demo.fakejira import (
    END_FIELD,
    EPIC_FIELD,
    FIELDS,
    ISSUE_TYPES,
    LINK_TYPES,
    PRIORITIES,
    RESOLUTIONS,
    SPRINT_FIELD,
    START_FIELD,
    STATUSES,
    TIME,
    FakeJira,
    component,
    group,
    legacy_sprint,
    named,
    object_sprint,
    option,
    user,
    version,
)

pytestmark = pytest.mark.backends("sqlite", "postgresql")

CUSTOM = mapping.CustomFields(sprint=SPRINT_FIELD, epic_link=EPIC_FIELD, planned_start=START_FIELD,
                              planned_end=END_FIELD)


def test_custom_fields_are_found_by_schema_type_and_exact_name():
    found = mapping.find_custom_fields(FIELDS)
    assert found == CUSTOM  # not "Planned start (old)", which comes first
    renamed = mapping.find_custom_fields(FIELDS, planned_start="planned START", planned_end="Nope")
    assert renamed.planned_start == START_FIELD and renamed.planned_end is None


def test_a_legacy_sprint_string_keeps_commas_brackets_and_equals_in_its_name_and_goal():
    text = legacy_sprint(24, "AURORA Sprint 14, [hot] a=b", "ACTIVE", 31, goal="Ship it, then [rest]")
    sprint = mapping.parse_sprint(text)
    assert sprint["name"] == "AURORA Sprint 14, [hot] a=b"
    assert sprint["goal"] == "Ship it, then [rest]"
    assert sprint["id"] == "24" and sprint["state"] == "ACTIVE" and sprint["sequence"] == "31"
    assert sprint["endDate"] is None


def test_the_active_sprint_wins_else_the_latest_by_sequence():
    closed = legacy_sprint(20, "Sprint 10", "CLOSED", 40)
    active = legacy_sprint(21, "Sprint 11", "ACTIVE", 30)
    future = legacy_sprint(22, "Sprint 12", "FUTURE", 50)
    assert mapping.current_sprint([closed, active, future]) == "Sprint 11"
    assert mapping.current_sprint([closed, future]) == "Sprint 12"
    objects = [{"id": 1, "name": "Old", "state": "closed", "sequence": 1},
               {"id": 2, "name": "Now", "state": "active", "boardId": 7}]
    assert mapping.current_sprint(objects) == "Now"
    assert mapping.current_sprint([{"id": 5, "name": "A", "state": "closed"},
                                   {"id": 9, "name": "B", "state": "closed"}]) == "B"
    assert mapping.current_sprint(None) is None and mapping.current_sprint([]) is None


def jira_issue() -> tuple[FakeJira, dict]:
    jira = FakeJira()
    issue = jira.add_issue("AURORA-12", labels=["AWPCA", "KPI"], assignee="ivanov", duedate="2026-12-01",
                           **{SPRINT_FIELD: [legacy_sprint(24, "AURORA Sprint 14", "ACTIVE", 3)],
                              EPIC_FIELD: "AURORA-1", START_FIELD: "2026-11-02", END_FIELD: "2026-12-20"})
    jira.add_issue("AURORA-13")
    jira.add_issue("OTHER-3")
    jira.link("AURORA-12", "AURORA-13", "Blocks")
    jira.link("OTHER-3", "AURORA-12", "Relates")
    jira.add_comment("AURORA-12", "101", "Looks good", author="petrov")
    jira.add_history("AURORA-12", "5001", "status", "Open", "In Progress")
    jira.add_attachment("AURORA-12", "31337", "спецификация.pdf", b"%PDF-1.7 x")
    jira.add_worklog("AURORA-12", "40001", 5400, author="sidorova", comment="Reviewed")
    return jira, issue


WHOLE = mapping.find_custom_fields(FIELDS)  # with the field catalogue: custom fields by name and type


def test_a_full_state_object_maps_every_field():
    _, issue = jira_issue()
    state = mapping.state(issue, WHOLE)
    assert state == {
        "key": "AURORA-12", "id": issue["id"], "issue_type": "Story", "summary": "Summary AURORA-12",
        "description": "h1. AURORA-12", "status": "Open", "priority": "Major",
        "assignee": "ivanov", "reporter": "petrov",  # login names, not keys or display names
        "duedate": "2026-12-01", "planned_start": "2026-11-02", "planned_end": "2026-12-20",
        "epic_key": "AURORA-1", "labels": ["AWPCA", "KPI"], "sprint": "AURORA Sprint 14",
        "created": "2026-10-01T09:00:00.000+0300", "updated": TIME,
        "resolution": None, "resolved": None, "components": [], "fix_versions": [], "affects_versions": [],
        "environment": None, "parent_key": None, "time_original_estimate": None, "time_estimate": None,
        "time_spent": 5400,
        "sprints": [{"id": 24, "name": "AURORA Sprint 14", "state": "active", "start": "2026-10-01T09:00:00.000+03:00",
                     "end": None, "complete": None, "board_id": 7, "goal": None}],
        # What Jira returned beyond the state's own fields, with a value: nulls, the project, the
        # sub-task list, timetracking and lastViewed are not there.
        "custom_fields": {
            "creator": {"name": "Creator", "type": "user", "custom": None, "value": "petrov"},
            "votes": {"name": "Votes", "type": "votes", "custom": None, "value": 0},
            "watches": {"name": "Watchers", "type": "watches", "custom": None, "value": 1},
            "workratio": {"name": "Work Ratio", "type": "number", "custom": None, "value": -1},
        },
        "links": [{"type": "Blocks", "outward": "AURORA-13"}, {"type": "Relates", "inward": "OTHER-3"}],
        "comments": [{"id": "101", "author": "petrov", "created": TIME, "updated": TIME, "body": "Looks good"}],
        "changes": [{"id": "5001", "author": "ivanov", "created": TIME,
                     "items": [{"field": "status", "field_type": "jira", "from": "1", "from_string": "Open",
                                "to": "3", "to_string": "In Progress"}]}],
        "attachments": [{"id": "31337", "filename": "спецификация.pdf", "size": 10,
                         "mime_type": "application/pdf", "author": "ivanov", "created": TIME}],
        "worklogs": [{"id": "40001", "author": "sidorova", "started": TIME, "time_spent": 5400,
                      "comment": "Reviewed", "created": TIME, "updated": TIME}],
    }
    assert mapping.linked_keys(issue) == {"AURORA-13", "OTHER-3"}


def test_resolution_versions_components_environment_parent_and_time_tracking_are_mapped():
    jira = FakeJira()
    jira.add_issue("AURORA-1")
    sub = jira.add_issue("AURORA-2", parent="AURORA-1", resolution=named("Fixed"),
                         resolutiondate="2026-10-22T13:05:11.000+0300",
                         components=[component("10200", "Backend"), component("10201", "Интерфейс")],
                         fixVersions=[version("10101", "2.3", False, "2026-12-20")],
                         versions=[version("10100", "2.2", True, "2026-09-30"), version("10099", "2.1")],
                         environment="Ubuntu 24.04\r\n*Chromium*", timeoriginalestimate=28800,
                         timeestimate=14400, timespent=14400)
    state = mapping.state(sub, WHOLE)
    assert {k: state[k] for k in ("issue_type", "resolution", "resolved", "components", "fix_versions",
                                  "affects_versions", "environment", "parent_key", "time_original_estimate",
                                  "time_estimate", "time_spent")} == {
        "issue_type": "Sub-task", "resolution": "Fixed", "resolved": "2026-10-22T13:05:11.000+0300",
        "components": ["Backend", "Интерфейс"],
        "fix_versions": [{"id": "10101", "name": "2.3", "released": False, "release_date": "2026-12-20"}],
        "affects_versions": [{"id": "10100", "name": "2.2", "released": True, "release_date": "2026-09-30"},
                             {"id": "10099", "name": "2.1", "released": False, "release_date": None}],
        "environment": "Ubuntu 24.04\r\n*Chromium*", "parent_key": "AURORA-1",
        "time_original_estimate": 28800, "time_estimate": 14400, "time_spent": 14400}
    assert "subtasks" not in state["custom_fields"] and "parent" not in state["custom_fields"]


def test_fields_jira_did_not_return_are_left_out_so_the_hub_keeps_them():
    jira = FakeJira()
    issue = jira.add_issue("AURORA-3")
    for name in ("resolution", "resolutiondate", "fixVersions", "worklog", "timespent", SPRINT_FIELD):
        del issue["fields"][name]
    state = mapping.state(issue, WHOLE)
    assert not {"resolution", "resolved", "fix_versions", "worklogs", "time_spent", "sprints"} & set(state)
    assert state["components"] == [] and state["sprint"] is None


def test_every_custom_field_type_is_flattened_as_a_person_reads_it():
    jira = FakeJira()
    c = {name: f["id"] for name, f in TEAM_FIELDS.items()}
    issue = jira.add_issue("AURORA-4", **{
        c["story_points"]: 5.0, c["epic_name"]: "Cards", c["rank"]: "0|i0000f:", c["team"]: "42",
        c["severity"]: option("10400", "S2"),
        c["platforms"]: [option("10410", "Linux"), option("10411", "Windows")],
        c["region"]: option("10420", "EMEA", option("10421", "Moscow")),
        c["tester"]: user("sidorova"), c["reviewers"]: [user("petrov"), user("kuznetsov")],
        c["target_date"]: "2026-12-01", c["deployed_at"]: "2026-10-21T18:00:00.000+0300",
        c["acceptance"]: "* opens\r\n* filters", c["customer"]: "Аврора",
        c["design_link"]: "https://design.example/aurora", c["found_in"]: version("10100", "2.2", True),
        c["target_releases"]: [version("10101", "2.3"), version("10102", "2.4")],
        c["owning_group"]: group("aurora-devs"), c["notify_groups"]: [group("aurora-devs"), group("qa")],
        c["flagged"]: [option("10430", "Impediment")], c["risk"]: option("10440", "Low"),
        c["tags"]: ["ui", "mirror"], c["health"]: {"score": 3, "checks": ["build"]},
        c["epic_status"]: option("10450", "To Do"),
        "customfield_19999": {"value": "unlisted"},  # a field /field does not list: named by its id
        "1 odd id": "left out",  # no field id of Jira's: the hub would refuse the page
    })
    got = mapping.state(issue, WHOLE)["custom_fields"]
    values = {name: got[fid]["value"] for name, fid in c.items()}
    assert values == {
        "story_points": 5.0, "epic_name": "Cards", "rank": "0|i0000f:", "team": "42", "severity": "S2",
        "platforms": ["Linux", "Windows"], "region": {"parent": "EMEA", "child": "Moscow"},
        "tester": "sidorova", "reviewers": ["petrov", "kuznetsov"], "target_date": "2026-12-01",
        "deployed_at": "2026-10-21T18:00:00.000+0300", "acceptance": "* opens\r\n* filters", "customer": "Аврора",
        "design_link": "https://design.example/aurora", "found_in": "2.2", "target_releases": ["2.3", "2.4"],
        "owning_group": "aurora-devs", "notify_groups": ["aurora-devs", "qa"], "flagged": ["Impediment"],
        "risk": "Low", "tags": ["ui", "mirror"], "health": {"score": 3, "checks": ["build"]},
        "epic_status": "To Do"}
    assert got[c["story_points"]] == {"name": "Story Points", "type": "number",
                                      "custom": "com.atlassian.jira.plugin.system.customfieldtypes:float",
                                      "value": 5.0}
    assert got[c["health"]]["custom"] == "com.example.jira.health:health-check"
    assert got["customfield_19999"] == {"name": "customfield_19999", "type": None, "custom": None,
                                        "value": {"value": "unlisted"}}
    # The fields the state carries by name are not repeated; a null (no value) is not there.
    assert not {SPRINT_FIELD, EPIC_FIELD, START_FIELD, END_FIELD, "customfield_10199", "1 odd id"} & set(got)
    assert mapping.flatten(option("1", "EMEA"), TEAM_FIELDS["region"]["schema"]) == {"parent": "EMEA", "child": None}


def test_every_sprint_of_both_forms_is_sent_and_one_without_an_id_is_left_out():
    values = [legacy_sprint(20, "Sprint 13, [a=b]", "CLOSED", 13, goal="Ship, then rest", board=3,
                            end="2026-10-14T09:00:00.000+03:00", complete="2026-10-14T18:00:00.000+03:00"),
              object_sprint(24, "Sprint 14", "active", board=5, goal="Cards"),
              {"name": "no id"}, "com.atlassian.greenhopper.service.sprint.Sprint@1[id=<null>,name=x]"]
    assert mapping.sprints(values) == [
        {"id": 20, "name": "Sprint 13, [a=b]", "state": "closed", "start": "2026-10-01T09:00:00.000+03:00",
         "end": "2026-10-14T09:00:00.000+03:00", "complete": "2026-10-14T18:00:00.000+03:00", "board_id": 3,
         "goal": "Ship, then rest"},
        {"id": 24, "name": "Sprint 14", "state": "active", "start": "2026-11-02T09:00:00.000+03:00",
         "end": "2026-11-16T09:00:00.000+03:00", "complete": None, "board_id": 5, "goal": "Cards"}]
    assert mapping.current_sprint(values[:2]) == "Sprint 14"
    assert mapping.sprints(None) == [] and mapping.sprints([]) == []


def test_the_users_an_issue_names_are_collected_with_key_and_display_name():
    _, issue = jira_issue()
    issue["fields"][TEAM_FIELDS["reviewers"]["id"]] = [user("kuznetsov")]
    found = mapping.users(issue, None, [{"author": user("smirnov")}])
    assert set(found) == {"ivanov", "petrov", "sidorova", "kuznetsov", "smirnov"}
    assert found["sidorova"] == {"name": "sidorova", "key": user("sidorova")["key"], "display_name": "Sidorova"}


def test_catalogues_are_mapped_in_jiras_order_with_their_details():
    assert mapping.catalogue("priorities", PRIORITIES)[:2] == [{"id": "1", "name": "Blocker"},
                                                               {"id": "2", "name": "Critical"}]
    assert mapping.catalogue("statuses", STATUSES)[1] == {"id": "3", "name": "In Progress",
                                                          "category": "In Progress", "category_key": "indeterminate"}
    assert mapping.catalogue("issue_types", ISSUE_TYPES)[-1] == {"id": "5", "name": "Sub-task", "subtask": True}
    assert mapping.catalogue("link_types", LINK_TYPES)[0] == {"id": "10000", "name": "Blocks",
                                                              "outward": "blocks", "inward": "is blocked by"}
    assert mapping.catalogue("resolutions", [{"id": "x", "name": "Odd"}, {"id": "1"}, *RESOLUTIONS])[0] == \
        {"id": "1", "name": "Fixed"}


def test_missing_custom_fields_and_users_map_to_null():
    jira = FakeJira()
    issue = jira.add_issue("X-1", assignee=None)
    state = mapping.state(issue, mapping.CustomFields())
    assert state["assignee"] is None and state["sprint"] is None and state["epic_key"] is None
    assert state["planned_start"] is None and state["links"] == [] and state["comments"] == []


def test_a_container_is_truncated_when_its_total_exceeds_what_it_holds():
    assert mapping.truncated({"total": 3, "comments": [{}, {}]}, "comments")
    assert not mapping.truncated({"total": 2, "comments": [{}, {}]}, "comments")
    assert not mapping.truncated(None, "histories")


def test_updated_since_is_written_in_the_jira_users_zone_floored_to_the_minute():
    assert updated_clause("2026-11-02T09:00:59+00:00", "Europe/Moscow") == ' AND updated >= "2026/11/02 12:00"'
    assert updated_clause("2026-11-02T09:00:59+00:00", None) == ' AND updated >= "2026/11/02 09:00"'
    assert search_where("project = A", "2026-11-02T09:00:00+00:00", "UTC") == \
        '(project = A) AND updated >= "2026/11/02 09:00"'


def test_the_users_order_by_is_dropped_for_the_keysets_own():
    assert search_where("project = A ORDER BY rank", None, None) == "project = A"
    assert search_where("project = A or labels = x order by created DESC, key", None, None) == \
        "project = A or labels = x"
    assert search_where('summary ~ "sort ORDER BY rank" ORDER BY key', None, None) == 'summary ~ "sort ORDER BY rank"'
    assert search_where(r'summary ~ "a \" ORDER BY b"', None, None) == r'summary ~ "a \" ORDER BY b"'
    assert search_where("ORDER BY created", None, None) == ""
    assert search_where("ORDER BY created", "2026-11-02T09:00:00+00:00", "UTC") == 'updated >= "2026/11/02 09:00"'
    assert search_where("project = A OR labels = x", "2026-11-02T09:00:00+00:00", "UTC") == \
        '(project = A OR labels = x) AND updated >= "2026/11/02 09:00"'


def test_an_html_page_is_told_from_a_file():
    assert looks_like_html("text/html;charset=UTF-8", "application/pdf", b"%PDF")
    assert looks_like_html("application/octet-stream", "application/pdf", b"  <!DOCTYPE html><html>")
    assert not looks_like_html("application/pdf", "application/pdf", b"%PDF-1.7")
    assert not looks_like_html("text/html", "text/html", b"<html>")  # an attached HTML file is a file


def test_time_tracking_is_whole_seconds_or_none():
    jira = FakeJira()
    issue = jira.add_issue("AURORA-5", timeoriginalestimate=3600.0, timeestimate=-60, timespent="1h")
    state = mapping.state(issue, WHOLE)
    assert (state["time_original_estimate"], state["time_estimate"], state["time_spent"]) == (3600, None, None)


def test_a_screen_field_with_more_allowed_values_than_the_hub_takes_sends_none_rather_than_some():
    from agent import meta
    from hub.api import schemas

    assert (meta.ALLOWED_VALUES, meta.ALLOWED_CHARS) == (schemas.ALLOWED_VALUES, schemas.ALLOWED_CHARS)
    many = {"name": "Fix Version/s", "schema": {"type": "array", "items": "version"}, "operations": ["set"],
            "allowedValues": [{"name": f"1.{n}"} for n in range(meta.ALLOWED_VALUES + 1)]}
    assert "allowed" not in meta.field(many)
    few = {**many, "allowedValues": many["allowedValues"][:3]}
    assert meta.field(few)["allowed"] == ["1.0", "1.1", "1.2"]
    long = {**many, "allowedValues": [{"name": "x" * (meta.ALLOWED_CHARS + 1)}]}
    assert "allowed" not in meta.field(long)
