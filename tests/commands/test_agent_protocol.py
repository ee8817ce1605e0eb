"""``/agent/v1`` through the Falcon app, on a real database: claims, reports, fencing."""

from __future__ import annotations

import threading

import pytest

from hub.clock import Clock, iso
from hub.models import Command
from tests.support import (
    BASE,
    claim,
    db_rows,
    enqueue,
    issue,
    report,
    wait_until,
    waiting_polls,
    with_projects,
)

pytestmark = pytest.mark.backends("sqlite", "postgresql")


def test_claim_gives_the_oldest_first_and_opens_a_sync_run(hub):
    first, second = enqueue(hub, "key = A-1"), enqueue(hub, "key = A-2")

    [claimed] = claim(hub)

    assert claimed["id"] == first["id"]
    assert claimed["type"] == "refresh" and claimed["params"] == {"jql": "key = A-1"}
    assert claimed["deliveries"] == 1 and claimed["lease_until"]
    command = hub.api("GET", f"/api/v1/commands/{first['id']}").json
    assert (command["status"], command["agent_id"], command["deliveries"]) == ("claimed", "agent-1", 1)
    [run] = hub.api("GET", "/api/v1/sync-runs").json["items"]
    assert (run["command_id"], run["status"], run["query"]) == (first["id"], "running", "key = A-1")
    assert run["started_at"] == command["claimed_at"]
    assert [c["id"] for c in claim(hub, limit=5)] == [second["id"]]
    assert claim(hub) == []


def test_agents_before_v14_never_get_fetch_attachment_and_types_narrow(hub):
    fetch = Command.create(type="fetch_attachment", params={"attachment_id": "31337"},
                           created_at=iso(Clock().now()))
    refresh = enqueue(hub, "key = A-1")

    assert [c["id"] for c in claim(hub, version=13, limit=10)] == [refresh["id"]]
    assert claim(hub, version=13, types=["fetch_attachment"]) == []
    assert [c["id"] for c in claim(hub, version=14, types=["fetch_attachment"])] == [fetch.id]


def test_long_poll_returns_when_work_arrives(hub):
    result = {}

    def poll():
        result["commands"] = claim(hub, wait=10)

    poller = threading.Thread(target=poll)
    poller.start()
    wait_until(lambda: waiting_polls(hub) == 1, message="the claim waiting")
    command = enqueue(hub, "key = A-1")
    poller.join(timeout=15)
    assert [c["id"] for c in result["commands"]] == [command["id"]]


def test_long_poll_without_work_answers_empty(hub):
    assert claim(hub, wait=0.5) == []


def test_state_pages_count_issues_and_done_closes_the_run(hub):
    command = enqueue(hub, "key in (A-1, A-2, A-3)")
    claim(hub)

    assert report(hub, command["id"], "state", {"issues": [issue("A-1"), issue("A-2")]}).json[
        "issues_loaded"] == 2
    assert report(hub, command["id"], "state", {"issues": [issue("A-3")],
                                                 "neighbors": [issue("B-9")]}).json["issues_loaded"] == 3
    done = report(hub, command["id"], "done", {"result": {"total": 3, "history_at": "2026-11-02T09:00:00+00:00"}})

    assert done.status_code == 200 and done.json["status"] == "done"
    assert done.json["result"] == {"total": 3, "history_at": "2026-11-02T09:00:00+00:00"}
    [run] = hub.api("GET", "/api/v1/sync-runs").json["items"]
    assert (run["status"], run["issues_loaded"], run["history_at"]) == ("done", 3, "2026-11-02T09:00:00+00:00")
    assert run["finished_at"] == done.json["finished_at"]


def test_failed_keeps_the_error_on_command_and_run(hub):
    command = enqueue(hub, "key = A-1")
    claim(hub)
    resp = report(hub, command["id"], "failed", {"error": "Jira said 400: bad JQL"})
    assert resp.status_code == 200
    assert (resp.json["status"], resp.json["error"]) == ("failed", "Jira said 400: bad JQL")
    [run] = hub.api("GET", "/api/v1/sync-runs").json["items"]
    assert (run["status"], run["error"]) == ("failed", "Jira said 400: bad JQL")


