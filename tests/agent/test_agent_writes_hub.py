"""Writes through a real hub: queued by the hub's own write service (as its write routes queue
them), claimed by the reference agent running its loop over HTTP, applied to the fake Jira once,
the issue's fresh state loaded into the mirror, and the outcome recorded on the write's row."""

from __future__ import annotations

import json
import threading
import time

import pytest

from agent.jira_writes import MARKER
from demo.fakejira import FakeJira
from hub.clock import Clock
from hub.config import Config
from tests.support import (
    added_tokens,
    call,
    hub_config,
    looping_agent,
    prepared_hub,
    quick_runner,
    start,
    stop,
    wait_for_line,
)
from tests.support.engine_rows import rows
from tests.support.hubs import built_services

pytestmark = pytest.mark.backends("sqlite", "postgresql")


def asked(config: Config, op: str, key: str | None, params: dict, base: dict | None = None) -> int:
    """A write ``alice`` (an admin, who may write) asks for, queued by the hub's write service."""
    from hub.db import open_hub_database
    from hub.services.access.tokens import Principal
    from hub.services.writes.service import WriteService

    db = open_hub_database(config)
    try:
        [(token_id,)] = rows(config, "SELECT id FROM token WHERE name = 'alice'")
        writes = WriteService(built_services(config).commands, Clock())
        shown, _ = writes.request(op, key, params, Principal(token_id, "alice", "admin"), base=base)
        return shown.id
    finally:
        db.close()


def settled(config: Config, write_id: int) -> tuple:
    """The write's row once its outcome is recorded: (status, result, error, conflict)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        [row] = rows(config, f"SELECT status, result, error, conflict FROM write WHERE id = {write_id}")
        if row[0] != "pending":
            return row
        time.sleep(0.2)
    raise AssertionError(f"write {write_id} still pending")


@pytest.fixture
def world(tmp_path, database_url):
    """A hub mirroring AURORA-1 and AURORA-2, the fake Jira, and the reference agent looping (two
    commands at once: a write held while Jira is away leaves a slot free to claim another)."""
    with looping_agent(tmp_path / "data", database_url, "agent-writes", concurrency=2) as (_url, config, _ui, jira):
        added_tokens(config, ("alice", "admin"))
        yield config, jira


def decoded(value):
    return json.loads(value) if isinstance(value, str) else value


def test_a_comment_the_hub_queued_is_in_jira_once_and_in_the_mirror_when_its_outcome_is_recorded(world):
    config, jira = world
    write_id = asked(config, "comment", "AURORA-1", {"body": "**Looks** good", "format": "markdown"})
    status, result, error, conflict = settled(config, write_id)
    [made] = jira.issues["AURORA-1"]["fields"]["comment"]["comments"]
    assert (status, decoded(result), error, conflict) == ("done", {"comment_id": made["id"]}, None, None)
    assert made["body"] == "*Looks* good\n\n— alice, via sdlc-hub"  # Markdown made wiki by the hub
    assert jira.writes.comment_properties[made["id"]][MARKER] == {"write": write_id}
    assert rows(config, "SELECT comment_id FROM issue_comment WHERE key = 'AURORA-1'") == [(made["id"],)]


def test_a_transition_from_a_status_jira_no_longer_shows_is_a_conflict_and_the_mirror_learns_the_status(world):
    config, jira = world
    jira.issues["AURORA-1"]["fields"]["status"] = {"name": "In Progress"}  # moved in Jira since the refresh
    write_id = asked(config, "transition", "AURORA-1", {"to": "Resolved", "fields": {"resolution": "Fixed"}})
    status, result, _error, conflict = settled(config, write_id)
    assert status == "conflict" and result is None
    assert decoded(conflict) == {"status": {"base": "Open", "jira": "In Progress"}}
    assert rows(config, "SELECT status FROM issue WHERE key = 'AURORA-1'") == [("In Progress",)]


def test_an_edit_jira_refuses_is_failed_in_jiras_words_and_writes_nothing(world):
    config, jira = world
    # A due date Jira cannot parse: the hub does not check dates, Jira does.
    write_id = asked(config, "edit", "AURORA-2", {"fields": {"duedate": "someday"}})
    status, _result, error, _conflict = settled(config, write_id)
    assert status == "failed" and error.startswith("duedate: ")
    assert jira.issues["AURORA-2"]["fields"].get("duedate") != "someday"


def test_two_writes_to_one_issue_reach_jira_in_the_order_they_were_made(world):
    config, jira = world
    first = asked(config, "transition", "AURORA-2", {"to": "In Progress"})
    second = asked(config, "transition", "AURORA-2", {"to": "Resolved", "fields": {"resolution": "Fixed"}},
                   base={"status": "In Progress"})
    assert settled(config, first)[0] == "done" and settled(config, second)[0] == "done"
    assert jira.issues["AURORA-2"]["fields"]["status"]["name"] == "Resolved"


class Killed(BaseException):
    """The agent's process dies here: nothing after it is sent."""


