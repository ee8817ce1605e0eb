"""The agent's registry of command kinds (agent/handlers/): a handler for every kind the hub's protocol
names, each in the module of its kind, and a command of a kind the agent has no handler for failed
alone while the loop goes on (the runner in this process, a real hub and the fake Jira)."""

from __future__ import annotations

import threading

import pytest

from agent import handlers
from demo.fakejira import FakeJira
from tests.support import call, prepared_hub, quick_runner, start, stop, wait_for_line, wait_until


def test_every_kind_the_hubs_protocol_names_has_a_handler(hub):
    # The kinds a claim may name, as the hub's published description of the protocol lists them.
    claim = hub.client.simulate_get("/openapi.json").json["paths"]["/agent/v1/claim"]["post"]
    named = claim["requestBody"]["content"]["application/json"]["schema"]["properties"]["types"]["items"]["enum"]
    assert named and [kind for kind in named if handlers.lookup(kind) is None] == []
    assert set(named) <= set(handlers.kinds())


def test_each_kinds_handler_is_the_module_named_after_it():
    for kind, handler in handlers.HANDLERS.items():
        assert handler.__module__ == f"agent.handlers.{kind}"


def test_a_kind_without_a_handler_is_refused_with_the_kind_named():
    assert handlers.lookup("transition_issue") is None
    assert handlers.not_run("transition_issue") == "this agent does not run 'transition_issue' commands"


@pytest.fixture
def world(tmp_path, database_url):
    """A hub, a fake Jira of AURORA-1 with one attachment, and a runner running its loop."""
    data_dir = tmp_path / "data"
    agent_token, interface = prepared_hub(data_dir, database_url)
    hub = start("serve", data_dir=data_dir, database_url=database_url)
    jira = FakeJira().start()
    jira.add_issue("AURORA-1", labels=["AWPCA"])
    jira.add_attachment("AURORA-1", "301", "a.pdf", b"%PDF a")
    runner = thread = None
    try:
        url = wait_for_line(hub, r"serving on (http://\S+)").group(1)
        runner = quick_runner(url, agent_token, jira, "agent-kinds", claim_wait=1)
        thread = threading.Thread(target=runner.run, name="agent-loop", daemon=True)
        thread.start()
        yield url, interface
    finally:
        if runner is not None:
            runner.stop()
        if thread is not None:
            thread.join(timeout=30)
        jira.stop()
        assert stop(hub) == 0


def ended(url: str, interface: str, command_id: int) -> dict:
    """The command once it is done or failed."""
    return wait_until(lambda: (c := call(url, interface, f"/api/v1/commands/{command_id}"))["status"]
                      in ("done", "failed") and c, timeout=60, message=f"command {command_id} to end")


def test_a_command_of_a_kind_without_a_handler_fails_alone_and_the_loop_goes_on(world, monkeypatch):
    url, interface = world
    # A refresh lists the attachment, so that the hub takes a fetch of it.
    first = call(url, interface, "/api/v1/commands", {"type": "refresh"})
    assert ended(url, interface, first["id"])["status"] == "done"
    monkeypatch.delitem(handlers.HANDLERS, "fetch_attachment")  # an agent that does not run fetches

    fetch = call(url, interface, "/api/v1/attachments/301/fetch", {})["command_id"]
    refresh = call(url, interface, "/api/v1/commands", {"type": "refresh"})["id"]

    failed = ended(url, interface, fetch)
    assert failed["status"] == "failed"
    assert failed["error"] == "this agent does not run 'fetch_attachment' commands"
    assert ended(url, interface, refresh)["status"] == "done"
