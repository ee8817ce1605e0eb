"""What the operations page reads and does: retrying a given-up command, what each agent
holds, Jira's reachability as agents report it (protocol v18), and each sync run's kind."""

from __future__ import annotations

from datetime import datetime

import pytest

from hub.services.commands.agents import AgentService
from tests.support import BASE, claim, db_rows, enqueue, issue, listed, report, run_hub, with_projects
from tests.support.engine_rows import engine_env
from tests.support.hubs import MovableClock

pytestmark = pytest.mark.backends("sqlite", "postgresql")


def beat(hub, agent_id="agent-1", **body):
    return hub.agent("POST", "/agent/v1/heartbeat", {"agent_id": agent_id, "version": 18, **body})


def agents(hub) -> dict:
    resp = hub.api("GET", "/api/v1/agents")
    assert resp.status_code == 200, resp.json
    return {item["agent_id"]: item for item in resp.json["items"]}


def failed(hub, jql="key = AURORA-12") -> dict:
    command = enqueue(hub, jql)
    claim(hub)
    resp = report(hub, command["id"], "failed", {"error": "Jira answered 400: the field 'sprintz' does not exist"})
    assert resp.status_code == 200, resp.json
    return resp.json


# --- retry ------------------------------------------------------------------------------


def test_a_failed_refresh_is_retried_as_a_new_command_of_the_same_type_params_and_batch(hub):
    batch = hub.api("POST", "/api/v1/batches", {"title": "Sprint 14"}).json
    command = hub.api("POST", "/api/v1/commands", {"type": "refresh", "batch_id": batch["id"],
                                                   "params": {"jql": "key = AURORA-12"}}).json
    claim(hub)
    assert report(hub, command["id"], "failed", {"error": "Jira answered 503"}).status_code == 200

    resp = hub.api("POST", f"/api/v1/commands/{command['id']}/retry")

    assert resp.status_code == 201, resp.json
    again = resp.json
    assert resp.headers["Location"] == f"/api/v1/commands/{again['id']}"
    assert again["id"] != command["id"]
    assert (again["type"], again["params"], again["batch_id"], again["status"]) == (
        "refresh", {"jql": "key = AURORA-12"}, batch["id"], "queued")
    # The failed one stays as it was, with its error.
    old = hub.api("GET", f"/api/v1/commands/{command['id']}").json
    assert (old["status"], old["error"]) == ("failed", "Jira answered 503")


def test_a_cancelled_incremental_refresh_is_retried_with_its_updated_since(hub):
    with_projects()
    command = hub.api("POST", "/api/v1/commands", {"type": "refresh",
                                                   "params": {"updated_since": "2026-11-30T01:50:00Z"}}).json
    assert hub.api("POST", f"/api/v1/commands/{command['id']}/cancel").status_code == 200

    again = hub.api("POST", f"/api/v1/commands/{command['id']}/retry")

    assert again.status_code == 201
    assert again.json["params"] == {"jql": BASE, "updated_since": "2026-11-30T01:50:00+00:00"}


def test_an_open_or_done_command_is_not_retried(hub):
    queued = enqueue(hub, "key = AURORA-1")
    resp = hub.api("POST", f"/api/v1/commands/{queued['id']}/retry")
    assert resp.status_code == 409
    assert "queued" in resp.json["description"] and "cancel it first" in resp.json["description"]
    claim(hub)
    assert hub.api("POST", f"/api/v1/commands/{queued['id']}/retry").status_code == 409
    report(hub, queued["id"], "state", {"issues": [issue("AURORA-1")]})
    assert report(hub, queued["id"], "done", {"result": {"total": 1}}).status_code == 200
    done = hub.api("POST", f"/api/v1/commands/{queued['id']}/retry")
    assert done.status_code == 409 and "succeeded" in done.json["description"]
    assert hub.api("POST", "/api/v1/commands/999/retry").status_code == 404
    # Nothing was enqueued by any of them.
    assert db_rows(hub, "SELECT count(*) FROM command") == [(1,)]


def test_a_failed_fetch_is_retried_once_and_a_second_retry_gives_the_open_fetch_back(hub):
    listed(hub, {"id": "301", "filename": "spec.pdf", "size": 6}, key="AURORA-12")
    fetch = hub.api("POST", "/api/v1/attachments/301/fetch").json
    command_id = fetch["command_id"]
    [claimed] = claim(hub, types=["fetch_attachment"])
    assert claimed["id"] == command_id
    assert report(hub, command_id, "failed", {"error": "Jira answered 404"}).status_code == 200

    first = hub.api("POST", f"/api/v1/commands/{command_id}/retry")
    second = hub.api("POST", f"/api/v1/commands/{command_id}/retry")

    assert first.status_code == 201 and first.json["params"] == {"attachment_id": "301"}
    assert second.status_code == 200 and second.json["id"] == first.json["id"]