def test_a_write_whose_agent_died_after_jira_took_it_is_redelivered_and_found_not_applied_twice(
        tmp_path, database_url):
    data_dir = tmp_path / "data"
    agent_token, interface = prepared_hub(data_dir, database_url)
    config = hub_config(data_dir, database_url)
    added_tokens(config, ("alice", "admin"))
    # A short lease: the dead agent's command is back in the queue within seconds.
    hub = start("serve", data_dir=data_dir, database_url=database_url, HUB_LEASE_SECONDS="3")
    jira = FakeJira().start()
    jira.add_issue("AURORA-1", labels=["AWPCA"])
    dead = runner = thread = None
    try:
        url = wait_for_line(hub, r"serving on (http://\S+)").group(1)
        dead = quick_runner(url, agent_token, jira, "agent-dies")
        refresh = call(url, interface, "/api/v1/commands", {"type": "refresh"})
        [claimed] = dead.hub.claim(limit=1, wait=5).commands
        assert claimed.id == refresh["id"]
        dead._execute(claimed, threading.Semaphore(0))

        write_id = asked(config, "comment", "AURORA-1", {"body": "once"})
        [claimed] = dead.hub.claim(limit=1, wait=5).commands
        assert claimed.type == "write" and claimed.delivery == 1

        def killed(*args, **kwargs):
            raise Killed("the agent died after Jira took the comment")

        dead.hub.state = killed  # type: ignore[method-assign]
        with pytest.raises(Killed):
            dead._execute(claimed, threading.Semaphore(0))
        assert len(jira.issues["AURORA-1"]["fields"]["comment"]["comments"]) == 1

        runner = quick_runner(url, agent_token, jira, "agent-lives", claim_wait=1)
        thread = threading.Thread(target=runner.run, name="agent-loop", daemon=True)
        thread.start()
        status, result, _error, _conflict = settled(config, write_id)
        [made] = jira.issues["AURORA-1"]["fields"]["comment"]["comments"]
        assert (status, decoded(result)) == ("done", {"comment_id": made["id"]})
        assert rows(config, f"SELECT deliveries FROM command WHERE id = {claimed.id}") == [(2,)]
    finally:
        if runner is not None:
            runner.stop()
        if thread is not None:
            thread.join(timeout=30)
        jira.stop()
        assert stop(hub) == 0


def test_writes_asked_while_the_agent_knows_jira_is_away_stay_pending_in_the_hub_and_go_once_it_answers(world):
    config, jira = world
    jira.down = True
    # The first write meets Jira away: its agent holds it and waits (applying), never failing it.
    first = asked(config, "comment", "AURORA-1", {"body": "first"})
    deadline = time.monotonic() + 30
    while command_of(config, first) != "claimed":
        assert time.monotonic() < deadline, "the first write was not taken"
        time.sleep(0.2)
    # Once the agent knows Jira away (it tells the hub at once), and its claim then waiting has ended
    # (1 s), it claims no more writes: the next waits in the hub, shown pending.
    deadline = time.monotonic() + 30
    while '"reachable": false' not in "".join(
            v for (v,) in rows(config, "SELECT value FROM setting WHERE key = 'agent_jira:agent-writes'")):
        assert time.monotonic() < deadline, "the agent did not tell the hub Jira is away"
        time.sleep(0.2)
    time.sleep(1.5)
    second = asked(config, "comment", "AURORA-2", {"body": "second"})
    for _ in range(20):
        assert command_of(config, second) == "queued"
        time.sleep(0.25)
    jira.down = False
    assert settled(config, first)[0] == "done" and settled(config, second)[0] == "done"
    for key in ("AURORA-1", "AURORA-2"):
        assert len(jira.issues[key]["fields"]["comment"]["comments"]) == 1


def command_of(config: Config, write_id: int) -> str:
    [(status,)] = rows(config, f"SELECT c.status FROM write w JOIN command c ON c.id = w.command_id "
                               f"WHERE w.id = {write_id}")
    return status
