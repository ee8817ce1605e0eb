"""The projects' agile boards (GET /api/v1/boards, /api/v1/boards/{id}): a refresh of the base JQL
names them to the agent, an agent's state page configures them, and the mirror's issues are their
cards — a scrum board's active sprint, a kanban board's project issues on its columns."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from hub.models import Setting
from tests.support.protocol import claim, enqueue, report

pytestmark = pytest.mark.backends("sqlite", "postgresql")

STATUSES = [{"id": "1", "name": "Open", "category": "To Do", "category_key": "new"},
            {"id": "3", "name": "In Progress", "category": "In Progress", "category_key": "indeterminate"},
            {"id": "10001", "name": "Review", "category": "In Progress", "category_key": "indeterminate"},
            {"id": "6", "name": "Done", "category": "Done", "category_key": "done"},
            {"id": "4", "name": "Reopened", "category": "To Do", "category_key": "new"}]
SCRUM = {"id": "4216", "name": "AURORA board", "type": "scrum",
         "columns": [{"name": "To Do", "statuses": ["1", "4"]}, {"name": "Doing", "statuses": ["3"]},
                     {"name": "Done", "statuses": ["6"]}]}
KANBAN = {"id": "77", "name": "Ops flow", "type": "kanban",
          "columns": [{"name": "Backlog", "statuses": ["1"]}, {"name": "Doing", "statuses": ["3", "10001"]},
                      {"name": "Done", "statuses": ["6"]}]}
ACTIVE = {"id": 21, "name": "AURORA Sprint 14", "state": "active", "board_id": 4216, "goal": "Cards",
          "start": "2026-11-02T09:00:00.000+03:00", "end": "2026-11-16T09:00:00.000+03:00"}
CLOSED = {"id": 20, "name": "AURORA Sprint 13", "state": "closed", "board_id": 4216}
TRANSITIONS = [{"id": "4", "name": "Start Progress", "to": "In Progress", "fields": {}}]


def _rank(value: str) -> dict:
    return {"customfield_10302": {"name": "Rank", "type": "any",
                                  "custom": "com.pyxis.greenhopper.jira:gh-lexo-rank", "value": value}}


def _flagged() -> dict:
    return {"customfield_10324": {"name": "Flagged", "type": "array", "value": ["Impediment"]}}


def _jira_time(days_ago: float) -> str:
    return (datetime.now(UTC) - timedelta(days=days_ago)).strftime("%Y-%m-%dT%H:%M:%S.000+0000")


def issue(key: str, label: str = "AWPCA", **fields) -> dict:
    number = int(key.split("-")[1])
    base = 0 if key.startswith("AURORA") else 500_000
    return {"key": key, "id": str(base + number), "summary": f"Work on {key}", "labels": [label],
            "issue_type": "Story", "priority": "Major", "status": "Open", "updated": _jira_time(1), **fields}


@pytest.fixture
def boards_hub(hub):
    """A hub with a scrum project (AWPCA, board 4216), a kanban one (OPS, board 77) and one without."""
    (Setting.insert(key="jql_scope", value="project in (AURORA, OPS)")
     .on_conflict(conflict_target=[Setting.key], preserve=[Setting.value]).execute())
    for label, board_id, board_type in (("AWPCA", 4216, "scrum"), ("OPS", 77, "kanban"), ("PLAIN", None, None)):
        body = {"label": label, "name": f"{label} team"}
        if board_id is not None:
            body.update(board_id=board_id, board_type=board_type)
        resp = hub.api("POST", "/api/v1/projects", body, role="admin")
        assert resp.status_code == 201, resp.json
    return hub


def load(hub, issues: list[dict], neighbours: list[dict] = (), **catalogues) -> dict:
    """One full refresh whose single page carries ``issues``, ``neighbours`` and ``catalogues``."""
    command = enqueue(hub)
    [claimed] = claim(hub, version=19, types=["refresh"])
    assert claimed["id"] == command["id"]
    pages = [issues[start:start + 100] for start in range(0, len(issues), 100)] or [[]]
    for number, page in enumerate(pages):
        body = {"issues": page, "neighbors": list(neighbours) if number == 0 else []}
        if number == 0:
            body["catalogues"] = {"statuses": STATUSES, **catalogues}
        resp = report(hub, claimed["id"], "state", body)
        assert resp.status_code == 200, resp.json
    resp = report(hub, claimed["id"], "done", {"result": {"total": len(issues)}})
    assert resp.status_code == 200, resp.json
    return claimed


def board(hub, board_id: int) -> dict:
    resp = hub.api("GET", f"/api/v1/boards/{board_id}")
    assert resp.status_code == 200, resp.json
    return resp.json


def test_a_refresh_of_the_base_jql_names_the_projects_boards_and_another_query_none(boards_hub):
    hub = boards_hub
    boards = [{"id": 77, "type": "kanban"}, {"id": 4216, "type": "scrum"}]
    assert enqueue(hub)["params"]["boards"] == boards
    since = hub.api("POST", "/api/v1/commands", {"type": "refresh", "params": {
        "updated_since": "2026-11-01T00:00:00+00:00"}})
    assert since.status_code == 201, since.json
    assert since.json["params"]["boards"] == boards
    # Asked again while it is open: the same command, not another.
    again = hub.api("POST", "/api/v1/commands", {"type": "refresh"})
    assert again.status_code == 200 and again.json["params"]["boards"] == boards
    other = enqueue(hub, "key = AURORA-1")
    assert "boards" not in other["params"]
    claimed = claim(hub, version=19, limit=10)
    assert [c["params"].get("boards") for c in claimed] == [boards, boards, None]


def test_an_interface_cannot_name_boards_itself(boards_hub):
    resp = boards_hub.api("POST", "/api/v1/commands", {"type": "refresh", "params": {"boards": [{"id": 1}]}})
    assert resp.status_code == 422


def test_boards_are_listed_unconfigured_until_an_agent_sends_their_configuration(boards_hub):
    hub = boards_hub
    listed = hub.api("GET", "/api/v1/boards").json["items"]
    assert listed == [{"id": 4216, "name": None, "type": "scrum", "project": "AWPCA", "configured": False},
                      {"id": 77, "name": None, "type": "kanban", "project": "OPS", "configured": False}]
    load(hub, [], boards=[SCRUM])
    listed = hub.api("GET", "/api/v1/boards").json["items"]
    assert [(b["id"], b["name"], b["configured"]) for b in listed] == [(4216, "AURORA board", True), (77, None, False)]
    # A later page without the board (Jira refused it this time) keeps the configuration held; a board
    # no project names is kept, and not listed.
    load(hub, [], boards=[{**KANBAN}, {"id": "999", "name": "Someone else's", "columns": []}])
    listed = hub.api("GET", "/api/v1/boards").json["items"]
    assert [(b["id"], b["name"], b["configured"]) for b in listed] == [(4216, "AURORA board", True),
                                                                       (77, "Ops flow", True)]
    assert hub.api("GET", "/api/v1/boards/999").status_code == 404


def test_a_configured_board_has_jiras_columns_with_their_statuses_named(boards_hub):
    hub = boards_hub
    load(hub, [], boards=[{**SCRUM, "columns": [*SCRUM["columns"], {"name": "Unknown", "statuses": ["12345"]}]}])
    got = board(hub, 4216)
    assert (got["id"], got["name"], got["type"], got["project"], got["configured"]) == (
        4216, "AURORA board", "scrum", "AWPCA", True)
    assert got["columns"] == [
        {"name": "To Do", "statuses": [{"id": "1", "name": "Open", "category_key": "new"},
                                       {"id": "4", "name": "Reopened", "category_key": "new"}]},
        {"name": "Doing", "statuses": [{"id": "3", "name": "In Progress", "category_key": "indeterminate"}]},
        {"name": "Done", "statuses": [{"id": "6", "name": "Done", "category_key": "done"}]},
        {"name": "Unknown", "statuses": [{"id": "12345", "name": None, "category_key": None}]}]


def test_an_unconfigured_board_has_three_columns_of_the_statuses_by_category(boards_hub):
    hub = boards_hub
    load(hub, [issue("OPS-1", "OPS", status="Review")])
    got = board(hub, 77)
    assert got["configured"] is False and got["name"] is None
    assert [(c["name"], [s["name"] for s in c["statuses"]]) for c in got["columns"]] == [
        ("To Do", ["Open", "Reopened"]), ("In Progress", ["In Progress", "Review"]), ("Done", ["Done"])]
    assert [(card["key"], card["column"]) for card in got["issues"]] == [("OPS-1", 1)]


def test_a_scrum_boards_cards_are_its_active_sprints_issues_by_rank(boards_hub):
    hub = boards_hub
    issues = [
        issue("AURORA-1", status="In Progress", assignee="ivanov", sprints=[CLOSED, ACTIVE], custom_fields={
            **_rank("0|i0000b:"), **_flagged()}, transitions=TRANSITIONS),
        issue("AURORA-2", status="Done", sprints=[ACTIVE], custom_fields=_rank("0|i0000a:")),
        issue("AURORA-3", status="Review", sprints=[ACTIVE]),  # on no column; no rank: after the ranked
        issue("AURORA-10", sprints=[ACTIVE]),
        issue("AURORA-4", sprints=[CLOSED]),  # an earlier sprint only
        issue("AURORA-5"),  # in no sprint
    ]
    load(hub, issues, neighbours=[issue("OTHER-1", "elsewhere", sprints=[ACTIVE])], boards=[SCRUM],
         users=[{"name": "ivanov", "key": "JIRAUSER1", "display_name": "Иван Иванов"}])
    got = board(hub, 4216)
    assert got["sprint"] == {"id": 21, "name": "AURORA Sprint 14", "state": "active",
                             "start_date": "2026-11-02T09:00:00.000+03:00",
                             "end_date": "2026-11-16T09:00:00.000+03:00", "goal": "Cards"}
    # A neighbour in the sprint is on the board, as Jira's board shows every issue of its sprint.
    assert [card["key"] for card in got["issues"]] == ["AURORA-2", "AURORA-1", "AURORA-3", "AURORA-10", "OTHER-1"]
    assert got["total"] == 5
    first = next(card for card in got["issues"] if card["key"] == "AURORA-1")
    assert first == {"key": "AURORA-1", "summary": "Work on AURORA-1", "issue_type": "Story", "priority": "Major",
                     "status": "In Progress", "assignee": "ivanov", "flagged": True, "column": 1,
                     "transitions": TRANSITIONS, "rank": "0|i0000b:"}
    assert {card["key"]: (card["column"], card["flagged"], card["transitions"]) for card in got["issues"]}[
        "AURORA-3"] == (None, False, None)
    assert got["people"] == {"ivanov": "Иван Иванов"}


def test_an_issue_jira_no_longer_returns_leaves_the_board(boards_hub):
    hub = boards_hub
    load(hub, [issue("AURORA-1", sprints=[ACTIVE]), issue("AURORA-2", sprints=[ACTIVE])])
    assert [card["key"] for card in board(hub, 4216)["issues"]] == ["AURORA-1", "AURORA-2"]
    load(hub, [issue("AURORA-1", sprints=[ACTIVE])])
    # The full run did not load AURORA-2: the hub asks the agent to check it, and Jira has it no more.
    [check] = claim(hub, version=19, types=["check_issues"])
    assert check["params"]["keys"] == ["AURORA-2"]
    resp = report(hub, check["id"], "done", {"result": {"checked": 1, "missing": ["AURORA-2"]}})
    assert resp.status_code == 200, resp.json
    assert [card["key"] for card in board(hub, 4216)["issues"]] == ["AURORA-1"]


def test_a_sprint_that_names_no_board_of_the_projects_is_found_by_the_projects_issues(boards_hub):
    hub = boards_hub
    elsewhere = {**ACTIVE, "id": 30, "name": "Sprint on another board", "board_id": 3}
    load(hub, [issue("AURORA-1", sprints=[elsewhere]), issue("OPS-1", "OPS", sprints=[{**elsewhere, "id": 31}])])
    got = board(hub, 4216)
    assert got["sprint"]["id"] == 30
    assert [card["key"] for card in got["issues"]] == ["AURORA-1"]


def test_a_scrum_board_without_an_active_sprint_has_no_cards(boards_hub):
    hub = boards_hub
    load(hub, [issue("AURORA-1", sprints=[CLOSED])], boards=[SCRUM])
    got = board(hub, 4216)
    assert got["sprint"] is None and got["issues"] == [] and got["total"] == 0


def test_a_kanban_boards_cards_are_its_projects_issues_on_its_columns(boards_hub):
    hub = boards_hub
    load(hub, [
        issue("OPS-1", "OPS", status="Open"),
        issue("OPS-2", "OPS", status="Review", assignee="petrov"),
        issue("OPS-3", "OPS", status="Done", updated=_jira_time(3)),  # done lately: shown
        issue("OPS-4", "OPS", status="Done", updated=_jira_time(30)),  # done long ago: not
        issue("OPS-5", "OPS", status="Reopened"),  # on no column of this board
        issue("AURORA-1", status="Open"),  # another project's
    ], neighbours=[issue("OPS-9", "OPS", status="Open")], boards=[KANBAN])
    got = board(hub, 77)
    assert got["sprint"] is None
    assert [(card["key"], card["column"]) for card in got["issues"]] == [("OPS-1", 0), ("OPS-2", 1), ("OPS-3", 2)]
    assert got["total"] == 3
    assert got["people"] == {}  # petrov is no user the mirror knows


def test_a_board_lists_at_most_500_cards_and_counts_them_all(boards_hub):
    hub = boards_hub
    load(hub, [issue(f"OPS-{n}", "OPS") for n in range(1, 503)], boards=[KANBAN])
    got = board(hub, 77)
    assert got["total"] == 502 and len(got["issues"]) == 500
    assert got["issues"][0]["key"] == "OPS-1" and got["issues"][-1]["key"] == "OPS-500"


def test_a_board_no_project_names_is_404(boards_hub):
    assert boards_hub.api("GET", "/api/v1/boards/1").status_code == 404
    assert boards_hub.api("GET", "/api/v1/boards/x").status_code == 404


def test_boards_are_for_interfaces(boards_hub):
    assert boards_hub.api("GET", "/api/v1/boards", role=None).status_code == 401
    assert boards_hub.api("GET", "/api/v1/boards/4216", role="agent").status_code == 403
