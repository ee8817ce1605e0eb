"""``hub mcp``'s tools that write to Jira: asked at a live hub's write routes, applied by the
reference agent against the fake Jira, and answered in words an assistant can act on."""

from __future__ import annotations

import json
import time
from contextlib import contextmanager

import anyio
import httpx
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

from hub.mcp.server import build_server
from tests.support import HUB, call, hub_config, looping_agent, seeded_hub
from tests.support.engine_rows import execute, rows
from tests.support.hubs import built_services
from tests.support.mcp_hub import TOOLS, WRITE_TOOLS, CountingTransport, data, refused

# The MCP server is a client of the hub's API: one engine will do (docs/architecture.md, Tests).
pytestmark = [pytest.mark.backends("sqlite"), pytest.mark.long]


# The priority field of an edit screen, as the mirror keeps it (docs/agent-protocol.md's {FIELD}).
PRIORITY = {"name": "Priority", "required": False, "type": "priority", "allowed": ["Blocker", "Major", "Minor"],
            "operations": ["set"]}


def writer_token(data_dir, database_url) -> str:
    """An interface token granted writes to Jira, as ``hub token add --role interface --write`` makes it."""
    from hub.db import open_hub_database

    config = hub_config(data_dir, database_url)
    db = open_hub_database(config)
    try:
        return built_services(config).tokens.add("assistant", "interface", write=True)
    finally:
        db.close()


def test_a_write_no_agent_takes_stays_pending_and_the_tool_says_so_within_its_bound(tmp_path, database_url):
    data_dir = tmp_path / "data"
    with seeded_hub(data_dir, database_url) as (url, _agent, _interface):
        token = writer_token(data_dir, database_url)

        async def calls():
            async with Client(build_server(url, token)) as client:
                began = time.monotonic()
                asked = await data(client, "add_comment", {"key": "AURORA-1", "body": "Looks *good*", "wait": 2})
                assert 2 <= time.monotonic() - began < 6
                assert asked["status"] == "pending" and asked["result"] is None
                assert "queued; the agent beside Jira has not taken it yet" in asked["said"]
                assert f"get_write({asked['id']})" in asked["said"]
                assert asked["write"]["params"]["body"] == "Looks *good*"
                # The same idempotency key again: the hub answers that write, never a second.
                key = {"idempotency_key": "retry-after-a-lost-answer", "wait": 0}
                first = await data(client, "add_comment", {"key": "AURORA-1", "body": "again", **key})
                second = await data(client, "add_comment", {"key": "AURORA-1", "body": "again", **key})
                assert first["id"] == second["id"] != asked["id"]
                later = await data(client, "get_write", {"write_id": asked["id"]})
                assert later["status"] == "pending" and later["op"] == "comment"
                issue = await data(client, "get_issue", {"key": "AURORA-1"})
                assert [w["id"] for w in issue["pending_writes"]] == [asked["id"], first["id"]]
                assert issue["transitions"] is None and issue["editable_fields"] is None
                assert "not known yet" in issue["screens"]
                assert "pending_writes" not in issue["fields"] and "transitions" not in issue["fields"]
                # The hub's own check of the mirror: an issue it does not hold is refused at once.
                await refused(client, "add_comment", {"key": "AURORA-99", "body": "hi"}, "AURORA-99")

        anyio.run(calls)
        assert rows(hub_config(data_dir, database_url), "SELECT count(*) FROM write") == [(2,)]


