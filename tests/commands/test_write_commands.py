"""The ``write`` command kind on the command table: who is given it, in what order, what a lost
lease does to it, and what its agent's reports record on the write (docs/writes.md)."""

from __future__ import annotations

import pytest

from hub.services.access.tokens import Principal
from hub.services.writes.service import WriteService
from tests.support.hubs import MovableClock
from tests.support.protocol import claim, issue, load, report

pytestmark = pytest.mark.backends("sqlite", "postgresql")

ALICE = Principal(token_id=None, name="alice", role="interface")  # type: ignore[arg-type]


def writes(hub) -> WriteService:
    return WriteService(hub.built.services.commands, hub.clock)


def mirrored(hub, *keys: str) -> None:
    load(hub, [issue(key, status="Open") for key in keys], version=19)


def test_an_agent_below_v19_is_never_given_a_write(hub):
    mirrored(hub, "AURORA-1")
    writes(hub).request("comment", "AURORA-1", {"body": "hello"}, ALICE)

    assert claim(hub, version=18) == []
    [command] = claim(hub, version=19)
    assert command["type"] == "write"
    assert command["params"]["op"] == "comment"
    assert command["params"]["key"] == "AURORA-1"
    assert command["params"]["params"] == {"body": "hello"}
    assert command["params"]["requested_by"] == "alice"


def test_writes_to_one_issue_are_claimed_one_at_a_time_in_the_order_made(hub):
    mirrored(hub, "AURORA-1", "AURORA-2")
    service = writes(hub)
    first, _ = service.request("comment", "AURORA-1", {"body": "one"}, ALICE)
    second, _ = service.request("comment", "AURORA-1", {"body": "two"}, ALICE)
    other, _ = service.request("comment", "AURORA-2", {"body": "elsewhere"}, ALICE)

    taken = claim(hub, version=19, limit=5)
    assert [c["params"]["write_id"] for c in taken] == [first.id, other.id]
    assert claim(hub, agent_id="agent-2", version=19, limit=5) == []

    assert report(hub, taken[0]["id"], "done", {"result": {"outcome": "done", "result": {"comment_id": "7"}}}
                  ).status_code == 200
    [later] = claim(hub, agent_id="agent-2", version=19, limit=5)
    assert later["params"]["write_id"] == second.id


def test_a_write_is_shown_pending_then_applying_then_done_with_what_jira_made(hub):
    mirrored(hub, "AURORA-1")
    service = writes(hub)
    write, created = service.request("comment", "AURORA-1", {"body": "hello"}, ALICE)
    assert created and write.status == "pending" and write.command_id is not None

    [command] = claim(hub, version=19)
    assert service.get(write.id).status == "applying"
    assert [w.id for w in service.pending_for("AURORA-1")] == [write.id]

    state = issue("AURORA-1", status="Open", comments=[{"id": "7", "author": "alice", "body": "hello"}])
    assert report(hub, command["id"], "state", {"issues": [state], "neighbors": []}).status_code == 200
    done = report(hub, command["id"], "done", {"result": {"outcome": "done", "result": {"comment_id": "7"}}})
    assert done.status_code == 200, done.json

    shown = service.get(write.id)
    assert (shown.status, shown.result, shown.error) == ("done", {"comment_id": "7"}, None)
    assert service.pending_for("AURORA-1") == []
    comments = hub.api("GET", "/api/v1/issues/AURORA-1/comments").json["items"]
    assert [c["body"] for c in comments] == ["hello"]


def test_jiras_refusal_ends_the_write_failed_in_jiras_words(hub):
    mirrored(hub, "AURORA-1")
    service = writes(hub)
    write, _ = service.request("transition", "AURORA-1", {"to": "Resolved"}, ALICE)
    [command] = claim(hub, version=19)
    words = "resolution: Resolution is required. (allowed: Fixed, Won't Fix)"
    assert report(hub, command["id"], "done",
                  {"result": {"outcome": "failed", "error": words}}).status_code == 200

    shown = service.get(write.id)
    assert (shown.status, shown.error) == ("failed", words)
    assert shown.base == {"status": "Open"}


def test_a_conflict_keeps_each_fields_base_and_jiras_value(hub):
    mirrored(hub, "AURORA-1")
    service = writes(hub)
    write, _ = service.request("edit", "AURORA-1", {"fields": {"summary": "New"}}, ALICE)
    assert write.base == {"summary": "Summary AURORA-1"}
    [command] = claim(hub, version=19)
    conflict = {"summary": {"base": "Summary AURORA-1", "jira": "Changed in Jira"}}
    assert report(hub, command["id"], "done",
                  {"result": {"outcome": "conflict", "conflict": conflict}}).status_code == 200

    shown = service.get(write.id)
    assert (shown.status, shown.conflict) == ("conflict", conflict)