def test_retry_needs_an_interface_token(hub):
    command = failed(hub)
    assert hub.api("POST", f"/api/v1/commands/{command['id']}/retry", role=None).status_code == 401
    assert hub.api("POST", f"/api/v1/commands/{command['id']}/retry", role="agent").status_code == 403


# --- what agents hold -------------------------------------------------------------------


def test_each_agent_lists_the_commands_it_holds_with_their_lease(hub):
    first, second = enqueue(hub, "key = AURORA-1"), enqueue(hub, "key = AURORA-2")
    [held] = claim(hub, "agent-1")
    claim(hub, "agent-2")
    beat(hub, "agent-3")
    report(hub, second["id"], "failed", {"error": "boom"})

    seen = agents(hub)

    assert seen["agent-1"]["holds"] == [{"id": first["id"], "type": "refresh", "params": {"jql": "key = AURORA-1"},
                                        "claimed_at": seen["agent-1"]["holds"][0]["claimed_at"],
                                        "lease_until": held["lease_until"], "deliveries": 1}]
    assert seen["agent-1"]["holds"][0]["claimed_at"] is not None
    # A command given up is no longer held; an agent that claimed nothing holds nothing.
    assert seen["agent-2"]["holds"] == [] and seen["agent-3"]["holds"] == []


# --- Jira's reachability (v18) ----------------------------------------------------------


def test_an_agent_before_v18_reports_no_reachability(hub):
    assert hub.agent("POST", "/agent/v1/heartbeat", {"agent_id": "agent-1", "version": 17}).status_code == 200
    assert agents(hub)["agent-1"]["jira"] is None


def test_jira_unreachable_is_kept_since_its_first_report_until_it_is_reachable_again(make_hub):
    clock = MovableClock("2026-11-30T06:00:00+00:00")
    hub = make_hub(clock=clock)
    assert beat(hub, jira={"reachable": True, "checked_at": "2026-11-30T05:59:58Z"}).status_code == 200
    assert agents(hub)["agent-1"]["jira"] == {"reachable": True, "checked_at": "2026-11-30T05:59:58+00:00",
                                              "error": None, "since": None,
                                              "reported_at": "2026-11-30T06:00:00+00:00"}
    clock.advance(60)
    error = "ConnectError: [Errno 111] Connection refused"
    assert beat(hub, jira={"reachable": False, "checked_at": "2026-11-30T06:00:59Z", "error": error}).status_code == 200
    clock.advance(60)
    assert beat(hub, jira={"reachable": False, "checked_at": "2026-11-30T06:01:59Z",
                           "error": "Jira answered 503"}).status_code == 200
    jira = agents(hub)["agent-1"]["jira"]
    assert jira == {"reachable": False, "checked_at": "2026-11-30T06:01:59+00:00", "error": "Jira answered 503",
                    "since": "2026-11-30T06:00:59+00:00", "reported_at": "2026-11-30T06:02:00+00:00"}
    clock.advance(60)
    assert beat(hub, jira={"reachable": True, "checked_at": "2026-11-30T06:02:59Z"}).status_code == 200
    jira = agents(hub)["agent-1"]["jira"]
    assert (jira["reachable"], jira["since"], jira["error"]) == (True, None, None)


def test_a_bad_reachability_is_refused_naming_its_field_and_records_nothing(hub):
    for body, field in (({"reachable": "yes"}, "jira.reachable"),
                        ({"checked_at": "2026-11-30T06:00:00Z"}, "jira"),
                        ({"reachable": False, "checked_at": "2026-02-30T06:00:00Z"}, "jira.checked_at"),
                        ({"reachable": False, "error": "x" * 1001}, "jira.error")):
        resp = beat(hub, jira=body)
        assert resp.status_code == 422, (body, resp.json)
        assert resp.json["field"].startswith(field), (body, resp.json)
    assert hub.api("GET", "/api/v1/agents").json["items"] == []


def test_an_agents_reachability_goes_with_it_when_removed_or_forgotten(make_hub):
    clock = MovableClock("2026-11-30T06:00:00+00:00")
    hub = make_hub(clock=clock, agent_forget_hours=1)
    beat(hub, "agent-a", jira={"reachable": False, "error": "down"})
    beat(hub, "agent-b", jira={"reachable": False, "error": "down"})
    assert hub.api("DELETE", "/api/v1/agents/agent-a", role="admin").status_code == 204
    assert db_rows(hub, "SELECT key FROM setting WHERE key LIKE 'agent_jira:%'") == [("agent_jira:agent-b",)]
    clock.advance(3601)
    beat(hub, "agent-c", jira={"reachable": True})
    assert AgentService(clock, forget_hours=1).forget() == 1
    assert db_rows(hub, "SELECT key FROM setting WHERE key LIKE 'agent_jira:%'") == [("agent_jira:agent-c",)]
    # Heard from again, a removed agent starts with no reachability of the past.
    beat(hub, "agent-a")
    assert agents(hub)["agent-a"]["jira"] is None