def test_a_failed_edit_says_jiras_words_and_what_the_mirrors_edit_screen_allows_for_the_field(
        tmp_path, database_url):
    """An agent that knew no allowed values reports Jira's words alone: the tool adds them from the
    issue's edit screen as the mirror holds it."""
    data_dir = tmp_path / "data"
    with seeded_hub(data_dir, database_url) as (url, agent, _interface):
        token = writer_token(data_dir, database_url)

        async def calls():
            async with Client(build_server(url, token)) as client:
                asked = await data(client, "update_issue", {"key": "AURORA-1", "fields": {"priority": "Urgent"},
                                                            "wait": 0})
                # The edit screen an agent loaded after the write was asked for (the hub checks a write
                # against the screen it holds when asked, and would have refused this one).
                execute(hub_config(data_dir, database_url), "UPDATE issue SET edit_fields = ? WHERE key = 'AURORA-1'",
                        json.dumps({"priority": PRIORITY}))
                [command] = call(url, agent, "/agent/v1/claim", {"agent_id": "a", "version": 19})["commands"]
                assert command["params"]["write_id"] == asked["id"]
                call(url, agent, f"/agent/v1/commands/{command['id']}/done", {"result": {
                    "outcome": "failed", "result": None, "conflict": None,
                    "error": "priority: The priority selected is invalid."}})
                failed = await data(client, "get_write", {"write_id": asked["id"]})
                assert failed["status"] == "failed"
                assert failed["said"] == (
                    f"Write {asked['id']} (edit of AURORA-1: priority) failed; nothing of it was written to "
                    "Jira: priority: The priority selected is invalid. Priority allows: Blocker, Major, Minor.")

        anyio.run(calls)


def test_a_token_not_granted_writes_is_told_so_and_read_only_offers_no_write_tool(tmp_path, database_url):
    with seeded_hub(tmp_path / "data", database_url) as (url, _agent, interface):
        async def calls():
            async with Client(build_server(url, interface)) as client:
                await refused(client, "add_comment", {"key": "AURORA-1", "body": "hi"}, "403")
            async with Client(build_server(url, interface, read_only=True)) as client:
                listed = {tool.name for tool in (await client.list_tools()).tools}
                assert listed == TOOLS - WRITE_TOOLS
                assert "add_comment" not in (client.instructions or "")
                await refused(client, "add_comment", {"key": "AURORA-1", "body": "hi"}, "add_comment")

        anyio.run(calls)


def test_hub_mcp_read_only_by_its_flag_or_its_variable_lists_no_write_tool(tmp_path):
    """Listing reaches no hub: a port nothing listens on will do."""
    async def listed(*args: str, **env: str) -> set[str]:
        params = StdioServerParameters(command=HUB, args=["mcp", "--url", "http://127.0.0.1:9", *args],
                                       env={"HUB_TOKEN": "a-token", **env})
        with open(tmp_path / "stderr", "a") as errlog:
            async with Client(stdio_client(params, errlog=errlog)) as client:
                return {tool.name for tool in (await client.list_tools()).tools}

    async def listings():
        assert await listed() == TOOLS
        assert await listed("--read-only") == TOOLS - WRITE_TOOLS
        assert await listed(HUB_MCP_READ_ONLY="1") == TOOLS - WRITE_TOOLS

    anyio.run(listings)


def test_a_link_with_both_or_neither_side_is_refused_before_any_hub_request(tmp_path):
    transport = CountingTransport()

    async def calls():
        async with Client(build_server("http://127.0.0.1:9", "a-token", transport=transport)) as client:
            await refused(client, "link_issues", {"key": "AURORA-1", "type": "Blocks"}, "exactly one")
            await refused(client, "link_issues", {"key": "AURORA-1", "type": "Blocks", "outward": "AURORA-2",
                                                  "inward": "AURORA-3"}, "exactly one")
            await refused(client, "add_comment", {"key": "AURORA-1", "body": "x", "format": "html"}, "format")
            await refused(client, "add_comment", {"key": "AURORA-1", "body": "x", "wait": 21}, "wait")

    anyio.run(calls)
    assert transport.sent == []


class LosingTransport(CountingTransport):
    """The way to the hub, losing the answer to the first write it carries after the hub took it."""

    def __init__(self):
        super().__init__()
        self.lost = False

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await super().handle_async_request(request)
        if request.method == "POST" and not self.lost:
            self.lost = True
            await response.aread()
            raise httpx.ReadError("connection reset after the request was sent")
        return response


