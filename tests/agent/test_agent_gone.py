"""Gone issues end to end: the agent's runner in this process, a real hub (``hub serve``, whose worker
enqueues the checks after a full run) and the fake Jira over loopback HTTP."""

from __future__ import annotations

import threading

import pytest

from demo.fakejira import FakeJira
from tests.support import call, next_second, prepared_hub, quick_runner, start, stop, wait_for_line, wait_until

pytestmark = pytest.mark.backends("sqlite", "postgresql")

REASON = "not found in Jira — deleted, or no longer visible to the agent's user"


@pytest.fixture
def world(tmp_path, database_url):
    """A hub, a fake Jira of AURORA-1..6 in the base JQL, and a runner running its loop."""
    data_dir = tmp_path / "data"
    agent_token, interface = prepared_hub(data_dir, database_url)
    hub = start("serve", data_dir=data_dir, database_url=database_url)
    jira = FakeJira(max_results=4, embedded=1).start()
    for n in range(1, 7):
        jira.add_issue(f"AURORA-{n}", labels=["AWPCA"])
    runner = thread = None
    try:
        url = wait_for_line(hub, r"serving on (http://\S+)").group(1)
        runner = quick_runner(url, agent_token, jira, "agent-checks", claim_wait=1)
        thread = threading.Thread(target=runner.run, name="agent-loop", daemon=True)
        thread.start()
        yield url, interface, jira
    finally:
        if runner is not None:
            runner.stop()
        if thread is not None:
            thread.join(timeout=30)
        jira.stop()
        assert stop(hub) == 0


def full_refresh(url: str, interface: str) -> dict:
    """A full refresh through the interface API, waited on until the agent has done it."""
    command = call(url, interface, "/api/v1/commands", {"type": "refresh"})
    return wait_until(lambda: (c := call(url, interface, f"/api/v1/commands/{command['id']}"))["status"]
                      in ("done", "failed") and c, timeout=60, message="the full refresh")


def checks_done(url: str, interface: str, count: int = 1) -> list[dict]:
    """The check_issues commands, once ``count`` of them are finished (the worker enqueues them
    after the run, the agent claims and runs them)."""

    def finished():
        items = call(url, interface, "/api/v1/commands?type=check_issues")["items"]
        done = [c for c in items if c["status"] in ("done", "failed")]
        return len(done) >= count and sorted(done, key=lambda c: c["id"])

    return wait_until(finished, timeout=60, message="the checks after the full run")


def issue(url: str, interface: str, key: str) -> dict:
    return call(url, interface, f"/api/v1/issues/{key}")


def listed(url: str, interface: str, query: str = "") -> list[str]:
    return sorted(i["key"] for i in call(url, interface, f"/api/v1/issues?limit=100{query}")["items"])


def two_full_runs_around(url: str, interface: str, change) -> list[dict]:
    """A full run, ``change`` in Jira, another full run; the checks that follow it, done."""
    assert full_refresh(url, interface)["status"] == "done"
    change()
    next_second()  # the second run starts after every fetch of the first (the hub keeps whole seconds)
    assert full_refresh(url, interface)["status"] == "done"
    return checks_done(url, interface)


def test_an_issue_deleted_in_jira_is_gone_after_the_next_full_run_and_one_out_of_scope_a_neighbour(world):
    url, interface, jira = world

    def change():
        jira.delete("AURORA-3")
        jira.issues["AURORA-5"]["fields"]["labels"] = []  # still in Jira, out of the base JQL

    [check] = two_full_runs_around(url, interface, change)
    assert check["status"] == "done", check
    assert check["params"]["keys"] == ["AURORA-3", "AURORA-5"]
    assert check["result"] == {"checked": 2, "missing": ["AURORA-3"]}
    gone = issue(url, interface, "AURORA-3")
    assert gone["gone"] is True and gone["gone_reason"] == REASON and gone["gone_at"]
    out_of_scope = issue(url, interface, "AURORA-5")
    assert out_of_scope["gone"] is False and out_of_scope["neighbor"] is True
    assert listed(url, interface) == ["AURORA-1", "AURORA-2", "AURORA-4", "AURORA-5", "AURORA-6"]
    assert listed(url, interface, "&gone=true") == ["AURORA-3"]
    assert call(url, interface, "/api/v1/overview")["gone_issues"] == 1
    # The check asked Jira once for both keys, without validating them.
    searches = [body for method, path, body in jira.requests if path == "/rest/api/2/search"
                and body["jql"].startswith("key in (\"AURORA-3\"")]
    assert [(s["jql"], s.get("validateQuery")) for s in searches] == [('key in ("AURORA-3", "AURORA-5")', False)]


def test_a_gone_issue_jira_returns_again_comes_back(world):
    url, interface, jira = world
    kept = jira.issues["AURORA-3"]
    two_full_runs_around(url, interface, lambda: jira.delete("AURORA-3"))
    assert issue(url, interface, "AURORA-3")["gone"] is True
    jira.issues["AURORA-3"] = kept  # restored (say, made visible to the agent's user again)
    next_second()
    assert full_refresh(url, interface)["status"] == "done"
    back = issue(url, interface, "AURORA-3")
    assert back["gone"] is False and back["gone_at"] is None and back["gone_reason"] is None
    assert "AURORA-3" in listed(url, interface)


def test_a_jira_that_refuses_unknown_keys_anyway_is_asked_one_key_at_a_time(world):
    url, interface, jira = world
    jira.ignores_validate_query = True

    def change():
        jira.delete("AURORA-3")
        jira.issues["AURORA-5"]["fields"]["labels"] = []

    [check] = two_full_runs_around(url, interface, change)
    assert check["status"] == "done", check
    assert check["result"] == {"checked": 2, "missing": ["AURORA-3"]}
    assert issue(url, interface, "AURORA-3")["gone"] is True
    assert issue(url, interface, "AURORA-5")["gone"] is False
    one_by_one = [body["jql"] for method, path, body in jira.requests
                  if path == "/rest/api/2/search" and body["jql"].startswith("key = ")]
    assert one_by_one == ['key = "AURORA-3"', 'key = "AURORA-5"']


def test_an_issue_moved_out_of_the_scope_is_found_under_its_new_key_and_not_gone(world):
    url, interface, jira = world
    moved_id = jira.issues["AURORA-4"]["id"]
    [check] = two_full_runs_around(url, interface, lambda: jira.move("AURORA-4", "OPS-7"))
    assert check["status"] == "done", check
    assert check["params"]["keys"] == ["AURORA-4"]
    # Jira answered the old key with the issue under its new one: the old key is not there as such.
    assert check["result"] == {"checked": 1, "missing": ["AURORA-4"]}
    moved = issue(url, interface, "OPS-7")
    assert moved["id"] == moved_id and moved["gone"] is False and moved["neighbor"] is True
    assert call(url, interface, "/api/v1/overview")["gone_issues"] == 0
    assert listed(url, interface, "&gone=true") == []
