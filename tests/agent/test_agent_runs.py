"""The agent's runner in this process against a real hub and the fake Jira: repeated, incremental,
cancelled and rate-limited refreshes, and commands the hub takes back."""

from __future__ import annotations

import dataclasses
import threading

import pytest

from agent import handlers
from agent.handlers.refresh import handle as run_refresh
from agent.hub_client import Command
from agent.runner import Runner
from demo.fakejira import FakeJira
from tests.support import call, prepared_hub, quick_runner, start, stop, wait_for_line, wait_until

pytestmark = pytest.mark.backends("sqlite", "postgresql")

LATER = "2026-11-20T10:30:00.000+0300"


@pytest.fixture
def world(tmp_path, database_url):
    data_dir = tmp_path / "data"
    agent_token, interface = prepared_hub(data_dir, database_url)
    hub = start("serve", data_dir=data_dir, database_url=database_url)
    jira = FakeJira(max_results=3, embedded=1).start()
    for n in range(1, 8):
        jira.add_issue(f"AURORA-{n}", labels=["AWPCA"])
    jira.add_comment("AURORA-1", "101", "first")
    jira.add_comment("AURORA-1", "102", "second")
    jira.add_attachment("AURORA-2", "301", "a.pdf", b"%PDF a")
    jira.add_attachment("AURORA-2", "302", "b.pdf", b"%PDF b")
    try:
        url = wait_for_line(hub, r"serving on (http://\S+)").group(1)
        runner = quick_runner(url, agent_token, jira, "agent-in-process")
        yield url, interface, jira, runner
    finally:
        jira.stop()
        assert stop(hub) == 0


def claimed(runner: Runner, url: str, interface: str, **params) -> Command:
    """Enqueue a refresh through the interface API and claim it as the runner's agent."""
    call(url, interface, "/api/v1/commands", {"type": "refresh"})
    [command] = runner.hub.claim(limit=1, wait=0).commands
    command.params.update(params)
    return command


def mirror(url: str, interface: str, path: str) -> dict:
    return call(url, interface, path)


def test_edits_in_jira_show_after_the_next_refresh(world):
    url, interface, jira, runner = world
    run_refresh(runner, claimed(runner, url, interface))
    assert [c["id"] for c in mirror(url, interface, "/api/v1/issues/AURORA-1/comments")["items"]] == ["101", "102"]

    jira.issues["AURORA-1"]["fields"]["comment"]["comments"].pop(0)
    jira.add_comment("AURORA-1", "103", "third")
    jira.issues["AURORA-2"]["fields"]["attachment"].pop()
    jira.issues["AURORA-3"]["fields"]["status"] = {"name": "Done"}
    run_refresh(runner, claimed(runner, url, interface))

    assert [c["id"] for c in mirror(url, interface, "/api/v1/issues/AURORA-1/comments")["items"]] == ["102", "103"]
    listed = mirror(url, interface, "/api/v1/issues/AURORA-2/attachments")["items"]
    assert [a["attachment_id"] for a in listed] == ["301"]
    assert mirror(url, interface, "/api/v1/issues/AURORA-3")["status"] == "Done"


def test_an_incremental_refresh_asks_only_for_what_changed(world):
    url, interface, jira, runner = world
    run_refresh(runner, claimed(runner, url, interface))
    jira.issues["AURORA-5"]["fields"].update(summary="Changed", updated=LATER)
    jira.requests.clear()
    # 07:30 UTC is 10:30 in Moscow, the Jira user's zone: AURORA-5 qualifies, the rest (October) not.
    command = claimed(runner, url, interface, updated_since="2026-11-20T07:30:40+00:00")
    run_refresh(runner, command)
    [search] = [body for _, path, body in jira.requests if path == "/rest/api/2/search"]
    assert 'updated >= "2026/11/20 10:30"' in search["jql"]
    assert mirror(url, interface, "/api/v1/issues/AURORA-5")["summary"] == "Changed"
    done = mirror(url, interface, f"/api/v1/commands/{command.id}")
    assert done["status"] == "done" and done["result"]["total"] == 1