def test_a_state_page_is_applied_all_or_nothing(hub):
    command = enqueue(hub, "key in (A-1, A-2)")
    claim(hub)
    bad = report(hub, command["id"], "state", {"issues": [issue("A-1"), {"key": "A-2", "id": 7}]})
    assert bad.status_code == 422 and bad.json["field"] == "issues.1.id"
    assert db_rows(hub, "SELECT count(*) FROM issue") == [(0,)]
    # A page that fails inside the transaction leaves nothing either.
    bad = report(hub, command["id"], "state", {"issues": [issue("A-1"), issue("A-2", labels=None),
                                                          issue("A-3", comments=[{"id": "1", "body": 5}])]})
    assert bad.status_code == 422 and bad.json["field"] == "issues.2.comments.0.body"
    assert db_rows(hub, "SELECT count(*) FROM issue") == [(0,)]
    assert hub.api("GET", "/api/v1/sync-runs").json["items"][0]["issues_loaded"] == 0


def test_reports_from_a_non_holder_answer_409_and_change_nothing(hub):
    command = enqueue(hub, "key = A-1")
    [claimed] = claim(hub, agent_id="agent-1")

    other = report(hub, command["id"], "state", {"agent_id": "agent-2", "issues": [issue("A-1")]})
    assert other.status_code == 409
    stale = report(hub, command["id"], "done", {"delivery": claimed["deliveries"] + 1, "result": {"total": 1}})
    assert stale.status_code == 409 and "delivered again" in stale.json["description"]
    assert hub.api("GET", f"/api/v1/commands/{command['id']}").json["status"] == "claimed"
    assert db_rows(hub, "SELECT count(*) FROM issue") == [(0,)]
    assert report(hub, 9999, "done", {"result": {"total": 0}}).status_code == 404


def test_reports_on_a_cancelled_command_answer_409_and_the_heartbeat_says_so(hub):
    command = enqueue(hub, "key = A-1")
    claim(hub)
    beat = hub.agent("POST", "/agent/v1/heartbeat", {"agent_id": "agent-1", "version": 14})
    assert beat.json["cancelled"] == []

    cancelled = hub.api("POST", f"/api/v1/commands/{command['id']}/cancel")
    assert cancelled.status_code == 200 and cancelled.json["status"] == "cancelled"

    assert report(hub, command["id"], "state", {"issues": [issue("A-1")]}).status_code == 409
    assert report(hub, command["id"], "done", {"result": {"total": 1}}).status_code == 409
    beat = hub.agent("POST", "/agent/v1/heartbeat", {"agent_id": "agent-1", "version": 14, "state": "busy"})
    assert beat.status_code == 200 and beat.json["cancelled"] == [command["id"]]
    assert hub.api("POST", f"/api/v1/commands/{command['id']}/cancel").status_code == 409
    [run] = hub.api("GET", "/api/v1/sync-runs").json["items"]
    assert (run["status"], run["error"]) == ("failed", "command cancelled")


def test_repeating_the_same_done_answers_200_and_changes_nothing(hub):
    command = enqueue(hub, "key = A-1")
    claim(hub)
    first = report(hub, command["id"], "done", {"result": {"total": 0}, "delivery": 1})
    again = report(hub, command["id"], "done", {"result": {"total": 0}, "delivery": 1})
    assert first.status_code == again.status_code == 200
    assert first.json == again.json
    different = report(hub, command["id"], "done", {"result": {"total": 5}})
    assert different.status_code == 409
    assert report(hub, command["id"], "failed", {"error": "late"}).status_code == 409


