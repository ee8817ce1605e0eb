"""Agent rows are bounded: ids per agent token, detail and state, forgotten agents, removal.

The attack these reproduce: one agent token sent 10,000 heartbeats with distinct
``agent_id``s and 10 KB details, and every reader of agents (``/metrics``, ``GET
/api/v1/agents``, the overview, the operations page, MCP ``sync_status``) grew with it.
"""

from __future__ import annotations

import json
from datetime import datetime

import anyio
import httpx
import pytest
from mcp import Client

from agent.hub_client import MAX_DETAIL_CHARS, HubClient
from hub.mcp.server import build_server
from hub.services.commands.agents import AgentService
from tests.support import call, db_rows, prepared_hub, run_hub, start, stop, wait_for_line
from tests.support.dbfactory import make_db
from tests.support.engine_rows import engine_env, execute
from tests.support.hubs import MovableClock
from tests.support.mcp_hub import data

pytestmark = pytest.mark.backends("sqlite", "postgresql")

LONG = "x" * 1000  # the longest detail the hub takes


def beat(hub, agent_id: str, detail: str | None = None, state: str | None = "working", token=None):
    headers = {"Authorization": f"Bearer {token or hub.tokens['agent']}"}
    return hub.client.simulate_post("/agent/v1/heartbeat", headers=headers, json={
        "agent_id": agent_id, "version": 14, "state": state, "detail": detail})


def listed(hub, **params) -> list[str]:
    resp = hub.api("GET", "/api/v1/agents", params=params)
    assert resp.status_code == 200, resp.json
    return [a["agent_id"] for a in resp.json["items"]]


def agent_series(hub) -> tuple[set[str], int]:
    """The agent ids of ``hub_agent_last_seen_age_seconds``, and the size of the whole scrape."""
    resp = hub.client.simulate_get("/metrics", headers=hub.headers("admin"))
    assert resp.status_code == 200
    ids = {line.split('agent_id="')[1].split('"')[0] for line in resp.text.splitlines()
           if line.startswith("hub_agent_last_seen_age_seconds{")}
    return ids, len(resp.content)


def test_one_token_sending_many_distinct_agent_ids_is_refused_past_the_bound(make_hub):
    hub = make_hub(agents_per_token=16)
    for n in range(16):
        assert beat(hub, f"agent-{n}", LONG).status_code == 200
    refused = beat(hub, "agent-16", LONG)
    assert refused.status_code == 409
    assert refused.json["agents_per_token"] == 16
    for words in ("HUB_AGENTS_PER_TOKEN = 16", "'agent-16'", "hub agent remove ID",
                  "DELETE /api/v1/agents/{agent_id}", "HUB_AGENT_FORGET_HOURS"):
        assert words in refused.json["description"]
    claimed = hub.agent("POST", "/agent/v1/claim", {"agent_id": "agent-17", "version": 14})
    assert claimed.status_code == 409 and "HUB_AGENTS_PER_TOKEN" in claimed.json["description"]
    # Nothing was recorded for the refused ids; the ids the token holds work as before.
    assert db_rows(hub, "SELECT count(*) FROM agent_status") == [(16,)]
    assert beat(hub, "agent-3", "still here").status_code == 200
    assert hub.agent("POST", "/agent/v1/claim", {"agent_id": "agent-3", "version": 14}).status_code == 200
    # Another agent token has its own bound.
    other = hub.built.services.tokens.add("second-agent", "agent")
    assert beat(hub, "agent-16", token=other).status_code == 200


def test_the_attack_leaves_metrics_agents_list_overview_bounded(make_hub):
    hub = make_hub(agents_per_token=16, clock=MovableClock())  # time stands still: all online
    assert beat(hub, "agent-0").status_code == 200
    _, before = agent_series(hub)
    statuses = [beat(hub, f"attacker-{n}", "y" * 10_000 if n % 2 else LONG).status_code
                for n in range(400)]
    # Every 10 KB detail is refused as too long; the 1,000-character ones past the bound as 409.
    assert statuses.count(422) == 200 and statuses.count(200) == 15 and statuses.count(409) == 185

    ids, after = agent_series(hub)
    assert len(ids) == 16
    # 16 series and the counters of the refused requests: kilobytes, not megabytes.
    assert after - before < 20_000, (before, after)
    first = hub.api("GET", "/api/v1/agents")
    assert len(first.json["items"]) == 16 and first.json["next_cursor"] is None
    assert len(first.content) < 16 * (len(LONG) + 200)
    assert len(hub.api("GET", "/api/v1/agents", params={"limit": 5}).json["items"]) == 5
    assert hub.api("GET", "/api/v1/overview").json["agents"] == {"total": 16, "online": 16}


