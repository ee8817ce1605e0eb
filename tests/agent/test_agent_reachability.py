"""The reference agent tells the hub whether Jira answers (protocol v18): its heartbeat carries the
outcome of its last call to Jira, which the operations page shows beside the agent."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path
from types import SimpleNamespace

import pytest

from tests.support import call, prepared_hub, quick_runner, start, stop, wait_for_line, wait_until

# The hub's client is this module's subject, not the hub's engine: one engine will do (docs/architecture.md, Tests).
pytestmark = pytest.mark.backends("sqlite")

ROOT = Path(__file__).resolve().parents[2]
# The fake Jira in a process of its own, so that stopping it is Jira going down as a network sees
# it: its port refuses, and the connections the agent keeps alive are closed, not left hanging.
FAKE_JIRA = ("from demo.fakejira import FakeJira; import sys, time\n"
             "jira = FakeJira().start(); jira.add_issue('AURORA-12', labels=['AWPCA'])\n"
             "print(jira.url, flush=True); sys.stdin.read()")


@pytest.fixture
def world(tmp_path, database_url):
    data_dir = tmp_path / "data"
    agent_token, interface = prepared_hub(data_dir, database_url)
    hub = start("serve", data_dir=data_dir, database_url=database_url)
    fake = subprocess.Popen([sys.executable, "-c", FAKE_JIRA], cwd=ROOT, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    try:
        jira = SimpleNamespace(url=fake.stdout.readline().strip(), token="pat-123", process=fake)
        url = wait_for_line(hub, r"serving on (http://\S+)").group(1)
        yield url, agent_token, interface, jira
    finally:
        fake.kill()
        fake.wait()
        assert stop(hub) == 0


def reported(url: str, interface: str, agent_id: str) -> dict | None:
    [agent] = [a for a in call(url, interface, "/api/v1/agents")["items"] if a["agent_id"] == agent_id]
    return agent["jira"]


def test_the_agent_reports_jira_unreachable_once_it_goes_down_and_its_command_fails(world):
    url, agent_token, interface, jira = world
    runner = quick_runner(url, agent_token, jira, "agent-reach", claim_wait=1)
    # Its start asked Jira, which answered.
    first = reported(url, interface, "agent-reach")
    assert first["reachable"] is True and first["error"] is None and first["since"] is None
    runner.heartbeat_every = 0.2
    loop = threading.Thread(target=runner.run, daemon=True)
    loop.start()
    try:
        jira.process.kill()
        jira.process.wait()
        command = call(url, interface, "/api/v1/commands", {"type": "refresh"})

        jira_said = wait_until(lambda: (lambda seen: seen if seen and not seen["reachable"] else None)(
            reported(url, interface, "agent-reach")), message="Jira reported unreachable")
        assert "Connect" in jira_said["error"] or "Protocol" in jira_said["error"], jira_said
        assert jira_said["since"] is not None and jira_said["since"] <= jira_said["checked_at"]
        failed = wait_until(lambda: (lambda c: c if c["status"] == "failed" else None)(
            call(url, interface, f"/api/v1/commands/{command['id']}")), message="the refresh failed")
        assert failed["error"]
    finally:
        runner.stop()
        loop.join(timeout=30)
    assert not loop.is_alive()


def test_an_idle_agent_asks_jira_now_and_then_and_reports_it_unreachable(world):
    url, agent_token, interface, jira = world
    runner = quick_runner(url, agent_token, jira, "agent-idle", claim_wait=1)
    runner.heartbeat_every, runner.probe_every = 0.2, 0.5
    loop = threading.Thread(target=runner.run, daemon=True)
    loop.start()
    try:
        # No command: only the agent's own asking can tell that Jira went away.
        jira.process.kill()
        jira.process.wait()
        said = wait_until(lambda: (lambda seen: seen if seen and not seen["reachable"] else None)(
            reported(url, interface, "agent-idle")), message="Jira reported unreachable by an idle agent")
        assert "Connect" in said["error"], said
        [agent] = [a for a in call(url, interface, "/api/v1/agents")["items"] if a["agent_id"] == "agent-idle"]
        assert agent["online"] and agent["holds"] == []
    finally:
        runner.stop()
        loop.join(timeout=30)
    assert not loop.is_alive()


def test_the_agent_reports_nothing_of_jira_before_its_first_call(world):
    url, agent_token, _interface, jira = world
    runner = quick_runner(url, agent_token, jira, "agent-fresh")
    assert runner.jira.reachability() is not None  # start() called /myself
    from agent.jira_client import JiraClient

    assert JiraClient(jira.url, token=jira.token).reachability() is None


def test_jira_gone_down_is_told_at_once_not_at_the_next_periodic_heartbeat(world):
    url, agent_token, interface, jira = world
    runner = quick_runner(url, agent_token, jira, "agent-told", claim_wait=1)
    runner.heartbeat_every = runner.probe_every = 3600  # neither a periodic heartbeat nor a probe in the test
    loop = threading.Thread(target=runner.run, daemon=True)
    loop.start()
    try:
        jira.process.kill()
        jira.process.wait()
        call(url, interface, "/api/v1/commands", {"type": "refresh"})  # the agent meets Jira gone
        said = wait_until(lambda: (lambda seen: seen if seen and not seen["reachable"] else None)(
            reported(url, interface, "agent-told")), message="Jira reported unreachable at once")
        assert "Connect" in said["error"], said
    finally:
        runner.stop()
        loop.join(timeout=30)
    assert not loop.is_alive()