def test_a_write_whose_answer_was_lost_is_asked_again_under_its_key_and_made_once(tmp_path, database_url):
    data_dir = tmp_path / "data"
    with seeded_hub(data_dir, database_url) as (url, _agent, _interface):
        token = writer_token(data_dir, database_url)
        transport = LosingTransport()

        async def calls():
            async with Client(build_server(url, token, transport=transport)) as client:
                asked = await data(client, "add_comment", {"key": "AURORA-1", "body": "once", "wait": 0})
                assert asked["status"] == "pending"
            await transport.close()

        anyio.run(calls)
        assert transport.lost and [m for m, _ in transport.sent].count("POST") == 2
        assert rows(hub_config(data_dir, database_url), "SELECT count(*) FROM write") == [(1,)]


def test_the_write_tools_say_which_change_what_jira_holds():
    async def listing():
        async with Client(build_server("http://127.0.0.1:9", "a-token")) as client:
            return {tool.name: tool.annotations for tool in (await client.list_tools()).tools}

    annotations = anyio.run(listing)
    for name in WRITE_TOOLS - {"get_write"}:
        assert annotations[name].read_only_hint is False and annotations[name].idempotent_hint is False, name
        assert annotations[name].destructive_hint is (name in ("update_issue", "transition_issue")), name
    assert annotations["get_write"].read_only_hint is True and annotations["get_write"].idempotent_hint is True


def test_an_unreachable_hub_names_the_key_that_finds_the_write_without_writing_twice():
    async def calls():
        async with Client(build_server("http://127.0.0.1:9", "a-token")) as client:
            await refused(client, "add_comment", {"key": "AURORA-1", "body": "x"},
                          "is unreachable", "It is not known whether the hub recorded the write",
                          "idempotency_key 'mcp-")

    anyio.run(calls)


@contextmanager
def agent_world(tmp_path, database_url):
    """A live hub mirroring AURORA-1 and AURORA-2 from the fake Jira, the reference agent looping
    beside it; yields the hub's URL, a token granted writes and the fake Jira."""
    data_dir = tmp_path / "data"
    with looping_agent(data_dir, database_url, "agent-mcp") as (url, _config, _ui, jira):
        yield url, writer_token(data_dir, database_url), jira


def test_writes_the_agent_applies_are_answered_done_conflict_or_failed_in_words(tmp_path, database_url):
    with agent_world(tmp_path, database_url) as (url, token, jira):
        async def calls():
            async with Client(build_server(url, token)) as client:
                # The screens reach the mirror with the agent's state pages; until then, null and said so.
                issue = await data(client, "get_issue", {"key": "AURORA-1"})
                assert issue["transitions"] is None or all(" → " in t["text"] for t in issue["transitions"])
                assert (issue["screens"] is None) is (issue["transitions"] is not None
                                                      and issue["editable_fields"] is not None)

                comment = await data(client, "add_comment", {"key": "AURORA-1", "body": "**Looks** good",
                                                             "format": "markdown"})
                [made] = jira.issues["AURORA-1"]["fields"]["comment"]["comments"]
                assert comment["status"] == "done" and comment["result"] == {"comment_id": made["id"]}
                assert f"comment {made['id']} added to AURORA-1" in comment["said"]
                assert made["body"].startswith("*Looks* good")

                jira.issues["AURORA-1"]["fields"]["status"] = {"name": "In Progress"}  # moved in Jira since
                moved = await data(client, "transition_issue", {"key": "AURORA-1", "to": "Resolved",
                                                                "fields": {"resolution": "Fixed"}})
                assert moved["status"] == "conflict"
                assert moved["conflict"] == {"status": {"base": "Open", "jira": "In Progress"}}
                assert 'status: you saw "Open", Jira has "In Progress" now' in moved["said"]
                assert 'call transition_issue again with base {"status": "In Progress"}' in moved["said"]

                # The screens as an agent's state page leaves them in the mirror.
                execute(hub_config(tmp_path / "data", database_url),
                        "UPDATE issue SET edit_fields = ?, transitions = ? WHERE key = 'AURORA-2'",
                        json.dumps({"priority": PRIORITY}), json.dumps([{"id": "31", "name": "Resolve Issue",
                                                                         "to": "Resolved", "fields": {}}]))
                screens = await data(client, "get_issue", {"key": "AURORA-2"})
                assert [t["text"] for t in screens["transitions"]] == ["Resolve Issue (31) → Resolved"]
                assert screens["editable_fields"][0]["allowed"] == PRIORITY["allowed"]
                assert screens["screens"] is None

                # A value the mirror's edit screen does not allow: the hub refuses it before Jira is asked.
                await refused(client, "update_issue", {"key": "AURORA-2", "fields": {"priority": "Urgentissimo"}},
                              "fields.priority", "allowed: Blocker, Major")
                assert jira.issues["AURORA-2"]["fields"]["priority"]["name"] == "Major"

                created = await data(client, "create_issue", {"project": "AURORA", "issue_type": "Task",
                                                              "summary": "Made by an assistant"})
                assert created["status"] == "done" and created["result"]["key"] in jira.issues
                assert f"issue {created['result']['key']} created" in created["said"]

                logged = await data(client, "log_work", {"key": "AURORA-2", "time_spent": "1h 30m",
                                                         "comment": "reviewed"})
                assert logged["status"] == "done" and logged["result"]["worklog_id"]
                assert f"work log {logged['result']['worklog_id']} added to AURORA-2" in logged["said"]

                linked = await data(client, "link_issues", {"key": "AURORA-1", "type": "Blocks",
                                                            "outward": "AURORA-2"})
                assert linked["status"] == "done" and linked["result"]["link_id"]
                assert "link Blocks between AURORA-1 and AURORA-2" in linked["said"]

                again = await data(client, "get_write", {"write_id": comment["id"]})
                assert again["status"] == "done" and again["said"] == comment["said"]
                assert (await data(client, "get_issue", {"key": "AURORA-1"}))["pending_writes"] == []

        anyio.run(calls)


