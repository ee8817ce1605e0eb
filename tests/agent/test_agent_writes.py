"""The agent's ``write`` kind (protocol v19) against the fake Jira over HTTP: each operation applied
with its marker, the issue's fresh state sent before ``done``, Jira's refusals in its own words,
conflicts with the maker's ``base``, and exactly once under lost answers, redeliveries and an
agent killed after Jira took the write.

The hub is a recording stand-in for the agent's HubClient (what the agent sends it is the subject
here; the hub's own side of the kind is tested with the hub); Jira is the real fake, over HTTP.
"""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime

import pytest

from agent import mapping
from agent.config import AgentConfig
from agent.hub_client import Command
from agent.jira_writes import MARKER
from agent.retry import Backoff, GaveUp
from agent.runner import Runner
from demo.fakejira import FakeJira


class Killed(BaseException):
    """The agent's process dies here: nothing after it is sent."""


class RecordingHub:
    """What the agent sends the hub about its commands, recorded; ``uploads`` are the attach files."""

    def __init__(self) -> None:
        self.stopping = threading.Event()
        self.calls: list[tuple[str, int, object]] = []
        self.uploads: dict[int, bytes] = {}
        self.die_at: str | None = None

    def _record(self, what: str, command: Command, body: object) -> dict:
        if self.die_at == what:
            raise Killed(what)
        self.calls.append((what, command.id, body))
        return {}

    def state(self, command, issues, neighbors, catalogues=None, **more) -> dict:
        return self._record("state", command, {"issues": issues, "neighbors": neighbors, **more})

    def done(self, command, result) -> dict:
        return self._record("done", command, result)

    def failed(self, command, error) -> dict:
        return self._record("failed", command, error)

    def get_file(self, command, path) -> int:
        with open(path, "wb") as out:
            out.write(self.uploads[command.id])
        return len(self.uploads[command.id])

    def heartbeat(self, *args, **kwargs) -> list[int]:
        return []

    def ended(self, command_id: int) -> tuple[str, object]:
        return next((what, body) for what, cid, body in self.calls if cid == command_id and what in ("done", "failed"))


@pytest.fixture
def jira():
    jira = FakeJira().start()
    jira.add_issue("AURORA-1", summary="Cards list", labels=["AWPCA"])
    jira.add_issue("AURORA-2", labels=["AWPCA"])
    jira.add_issue("OTHER-1")
    try:
        yield jira
    finally:
        jira.stop()


def agent(jira: FakeJira, **settings) -> tuple[Runner, RecordingHub]:
    """A runner (not looping) whose hub is recorded and whose Jira is the fake, retrying at once."""
    hub = RecordingHub()
    runner = Runner(AgentConfig(hub_url="http://127.0.0.1:9", hub_token="t", jira_url=jira.url,
                                jira_token=jira.token, agent_id="agent-writes", **settings), hub=hub)  # type: ignore[arg-type]
    runner.jira.backoff = Backoff(first=0.05, longest=0.2, attempts=3)
    runner.time_zone = "Europe/Moscow"
    runner.custom = mapping.find_custom_fields(runner.jira.fields())
    return runner, hub


_ids = iter(range(1, 10_000))


def write(op: str, key: str | None, params: dict, *, base: dict | None = None, by: str = "alice",
          delivery: int = 1, write_id: int | None = None, file: dict | None = None) -> Command:
    """A claimed ``write`` command as the hub builds it."""
    wid = write_id or next(_ids)
    body = {"write_id": wid, "op": op, "key": key, "project": params.get("project"), "params": params,
            "base": base, "requested_by": by, "created_at": datetime.now(UTC).replace(microsecond=0).isoformat()}
    if file:
        body["file"] = file
    return Command(id=wid, type="write", params=body, delivery=delivery)


def run(runner: Runner, command: Command) -> None:
    slots = threading.Semaphore(0)
    runner._execute(command, slots)


