"""``hub mcp``'s tools in-process: an ``mcp.Client`` on the server object, against a live hub."""

from __future__ import annotations

from importlib import metadata
from pathlib import Path

import anyio
import pytest
from mcp import Client

from hub.mcp.server import build_server
from tests.support import (
    call,
    full_run,
    imported_modules,
    issue,
    jira_id,
    mcp_mirror,
    next_second,
    seeded_hub,
    wait_until,
)
from tests.support.mcp_hub import HOSTILE_IDS, ID_TOOLS, TOOLS, CountingTransport, check_every_tool, data, refused

# The hub's client is this module's subject, not the hub's engine: one engine will do (docs/architecture.md, Tests).
pytestmark = [pytest.mark.backends("sqlite"), pytest.mark.long]

MCP = Path(__file__).resolve().parents[2] / "hub" / "mcp"


def test_the_mcp_server_reaches_the_hub_through_its_api_only():
    """It runs on the assistant's machine: nothing of the hub's database, models or services.
    The vocabulary (constants that import nothing) gives its tools the shapes of keys and ids."""
    sources = sorted(MCP.glob("*.py"))
    assert len(sources) >= 4
    for path in sources:
        for module in imported_modules(path):
            assert (module == "hub.mcp" or module.startswith("hub.mcp.") or module == "hub.vocabulary"
                    or module.split(".")[0] != "hub"), f"{path.name} imports {module}"
    assert imported_modules(MCP.parent / "vocabulary.py") <= {"__future__"}


def test_every_tool_with_good_and_bad_arguments(tmp_path, database_url):
    with seeded_hub(tmp_path / "data", database_url) as (url, agent, interface):
        async def tour():
            async with Client(build_server(url, interface)) as client:
                info = client.server_info
                assert info.name == "sdlc-hub" and info.version == metadata.version("sdlc-hub")
                assert "while\nJira is unreachable" in client.instructions
                await check_every_tool(client, url, agent, interface)

        anyio.run(tour)


def test_a_bad_token_an_unreachable_hub_and_no_token_are_tool_errors(tmp_path, database_url):
    with seeded_hub(tmp_path / "data", database_url) as (url, agent, interface):
        async def calls():
            async with Client(build_server(url, "not-a-token")) as client:
                await refused(client, "get_issue", {"key": "AURORA-1"}, "401", "does not know this token")
            async with Client(build_server(url, agent)) as client:
                await refused(client, "list_projects", {}, "403")
            async with Client(build_server(url, None)) as client:
                await refused(client, "sync_status", {}, "no hub token")
            # A port nothing listens on: the hub is unreachable, and the call says so.
            async with Client(build_server("http://127.0.0.1:9", interface)) as client:
                assert {tool.name for tool in (await client.list_tools()).tools} == TOOLS
                await refused(client, "search_issues", {}, "hub at http://127.0.0.1:9 is unreachable")

        anyio.run(calls)


def test_ids_that_are_not_ids_are_refused_before_any_hub_request(tmp_path, database_url, caplog):
    """A path, a part of one, a look-alike letter or a newline: a validation error naming the
    argument, no request to the hub, and nothing logged with a traceback. A key in lower case is
    the key, asked as Jira writes it."""
    with seeded_hub(tmp_path / "data", database_url) as (url, _agent, interface):
        transport = CountingTransport()

        async def calls():
            async with Client(build_server(url, interface, transport=transport)) as client:
                for name, argument, rest in ID_TOOLS:
                    for value in HOSTILE_IDS:
                        await refused(client, name, {argument: value, **rest}, argument, "should match pattern")
                assert transport.sent == []
                # The same tools with good ids do reach the hub.
                await refused(client, "read_attachment", {"attachment_id": "404404"}, "no attachment '404404'")
                await refused(client, "get_issue", {"key": "NOPE-1"}, "no issue 'NOPE-1'")
                await refused(client, "get_issue", {"key": "nope-2"}, "no issue 'NOPE-2'")
            await transport.close()

        with caplog.at_level("DEBUG"):
            anyio.run(calls)
        assert transport.sent == [("GET", "/api/v1/attachments/404404"),
                                  ("GET", "/api/v1/issues/NOPE-1?render=markdown"),
                                  ("GET", "/api/v1/issues/NOPE-2?render=markdown")]
        assert caplog.records and not [r for r in caplog.records if r.exc_info or r.levelname == "ERROR"]
        assert "Traceback" not in caplog.text