@pytest.mark.parametrize("field, value", [("detail", "z" * 1001), ("state", "s" * 101)])
def test_a_detail_or_state_past_its_bound_is_refused_with_the_field_named(hub, field, value):
    body = {"agent_id": "agent-1", "version": 14, field: value}
    resp = hub.agent("POST", "/agent/v1/heartbeat", body)
    assert resp.status_code == 422 and resp.json["field"] == field, resp.json
    assert db_rows(hub, "SELECT count(*) FROM agent_status") == [(0,)]
    assert beat(hub, "agent-1", "z" * 1000, "s" * 100).status_code == 200


def test_the_reference_agent_cuts_its_detail_to_the_hubs_bound(hub):
    client = HubClient("http://hub", hub.tokens["agent"], "agent-kzn-1",
                       transport=httpx.WSGITransport(app=hub.app))
    assert client.heartbeat("working", "Jira answered 500: " + "trace " * 1000) == []
    [(detail,)] = db_rows(hub, "SELECT detail FROM agent_status WHERE agent_id = 'agent-kzn-1'")
    assert len(detail) == MAX_DETAIL_CHARS and detail.endswith("…")


def test_agents_page_newest_registered_first_and_filter_by_online(make_hub):
    clock = MovableClock()
    hub = make_hub(clock=clock)
    for n in range(5):
        assert beat(hub, f"agent-{n}").status_code == 200
    first = hub.api("GET", "/api/v1/agents", params={"limit": 2}).json
    second = hub.api("GET", "/api/v1/agents", params={"limit": 2, "cursor": first["next_cursor"]}).json
    third = hub.api("GET", "/api/v1/agents", params={"limit": 2, "cursor": second["next_cursor"]}).json
    assert [[a["agent_id"] for a in p["items"]] for p in (first, second, third)] == [
        ["agent-4", "agent-3"], ["agent-2", "agent-1"], ["agent-0"]]
    assert third["next_cursor"] is None

    clock.advance(121)
    assert beat(hub, "agent-1").status_code == 200
    assert listed(hub, online="true") == ["agent-1"]
    assert listed(hub, online="false") == ["agent-4", "agent-3", "agent-2", "agent-0"]
    bad = hub.api("GET", "/api/v1/agents", params={"online": "yes"})
    assert bad.status_code == 422 and bad.json["field"] == "online"
    assert hub.api("GET", "/api/v1/agents", params={"limit": 501}).json["field"] == "limit"


def test_an_admin_removes_an_agent_by_route_and_it_registers_again_within_the_bound(make_hub):
    hub = make_hub(agents_per_token=2)
    assert beat(hub, "agent-a").status_code == 200 and beat(hub, "agent-b").status_code == 200
    assert beat(hub, "agent-c").status_code == 409

    assert hub.api("DELETE", "/api/v1/agents/agent-a").status_code == 403  # interface
    removed = hub.api("DELETE", "/api/v1/agents/agent-a", role="admin")
    assert removed.status_code == 204 and not removed.content
    assert hub.api("DELETE", "/api/v1/agents/agent-a", role="admin").status_code == 404
    assert listed(hub) == ["agent-b"]
    assert beat(hub, "agent-c").status_code == 200
    # The removed agent comes back: a new id for its token, so within the bound only.
    assert beat(hub, "agent-a").status_code == 409
    assert hub.api("DELETE", "/api/v1/agents/agent-b", role="admin").status_code == 204
    assert beat(hub, "agent-a").status_code == 200
    assert listed(hub) == ["agent-a", "agent-c"]


def test_hub_agent_remove_frees_an_id_and_names_an_unknown_one(make_hub):
    hub = make_hub(agents_per_token=1)
    assert beat(hub, "agent-a", "busy").status_code == 200
    assert beat(hub, "agent-b").status_code == 409
    data_dir, engine = hub.config.data_dir, engine_env(hub.config)

    shown = run_hub("agent", "list", data_dir=data_dir, **engine)
    assert shown.returncode == 0, shown.stderr
    [line] = shown.stdout.splitlines()
    assert line.split("\t")[:2] == ["agent-a", "online"] and line.endswith("\tv14\tworking\t-\tJira unknown")
    removed = run_hub("agent", "remove", "agent-a", data_dir=data_dir, **engine)
    assert removed.returncode == 0, removed.stderr
    assert "agent 'agent-a' removed" in removed.stdout
    unknown = run_hub("agent", "remove", "agent-a", data_dir=data_dir, **engine)
    assert unknown.returncode == 1 and "no agent 'agent-a'" in unknown.stderr
    assert beat(hub, "agent-b").status_code == 200
    assert run_hub("agent", "list", data_dir=data_dir, **engine).stdout.startswith("agent-b\tonline\t")


