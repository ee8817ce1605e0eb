"""``hub mcp`` as a process, as assistants run it: over stdio, and over Streamable HTTP with
each request's own bearer token; both against a live hub on loopback."""

from __future__ import annotations

import os
import re
import subprocess
import time

import anyio
import httpx
import httpx2
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

from hub.mcp.http import CHECKS_AT_ONCE, HubUndecided, TokenVerdicts
from tests.support import (
    HUB,
    full_run,
    mcp_mirror,
    prepared_hub,
    rest_of_output,
    run_hub,
    run_script,
    seeded_hub,
    start,
    stop,
    wait_for_line,
    wait_until,
)
from tests.support.engine_rows import engine_settings
from tests.support.mcp_hub import check_every_tool, data, refused

# The hub's client is this module's subject, not the hub's engine: one engine will do (docs/architecture.md, Tests).
pytestmark = [pytest.mark.backends("sqlite"), pytest.mark.long]


def over_stdio(errlog, *args: str, **env: str) -> Client:
    """A client of ``hub mcp ARGS`` run as a subprocess, its stderr into ``errlog``."""
    return Client(stdio_client(StdioServerParameters(command=HUB, args=["mcp", *args], env=env), errlog=errlog))


def test_stdio_every_tool(tmp_path, database_url):
    with (seeded_hub(tmp_path / "data", database_url) as (url, agent, interface),
          open(tmp_path / "stderr", "w") as errlog):
        async def tour():
            async with over_stdio(errlog, "--url", url, HUB_TOKEN=interface) as client:
                await check_every_tool(client, url, agent, interface)

        anyio.run(tour)
    logged = (tmp_path / "stderr").read_text()
    # Tool errors are logged on stderr, one line each, never with a traceback.
    assert "no issue 'NOPE-1'" in logged and "Traceback" not in logged


def test_stdio_errors_from_the_hub_and_from_the_command_line(tmp_path, database_url):
    with (seeded_hub(tmp_path / "data", database_url) as (url, _agent, interface),
          open(tmp_path / "stderr", "w") as errlog):
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


def over_http(endpoint: str, token: str, timeout: float = 120) -> tuple[httpx2.AsyncClient, Client]:
    """An MCP client of ``endpoint`` with ``token``, its HTTP client giving up after ``timeout`` seconds."""
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=timeout)
    return http, Client(streamable_http_client(endpoint, http_client=http))


def test_streamable_http_every_tool_with_the_requests_own_token(tmp_path, database_url):
    with seeded_hub(tmp_path / "data", database_url) as (url, agent, interface):
        proc, endpoint = start_http(url, tmp_path / "mcp")
        try:
            async def tour():
                http, client = over_http(endpoint, interface)
                async with http, client:
                    await check_every_tool(client, url, agent, interface)

            anyio.run(tour)
        finally:
            assert stop(proc) == 0
        output = rest_of_output(proc)
        assert "Traceback" not in output


def test_streamable_http_needs_a_token_the_hub_knows_and_passes_it_to_the_hub(tmp_path, database_url):
    with seeded_hub(tmp_path / "data", database_url) as (url, agent, interface):
        proc, endpoint = start_http(url, tmp_path / "mcp")
        try:
            listing = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
            headers = {"Accept": "application/json, text/event-stream"}
            for sent in ({}, {"Authorization": "Basic dWk6cHc="}, {"Authorization": "Bearer"}):
                answer = httpx.post(endpoint, json=listing, headers={**headers, **sent})
                assert answer.status_code == 401 and answer.headers["WWW-Authenticate"].startswith("Bearer")
                assert "Authorization: Bearer" in answer.json()["description"]
            # A token the hub does not know is refused at the door, before the SDK sees the request.
            for token in (b"not-a-token", b"x" * 600, "токен".encode()):
                answer = httpx.post(endpoint, json=listing, headers={**headers, "Authorization": b"Bearer " + token})
                assert answer.status_code == 401, answer.text
                assert 'error="invalid_token"' in answer.headers["WWW-Authenticate"]
                assert "does not know this token" in answer.json()["description"]
            # Stateless: no GET stream and no session to delete, for anyone; another path is nobody's.
            for method in ("GET", "DELETE", "PUT"):
                answer = httpx.request(method, endpoint, headers={
                    "Accept": "text/event-stream", "Authorization": f"Bearer {interface}"})
                assert answer.status_code == 405 and answer.headers["Allow"] == "POST", (method, answer.text)
            assert httpx.post(endpoint.removesuffix("/mcp") + "/other", json=listing, headers={
                **headers, "Authorization": f"Bearer {interface}"}).status_code == 404

            async def calls():
                # Each request is the hub's business with its own token: an agent's passes the
                # door (the hub knows it) but may not read the mirror; the interface's may.
                http, client = over_http(endpoint, agent)
                async with http, client:
                    await refused(client, "get_issue", {"key": "AURORA-1"}, "403")
                http, client = over_http(endpoint, interface)
                async with http, client:
                    note = await data(client, "add_note", {"key": "AURORA-1", "body": "from HTTP"})
                    assert note["author"] == "ui"

            anyio.run(calls)
        finally:
            assert stop(proc) == 0
        assert "Traceback" not in rest_of_output(proc)