def outcome(hub: RecordingHub, command: Command) -> dict:
    what, body = hub.ended(command.id)
    assert what == "done", body
    assert isinstance(body, dict)
    return body


def comments(jira: FakeJira, key: str) -> list[dict]:
    return jira.issues[key]["fields"]["comment"]["comments"]


# --- each operation ----------------------------------------------------------------------------


def test_a_comment_is_posted_with_its_marker_and_the_issues_fresh_state_goes_before_done(jira):
    runner, hub = agent(jira)
    command = write("comment", "AURORA-1", {"body": "Looks *good*"})
    run(runner, command)
    done = outcome(hub, command)
    [made] = comments(jira, "AURORA-1")
    assert done == {"outcome": "done", "result": {"comment_id": made["id"]}, "error": None, "conflict": None}
    assert made["body"] == "Looks *good*\n\n— alice, via sdlc-hub"  # the agent's own credentials made it
    assert jira.writes.comment_properties[made["id"]][MARKER] == {"write": command.params["write_id"]}
    kinds = [what for what, cid, _ in hub.calls if cid == command.id]
    assert kinds == ["state", "done"]
    [state] = hub.calls[0][2]["issues"]  # type: ignore[index]
    assert state["key"] == "AURORA-1" and [c["id"] for c in state["comments"]] == [made["id"]]
    assert {t["to"] for t in state["transitions"]} >= {"In Progress", "Resolved"}
    assert state["edit_fields"]["summary"]["name"] == "Summary"


def test_a_comment_by_a_requester_with_a_jira_token_is_theirs_and_carries_no_attribution(jira, tmp_path):
    jira.user_tokens = {"pat-alice": "alice"}
    runner, hub = agent(jira, jira_user_tokens={"alice": "pat-alice"})
    command = write("comment", "AURORA-1", {"body": "Mine"})
    run(runner, command)
    outcome(hub, command)
    [made] = comments(jira, "AURORA-1")
    assert made["author"]["name"] == "alice" and made["body"] == "Mine"


def test_no_attribution_leaves_the_body_as_written(jira):
    runner, hub = agent(jira, attribution=False)
    run(runner, command := write("comment", "AURORA-1", {"body": "Plain"}))
    outcome(hub, command)
    assert comments(jira, "AURORA-1")[0]["body"] == "Plain"


def test_a_transition_named_by_its_target_status_is_made_with_its_screens_fields(jira):
    runner, hub = agent(jira)
    command = write("transition", "AURORA-1", {"to": "Resolved", "fields": {"resolution": "Fixed"}},
                    base={"status": "Open"})
    run(runner, command)
    done = outcome(hub, command)
    assert done["outcome"] == "done" and done["result"] == {"transition": "5"}
    fields = jira.issues["AURORA-1"]["fields"]
    assert fields["status"]["name"] == "Resolved" and fields["resolution"]["name"] == "Fixed"


@pytest.mark.parametrize("lost", [None, r"/transitions$", r"/comment$"])
def test_a_transitions_comment_lands_once_with_its_marker_even_where_the_transition_has_no_screen(jira, lost):
    # Start Progress has no screen: Jira would drop a comment sent in the transition's update.
    runner, hub = agent(jira)
    if lost:
        jira.faults = [("lose_answer", "POST", lost)]
    command = write("transition", "AURORA-1", {"to": "In Progress", "comment": "Starting now"},
                    base={"status": "Open"})
    run(runner, command)
    done = outcome(hub, command)
    [made] = comments(jira, "AURORA-1")
    assert made["body"].startswith("Starting now")
    assert done["outcome"] == "done" and done["result"]["comment_id"] == made["id"]
    assert jira.writes.comment_properties[made["id"]][MARKER] == {"write": command.params["write_id"]}
    assert jira.issues["AURORA-1"]["fields"]["status"]["name"] == "In Progress"


