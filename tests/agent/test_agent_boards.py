"""Agile boards through the reference agent, the fake Jira and a real hub: a refresh of the base JQL
names the projects' boards, the agent reads each one's configuration from Jira's agile API and sends it
with the run's first page; a board Jira refuses is left out, and the run goes on."""

from __future__ import annotations

import logging

import pytest

from agent.handlers.refresh import handle as run_refresh
from agent.hub_client import Command
from agent.runner import Runner
from demo.fakejira import SPRINT_FIELD, FakeJira, object_sprint
from tests.support import call, engine_rows, hub_config, prepared_hub, quick_runner, start, stop, wait_for_line

pytestmark = pytest.mark.backends("sqlite", "postgresql")

COLUMNS = [("To Do", ["Open", "Reopened"]), ("In Progress", ["In Progress", "Review"]),
           ("Done", ["Done", "Resolved", "Closed"])]


@pytest.fixture
def world(tmp_path, database_url):
    """A hub whose projects name three boards: AWPCA's scrum board 4216, which Jira has; OPS's kanban
    board 78, which Jira refuses the agent's user (403); DOCS's board 79, which Jira has not (404)."""
    data_dir = tmp_path / "data"
    agent_token, interface = prepared_hub(data_dir, database_url)
    config = hub_config(data_dir, database_url)
    engine_rows.execute(config, "UPDATE project SET board_id = 4216, board_type = 'scrum' WHERE label = 'AWPCA'")
    for label, board_id, board_type in (("OPS", 78, "kanban"), ("DOCS", 79, "kanban")):
        engine_rows.execute(config, "INSERT INTO project (label, name, board_id, board_type, created_at) "
                                    "VALUES (?, ?, ?, ?, '2026-11-01T00:00:00+00:00')",
                            label, f"{label} team", board_id, board_type)
    hub = start("serve", data_dir=data_dir, database_url=database_url)
    jira = FakeJira().start()
    jira.add_board(4216, "AURORA board", "scrum", COLUMNS)
    jira.add_board(78, "Ops flow", "kanban", [("Doing", ["In Progress"])])
    jira.agile.refused[78] = 403
    sprint = object_sprint(21, "AURORA Sprint 14", "active", board=4216)
    jira.add_issue("AURORA-1", labels=["AWPCA"], status="In Progress", **{SPRINT_FIELD: [sprint]})
    jira.add_issue("AURORA-2", labels=["AWPCA"], **{SPRINT_FIELD: [sprint]})
    jira.add_issue("AURORA-3", labels=["AWPCA"])
    try:
        url = wait_for_line(hub, r"serving on (http://\S+)").group(1)
        runner = quick_runner(url, agent_token, jira, "agent-boards")
        yield url, interface, jira, runner
    finally:
        jira.stop()
        assert stop(hub) == 0


def refreshed(runner: Runner, url: str, interface: str, body: dict) -> Command:
    """One refresh, enqueued through the interface API and run by the agent to its done."""
    call(url, interface, "/api/v1/commands", body)
    [command] = runner.hub.claim(limit=1, wait=0).commands
    run_refresh(runner, command)
    assert call(url, interface, f"/api/v1/commands/{command.id}")["status"] == "done"
    return command


def agile_requests(jira: FakeJira) -> list[str]:
    return [path for method, path, _ in jira.requests if path.startswith("/rest/agile/")]


def test_a_refresh_of_the_base_jql_sends_the_configurations_of_the_boards_jira_lets_it_read(world, caplog):
    url, interface, jira, runner = world
    with caplog.at_level(logging.WARNING, logger="hub-agent"):
        command = refreshed(runner, url, interface, {"type": "refresh"})
    assert command.params["boards"] == [{"id": 78, "type": "kanban"}, {"id": 79, "type": "kanban"},
                                        {"id": 4216, "type": "scrum"}]
    # One request a board: the configuration names the board, and the hub's project its type.
    assert agile_requests(jira) == ["/rest/agile/1.0/board/78/configuration", "/rest/agile/1.0/board/79/configuration",
                                    "/rest/agile/1.0/board/4216/configuration"]
    left_out = [r.getMessage() for r in caplog.records if "left out" in r.getMessage()]
    assert [m.split(":")[0] for m in left_out] == ["board 78 left out", "board 79 left out"]
    assert "403" in left_out[0] and "404" in left_out[1]

    listed = call(url, interface, "/api/v1/boards")["items"]
    assert [(b["id"], b["project"], b["name"], b["configured"]) for b in listed] == [
        (4216, "AWPCA", "AURORA board", True), (79, "DOCS", None, False), (78, "OPS", None, False)]
    board = call(url, interface, "/api/v1/boards/4216")
    assert [(c["name"], [s["name"] for s in c["statuses"]]) for c in board["columns"]] == [
        (name, statuses) for name, statuses in COLUMNS]
    assert board["sprint"]["name"] == "AURORA Sprint 14"
    assert [(card["key"], card["column"]) for card in board["issues"]] == [("AURORA-1", 1), ("AURORA-2", 0)]
    # The transitions Jira offers came with the issues: a card can be moved by one.
    assert "In Progress" in {t["to"] for t in board["issues"][1]["transitions"]}


def test_a_refresh_of_another_query_reads_no_board(world):
    url, interface, jira, runner = world
    command = refreshed(runner, url, interface, {"type": "refresh", "params": {"jql": "key = AURORA-1"}})
    assert "boards" not in command.params
    assert agile_requests(jira) == []
    assert [b["configured"] for b in call(url, interface, "/api/v1/boards")["items"]] == [False, False, False]


def test_a_board_whose_configuration_names_none_is_read_for_its_name(world):
    url, interface, jira, runner = world
    jira.agile.boards[4216]["name"] = ""
    refreshed(runner, url, interface, {"type": "refresh"})
    # The board itself was asked (once), and named nothing either: the hub's name for it stands.
    assert agile_requests(jira).count("/rest/agile/1.0/board/4216") == 1
    names = {b["id"]: b["name"] for b in call(url, interface, "/api/v1/boards")["items"]}
    assert names == {4216: "Board 4216", 79: None, 78: None}
