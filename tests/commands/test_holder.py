"""The holder of a claimed command is the token that claimed it (schema v7)."""

from __future__ import annotations

import pytest

from hub.models import Command
from tests.support import claim, db_rows, enqueue, issue, report

pytestmark = pytest.mark.backends("sqlite", "postgresql")


def as_token(hub, token: str, method: str, path: str, body: dict):
    return hub.client.simulate_request(method, path, json=body,
                                       headers={"Authorization": f"Bearer {token}"})


def test_a_claim_records_the_token_and_the_agent(hub):
    command = enqueue(hub, "key = A-1")
    claim(hub, agent_id="agent-1")
    [(token_id, agent_id)] = db_rows(hub, "SELECT token_id, agent_id FROM command WHERE id = ?",
                                     command["id"])
    assert agent_id == "agent-1"
    assert db_rows(hub, "SELECT name FROM token WHERE id = ?", token_id) == [("test-agent",)]


def test_a_report_from_another_token_answers_409_and_changes_nothing(hub):
    """Without agent_id or delivery, another agent token is still not the holder."""
    other = hub.built.services.tokens.add("agent-b", "agent")
    command = enqueue(hub, "key = A-1")
    claim(hub, agent_id="agent-1")

    for what, body in (("state", {"issues": [issue("A-1")]}), ("done", {"result": {"total": 1}}),
                       ("failed", {"error": "boom"})):
        resp = as_token(hub, other, "POST", f"/agent/v1/commands/{command['id']}/{what}", body)
        assert resp.status_code == 409, what
        assert "another token" in resp.json["description"]
    upload = hub.client.simulate_put(f"/agent/v1/commands/{command['id']}/file", body=b"x",
                                     headers={"Authorization": f"Bearer {other}"})
    assert upload.status_code == 409
    assert hub.api("GET", f"/api/v1/commands/{command['id']}").json["status"] == "claimed"
    assert db_rows(hub, "SELECT count(*) FROM issue") == [(0,)]
    # The holder still can.
    assert report(hub, command["id"], "state", {"issues": [issue("A-1")]}).status_code == 200


def test_a_stale_agent_cannot_write_into_the_next_delivery(hub):
    """A's lease ran out and B (another token) claimed it again: A's page, sent
    without agent_id or delivery, is refused and B's delivery is untouched."""
    other = hub.built.services.tokens.add("agent-b", "agent")
    command = enqueue(hub, "key = A-1")
    claim(hub, agent_id="agent-a")
    Command.update(lease_until="2000-01-01T00:00:00+00:00").execute()
    again = as_token(hub, other, "POST", "/agent/v1/claim", {"agent_id": "agent-b", "version": 14})
    assert again.json["commands"][0]["deliveries"] == 2

    stale = report(hub, command["id"], "state", {"issues": [issue("A-1", summary="stale")]})
    assert stale.status_code == 409
    assert db_rows(hub, "SELECT count(*) FROM issue") == [(0,)]
    [run] = [r for r in hub.api("GET", "/api/v1/sync-runs").json["items"] if r["status"] == "running"]
    assert run["issues_loaded"] == 0
    fresh = as_token(hub, other, "POST", f"/agent/v1/commands/{command['id']}/state",
                     {"issues": [issue("A-1")], "agent_id": "agent-b", "delivery": 2})
    assert fresh.status_code == 200


def test_heartbeats_extend_only_the_leases_of_the_same_token(hub):
    other = hub.built.services.tokens.add("agent-b", "agent")
    command = enqueue(hub, "key = A-1")
    claim(hub, agent_id="agent-1")
    before = Command.get_by_id(command["id"]).lease_until
    # Same agent_id, another token: not the holder, so its heartbeat extends nothing.
    for _ in range(3):
        as_token(hub, other, "POST", "/agent/v1/heartbeat", {"agent_id": "agent-1", "version": 14})
    assert Command.get_by_id(command["id"]).lease_until == before
    hub.agent("POST", "/agent/v1/heartbeat", {"agent_id": "agent-1", "version": 14})
    assert Command.get_by_id(command["id"]).lease_until > before


def test_a_command_claimed_before_tokens_were_recorded_needs_its_agent_id(hub):
    """Claimed by a v6 hub (token_id NULL): agent_id is what names its holder."""
    command = enqueue(hub, "key = A-1")
    claim(hub, agent_id="agent-1")
    Command.update(token_id=None).execute()

    assert report(hub, command["id"], "state", {"issues": [issue("A-1")]}).status_code == 409
    assert report(hub, command["id"], "state",
                  {"issues": [issue("A-1")], "agent_id": "agent-2"}).status_code == 409
    assert report(hub, command["id"], "state",
                  {"issues": [issue("A-1")], "agent_id": "agent-1"}).status_code == 200


def test_a_repeated_done_that_leaves_out_a_null_member_is_the_same_done(hub):
    command = enqueue(hub, "key = A-1")
    claim(hub)
    first = report(hub, command["id"], "done", {"result": {"total": 0, "history_at": None}})
    again = report(hub, command["id"], "done", {"result": {"total": 0}})
    assert first.status_code == again.status_code == 200
    other = hub.built.services.tokens.add("agent-b", "agent")
    resp = as_token(hub, other, "POST", f"/agent/v1/commands/{command['id']}/done",
                    {"result": {"total": 0}})
    assert resp.status_code == 409