def test_a_transition_jira_refuses_fails_in_jiras_words_with_what_the_field_allows(jira):
    runner, hub = agent(jira)
    command = write("transition", "AURORA-1", {"to": "Resolve Issue"})  # the screen requires a resolution
    run(runner, command)
    done = outcome(hub, command)
    assert done["outcome"] == "failed" and done["result"] is None
    assert done["error"].startswith("resolution: ") and "(allowed: Fixed, " in done["error"]
    assert jira.issues["AURORA-1"]["fields"]["status"]["name"] == "Open"


def test_a_transition_not_open_from_the_status_fails_naming_the_open_ones(jira):
    runner, hub = agent(jira)
    run(runner, command := write("transition", "AURORA-1", {"to": "Done"}))
    done = outcome(hub, command)
    assert done["outcome"] == "failed" and "no transition to 'Done' is open on AURORA-1" in done["error"]
    assert "Start Progress (to In Progress)" in done["error"]


def test_a_transition_whose_base_status_is_stale_is_a_conflict_and_nothing_is_written(jira):
    runner, hub = agent(jira)
    command = write("transition", "AURORA-1", {"to": "In Progress"}, base={"status": "Reopened"})
    run(runner, command)
    done = outcome(hub, command)
    assert done == {"outcome": "conflict", "result": None, "error": None,
                    "conflict": {"status": {"base": "Reopened", "jira": "Open"}}}
    assert jira.issues["AURORA-1"]["fields"]["status"]["name"] == "Open"


def test_an_edit_sets_and_adds_in_jiras_shapes(jira):
    runner, hub = agent(jira)
    command = write("edit", "AURORA-1", {"fields": {"summary": "Cards grid", "priority": "Minor",
                                                    "labels": {"add": ["ui"], "remove": ["AWPCA"]}}},
                    base={"summary": "Cards list", "priority": "Major"})
    run(runner, command)
    done = outcome(hub, command)
    assert done["outcome"] == "done" and done["result"] == {"fields": ["labels", "priority", "summary"]}
    fields = jira.issues["AURORA-1"]["fields"]
    assert (fields["summary"], fields["priority"]["name"], fields["labels"]) == ("Cards grid", "Minor", ["ui"])


def test_an_edit_with_one_stale_field_writes_no_field_at_all(jira):
    runner, hub = agent(jira)
    jira.issues["AURORA-1"]["fields"]["priority"] = {"name": "Critical"}
    command = write("edit", "AURORA-1", {"fields": {"summary": "Cards grid", "priority": "Minor"}},
                    base={"summary": "Cards list", "priority": "Major"})
    run(runner, command)
    done = outcome(hub, command)
    assert done["outcome"] == "conflict" and done["conflict"] == {"priority": {"base": "Major", "jira": "Critical"}}
    assert jira.issues["AURORA-1"]["fields"]["summary"] == "Cards list"


def test_a_field_jira_does_not_know_fails_the_edit_naming_it(jira):
    runner, hub = agent(jira)
    run(runner, command := write("edit", "AURORA-1", {"fields": {"Velocity": 3}}))
    done = outcome(hub, command)
    assert done["outcome"] == "failed" and done["error"] == "Jira has no field 'Velocity'"


def test_a_link_is_made_from_the_issue_and_removed_by_its_id(jira):
    runner, hub = agent(jira)
    run(runner, command := write("link", "AURORA-1", {"type": "Blocks", "outward": "AURORA-2"}))
    done = outcome(hub, command)
    link_id = done["result"]["link_id"]
    [listed] = jira.issues["AURORA-1"]["fields"]["issuelinks"]
    assert listed["id"] == link_id and listed["outwardIssue"]["key"] == "AURORA-2"
    run(runner, removal := write("remove_link", "AURORA-1", {"link_id": link_id}))
    assert outcome(hub, removal)["outcome"] == "done"
    assert jira.issues["AURORA-1"]["fields"]["issuelinks"] == []


