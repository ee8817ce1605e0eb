"""A move in Jira, end to end: the agent's runner in this process between the fake Jira and a
real hub on loopback. Jira moves AURORA-1 to OPS-7 (the same id, a changelog ``Key`` item, the
old key still found); a refresh of the old key brings the issue back under its new key, and the
mirror holds one issue with everything it had."""

from __future__ import annotations

import pytest

from agent.handlers.refresh import handle as run_refresh
from agent.hub_client import Command
from agent.runner import Runner
from demo.fakejira import FakeJira
from tests.support import call, prepared_hub, quick_runner, start, stop, wait_for_line

pytestmark = pytest.mark.backends("sqlite", "postgresql")


@pytest.fixture
def world(tmp_path, database_url):
    data_dir = tmp_path / "data"
    agent_token, interface = prepared_hub(data_dir, database_url)
    hub = start("serve", data_dir=data_dir, database_url=database_url)
    jira = FakeJira(max_results=3, embedded=1).start()
    for n in range(1, 5):
        jira.add_issue(f"AURORA-{n}", labels=["AWPCA"])
    jira.add_comment("AURORA-1", "101", "first")
    jira.add_comment("AURORA-1", "102", "second")
    jira.add_attachment("AURORA-1", "301", "a.pdf", b"%PDF a")
    jira.link("AURORA-2", "AURORA-1", "Blocks")
    try:
        url = wait_for_line(hub, r"serving on (http://\S+)").group(1)
        runner = quick_runner(url, agent_token, jira, "agent-in-process")
        yield url, interface, jira, runner
    finally:
        jira.stop()
        assert stop(hub) == 0


def claimed(runner: Runner, url: str, interface: str, jql: str | None = None) -> Command:
    """Enqueue a refresh (of ``jql``, or a full one) through the interface API and claim it."""
    call(url, interface, "/api/v1/commands", {"type": "refresh", **({"params": {"jql": jql}} if jql else {})})
    [command] = runner.hub.claim(limit=1, wait=0).commands
    return command


def test_an_issue_jira_moved_is_one_issue_under_its_new_key_after_a_refresh_of_its_old_key(world):
    url, interface, jira, runner = world
    run_refresh(runner, claimed(runner, url, interface))
    call(url, interface, "/api/v1/issues/AURORA-1/notes", {"body": "the hub's own"})

    jira.move("AURORA-1", "OPS-7")
    run_refresh(runner, claimed(runner, url, interface, "key = AURORA-1"))

    issue = call(url, interface, "/api/v1/issues/AURORA-1")
    assert (issue["key"], issue["id"], issue["moved_from"]) == ("OPS-7", jira.issues["OPS-7"]["id"], ["AURORA-1"])
    keys = [item["key"] for item in call(url, interface, "/api/v1/issues?limit=100")["items"]]
    assert sorted(keys) == ["AURORA-2", "AURORA-3", "AURORA-4", "OPS-7"]
    assert [c["id"] for c in call(url, interface, "/api/v1/issues/OPS-7/comments")["items"]] == ["101", "102"]
    assert [n["body"] for n in call(url, interface, "/api/v1/issues/OPS-7/notes")["items"]] == ["the hub's own"]
    assert [a["attachment_id"] for a in call(url, interface, "/api/v1/issues/OPS-7/attachments")["items"]] == ["301"]
    changes = call(url, interface, "/api/v1/issues/OPS-7/changes")["items"]
    assert [(c["from_string"], c["to_string"]) for c in changes if c["field"] == "Key"] == [("AURORA-1", "OPS-7")]
    # AURORA-2 was not loaded again: its link follows the move all the same.
    assert [link["key"] for link in call(url, interface, "/api/v1/issues/AURORA-2")["links"]["outward"]] == ["OPS-7"]
    assert [i["key"] for i in call(url, interface, "/api/v1/issues?q=AURORA-1")["items"]] == ["OPS-7"]
