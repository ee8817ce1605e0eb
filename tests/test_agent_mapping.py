"""Jira's issue JSON → the hub's state object: sprints, links, users, custom fields, times."""

from __future__ import annotations

from agent import mapping
from agent.runner import looks_like_html, search_jql, updated_clause
from demo.fakejira import (
    END_FIELD,
    EPIC_FIELD,
    FIELDS,
    SPRINT_FIELD,
    START_FIELD,
    TIME,
    FakeJira,
    legacy_sprint,
)

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
    return jira, issue


def test_a_full_state_object_maps_every_field():
    _, issue = jira_issue()
    state = mapping.state(issue, CUSTOM)
    assert state == {
        "key": "AURORA-12", "id": issue["id"], "issue_type": "Story", "summary": "Summary AURORA-12",
        "description": "h1. AURORA-12", "status": "Open", "priority": "Major",
        "assignee": "ivanov", "reporter": "petrov",  # login names, not keys or display names
        "duedate": "2026-12-01", "planned_start": "2026-11-02", "planned_end": "2026-12-20",
        "epic_key": "AURORA-1", "labels": ["AWPCA", "KPI"], "sprint": "AURORA Sprint 14",
        "created": "2026-10-01T09:00:00.000+0300", "updated": TIME,
        "links": [{"type": "Blocks", "outward": "AURORA-13"}, {"type": "Relates", "inward": "OTHER-3"}],
        "comments": [{"id": "101", "author": "petrov", "created": TIME, "updated": TIME, "body": "Looks good"}],
        "changes": [{"id": "5001", "author": "ivanov", "created": TIME,
                     "items": [{"field": "status", "field_type": "jira", "from": "1", "from_string": "Open",
                                "to": "3", "to_string": "In Progress"}]}],
        "attachments": [{"id": "31337", "filename": "спецификация.pdf", "size": 10,
                         "mime_type": "application/pdf", "author": "ivanov", "created": TIME}],
    }
    assert mapping.linked_keys(issue) == {"AURORA-13", "OTHER-3"}


def test_a_neighbour_carries_its_fields_but_not_its_lists():
    _, issue = jira_issue()
    neighbour = mapping.neighbour(issue, CUSTOM)
    assert neighbour["key"] == "AURORA-12" and neighbour["status"] == "Open"
    assert not {"links", "comments", "changes", "attachments"} & set(neighbour)


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
    assert search_jql('project = A ORDER BY rank', None, None) == "project = A ORDER BY key ASC"
    assert search_jql("project = A", "2026-11-02T09:00:00+00:00", "UTC") == \
        '(project = A) AND updated >= "2026/11/02 09:00" ORDER BY key ASC'


def test_an_html_page_is_told_from_a_file():
    assert looks_like_html("text/html;charset=UTF-8", "application/pdf", b"%PDF")
    assert looks_like_html("application/octet-stream", "application/pdf", b"  <!DOCTYPE html><html>")
    assert not looks_like_html("application/pdf", "application/pdf", b"%PDF-1.7")
    assert not looks_like_html("text/html", "text/html", b"<html>")  # an attached HTML file is a file