def test_a_new_issue_is_created_with_its_marker_and_its_state_sent(jira):
    runner, hub = agent(jira)
    command = write("create_issue", None, {"project": "AURORA", "issue_type": "Bug", "summary": "Crash"})
    run(runner, command)
    done = outcome(hub, command)
    key = done["result"]["key"]
    assert key.startswith("AURORA-") and jira.issues[key]["fields"]["summary"] == "Crash"
    assert jira.writes.issue_properties[jira.issues[key]["id"]][MARKER] == {"write": command.params["write_id"]}
    assert [s["key"] for what, _, body in hub.calls if what == "state" for s in body["issues"]] == [key]


def test_a_work_log_is_logged_then_marked(jira):
    runner, hub = agent(jira)
    run(runner, command := write("log_work", "AURORA-1", {"time_spent": "1h 30m", "comment": "review"}))
    done = outcome(hub, command)
    [logged] = jira.issues["AURORA-1"]["fields"]["worklog"]["worklogs"]
    assert done["result"] == {"worklog_id": logged["id"]} and logged["timeSpentSeconds"] == 5400
    assert jira.writes.worklog_properties[logged["id"]][MARKER] == {"write": command.params["write_id"]}


def test_an_upload_is_attached_from_the_hubs_file(jira):
    runner, hub = agent(jira)
    command = write("attach", "AURORA-1", {}, file={"sha256": "x", "size": 5, "filename": "схема.png",
                                                     "mime_type": "image/png"})
    hub.uploads[command.id] = b"\x89PNG!"
    run(runner, command)
    done = outcome(hub, command)
    [attached] = jira.issues["AURORA-1"]["fields"]["attachment"]
    assert done["result"] == {"attachment_id": attached["id"]} and attached["filename"] == "схема.png"
    assert jira.files[attached["id"]] == b"\x89PNG!"


# --- gates ------------------------------------------------------------------------------------


def test_an_operation_outside_writes_fails_the_command_with_the_reason(jira):
    runner, hub = agent(jira, writes=frozenset({"comment"}))
    run(runner, command := write("transition", "AURORA-1", {"to": "In Progress"}))
    assert hub.ended(command.id) == ("failed", "this agent does not apply transition writes (--writes: comment)")
    assert jira.issues["AURORA-1"]["fields"]["status"]["name"] == "Open"


def test_an_issue_outside_writes_jql_fails_the_command_and_a_new_issue_needs_a_matching_parent(jira):
    # The fake's JQL reads `id > N` beside a key (AURORA-1 is 10001, OTHER-1 10003): the gate asks Jira
    # `key = K AND (JQL)`, whatever the JQL says.
    runner, hub = agent(jira, writes_jql="id > 10002")
    run(runner, command := write("comment", "AURORA-1", {"body": "no"}))
    assert hub.ended(command.id) == ("failed", "AURORA-1 does not match this agent's --writes-jql 'id > 10002'")
    run(runner, orphan := write("create_issue", None, {"project": "OTHER", "issue_type": "Bug", "summary": "S"}))
    assert hub.ended(orphan.id)[0] == "failed" and "needs a parent" in str(hub.ended(orphan.id)[1])
    run(runner, allowed := write("comment", "OTHER-1", {"body": "yes"}))
    assert outcome(hub, allowed)["outcome"] == "done"
    assert comments(jira, "AURORA-1") == [] and len(comments(jira, "OTHER-1")) == 1


# --- exactly once -----------------------------------------------------------------------------


@pytest.mark.parametrize("fault", ["lose_answer", "gateway_timeout"])
def test_a_comment_whose_answer_was_lost_is_not_posted_twice(jira, fault):
    runner, hub = agent(jira)
    jira.faults = [(fault, "POST", r"/issue/AURORA-1/comment$")]
    run(runner, command := write("comment", "AURORA-1", {"body": "once"}))
    done = outcome(hub, command)
    [made] = comments(jira, "AURORA-1")
    assert done["outcome"] == "done" and done["result"] == {"comment_id": made["id"]}
    assert [f[0] for f in jira.writes.fired] == [fault]