def test_done_checks_the_refresh_result(hub):
    command = enqueue(hub, "key = A-1")
    claim(hub)
    for result, field in [(None, "result"), ({}, "result.total"), ({"total": -1}, "result.total"),
                          ({"total": 1, "history_at": 5}, "result.history_at")]:
        resp = report(hub, command["id"], "done", {"result": result})
        assert resp.status_code == 422 and resp.json["field"] == field
    assert hub.api("GET", f"/api/v1/commands/{command['id']}").json["status"] == "claimed"


def test_heartbeat_records_the_agent_and_extends_its_leases(hub):
    enqueue(hub, "key = A-1")
    [claimed] = claim(hub)
    Command.update(lease_until="2026-01-01T00:00:00+00:00").execute()

    beat = hub.agent("POST", "/agent/v1/heartbeat",
                     {"agent_id": "agent-1", "version": 14, "state": "working", "detail": "page 2"})

    assert beat.status_code == 200 and set(beat.json) == {"now", "cancelled"}
    lease = hub.api("GET", f"/api/v1/commands/{claimed['id']}").json["lease_until"]
    assert lease > beat.json["now"]
    [agent] = hub.api("GET", "/api/v1/agents").json["items"]
    assert agent == {"agent_id": "agent-1", "version": 14, "last_seen_at": beat.json["now"],
                     "state": "working", "detail": "page 2", "online": True,
                     "holds": [{"id": claimed["id"], "type": "refresh", "params": {"jql": "key = A-1"},
                                "claimed_at": agent["holds"][0]["claimed_at"], "lease_until": lease,
                                "deliveries": 1}],
                     "jira": None}


def test_interface_enqueue_defaults_to_the_base_jql(hub):
    resp = hub.api("POST", "/api/v1/commands", {"type": "refresh"})
    assert resp.status_code == 422 and resp.json["field"] == "params.jql"
    assert hub.api("GET", "/api/v1/commands").json["items"] == []
    with_projects()
    created = hub.api("POST", "/api/v1/commands", {"type": "refresh"})
    assert created.status_code == 201 and created.json["params"] == {"jql": BASE}
    assert created.json["status"] == "queued" and created.json["deliveries"] == 0


@pytest.mark.parametrize("body, field", [
    ({"type": "refresh", "params": {"jql": ""}}, "params.jql"),
    ({"type": "delete_everything"}, "type"),
    ({"type": "refresh", "jql": "x"}, "jql"),
    ({"type": "refresh", "params": {"jql": "key = A-1"}, "batch_id": 99}, "batch_id"),
])
def test_interface_enqueue_rejects_bad_bodies(hub, body, field):
    resp = hub.api("POST", "/api/v1/commands", body)
    assert resp.status_code == 422 and resp.json["field"] == field
    assert hub.api("GET", "/api/v1/commands").json["items"] == []


def test_command_list_filters_and_pages(hub):
    ids = [enqueue(hub, f"key = A-{i}")["id"] for i in range(5)]
    claim(hub)
    page1 = hub.api("GET", "/api/v1/commands", params={"limit": 2}).json
    assert [c["id"] for c in page1["items"]] == [ids[4], ids[3]]
    page2 = hub.api("GET", "/api/v1/commands", params={"limit": 2, "cursor": page1["next_cursor"]}).json
    page3 = hub.api("GET", "/api/v1/commands", params={"limit": 2, "cursor": page2["next_cursor"]}).json
    assert [c["id"] for c in page2["items"] + page3["items"]] == [ids[2], ids[1], ids[0]]
    assert page3["next_cursor"] is None
    claimed = hub.api("GET", "/api/v1/commands", params={"status": "claimed"}).json["items"]
    assert [c["id"] for c in claimed] == [ids[0]]
    assert hub.api("GET", "/api/v1/commands", params={"status": "lost"}).status_code == 422
    assert hub.api("GET", "/api/v1/commands", params={"limit": "ten"}).status_code == 422
    assert hub.api("GET", f"/api/v1/commands/{ids[-1] + 100}").status_code == 404
