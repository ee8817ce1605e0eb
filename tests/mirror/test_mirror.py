"""Requirement «Зеркало задачи»: one test per Scenario, through the agent protocol."""

from __future__ import annotations

import pytest

from hub.models import AttachmentFile
from tests.support import (
    BASE,
    attachment,
    comment,
    db_rows,
    issue,
    jira_id,
    load,
    report,
    with_projects,
)

pytestmark = pytest.mark.backends("sqlite", "postgresql")


def links(hub):
    return db_rows(hub, "SELECT source_key, target_key, link_type FROM issue_link ORDER BY 1, 2, 3")


def flags(hub):
    return dict(db_rows(hub, "SELECT key, neighbor FROM issue"))


def test_loading_state_replaces_links(hub):
    """Scenario: Загрузка состояния заменяет связи."""
    load(hub, [issue("X-1", links=[{"type": "Blocks", "outward": "X-2"},
                                   {"type": "Relates", "outward": "X-3"}]),
               issue("X-4", links=[{"type": "Blocks", "outward": "X-1"}])])
    assert links(hub) == [("X-1", "X-2", "Blocks"), ("X-1", "X-3", "Relates"), ("X-4", "X-1", "Blocks")]

    load(hub, [issue("X-1", links=[{"type": "Blocks", "outward": "X-5"},
                                   {"type": "Cloners", "inward": "X-6"}])])

    # X's outward rows are what it sent; X-4 -> X-1 (not sent from X's side) stays
    # until X-4 itself is loaded; the inward link is written from X-6.
    assert links(hub) == [("X-1", "X-5", "Blocks"), ("X-4", "X-1", "Blocks"), ("X-6", "X-1", "Cloners")]
    load(hub, [issue("X-4", links=[])])
    assert links(hub) == [("X-1", "X-5", "Blocks"), ("X-6", "X-1", "Cloners")]


def test_neighbour_issue(hub):
    """Scenario: Соседняя задача."""
    with_projects()
    load(hub, [issue("X-1", links=[{"type": "Blocks", "outward": "Y-1"}])],
         neighbors=[issue("Y-1")], jql=BASE)
    assert flags(hub) == {"X-1": 0, "Y-1": 1}

    # Y entered the base JQL: the next full run loads it as a match.
    load(hub, [issue("X-1"), issue("Y-1")], jql=BASE)
    assert flags(hub) == {"X-1": 0, "Y-1": 0}


def test_neighbour_flags_in_full_and_other_runs(hub):
    with_projects()
    # Full run: a neighbour loaded by the same run as a match (before or after) stays 0.
    full = load(hub, [issue("X-1")], neighbors=[issue("X-2")], jql=BASE, done=False)
    assert flags(hub) == {"X-1": 0, "X-2": 1}
    report(hub, full["id"], "state", {"issues": [issue("X-2")], "neighbors": [issue("X-1")]})
    assert flags(hub) == {"X-1": 0, "X-2": 0}
    assert report(hub, full["id"], "done", {"result": {"total": 2}}).status_code == 200

    # Another run: known issues keep their flag, new ones are neighbours.
    load(hub, [issue("X-1"), issue("N-1")], neighbors=[issue("X-2"), issue("N-2")], jql="key = X-1")
    assert flags(hub) == {"X-1": 0, "X-2": 0, "N-1": 1, "N-2": 1}


def test_full_run_marks_issues_it_did_not_update(hub):
    with_projects()
    load(hub, [issue("X-1"), issue("X-2"), issue("X-3")], jql=BASE)
    assert flags(hub) == {"X-1": 0, "X-2": 0, "X-3": 0}

    load(hub, [issue("X-1")], jql=BASE)  # left the base JQL

    assert flags(hub) == {"X-1": 0, "X-2": 1, "X-3": 1}
    # Not a full run: nothing is marked.
    load(hub, [issue("X-2")], jql="key = X-2")
    assert flags(hub) == {"X-1": 0, "X-2": 1, "X-3": 1}


def test_empty_full_run(hub):
    """Scenario: Пустой полный прогон."""
    with_projects()
    load(hub, [issue("X-1"), issue("X-2")], jql=BASE)
    before = flags(hub)

    load(hub, [], jql=BASE)

    assert flags(hub) == before == {"X-1": 0, "X-2": 0}
    [run, _] = hub.api("GET", "/api/v1/sync-runs").json["items"]
    assert (run["status"], run["issues_loaded"]) == ("done", 0)



