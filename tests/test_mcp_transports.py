"""``hub mcp`` as a process, as assistants run it: over stdio, and over Streamable HTTP with
each request's own bearer token; both against a live hub on loopback."""

from __future__ import annotations

import subprocess

import anyio
import httpx
import httpx2
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

from tests.mcp_support import check_every_tool, data, refused
from tests.support import HUB, run_script, seeded_hub, start, stop, wait_for_line


def over_stdio(errlog, *args: str, **env: str) -> Client:
    """A client of ``hub mcp ARGS`` run as a subprocess, its stderr into ``errlog``."""
    return Client(stdio_client(StdioServerParameters(command=HUB, args=["mcp", *args], env=env), errlog=errlog))


def test_stdio_every_tool(tmp_path):
    with seeded_hub(tmp_path / "data") as (url, agent, interface), open(tmp_path / "stderr", "w") as errlog:
        async def tour():
            async with over_stdio(errlog, "--url", url, HUB_TOKEN=interface) as client:
                await check_every_tool(client, url, agent)

        anyio.run(tour)
    logged = (tmp_path / "stderr").read_text()
    # Tool errors are logged on stderr, one line each, never with a traceback.
    assert "no issue 'NOPE-1'" in logged and "Traceback" not in logged


def test_stdio_errors_from_the_hub_and_from_the_command_line(tmp_path):
    with seeded_hub(tmp_path / "data") as (url, agent, interface), open(tmp_path / "stderr", "w") as errlog:
        async def calls():
            async with over_stdio(errlog, "--url", url, "--token", "not-a-token") as client:
                await refused(client, "get_issue", {"key": "AURORA-1"}, "401", "does not know this token")
            async with over_stdio(errlog, "--url", "http://127.0.0.1:9", HUB_TOKEN=interface) as client:
                await refused(client, "get_comments", {"key": "AURORA-1"}, "unreachable")
            # The flag wins over the environment.
            async with over_stdio(errlog, "--token", interface, HUB_URL=url, HUB_TOKEN="not-a-token") as client:
                assert (await data(client, "get_issue", {"key": "AURORA-2"}))["fields"]["status"] == "Done"

        anyio.run(calls)
        assert "Traceback" not in (tmp_path / "stderr").read_text()
        environ = {name: "" for name in ("HUB_URL", "HUB_TOKEN")}
        missing = run_script("mcp", data_dir=tmp_path / "data", **environ)
        assert missing.returncode == 2 and missing.stdout == ""
        assert "missing --url (HUB_URL), --token (HUB_TOKEN)" in missing.stderr
        bad = run_script("mcp", "--url", url, "--http", "nowhere", data_dir=tmp_path / "data")
        assert bad.returncode == 2 and "HOST:PORT" in bad.stderr
        schemeless = run_script("mcp", "--url", "hub.example:8765", "--token", "t", data_dir=tmp_path / "data")
        assert schemeless.returncode == 2 and "http:// or https://" in schemeless.stderr
        # It reads the hub through its API only: its own data dir is never made, let alone a database.
        absent = tmp_path / "absent"
        closed = subprocess.run([HUB, "mcp", "--url", url, "--token", interface], input="", text=True,
                                capture_output=True, timeout=60, env={"HUB_DATA_DIR": str(absent), "PATH": ""})
        assert closed.returncode == 0 and closed.stdout == "" and not absent.exists()


def start_http(url: str, data_dir) -> tuple[subprocess.Popen, str]:
    """``hub mcp --http`` on a free loopback port; its process and endpoint."""
    proc = start("mcp", "--url", url, "--http", "127.0.0.1:0", data_dir=data_dir)
    return proc, wait_for_line(proc, r"serving MCP on (http://127\.0\.0\.1:\d+/mcp)").group(1)


def over_http(endpoint: str, token: str) -> tuple[httpx2.AsyncClient, Client]:
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=120)
    return http, Client(streamable_http_client(endpoint, http_client=http))


def test_streamable_http_every_tool_with_the_requests_own_token(tmp_path):
    with seeded_hub(tmp_path / "data") as (url, agent, interface):
        proc, endpoint = start_http(url, tmp_path / "mcp")
        try:
            async def tour():
                http, client = over_http(endpoint, interface)
                async with http, client:
                    await check_every_tool(client, url, agent)

            anyio.run(tour)
        finally:
            assert stop(proc) == 0
        output = proc.stdout.read()
        assert "Traceback" not in output


def test_streamable_http_needs_a_bearer_token_and_passes_it_to_the_hub(tmp_path):
    with seeded_hub(tmp_path / "data") as (url, agent, interface):
        proc, endpoint = start_http(url, tmp_path / "mcp")
        try:
            initialize = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
            headers = {"Accept": "application/json, text/event-stream"}
            for sent in ({}, {"Authorization": "Basic dWk6cHc="}, {"Authorization": "Bearer"}):
                answer = httpx.post(endpoint, json=initialize, headers={**headers, **sent})
                assert answer.status_code == 401 and answer.headers["WWW-Authenticate"].startswith("Bearer")
                assert "Authorization: Bearer" in answer.json()["description"]

            async def calls():
                # Each request is the hub's business with its own token: an unknown one, an
                # agent's (which may not read the mirror), and the interface's.
                for token, words in (("not-a-token", ("401", "does not know this token")), (agent, ("403",))):
                    http, client = over_http(endpoint, token)
                    async with http, client:
                        await refused(client, "get_issue", {"key": "AURORA-1"}, *words)
                http, client = over_http(endpoint, interface)
                async with http, client:
                    note = await data(client, "add_note", {"key": "AURORA-1", "body": "from HTTP"})
                    assert note["author"] == "ui"

            anyio.run(calls)
        finally:
            assert stop(proc) == 0
