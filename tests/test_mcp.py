"""``hub mcp``'s tools in-process: an ``mcp.Client`` on the server object, against a live hub."""

from __future__ import annotations

from importlib import metadata
from pathlib import Path

import anyio
from mcp import Client

from hub.mcp.server import build_server
from tests.mcp_support import TOOLS, check_every_tool, refused
from tests.support import imported_modules, seeded_hub

MCP = Path(__file__).resolve().parent.parent / "hub" / "mcp"


def test_the_mcp_server_reaches_the_hub_through_its_api_only():
    """It runs on the assistant's machine: nothing of the hub's database, models or services."""
    sources = sorted(MCP.glob("*.py"))
    assert len(sources) >= 4
    for path in sources:
        for module in imported_modules(path):
            assert module == "hub.mcp" or module.startswith("hub.mcp.") or module.split(".")[0] != "hub", (
                f"{path.name} imports {module}")


def test_every_tool_with_good_and_bad_arguments(tmp_path):
    with seeded_hub(tmp_path / "data") as (url, agent, interface):
        async def tour():
            async with Client(build_server(url, interface)) as client:
                info = client.server_info
                assert info.name == "sdlc-hub" and info.version == metadata.version("sdlc-hub")
                assert "while\nJira is unreachable" in client.instructions
                await check_every_tool(client, url, agent)

        anyio.run(tour)


def test_a_bad_token_an_unreachable_hub_and_no_token_are_tool_errors(tmp_path):
    with seeded_hub(tmp_path / "data") as (url, agent, interface):
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