def test_a_redelivered_comment_is_not_posted_twice(jira):
    runner, hub = agent(jira)
    first = write("comment", "AURORA-1", {"body": "once"})
    run(runner, first)
    again = Command(id=first.id, type="write", params=first.params, delivery=2)
    run(runner, again)
    [made] = comments(jira, "AURORA-1")
    assert [body["result"] for what, _, body in hub.calls if what == "done"] == [{"comment_id": made["id"]}] * 2


def test_an_agent_killed_after_jira_took_each_write_applies_none_twice_on_redelivery(jira):
    ops = [("comment", "AURORA-1", {"body": "once"}), ("log_work", "AURORA-1", {"time_spent": 600}),
           ("create_issue", None, {"project": "AURORA", "issue_type": "Task", "summary": "Once"}),
           ("link", "AURORA-1", {"type": "Relates", "outward": "AURORA-2"}),
           ("transition", "AURORA-2", {"to": "In Progress"}),
           ("edit", "AURORA-2", {"fields": {"summary": "Once"}})]
    for op, key, params in ops:
        killed, hub = agent(jira)
        hub.die_at = "state"  # Jira took it; the agent dies before the hub hears of it
        command = write(op, key, params, base={"status": "Open"} if op == "transition" else
                        {"summary": "Summary AURORA-2"} if op == "edit" else None)
        with pytest.raises(Killed):
            killed._execute(command, threading.Semaphore(0))
        other, hub = agent(jira)
        run(other, Command(id=command.id, type="write", params=command.params, delivery=2))
        assert outcome(hub, command)["outcome"] == "done", op
    assert len(comments(jira, "AURORA-1")) == 1
    assert len(jira.issues["AURORA-1"]["fields"]["worklog"]["worklogs"]) == 1
    onces = [k for k in jira.issues if jira.issues[k]["fields"]["summary"] == "Once"]
    assert len(onces) == 2 and "AURORA-2" in onces  # the edited issue and the one created
    assert len(jira.issues["AURORA-1"]["fields"]["issuelinks"]) == 1
    assert jira.issues["AURORA-2"]["fields"]["status"]["name"] == "In Progress"


def test_a_work_log_whose_answer_was_lost_is_found_by_its_fields_and_marked(jira):
    runner, hub = agent(jira)
    jira.faults = [("lose_answer", "POST", r"/issue/AURORA-1/worklog$")]
    run(runner, command := write("log_work", "AURORA-1", {"time_spent": "2h", "comment": "pairing"}))
    done = outcome(hub, command)
    [logged] = jira.issues["AURORA-1"]["fields"]["worklog"]["worklogs"]
    assert done["result"] == {"worklog_id": logged["id"]}
    assert jira.writes.worklog_properties[logged["id"]][MARKER] == {"write": command.params["write_id"]}


@pytest.mark.parametrize("fault", ["lose_answer", "gateway_timeout"])
def test_a_new_issue_whose_answer_was_lost_is_found_by_its_marker_not_created_twice(jira, fault):
    runner, hub = agent(jira)
    jira.faults = [(fault, "POST", r"/rest/api/2/issue$")]
    before = len(jira.issues)
    command = write("create_issue", None, {"project": "AURORA", "issue_type": "Bug", "summary": "Crash"})
    run(runner, command)
    done = outcome(hub, command)
    assert len(jira.issues) == before + 1 and done["result"]["key"] in jira.issues