def test_get_issue_words_each_transition_with_where_it_goes_and_what_its_screen_requires():
    """The mirror's screens as design's ``{FIELD}`` shape holds them, worded for an assistant."""
    from hub.mcp.writes import screen_fields, transition_options

    resolution = {"name": "Resolution", "required": True, "type": "resolution", "allowed": ["Fixed", "Won't Fix"],
                  "operations": ["set"]}
    [resolve] = transition_options([{"id": "31", "name": "Resolve Issue", "to": "Resolved",
                                     "fields": {"resolution": resolution}}])
    assert resolve.text == "Resolve Issue (31) → Resolved; requires Resolution (one of Fixed, Won't Fix)"
    assert resolve.fields[0].id == "resolution" and resolve.fields[0].allowed == ["Fixed", "Won't Fix"]
    [labels] = screen_fields({"labels": {"name": "Labels", "type": "array", "items": "string",
                                         "operations": ["add", "set", "remove"]}})
    assert (labels.allowed, labels.required, labels.operations) == (None, False, ["add", "set", "remove"])
    many = screen_fields({"assignee": {"name": "Assignee", "allowed": [f"user{n}" for n in range(500)]}})
    assert len(many[0].allowed or []) == 50


def write(status: str, op: str = "edit", **members) -> dict:
    """A write object as the hub answers it."""
    return {"id": 7, "op": op, "key": "AURORA-1", "params": {"fields": {"summary": "New"}}, "status": status,
            "result": None, "error": None, "conflict": None, **members}


def test_each_status_of_a_write_is_said_with_what_to_do_next():
    from hub.mcp.wording import write_said

    assert "Check again in a moment with get_write(7)" in write_said(write("applying"))
    assert write_said(write("cancelled")) == ("Write 7 (edit of AURORA-1: summary) was cancelled before any "
                                              "agent took it; nothing was written to Jira.")
    conflict = write_said(write("conflict", conflict={"summary": {"base": "Old", "jira": "Newer"}}))
    assert 'summary: you saw "Old", Jira has "Newer" now). Nothing was written.' in conflict
    assert 'call update_issue again with base {"summary": "Newer"}' in conflict
    done = write_said(write("done", result={"fields": ["summary"]}))
    assert done.startswith("Done in Jira (write 7): AURORA-1's summary set.")
    made = write_said(write("done", op="create_issue", key=None, params={"project": "AURORA", "issue_type": "Bug"},
                            result={"key": "AURORA-31", "id": "10031"}))
    assert "issue AURORA-31 created (id 10031)" in made
