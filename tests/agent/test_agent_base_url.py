"""The reference agent tells the hub where people reach Jira: Jira's own base URL (``baseUrl`` of
``/rest/api/2/serverInfo``) rides in its heartbeats (``jira.base_url``), from its first one on, and
the hub links each issue to its page in Jira."""

from __future__ import annotations

import threading
from types import SimpleNamespace

import pytest

from demo.fakejira import FakeJira
from tests.support import call, prepared_hub, quick_runner, start, stop, wait_for_line, wait_until

# The agent's heartbeat is this module's subject, not the hub's engine: one engine will do.
pytestmark = pytest.mark.backends("sqlite")


@pytest.fixture
def world(tmp_path, database_url):
    data_dir = tmp_path / "data"
    agent_token, interface = prepared_hub(data_dir, database_url)
    hub = start("serve", data_dir=data_dir, database_url=database_url)
    fake = FakeJira().start()
    try:
        url = wait_for_line(hub, r"serving on (http://\S+)").group(1)
        yield url, agent_token, interface, fake
    finally:
        fake.stop()
        assert stop(hub) == 0


def test_the_first_heartbeat_tells_the_hub_jiras_base_url(world):
    url, agent_token, interface, fake = world
    fake.base_url = "https://jira.example.com/"
    assert call(url, interface, "/api/v1/overview")["jira_base_url"] is None
    runner = quick_runner(url, agent_token, SimpleNamespace(url=fake.url, token=fake.token), "agent-base")
    try:
        assert runner.jira.base_url == "https://jira.example.com"
        assert call(url, interface, "/api/v1/overview")["jira_base_url"] == "https://jira.example.com"
    finally:
        runner.stop()


def test_an_issue_loaded_through_the_agent_links_to_its_page_in_jira(world):
    url, agent_token, interface, fake = world
    fake.add_issue("AURORA-12", labels=["AWPCA"])
    runner = quick_runner(url, agent_token, SimpleNamespace(url=fake.url, token=fake.token), "agent-link",
                          claim_wait=1)
    loop = threading.Thread(target=runner.run, daemon=True)
    loop.start()
    try:
        call(url, interface, "/api/v1/commands", {"type": "refresh", "params": {"jql": "key = AURORA-12"}})
        loaded = wait_until(lambda: next(iter(call(url, interface, "/api/v1/issues")["items"]), None),
                            message="AURORA-12 mirrored")
        assert loaded["key"] == "AURORA-12"
        # The fake's baseUrl is its own address, as a Jira reached directly says its own.
        assert call(url, interface, "/api/v1/issues/AURORA-12")["jira_url"] == f"{fake.url}/browse/AURORA-12"
    finally:
        runner.stop()
        loop.join(timeout=30)
    assert not loop.is_alive()


def test_a_base_url_the_hub_would_not_take_is_not_sent_and_the_agent_runs_on(world):
    url, agent_token, interface, fake = world
    fake.base_url = "jira.example.com"  # no scheme: no link a browser could follow
    runner = quick_runner(url, agent_token, SimpleNamespace(url=fake.url, token=fake.token), "agent-odd")
    try:
        assert runner.jira.base_url is None and "base_url" not in runner.jira.reachability()
        [agent] = [a for a in call(url, interface, "/api/v1/agents")["items"] if a["agent_id"] == "agent-odd"]
        assert agent["jira"]["reachable"] is True
        assert call(url, interface, "/api/v1/overview")["jira_base_url"] is None
    finally:
        runner.stop()
