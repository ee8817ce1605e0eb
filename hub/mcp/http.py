"""``hub mcp --http HOST:PORT``: the MCP server over Streamable HTTP, for a whole team.

The SDK's ASGI app runs under uvicorn. The endpoint holds no hub token of its
own: every request must carry ``Authorization: Bearer <hub token>`` (401
without one), and each tool call is made at the hub with that request's token
(the tools read it from the request the SDK hands them), so the hub decides
what each caller may do, as for any interface.
"""

from __future__ import annotations

import json
import logging
import signal
import socket
import sys

from mcp.server.mcpserver import MCPServer
from starlette.types import ASGIApp, Receive, Scope, Send

from hub.mcp.server import bearer_token

log = logging.getLogger("hub.mcp")

PATH = "/mcp"


class BearerRequired:
    """ASGI middleware: an HTTP request without a bearer token gets 401 and goes no further.

    Only the token's presence is checked here; the hub checks the token itself
    on every call, and a token it refuses comes back as a tool error.
    """

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and not bearer_token(_header(scope, b"authorization")):
            body = json.dumps({"title": "Unauthorized", "description": (
                "send the hub token of an interface: Authorization: Bearer <token>")}).encode()
            await send({"type": "http.response.start", "status": 401, "headers": [
                (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                (b"www-authenticate", b'Bearer realm="sdlc-hub"')]})
            await send({"type": "http.response.body", "body": body})
            return
        await self.app(scope, receive, send)


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key.lower() == name:
            return value.decode("latin-1")
    return None


def parse_address(value: str) -> tuple[str, int]:
    """``HOST:PORT`` (``[::1]:PORT`` for IPv6) as a pair; ValueError says what is wrong."""
    host, sep, port = value.rpartition(":")
    host = host.strip("[]")
    if not sep or not host or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise ValueError(f"--http takes HOST:PORT, e.g. 127.0.0.1:8766, not {value!r}")
    return host, int(port)


def app(server: MCPServer, host: str) -> ASGIApp:
    """The ASGI app: the SDK's Streamable HTTP endpoint at ``/mcp`` behind :class:`BearerRequired`.

    Stateless, answering JSON: each POST stands alone, so the endpoint holds no
    session between requests and any request may carry a different caller.
    ``host`` lets the SDK turn on its DNS-rebinding protection for loopback.
    """
    return BearerRequired(server.streamable_http_app(
        streamable_http_path=PATH, stateless_http=True, json_response=True, host=host))


def serve(server: MCPServer, address: str, log_level: str = "info") -> int:
    """Serve until SIGINT or SIGTERM; prints ``serving MCP on http://HOST:PORT/mcp`` once listening."""
    import uvicorn

    host, port = parse_address(address)
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        listener = socket.create_server((host, port), family=family)
    except OSError as exc:
        print(f"hub: cannot listen on {address}: {exc.strerror or exc}", file=sys.stderr, flush=True)
        return 1
    bound = listener.getsockname()[1]
    config = uvicorn.Config(app(server, host), log_level=log_level.lower(), lifespan="on", access_log=False)
    shown = f"[{host}]" if family == socket.AF_INET6 else host
    print(f"serving MCP on http://{shown}:{bound}{PATH}", flush=True)
    # uvicorn shuts down gracefully on SIGINT/SIGTERM, then raises the signal
    # again for the handler it found: with these, that ends in exit status 0.
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, _stopped)
    uvicorn.Server(config).run(sockets=[listener])
    return 0


def _stopped(signum, frame) -> None:
    """The server has already stopped when this runs: nothing left to do."""