def comments(hub):
    return db_rows(hub, "SELECT key, comment_id, body, created_at FROM issue_comment ORDER BY 1, 2")


def test_comment_deleted_in_jira(hub):
    """Scenario: Комментарий удалён в Jira."""
    load(hub, [issue("X-1", comments=[comment("101"), comment("102")])])
    load(hub, [issue("X-1", comments=[comment("102", "edited")])])
    assert comments(hub) == [("X-1", "102", "edited", "2026-10-22T10:05:11+00:00")]


def test_state_from_an_agent_before_v10(hub):
    """Scenario: Состояние от агента до v10."""
    load(hub, [issue("X-1", status="Open", comments=[comment("1"), comment("2"), comment("3")])])

    load(hub, [issue("X-1", status="In Progress", summary="Renamed")], version=9)

    assert db_rows(hub, "SELECT status, summary FROM issue") == [("In Progress", "Renamed")]
    assert [c[1] for c in comments(hub)] == ["1", "2", "3"]



def attachments(hub):
    return db_rows(hub, "SELECT attachment_id, key, filename, size, created_at FROM issue_attachment ORDER BY 1")


def test_attachments_in_state(hub):
    """Scenario: Вложения в состоянии."""
    load(hub, [issue("X-1", attachments=[attachment("1", "a.pdf"), attachment("2", "b.pdf")])])
    AttachmentFile.create(attachment_id="1", file="ab" * 32, size=10, fetched_at="2026-11-01T00:00:00+00:00")

    load(hub, [issue("X-1", attachments=[attachment("2", "b-v2.pdf", 20), attachment("3", "c.pdf")])])

    assert attachments(hub) == [("2", "X-1", "b-v2.pdf", 20, "2026-10-22T10:05:11+00:00"),
                                ("3", "X-1", "c.pdf", 10, "2026-10-22T10:05:11+00:00")]
    assert db_rows(hub, "SELECT attachment_id FROM attachment_file") == [("1",)]


def test_state_from_an_agent_before_v14(hub):
    """Scenario: Состояние от агента до v14."""
    load(hub, [issue("X-1", status="Open", attachments=[attachment("1", "a.pdf"), attachment("2", "b.pdf")])])

    load(hub, [issue("X-1", status="Done")], version=13)

    assert db_rows(hub, "SELECT status FROM issue") == [("Done",)]
    assert [a[0] for a in attachments(hub)] == ["1", "2"]


def test_fields_not_sent_are_kept_and_changes_are_upserted(hub):
    change = {"id": "5001", "author": "ivanov", "created": "2026-10-22T13:05:11.000+0300",
              "items": [{"field": "status", "field_type": "jira", "from": "1", "from_string": "Open",
                         "to": "3", "to_string": "In Progress"},
                        {"field": "assignee", "to_string": "ivanov"}]}
    load(hub, [issue("X-1", status="Open", priority="Major", labels=["AWPCA"],
                     updated="2026-10-22T13:05:11.000+0300", changes=[change])])
    load(hub, [{"key": "X-1", "id": jira_id("X-1"), "status": "Done", "changes": [change]}])

    assert db_rows(hub, "SELECT status, priority, labels, jira_updated, summary FROM issue") == [
        ("Done", "Major", '["AWPCA"]', "2026-10-22T13:05:11.000+0300", "Summary X-1")]
    assert db_rows(hub, "SELECT history_id, item_no, field, from_string, to_string, created_at"
                        " FROM issue_change ORDER BY item_no") == [
        ("5001", 0, "status", "Open", "In Progress", "2026-10-22T10:05:11+00:00"),
        ("5001", 1, "assignee", None, "ivanov", "2026-10-22T10:05:11+00:00")]


def test_neighbour_marking_is_idempotent_and_needs_a_loaded_issue(hub):
    with_projects()
    load(hub, [issue("X-1"), issue("X-2")], jql=BASE)
    load(hub, [issue("X-1")], jql=BASE)
    assert flags(hub) == {"X-1": 0, "X-2": 1}
    runs = hub.api("GET", "/api/v1/sync-runs").json["items"]
    assert hub.built.services.runs.mark_neighbours(runs[0]["id"]) == 0  # again: nothing more to do
    assert flags(hub) == {"X-1": 0, "X-2": 1}

    load(hub, [], jql=BASE)
    empty = hub.api("GET", "/api/v1/sync-runs").json["items"][0]
    assert empty["issues_loaded"] == 0
    assert hub.built.services.runs.mark_neighbours(empty["id"]) == 0
    assert flags(hub) == {"X-1": 0, "X-2": 1}