def test_streamable_http_a_token_the_hub_cannot_judge_is_503_and_asked_again(tmp_path):
    """An unreachable hub decides nothing: the caller is told to retry, and nothing is remembered."""
    proc, endpoint = start_http("http://127.0.0.1:9", tmp_path / "mcp")
    try:
        listing = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
        for _ in range(2):
            answer = httpx.post(endpoint, json=listing, headers={
                "Accept": "application/json, text/event-stream", "Authorization": "Bearer some-token"})
            assert answer.status_code == 503 and answer.headers["Retry-After"] == "5"
            assert "hub at http://127.0.0.1:9 is unreachable" in answer.json()["description"]
        assert wait_for_line(proc, r"token check: hub at http://127\.0\.0\.1:9 is unreachable")
    finally:
        assert stop(proc) == 0
    assert "Traceback" not in rest_of_output(proc)


def test_streamable_http_a_revoked_token_is_refused_by_the_hub_at_once(tmp_path, database_url):
    """Its verdict may still be remembered at the door, but every call it makes is the hub's to refuse."""
    with seeded_hub(tmp_path / "data", database_url) as (url, _agent, interface):
        proc, endpoint = start_http(url, tmp_path / "mcp")
        try:
            async def calls():
                http, client = over_http(endpoint, interface)
                async with http, client:
                    assert (await data(client, "get_issue", {"key": "AURORA-2"}))["fields"]["status"] == "Done"
                    assert run_hub("token", "revoke", "ui", data_dir=tmp_path / "data",
                                   **engine_settings(database_url)).returncode == 0
                    await refused(client, "get_issue", {"key": "AURORA-2"}, "401", "does not know this token")

            anyio.run(calls)
        finally:
            assert stop(proc) == 0


