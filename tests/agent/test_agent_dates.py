"""``updated_since`` at the edges of time: the hub takes a refresh's from 2000 to a day ahead of its
clock, and the agent, given one outside what a Jira user's zone can write all the same (a command
queued before the hub checked), clamps it rather than raise, and refuses what is no time at all with
a command error that says so."""

from __future__ import annotations

import threading

import pytest

from agent.hub_client import Command
from agent.queries import updated_clause
from agent.runner import Runner
from demo.fakejira import FakeJira
from tests.support import call, prepared_hub, quick_runner, start, stop, wait_for_line
from tests.support.hubs import MovableClock


def refresh(hub, since: str):
    return hub.api("POST", "/api/v1/commands", {"type": "refresh", "params": {"jql": "x", "updated_since": since}})


def test_updated_since_before_2000_or_past_tomorrow_is_refused_with_422(make_hub):
    hub = make_hub(clock=MovableClock("2026-11-02T09:00:00+00:00"))
    for since in ("9999-12-31T23:59:59Z", "0001-01-01T00:00:00Z", "1999-12-31T23:59:59Z",
                  "2026-11-03T09:00:01Z", "2100-01-01T00:00:00+00:00"):
        resp = refresh(hub, since)
        assert resp.status_code == 422 and resp.json["field"] == "params.updated_since", (since, resp.json)
        assert "from 2000-01-01T00:00:00+00:00 to a day from now (2026-11-03T09:00:00+00:00)" in \
            resp.json["description"]
    for since in ("2000-01-01T00:00:00Z", "2026-11-03T09:00:00Z", "2026-11-02T08:50:00+00:00"):
        assert refresh(hub, since).status_code == 201, since


@pytest.mark.parametrize("zone", ["Europe/Moscow", "America/Los_Angeles", "Pacific/Kiritimati", "Etc/GMT+12", None])
def test_updated_since_at_the_ends_of_time_is_written_in_any_zone_without_overflow(zone):
    assert updated_clause("9999-12-31T23:59:59Z", zone).startswith(' AND updated >= "9999/12/')
    assert updated_clause("0001-01-01T00:00:00Z", zone).startswith(' AND updated >= "19')  # 1970 in the zone
    assert updated_clause("0001-01-01T00:00:00+14:00", zone).startswith(' AND updated >= "19')


@pytest.fixture
def world(tmp_path, database_url):
    data_dir = tmp_path / "data"
    agent_token, interface = prepared_hub(data_dir, database_url)
    hub = start("serve", data_dir=data_dir, database_url=database_url)
    jira = FakeJira().start()
    for n in range(1, 4):
        jira.add_issue(f"AURORA-{n}", labels=["AWPCA"])
    try:
        url = wait_for_line(hub, r"serving on (http://\S+)").group(1)
        yield url, interface, jira, quick_runner(url, agent_token, jira, "agent-dates")
    finally:
        jira.stop()
        assert stop(hub) == 0


def executed(runner: Runner, url: str, interface: str, since: object) -> dict:
    """A refresh claimed as the hub queued it, its ``updated_since`` then set as an older hub let through."""
    call(url, interface, "/api/v1/commands", {"type": "refresh"})
    [command] = runner.hub.claim(limit=1, wait=0).commands
    command = Command(command.id, command.type, {**command.params, "updated_since": since}, command.delivery,
                      command.lease_until)
    runner._execute(command, threading.Semaphore(0))
    return call(url, interface, f"/api/v1/commands/{command.id}")


@pytest.mark.backends("sqlite", "postgresql")
def test_a_refresh_whose_updated_since_is_past_what_a_zone_can_write_runs_clamped(world):
    url, interface, _jira, runner = world
    assert runner.time_zone == "Europe/Moscow"  # 9999-12-31T23:59:59Z is in the year 10000 there
    late = executed(runner, url, interface, "9999-12-31T23:59:59Z")
    assert late["status"] == "done" and late["result"]["total"] == 0, late
    early = executed(runner, url, interface, "0001-01-01T00:00:00Z")
    assert early["status"] == "done" and early["result"]["total"] == 3, early


@pytest.mark.backends("sqlite", "postgresql")
def test_a_refresh_whose_updated_since_is_no_time_fails_with_a_command_error_that_says_so(world):
    url, interface, _jira, runner = world
    for since in ("last tuesday", 20261102):
        failed = executed(runner, url, interface, since)
        assert failed["status"] == "failed", failed
        assert failed["error"].startswith("params.updated_since must be a time like") and "agent error" not in \
            failed["error"]