# --- sync runs: kind ----------------------------------------------------------------------


def run_of(hub, clock, started: str, finished_at: str, params: dict | None = None) -> int:
    clock.moment = datetime.fromisoformat(started)
    command = hub.api("POST", "/api/v1/commands", {"type": "refresh", **({"params": params} if params else {})}).json
    claim(hub)
    assert report(hub, command["id"], "state", {"issues": [issue("AURORA-1")]}).status_code == 200
    clock.moment = datetime.fromisoformat(finished_at)
    assert report(hub, command["id"], "done", {"result": {"total": 1}}).status_code == 200
    return command["id"]


def test_each_sync_run_says_whether_it_was_full_incremental_or_another_query(make_hub):
    clock = MovableClock()
    hub = make_hub(clock=clock)
    with_projects()
    run_of(hub, clock, "2026-11-30T02:00:00+00:00", "2026-11-30T02:02:05+00:00")
    run_of(hub, clock, "2026-11-30T03:00:00+00:00", "2026-11-30T03:00:05+00:00", {"jql": "key = AURORA-1"})
    run_of(hub, clock, "2026-11-30T04:00:00+00:00", "2026-11-30T04:00:03+00:00",
           {"updated_since": "2026-11-30T01:50:00+00:00"})

    runs = hub.api("GET", "/api/v1/sync-runs").json["items"]

    assert [(r["kind"], r["duration_seconds"], r["issues_loaded"]) for r in runs] == [
        ("incremental", 3, 1), ("jql", 5, 1), ("full", 125, 1)]
    last = hub.api("GET", "/api/v1/overview").json["last_runs"]
    assert (last["full"]["kind"], last["incremental"]["kind"]) == ("full", "incremental")


def test_hub_agent_list_shows_what_each_agent_holds_and_whether_its_jira_answers(hub):
    command = enqueue(hub, "key = AURORA-12")
    claim(hub, "agent-1")
    beat(hub, "agent-1", state="working", jira={"reachable": False, "checked_at": "2026-11-30T06:00:59Z",
                                                 "error": "Jira answered 503"})
    hub.agent("POST", "/agent/v1/heartbeat", {"agent_id": "agent-old", "version": 17})

    shown = run_hub("agent", "list", data_dir=hub.config.data_dir, **engine_env(hub.config))

    assert shown.returncode == 0, shown.stderr
    lines = {line.split("\t")[0]: line.split("\t") for line in shown.stdout.splitlines()}
    assert lines["agent-1"][3:] == ["v18", "working", f"holds {command['id']}",
                                    "Jira unreachable since 2026-11-30T06:00:59+00:00"]
    assert lines["agent-old"][3:] == ["v17", "-", "-", "Jira unknown"]


def test_the_metrics_tell_each_reporting_agents_jira_reachability(hub):
    beat(hub, "agent-up", jira={"reachable": True})
    beat(hub, "agent-down", jira={"reachable": False, "error": "Jira answered 503"})
    beat(hub, "agent-quiet")
    token = hub.built.services.tokens.add("scraper", "metrics")

    text = hub.client.simulate_get("/metrics", headers={"Authorization": f"Bearer {token}"}).text

    series = sorted(line for line in text.splitlines() if line.startswith("hub_agent_jira_reachable{"))
    assert series == ['hub_agent_jira_reachable{agent_id="agent-down"} 0.0',
                      'hub_agent_jira_reachable{agent_id="agent-up"} 1.0']


def test_a_failed_check_is_queued_again_with_the_same_keys(hub):
    from hub.models import Command

    check = Command.create(type="check_issues", params={"keys": ["AURORA-1", "AURORA-2"], "run_id": 7},
                           status="failed", error="Jira answered 502", created_at="2026-11-30T06:00:00+00:00",
                           finished_at="2026-11-30T06:01:00+00:00", deliveries=3)

    again = hub.api("POST", f"/api/v1/commands/{check.id}/retry")

    assert again.status_code == 201
    assert (again.json["type"], again.json["params"], again.json["status"], again.json["deliveries"]) == (
        "check_issues", {"keys": ["AURORA-1", "AURORA-2"], "run_id": 7}, "queued", 0)