def test_agents_unseen_for_the_forget_time_drop_out_of_metrics_overview_and_list(make_hub):
    clock = MovableClock()
    hub = make_hub(clock=clock, agent_forget_hours=1, agents_per_token=1)
    assert beat(hub, "agent-old").status_code == 200
    assert agent_series(hub)[0] == {"agent-old"}
    clock.advance(3601)
    assert agent_series(hub)[0] == set()
    assert hub.api("GET", "/api/v1/overview").json["agents"] == {"total": 0, "online": 0}
    assert listed(hub) == []
    # Forgotten, it no longer counts against its token: a bound of 1 takes a new id.
    assert beat(hub, "agent-new").status_code == 200
    assert agent_series(hub)[0] == {"agent-new"}
    assert hub.api("GET", "/api/v1/overview").json["agents"] == {"total": 1, "online": 1}
    assert listed(hub) == ["agent-new"]
    # The worker's cleanup deletes the forgotten row and keeps the other.
    assert AgentService(clock, forget_hours=1).forget() == 1
    assert db_rows(hub, "SELECT agent_id FROM agent_status") == [("agent-new",)]


def test_the_hourly_task_deletes_the_rows_of_forgotten_agents(hub):
    from worker import tasks
    from worker.instance import huey

    assert beat(hub, "agent-now").status_code == 200 and beat(hub, "agent-gone").status_code == 200
    execute(hub.config, "UPDATE agent_status SET last_seen_at = '2026-01-01T00:00:00+00:00'"
                        " WHERE agent_id = 'agent-gone'")
    assert tasks.forget_agents.call_local() == 1
    assert db_rows(hub, "SELECT agent_id FROM agent_status") == [("agent-now",)]
    [task] = [t for t in huey._registry._periodic_tasks if t.__name__ == "forget_agents"]
    assert task().validate_datetime(datetime(2026, 11, 30, 10, 7))
    assert not task().validate_datetime(datetime(2026, 11, 30, 10, 8))


@pytest.mark.backends("sqlite")  # a hub.sqlite of schema v8 migrated on: SQLite's migration history
def test_rows_from_before_v9_count_against_no_token_until_heard_from_again(make_hub, config):
    config.data_dir.mkdir(mode=0o700)
    make_db(config.db_path, 8)  # its agent_status holds agent-1, seen at 2026-10-22T10:00:00
    hub = make_hub(clock=MovableClock("2026-10-22T10:01:00+00:00"), agents_per_token=1)
    assert db_rows(hub, "SELECT agent_id, token_id FROM agent_status") == [("agent-1", None)]
    assert listed(hub) == ["agent-1"]
    assert beat(hub, "agent-x").status_code == 200  # agent-1 holds none of the token's room
    assert beat(hub, "agent-1").status_code == 409  # now it is an id new to the token, past its bound
    assert hub.api("DELETE", "/api/v1/agents/agent-x", role="admin").status_code == 204
    assert beat(hub, "agent-1").status_code == 200
    [(token_id,)] = db_rows(hub, "SELECT token_id FROM agent_status WHERE agent_id = 'agent-1'")
    assert token_id == db_rows(hub, "SELECT id FROM token WHERE name = 'test-agent'")[0][0]


def test_sync_status_answers_a_bounded_summary_however_many_agents(tmp_path, database_url):
    data_dir = tmp_path / "data"
    agent, interface = prepared_hub(data_dir, database_url)
    proc = start("serve", data_dir=data_dir, database_url=database_url, HUB_AGENTS_PER_TOKEN="40")
    try:
        url = wait_for_line(proc, r"serving on (http://\S+)").group(1)
        for n in range(40):
            # Each holds a refresh of a long query, and reports a long Jira error (v18).
            call(url, interface, "/api/v1/commands", {"type": "refresh", "params": {"jql": f"key = AURORA-{n + 1} "
                                                                                          + " " * 5000}})
            call(url, agent, "/agent/v1/claim", {"agent_id": f"agent-{n:02}", "version": 18})
            call(url, agent, "/agent/v1/heartbeat",
                 {"agent_id": f"agent-{n:02}", "version": 18, "state": "working", "detail": LONG,
                  "jira": {"reachable": False, "error": LONG}})

        async def status() -> dict:
            async with Client(build_server(url, interface)) as client:
                return await data(client, "sync_status")

        answer = anyio.run(status)
    finally:
        stop(proc)
    assert (answer["agents_total"], answer["agents_online"]) == (40, 40)
    assert len(answer["agents"]) == 20
    assert all(len(a["detail"]) == 200 and a["detail"].endswith("…") for a in answer["agents"])
    assert all(len(a["jira"]["error"]) == 200 and a["jira"]["reachable"] is False for a in answer["agents"])
    # What each holds is named, not its params.
    assert all([set(held) for held in a["holds"]] == [{"id", "type", "claimed_at", "lease_until"}]
               for a in answer["agents"])
    assert len(json.dumps(answer)) < 20 * 1000