def open_fds(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


BOGUS = 300
STRANGERS_TIMEOUT = 120


def test_streamable_http_hundreds_of_strangers_cost_no_stream_and_slow_no_caller(tmp_path, database_url):
    """Bogus tokens over POST and GET streams, hundreds at once, while a caller with a real token
    works: the strangers are answered at once, never reach the SDK, leave no socket behind, and
    the caller's tool calls go through promptly."""
    data_dir = tmp_path / "data"
    agent, interface = prepared_hub(data_dir, database_url)
    hub = start("serve", data_dir=data_dir, database_url=database_url)
    try:
        url = wait_for_line(hub, r"serving on (http://\S+)").group(1)
        full_run(url, agent, interface, [], issues=mcp_mirror())
        proc, endpoint = start_http(url, tmp_path / "mcp")
        try:
            async def flood():
                # The caller gives up long before the strangers do: an endpoint that made it wait
                # until the strangers' streams timed out fails the caller's call, whatever the
                # machine's speed, instead of only making it slow.
                http, client = over_http(endpoint, interface, timeout=STRANGERS_TIMEOUT / 2)
                limits = httpx.Limits(max_connections=None, max_keepalive_connections=0)
                async with (http, client,
                            httpx.AsyncClient(timeout=STRANGERS_TIMEOUT, limits=limits) as strangers):
                    await data(client, "get_issue", {"key": "AURORA-1"})  # the caller's verdict, remembered
                    before = open_fds(proc.pid)
                    answers: list[httpx.Response] = []

                    async def stranger(n: int, method: str, token: str) -> None:
                        headers = {"Authorization": f"Bearer {token}", "Accept": "application/json, text/event-stream"}
                        call = {"jsonrpc": "2.0", "id": n, "method": "tools/call",
                                "params": {"name": "get_issue", "arguments": {"key": "AURORA-1"}}}
                        async with strangers.stream(method, endpoint, headers=headers,
                                                    json=call if method == "POST" else None) as answer:
                            await answer.aread()
                            answers.append(answer)

                    timings = []

                    async def caller() -> None:
                        for _ in range(10):
                            started = time.monotonic()
                            issue = await data(client, "get_issue", {"key": "AURORA-1"})
                            timings.append(time.monotonic() - started)
                            assert issue["fields"]["summary"] == "Cards list"

                    async with anyio.create_task_group() as group:
                        for n in range(BOGUS):
                            group.start_soon(stranger, n, "GET", f"made-up-{n}")  # each once a never-ending stream
                            group.start_soon(stranger, n, "POST", f"made-up-{n}")
                            group.start_soon(stranger, n, "POST", "the-same-made-up-one")
                        group.start_soon(caller)
                    return answers, timings, before

            answers, timings, before = anyio.run(flood)
            gets = [a for a in answers if a.request.method == "GET"]
            posts = [a for a in answers if a.request.method == "POST"]
            assert len(gets) == BOGUS and len(posts) == 2 * BOGUS
            assert all(a.status_code == 405 and a.headers["Allow"] == "POST" for a in gets)
            assert all(a.status_code == 401 and "invalid_token" in a.headers["WWW-Authenticate"] for a in posts), {
                (a.status_code, a.text) for a in posts}
            # Every call of the caller's came back (how long each took is shown, not judged).
            assert len(timings) == 10, timings
            # Every socket a stranger opened is closed again; the door keeps at most its few
            # connections to the hub open for the next checks.
            wait_until(lambda: open_fds(proc.pid) <= before + CHECKS_AT_ONCE, message=f"fds back to {before}")
        finally:
            assert stop(proc) == 0
        assert "Traceback" not in rest_of_output(proc)
    finally:
        assert stop(hub) == 0
    requests = re.findall(r"method=(\w+) route=(\S+) status=(\d+)", rest_of_output(hub))
    # No stranger's request reached the SDK: none became a tool call at the hub.
    assert [r for r in requests if r[1] != "/api/v1/whoami" and r[2] == "401"] == []
    checks = [r for r in requests if r[1] == "/api/v1/whoami"]
    # One check per made-up token (the repeated one remembered), one for the caller; none for a GET.
    assert BOGUS < len(checks) <= BOGUS + 5, len(checks)
    assert sum(1 for r in checks if r[2] == "200") == 1


def test_token_verdicts_are_bounded_and_strangers_never_push_out_known_tokens(tmp_path, database_url):
    with seeded_hub(tmp_path / "data", database_url) as (url, _agent, interface):
        async def checks():
            verdicts = TokenVerdicts(url, kept=50)
            try:
                assert await verdicts.accepts(interface) is True
                for n in range(200):
                    assert await verdicts.accepts(f"made-up-{n}") is False
                assert verdicts.kept() == {"accepted": 1, "refused": 50}
                assert await verdicts.accepts(interface) is True  # still remembered: no request
                assert await verdicts.accepts("bad\ttoken") is False and await verdicts.accepts("т") is False
            finally:
                await verdicts.aclose()
            unreachable = TokenVerdicts("http://127.0.0.1:9")
            try:
                with pytest.raises(HubUndecided, match="unreachable"):
                    await unreachable.accepts(interface)
                assert unreachable.kept() == {"accepted": 0, "refused": 0}  # asked again next time
            finally:
                await unreachable.aclose()

        anyio.run(checks)
