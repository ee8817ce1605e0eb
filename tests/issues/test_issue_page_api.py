"""What the issue page reads beyond an issue's own fields, through the API: each
sub-task's assignee (named in ``people``), and who attached each file and when."""

from __future__ import annotations

import pytest

from tests.support import attachment, issue, load

pytestmark = pytest.mark.backends("sqlite", "postgresql")

CATALOGUES = {"users": [{"name": "ivanov", "key": "JIRAUSER10100", "display_name": "Ivan Ivanov"},
                        {"name": "petrov", "key": "JIRAUSER10101", "display_name": "Pyotr Petrov"}]}


def get(hub, path: str) -> dict:
    resp = hub.api("GET", path)
    assert resp.status_code == 200, resp.json
    return resp.json


def test_sub_tasks_carry_their_assignee_and_people_names_them(hub):
    load(hub, [issue("AURORA-1", assignee="ivanov"),
               issue("AURORA-2", parent_key="AURORA-1", assignee="petrov", status="Open"),
               issue("AURORA-3", parent_key="AURORA-1", assignee="sidorov", status="Done"),
               issue("AURORA-10", parent_key="AURORA-1")], version=15, catalogues=CATALOGUES)
    detail = get(hub, "/api/v1/issues/AURORA-1")
    assert [(task["key"], task["assignee"]) for task in detail["subtasks"]] == [
        ("AURORA-2", "petrov"), ("AURORA-3", "sidorov"), ("AURORA-10", None)]
    # A login the agent did not report as a user has no display name to give.
    assert detail["people"] == {"ivanov": "Ivan Ivanov", "petrov": "Pyotr Petrov"}


def test_an_attachment_says_who_attached_it_and_when(hub):
    mine = attachment("10001", "spec.pdf")
    unknown = {**attachment("10002", "notes.txt"), "author": "sidorov", "mime_type": "text/plain"}
    nobody = {"id": "10003", "filename": "old.bin", "size": 3}
    load(hub, [issue("AURORA-1", attachments=[mine, unknown, nobody])], version=15, catalogues=CATALOGUES)
    listed = get(hub, "/api/v1/issues/AURORA-1/attachments")["items"]
    who = [(a["attachment_id"], a["author"], a["author_display"], a["created"], a["created_at"], a["mime_type"])
           for a in listed]
    assert who == [("10001", "ivanov", "Ivan Ivanov", "2026-10-22T13:05:11.000+0300", "2026-10-22T10:05:11+00:00",
                    "application/pdf"),
                   ("10002", "sidorov", None, "2026-10-22T13:05:11.000+0300", "2026-10-22T10:05:11+00:00",
                    "text/plain"),
                   ("10003", None, None, None, None, None)]
    # One attachment and the states of many say the same.
    assert get(hub, "/api/v1/attachments/10001") == listed[0]
    states = hub.api("POST", "/api/v1/attachments/states", {"ids": ["10002", "10001"]})
    assert states.status_code == 200 and states.json["items"] == [listed[1], listed[0]]


def test_people_names_the_users_of_user_custom_fields(hub):
    pickers = {"customfield_10103": {"name": "Reviewer", "type": "user", "value": "petrov",
                                     "custom": "com.atlassian.jira.plugin.system.customfieldtypes:userpicker"},
               "customfield_10104": {"name": "Watchers", "type": "array", "value": ["ivanov", "sidorov"],
                                     "custom": "com.atlassian.jira.plugin.system.customfieldtypes:multiuserpicker"},
               "customfield_10105": {"name": "Team", "type": "option", "value": "ivanov",
                                     "custom": "com.atlassian.jira.plugin.system.customfieldtypes:select"}}
    load(hub, [issue("AURORA-1", custom_fields=pickers)], version=15, catalogues=CATALOGUES)
    assert get(hub, "/api/v1/issues/AURORA-1")["people"] == {"ivanov": "Ivan Ivanov", "petrov": "Pyotr Petrov"}
    load(hub, [issue("AURORA-2", custom_fields={"customfield_10105": pickers["customfield_10105"]})],
         version=15, catalogues=CATALOGUES)
    # A select whose value happens to be a login names nobody.
    assert get(hub, "/api/v1/issues/AURORA-2")["people"] == {}