def test_a_cancel_seen_in_a_heartbeat_stops_the_refresh_between_pages(world):
    url, interface, _jira, runner = world
    command = claimed(runner, url, interface)
    pages = []
    send_state = runner.hub.state

    def state_then_cancel(cmd, issues, neighbors, catalogues=None, **more):
        answer = send_state(cmd, issues, neighbors, catalogues, **more)
        pages.append([i["key"] for i in issues])
        if len(pages) == 1:
            call(url, interface, f"/api/v1/commands/{cmd.id}/cancel", {})
            runner._beat("working", None)  # the heartbeat lists the cancelled command
        return answer

    runner.hub.state = state_then_cancel
    slots = threading.Semaphore(0)
    runner._execute(command, slots)
    assert pages == [["AURORA-1", "AURORA-2", "AURORA-3"]]  # of 3 pages, only the first
    assert mirror(url, interface, f"/api/v1/commands/{command.id}")["status"] == "cancelled"


def test_a_409_drops_the_command_without_reporting_it_failed(world):
    url, interface, _jira, runner = world
    command = claimed(runner, url, interface)
    call(url, interface, f"/api/v1/commands/{command.id}/cancel", {})
    reported = []
    runner.hub.failed = lambda cmd, error: reported.append(error)
    runner._execute(command, threading.Semaphore(0))  # the first state page answers 409
    assert reported == []
    assert mirror(url, interface, f"/api/v1/commands/{command.id}")["status"] == "cancelled"


def test_a_rate_limited_jira_is_waited_out(world):
    url, interface, jira, runner = world
    jira.throttle = 3
    command = claimed(runner, url, interface)
    run_refresh(runner, command)
    assert mirror(url, interface, f"/api/v1/commands/{command.id}")["status"] == "done"
    assert len(mirror(url, interface, "/api/v1/issues?limit=100")["items"]) == 7


def test_a_jira_that_refuses_the_credentials_fails_the_command_with_a_clear_error(world):
    url, interface, jira, runner = world
    command = claimed(runner, url, interface)
    jira.token = "rotated"
    runner._execute(command, threading.Semaphore(0))
    failed = mirror(url, interface, f"/api/v1/commands/{command.id}")
    assert failed["status"] == "failed" and "Jira answered 401" in failed["error"]
    assert "Jira answered 401" in runner.status.problem  # shown in the heartbeat detail


def test_with_concurrency_2_a_refresh_and_a_fetch_run_at_once_each_reported_as_its_own(world, monkeypatch):
    url, interface, _jira, runner = world
    run_refresh(runner, claimed(runner, url, interface))  # the hub lists the attachment before it can be fetched
    runner.config = dataclasses.replace(runner.config, concurrency=2)
    refresh = call(url, interface, "/api/v1/commands", {"type": "refresh"})
    fetch = call(url, interface, "/api/v1/attachments/301/fetch", {})

    # Each command waits for the other before it starts: with one slot the barrier would break.
    both = threading.Barrier(2, timeout=30)
    def waiting_for_both(run):
        def waiting(context, command):
            both.wait()
            return run(context, command)
        return waiting

    for name in ("refresh", "fetch_attachment"):
        monkeypatch.setitem(handlers.HANDLERS, name, waiting_for_both(handlers.HANDLERS[name]))
    claimed_as, reports = {}, []
    send_claim, send_post = runner.hub.claim, runner.hub._post

    def claim(**kwargs):
        answer = send_claim(**kwargs)
        claimed_as.update((c.id, c.delivery) for c in answer.commands)
        return answer

    def post(path, body, what):
        if path.startswith("/agent/v1/commands/"):
            reports.append((int(path.split("/")[4]), path.split("/")[5], body["agent_id"], body["delivery"]))
        return send_post(path, body, what)

    runner.hub.claim, runner.hub._post = claim, post
    loop = threading.Thread(target=runner.run)
    loop.start()
    try:
        ids = (refresh["id"], fetch["command_id"])
        wait_until(lambda: all(mirror(url, interface, f"/api/v1/commands/{i}")["status"] == "done" for i in ids),
                   timeout=60, message="both commands done")
    finally:
        runner.stop()
        loop.join(timeout=60)
    assert not loop.is_alive() and not both.broken
    assert sorted(claimed_as) == sorted(ids)
    for command_id in ids:
        mine = [r for r in reports if r[0] == command_id]
        assert mine and mine[-1][1] == "done"
        assert {(agent, delivery) for _, _, agent, delivery in mine} == {("agent-in-process", claimed_as[command_id])}
    assert mirror(url, interface, "/api/v1/attachments/301")["state"] == "ready"