def test_lost_answers_to_a_transition_an_edit_a_link_and_an_attachment_apply_each_once(jira):
    runner, hub = agent(jira)
    jira.faults = [("lose_answer", "POST", r"/transitions$"), ("gateway_timeout", "PUT", r"/issue/AURORA-2$"),
                   ("lose_answer", "POST", r"/issueLink$"), ("lose_answer", "POST", r"/attachments$")]
    commands = [write("transition", "AURORA-1", {"to": "In Progress"}, base={"status": "Open"}),
                write("edit", "AURORA-2", {"fields": {"summary": "Edited"}}, base={"summary": "Summary AURORA-2"}),
                write("link", "AURORA-1", {"type": "Blocks", "outward": "AURORA-2"}),
                write("attach", "AURORA-1", {}, file={"sha256": "x", "size": 3, "filename": "a.txt",
                                                       "mime_type": "text/plain"})]
    hub.uploads[commands[-1].id] = b"abc"
    for command in commands:
        run(runner, command)
        assert outcome(hub, command)["outcome"] == "done", command.params["op"]
    assert len(jira.writes.fired) == 4
    fields = jira.issues["AURORA-1"]["fields"]
    assert fields["status"]["name"] == "In Progress" and jira.issues["AURORA-2"]["fields"]["summary"] == "Edited"
    assert len(fields["issuelinks"]) == 1 and len(fields["attachment"]) == 1


# --- Jira away ------------------------------------------------------------------------------------


def test_a_write_waits_while_jira_is_away_and_is_applied_once_it_answers(jira):
    runner, hub = agent(jira)
    jira.down = True
    command = write("comment", "AURORA-1", {"body": "patient"})
    worker = threading.Thread(target=run, args=(runner, command))
    worker.start()
    time.sleep(1.5)  # several times what the retries of one request allow: the write is still held
    assert [what for what, cid, _ in hub.calls if cid == command.id] == []
    jira.down = False
    worker.join(timeout=30)
    assert outcome(hub, command)["outcome"] == "done" and len(comments(jira, "AURORA-1")) == 1


def test_a_write_waiting_on_jira_ends_on_a_cancel_without_a_report(jira):
    runner, hub = agent(jira)
    jira.down = "drop"
    command = write("comment", "AURORA-1", {"body": "never"})
    worker = threading.Thread(target=run, args=(runner, command))
    worker.start()
    time.sleep(0.5)
    with runner.lock:
        runner.cancelled.add(command.id)
    worker.join(timeout=30)
    assert not worker.is_alive() and hub.calls == []
    jira.down = False
    assert comments(jira, "AURORA-1") == []


def test_a_write_to_an_issue_jira_no_longer_has_fails_in_jiras_words(jira):
    runner, hub = agent(jira)
    jira.delete("AURORA-2")
    run(runner, command := write("edit", "AURORA-2", {"fields": {"summary": "x"}}, base={"summary": "y"}))
    done = outcome(hub, command)
    assert done["outcome"] == "failed" and "404" in done["error"]
    run(runner, comment := write("comment", "AURORA-2", {"body": "x"}))
    done = outcome(hub, comment)
    assert done["outcome"] == "failed" and done["error"] == "Issue Does Not Exist"
    assert [what for what, cid, _ in hub.calls if cid in (command.id, comment.id)] == ["done", "done"]


def test_a_redelivered_transition_named_by_its_name_is_known_done_by_the_changelog_not_made_twice(jira):
    killed, hub = agent(jira)
    hub.die_at = "state"
    command = write("transition", "AURORA-1", {"to": "Start Progress"}, base={"status": "Open"})
    with pytest.raises(Killed):
        killed._execute(command, threading.Semaphore(0))
    assert jira.issues["AURORA-1"]["fields"]["status"]["name"] == "In Progress"
    other, hub = agent(jira)
    run(other, Command(id=command.id, type="write", params=command.params, delivery=2))
    done = outcome(hub, command)
    assert done["outcome"] == "done" and done["result"] == {"transition": None}
    # From In Progress, "Start Progress" is not open: applied again, it would have failed, not moved on.
    assert jira.issues["AURORA-1"]["fields"]["status"]["name"] == "In Progress"


def test_a_hub_away_when_the_outcome_is_due_leaves_the_write_to_its_next_delivery_not_failed(jira):
    runner, hub = agent(jira)

    def away(command, result):
        raise GaveUp("hub unreachable: ConnectError")

    hub.done = away  # type: ignore[method-assign]
    run(runner, command := write("comment", "AURORA-1", {"body": "kept"}))
    assert [what for what, _, _ in hub.calls] == ["state"]  # no failed: the lease returns the command
    hub.done = RecordingHub.done.__get__(hub)  # type: ignore[method-assign]
    run(runner, Command(id=command.id, type="write", params=command.params, delivery=2))
    assert outcome(hub, command)["outcome"] == "done" and len(comments(jira, "AURORA-1")) == 1


