"""Leases: expiry at claim time and by the periodic task, redelivery, giving up."""

from __future__ import annotations

import pytest

from hub.errors import Conflict
from hub.models import Command, SyncRun
from tests.support import wait_until
from tests.support.hubs import MovableClock

pytestmark = pytest.mark.backends("sqlite", "postgresql")

LEASE = 60


@pytest.fixture
def clock():
    return MovableClock()


@pytest.fixture
def queue(make_hub, clock):
    """A dispatcher with a 60 s lease and 3 deliveries, and a command service, on a real db."""
    hub = make_hub(clock=clock, on_full_run_done=lambda run_id: None, lease_seconds=LEASE,
                   max_deliveries=3)  # the app opens the database
    return hub.built.services.dispatcher, hub.built.services.commands


def test_an_expired_lease_is_requeued_at_the_next_claim(queue, clock):
    dispatcher, commands = queue
    command = commands.enqueue("refresh", {"jql": "key = A-1"})[0]
    [first] = dispatcher.claim("agent-1", 14)
    assert first["lease_until"] == "2026-11-02T09:01:00+00:00"

    clock.advance(LEASE - 1)
    assert dispatcher.claim("agent-2", 14) == []  # still agent-1's
    clock.advance(2)
    [second] = dispatcher.claim("agent-2", 14)

    assert (second["id"], second["deliveries"]) == (command.id, 2)
    assert commands.get(command.id).agent_id == "agent-2"
    runs = list(SyncRun.select().order_by(SyncRun.id))
    assert [(r.status, r.error) for r in runs] == [("failed", "lease of agent agent-1 expired"),
                                                   ("running", None)]
    # The first agent's reports now answer 409: the command was delivered again.
    with pytest.raises(Conflict):
        dispatcher.held(command.id, None, "agent-1", None)
    with pytest.raises(Conflict):
        dispatcher.held(command.id, None, None, 1)
    assert dispatcher.held(command.id, None, "agent-2", 2).id == command.id


def test_the_periodic_expiry_requeues_and_after_max_deliveries_fails(queue, clock):
    dispatcher, commands = queue
    command = commands.enqueue("refresh", {"jql": "key = A-1"})[0]
    for delivery in (1, 2, 3):
        [claimed] = dispatcher.claim(f"agent-{delivery}", 14)
        assert claimed["deliveries"] == delivery
        clock.advance(LEASE + 1)
        counts = dispatcher.expire_leases()
        assert counts == ({"requeued": 1, "failed": 0} if delivery < 3 else {"requeued": 0, "failed": 1})

    final = commands.get(command.id)
    assert final.status == "failed"
    assert "lease expired on delivery 3 of 3 (HUB_MAX_DELIVERIES)" in final.error
    assert dispatcher.claim("agent-9", 14) == []


def test_heartbeats_and_reports_extend_the_lease(queue, clock):
    dispatcher, commands = queue
    command = commands.enqueue("refresh", {"jql": "key = A-1"})[0]
    dispatcher.claim("agent-1", 14)
    for _ in range(5):
        clock.advance(LEASE - 10)
        dispatcher.heartbeat("agent-1", 14)
        assert dispatcher.expire_leases() == {"requeued": 0, "failed": 0}
    clock.advance(LEASE - 10)
    dispatcher.held(command.id, None, "agent-1", 1)  # a report extends it too
    clock.advance(LEASE - 10)
    assert dispatcher.expire_leases() == {"requeued": 0, "failed": 0}
    assert commands.get(command.id).status == "claimed"


def test_a_late_report_before_expiry_ran_is_still_accepted(queue, clock):
    """Past its lease but not yet taken back, the command is still the agent's."""
    dispatcher, commands = queue
    command = commands.enqueue("refresh", {"jql": "key = A-1"})[0]
    dispatcher.claim("agent-1", 14)
    clock.advance(LEASE * 2)
    held = dispatcher.held(command.id, None, "agent-1", 1)
    assert held.lease_until == "2026-11-02T09:03:00+00:00"


def test_expiry_task_runs_through_huey(queue, clock):
    """The periodic task calls the same service (Huey in immediate mode)."""
    from worker import tasks

    dispatcher, commands = queue
    commands.enqueue("refresh", {"jql": "key = A-1"})[0]
    dispatcher.claim("agent-1", 14)
    Command.update(lease_until="2000-01-01T00:00:00+00:00").execute()

    assert tasks.expire_leases.call_local() == {"requeued": 1, "failed": 0}
    assert Command.get().status == "queued"


def test_claims_over_http_with_a_short_real_lease(make_hub):
    """End to end with real time: a 1 s lease runs out and the next claim takes it over."""
    from hub.clock import Clock

    hub = make_hub(clock=Clock(), lease_seconds=1)
    client, headers = hub.client, hub.headers("agent")
    hub.api("POST", "/api/v1/commands", {"type": "refresh", "params": {"jql": "key = A-1"}})
    first = client.simulate_post("/agent/v1/claim", json={"agent_id": "a1", "version": 14}, headers=headers)
    assert first.json["commands"][0]["deliveries"] == 1

    def claim_again():
        return client.simulate_post("/agent/v1/claim", json={"agent_id": "a2", "version": 14},
                                    headers=headers).json["commands"]

    # Nothing to claim until the lease runs out, then the same command again.
    [second] = wait_until(claim_again, timeout=10, every=0.1, message="the lease running out")
    assert second["deliveries"] == 2
    late = client.simulate_post(f"/agent/v1/commands/{first.json['commands'][0]['id']}/done",
                                json={"delivery": 1, "result": {"total": 0}}, headers=headers)
    assert late.status_code == 409