def test_get_issue_costs_the_same_few_hub_requests_with_10000_links(tmp_path, database_url):
    """The hub answers each link with the other issue's summary and status: issue, attachments,
    notes and one worklog for the totals (and comments and changes when asked), never one request
    per linked issue."""
    linked = [issue(f"AURORA-{n}", summary=f"Linked {n}", status="Open" if n % 2 else "Done")
              for n in range(101, 191)]  # a state page holds at most 100 issues
    links = [{"type": "Relates", "outward" if n % 2 else "inward": f"AURORA-{n}"} for n in range(101, 10_101)]
    with seeded_hub(tmp_path / "data", database_url) as (url, agent, interface):
        full_run(url, agent, interface, [], issues=[*mcp_mirror(), *linked, issue("AURORA-100", links=links)])
        transport = CountingTransport()

        async def calls():
            async with Client(build_server(url, interface, transport=transport)) as client:
                plain = await data(client, "get_issue", {"key": "AURORA-100"})
                assert len(transport.sent) == 4, transport.sent
                full = await data(client, "get_issue", {"key": "AURORA-100", "include": ["comments", "changes"]})
                assert len(transport.sent) == 4 + 6, transport.sent
            await transport.close()
            return plain, full

        plain, full = anyio.run(calls)
    assert full["links"] == plain["links"]
    outward, inward = plain["links"]["outward"], plain["links"]["inward"]
    assert len(outward) == len(inward) == 5_000
    held = {link["key"]: link for link in outward + inward if link["in_mirror"]}
    assert sorted(held) == sorted(f"AURORA-{n}" for n in range(101, 191))
    assert held["AURORA-101"] == {"type": "Relates", "phrase": "Relates", "text": "Relates AURORA-101",
                                  "key": "AURORA-101", "summary": "Linked 101", "status": "Open", "in_mirror": True,
                                  "gone": False}
    assert held["AURORA-102"]["status"] == "Done" and held["AURORA-102"] in inward
    absent = [link for link in outward + inward if not link["in_mirror"]]
    assert len(absent) == 9_910 and all(link["summary"] is None and link["status"] is None for link in absent)


def test_get_issue_says_an_issue_is_gone_and_search_leaves_it_out_unless_asked(tmp_path, database_url):
    with seeded_hub(tmp_path / "data", database_url) as (url, agent, interface):
        # A full run by a v16 agent that leaves AURORA-3 out; its check finds AURORA-3 missing from Jira.
        next_second()
        command = call(url, interface, "/api/v1/commands", {"type": "refresh"})
        [claimed] = call(url, agent, "/agent/v1/claim", {"agent_id": "a", "version": 16})["commands"]
        assert claimed["id"] == command["id"]
        kept = [state for state in mcp_mirror() if state["key"] != "AURORA-3"]
        call(url, agent, f"/agent/v1/commands/{claimed['id']}/state", {"issues": kept})
        call(url, agent, f"/agent/v1/commands/{claimed['id']}/done", {"result": {"total": len(kept)}})
        [check] = wait_until(lambda: call(url, agent, "/agent/v1/claim", {
            "agent_id": "a", "version": 16, "types": ["check_issues"]})["commands"], message="the check")
        call(url, agent, f"/agent/v1/commands/{check['id']}/done",
             {"result": {"checked": 1, "missing": ["AURORA-3"]}})

        async def calls():
            async with Client(build_server(url, interface)) as client:
                gone = await data(client, "get_issue", {"key": "AURORA-3"})
                live = await data(client, "get_issue", {"key": "AURORA-1"})
                default = await data(client, "search_issues", {"q": "cards"})
                every = await data(client, "search_issues", {"q": "cards", "gone": "any"})
                only = await data(client, "search_issues", {"gone": "true"})
            return gone, live, default, every, only

        gone, live, default, every, only = anyio.run(calls)
    assert gone["gone"].startswith("Gone from Jira since ")
    assert "not found in Jira — deleted, or no longer visible to the agent's user" in gone["gone"]
    assert gone["fields"]["gone"] is True
    assert live["gone"] is None
    [inward] = live["links"]["inward"]
    assert inward["key"] == "AURORA-3" and inward["gone"] is True
    assert "AURORA-3" not in {item["key"] for item in default["items"]}
    assert "AURORA-3" in {item["key"] for item in every["items"]}
    assert [item["key"] for item in only["items"]] == ["AURORA-3"]


def test_get_issue_by_an_old_key_answers_the_moved_issue_and_says_so(tmp_path, database_url):
    """Jira moved AURORA-1 to OPS-7 (the same Jira id): the old key still finds it, in every tool."""
    with seeded_hub(tmp_path / "data", database_url) as (url, agent, interface):
        full_run(url, agent, interface, [], issues=[issue("OPS-7", id=jira_id("AURORA-1"), summary="Moved away")])

        async def calls():
            async with Client(build_server(url, interface)) as client:
                old = await data(client, "get_issue", {"key": "AURORA-1", "include": ["comments"]})
                now = await data(client, "get_issue", {"key": "OPS-7"})
                found = await data(client, "search_issues", {"q": "AURORA-1"})
                note = await data(client, "add_note", {"key": "AURORA-1", "body": "seen on the old key"})
                return old, now, found, note

        old, now, found, note = anyio.run(calls)
    assert (old["key"], old["fields"]["moved_from"]) == ("OPS-7", ["AURORA-1"])
    assert old["moved"] == "AURORA-1 is an old key: Jira moved the issue to OPS-7 (its keys before: AURORA-1)"
    assert now["moved"] == "Jira moved this issue to OPS-7 from AURORA-1"
    assert "OPS-7" in [item["key"] for item in found["items"]]
    assert note["key"] == "OPS-7"