# --- the meta the mirror keeps -----------------------------------------------------------------


def test_a_refresh_sends_each_issues_transitions_and_edit_screen_and_its_projects_create_screens_once(jira):
    from agent.handlers import refresh

    for n in range(3, 8):
        jira.add_issue(f"AURORA-{n}", labels=["AWPCA"])
    jira.max_results = 3  # three search pages
    runner, hub = agent(jira)
    jira.requests.clear()
    refresh.handle(runner, Command(id=1, type="refresh", params={"jql": "project = AURORA"}, delivery=1))
    pages = [body for what, _, body in hub.calls if what == "state"]
    assert len(pages) >= 3
    assert [e["issue_type"] for e in pages[0]["create_meta"]] == ["Bug", "Story", "Task", "Epic", "Sub-task"]
    assert all("create_meta" not in page for page in pages[1:])
    bug = pages[0]["create_meta"][0]["fields"]
    assert bug["summary"] == {"name": "Summary", "required": True, "type": "string", "operations": ["set"]}
    issues = [state for page in pages for state in page["issues"]]
    assert all(state["transitions"] and state["edit_fields"] for state in issues)
    start = next(t for t in issues[0]["transitions"] if t["name"] == "Start Progress")
    assert start == {"id": "4", "name": "Start Progress", "to": "In Progress", "fields": {}}
    resolve = next(t for t in issues[0]["transitions"] if t["name"] == "Resolve Issue")
    assert resolve["fields"]["resolution"]["required"] is True and "Fixed" in resolve["fields"]["resolution"]["allowed"]
    # The create screens cost their own requests once a run (their lists paged, as Jira pages them at
    # its maxResults); the transitions and edit screens came with the searches.
    screens = [path for _, path, _ in jira.requests if "createmeta" in path]
    assert len(set(screens)) == 1 + 5 and not any(path.endswith(("/transitions", "/editmeta"))
                                             for _, path, _ in jira.requests)


def test_a_writes_jql_gate_asked_while_jira_is_away_waits_for_jira_rather_than_failing_the_write(jira):
    runner, hub = agent(jira, writes_jql="id > 10000")
    jira.down = True
    command = write("comment", "AURORA-1", {"body": "gated"})
    worker = threading.Thread(target=run, args=(runner, command))
    worker.start()
    time.sleep(1.0)
    assert hub.calls == []
    jira.down = False
    worker.join(timeout=30)
    assert outcome(hub, command)["outcome"] == "done" and len(comments(jira, "AURORA-1")) == 1


def test_a_write_jira_did_not_take_is_sent_again_at_once_without_looking_for_its_marker(jira):
    runner, hub = agent(jira)
    jira.faults = [("unavailable", "POST", r"/issue/AURORA-1/comment$")]  # a proxy's 503: nothing applied
    run(runner, command := write("comment", "AURORA-1", {"body": "again"}))
    assert outcome(hub, command)["outcome"] == "done" and len(comments(jira, "AURORA-1")) == 1
    looked = [path for method, path, _ in jira.requests if method == "GET" and path.endswith("/comment")]
    assert looked == []  # a 503 is no lost answer: no marker to look for


def test_a_requesters_jira_token_jira_refuses_fails_their_write_not_the_agent(jira):
    runner, hub = agent(jira, jira_user_tokens={"alice": "pat-revoked"})
    run(runner, command := write("comment", "AURORA-1", {"body": "as alice"}))
    done = outcome(hub, command)
    assert done["outcome"] == "failed" and done["error"].startswith("Jira refused the token of alice: ")
    assert runner.status.problem is None and comments(jira, "AURORA-1") == []