def test_a_done_without_an_outcome_is_refused_and_the_write_stays_applying(hub):
    mirrored(hub, "AURORA-1")
    service = writes(hub)
    write, _ = service.request("comment", "AURORA-1", {"body": "hello"}, ALICE)
    [command] = claim(hub, version=19)

    resp = report(hub, command["id"], "done", {"result": {"outcome": "finished", "result": {"comment_id": "7"}}})
    assert resp.status_code == 422
    assert service.get(write.id).status == "applying"


def test_a_write_its_agent_refuses_shows_failed_with_the_agents_reason(hub):
    mirrored(hub, "AURORA-1")
    service = writes(hub)
    write, _ = service.request("comment", "AURORA-1", {"body": "hello"}, ALICE)
    [command] = claim(hub, version=19)
    reason = "this agent writes only transition (--writes)"
    assert report(hub, command["id"], "failed", {"error": reason}).status_code == 200

    shown = service.get(write.id)
    assert (shown.status, shown.error) == ("failed", reason)
    assert [w.id for w in service.list(status="failed")["items"]] == [write.id]


def test_a_write_whose_lease_runs_out_past_the_delivery_limit_is_queued_again(make_hub):
    clock = MovableClock()
    hub = make_hub(clock=clock, max_deliveries=2, lease_seconds=60)
    mirrored(hub, "AURORA-1")
    service = writes(hub)
    write, _ = service.request("comment", "AURORA-1", {"body": "hello"}, ALICE)

    for delivery in range(1, 5):
        [command] = claim(hub, version=19)
        assert command["deliveries"] == delivery
        clock.advance(61)
        hub.built.services.dispatcher.expire_leases()
        assert service.get(write.id).status == "pending"


def test_a_write_is_not_enqueued_through_post_commands(hub):
    resp = hub.api("POST", "/api/v1/commands", {"type": "write", "params": {}})
    assert resp.status_code == 422
    assert resp.json["field"] == "type"


def test_a_write_to_an_issue_the_mirror_does_not_hold_is_refused_naming_the_key(hub):
    from hub.errors import ContractError

    with pytest.raises(ContractError) as refused:
        writes(hub).request("comment", "AURORA-404", {"body": "hello"}, ALICE)
    assert refused.value.extra["field"] == "key"


def test_a_pending_write_cancelled_is_never_given_to_an_agent(hub):
    mirrored(hub, "AURORA-1")
    service = writes(hub)
    write, _ = service.request("comment", "AURORA-1", {"body": "hello"}, ALICE)
    assert service.cancel(write.id).status == "cancelled"
    assert claim(hub, version=19) == []


def test_a_failed_write_retried_is_queued_again_under_the_same_id(hub):
    mirrored(hub, "AURORA-1")
    service = writes(hub)
    write, _ = service.request("comment", "AURORA-1", {"body": "hello"}, ALICE)
    [command] = claim(hub, version=19)
    report(hub, command["id"], "done", {"result": {"outcome": "failed", "error": "Jira said no"}})

    again = service.retry(write.id, ALICE)
    assert (again.id, again.status, again.error) == (write.id, "pending", None)
    assert again.command_id != command["id"]
    [retried] = claim(hub, version=19)
    assert retried["params"]["write_id"] == write.id


def test_a_heartbeat_naming_what_it_holds_leaves_the_rest_of_its_agent_ids_leases_to_run_out(make_hub):
    clock = MovableClock()
    hub = make_hub(clock=clock, lease_seconds=60)
    mirrored(hub, "AURORA-1", "AURORA-2")
    service = writes(hub)
    kept, _ = service.request("comment", "AURORA-1", {"body": "kept"}, ALICE)
    orphan, _ = service.request("comment", "AURORA-2", {"body": "orphaned"}, ALICE)
    held = {c["params"]["write_id"]: c["id"] for c in claim(hub, version=19, limit=2)}

    # A process started anew under the same agent id runs only the first.
    for _ in range(3):
        clock.advance(40)
        beat = hub.agent("POST", "/agent/v1/heartbeat",
                         {"agent_id": "agent-1", "version": 19, "holding": [held[kept.id]]})
        assert beat.status_code == 200, beat.json
        hub.built.services.dispatcher.expire_leases()

    assert service.get(kept.id).status == "applying"
    assert service.get(orphan.id).status == "pending"
    [again] = claim(hub, agent_id="agent-2", version=19)
    assert (again["params"]["write_id"], again["deliveries"]) == (orphan.id, 2)
