"""``hub mcp --http HOST:PORT``: the MCP server over Streamable HTTP, for a whole team.

The SDK's ASGI app runs under uvicorn, behind :class:`TokenGate`. The endpoint
holds no hub token of its own: every request must carry ``Authorization: Bearer
<hub token>``, and the gate asks the hub whether it knows that token
(``GET /api/v1/whoami``) before the request reaches the SDK; each tool call is
then made at the hub with the same token (the tools read it from the request
the SDK hands them), so the hub decides what each caller may do, as for any
interface. The endpoint is stateless: a POST stands alone and is answered as
JSON, and there is no GET stream to hold open.
"""

from __future__ import annotations

import hashlib
import json
import logging
import signal
import socket
import sys
import time
from collections import OrderedDict
from collections.abc import Sequence

import anyio
import httpx
from mcp.server.mcpserver import MCPServer
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from hub.mcp.client import TIMEOUT_SECONDS
from hub.mcp.server import bearer_token

log = logging.getLogger("hub.mcp")

PATH = "/mcp"
# How long the hub's verdict on a token is trusted. A token revoked meanwhile
# still passes the gate until its verdict ends, but nothing more: every tool
# call is made at the hub with the caller's own token, and the hub refuses a
# revoked one at once. The gate only keeps strangers away from the SDK.
ACCEPTED_SECONDS = 60.0
REFUSED_SECONDS = 10.0
# Verdicts kept, of each kind, the least recently used dropped first: made-up
# tokens fill only their own cache, never pushing out the tokens the hub knows.
VERDICTS_KEPT = 1024
# Tokens checked at the hub at once, and requests let wait for a check: a
# flood of made-up tokens costs the hub a few requests at a time, and what
# waits beyond that is answered 503 at once instead of holding a socket.
CHECKS_AT_ONCE = 4
CHECKS_WAITING = 1000
# The hub's tokens are 43 URL-safe characters (hub token add): a value that is
# not printable ASCII, or is this long, is none of them, and is refused unasked.
TOKEN_MAX_LENGTH = 512


class HubUndecided(Exception):
    """The hub could not say whether it knows a token (unreachable, busy, too old); ``str()`` says why."""


class TokenVerdicts:
    """Whether the hub knows a token, asked with ``GET /api/v1/whoami`` and remembered a while.

    Verdicts are kept by the token's sha256 (the token itself is not kept), in
    two bounded LRU caches; concurrent checks of one token make one request.
    """

    def __init__(self, url: str, *, transport: httpx.AsyncBaseTransport | None = None,
                 kept: int = VERDICTS_KEPT):
        self.url = url.rstrip("/")
        self._kept = kept
        self._transport = transport
        self._client: httpx.AsyncClient | None = None
        self._accepted: OrderedDict[bytes, float] = OrderedDict()
        self._refused: OrderedDict[bytes, float] = OrderedDict()
        self._checking: dict[bytes, anyio.Event] = {}
        self._limiter: anyio.CapacityLimiter | None = None
        self._waiting = 0

    async def accepts(self, token: str) -> bool:
        """True if the hub knows ``token``, False if it does not; :class:`HubUndecided` if it cannot say."""
        if len(token) > TOKEN_MAX_LENGTH or not token.isascii() or not token.isprintable():
            return False
        digest = hashlib.sha256(token.encode()).digest()
        known = self._remembered(digest)
        if known is not None:
            return known
        pending = self._checking.get(digest)
        if pending is not None:
            await pending.wait()  # the same token, already being asked: its answer is this one's
            known = self._remembered(digest)
            if known is None:
                raise HubUndecided("the hub could not say for another request with this token, just now")
            return known
        done = self._checking[digest] = anyio.Event()
        try:
            known = await self._ask(token)
        finally:
            del self._checking[digest]
            done.set()
        self._remember(digest, known)
        return known

    def _remembered(self, digest: bytes) -> bool | None:
        now = time.monotonic()
        for verdict, kept in ((True, self._accepted), (False, self._refused)):
            until = kept.get(digest)
            if until is not None:
                if until > now:
                    kept.move_to_end(digest)
                    return verdict
                del kept[digest]
        return None

    def _remember(self, digest: bytes, verdict: bool) -> None:
        kept = self._accepted if verdict else self._refused
        kept[digest] = time.monotonic() + (ACCEPTED_SECONDS if verdict else REFUSED_SECONDS)
        kept.move_to_end(digest)
        while len(kept) > self._kept:
            kept.popitem(last=False)

    async def _ask(self, token: str) -> bool:
        if self._limiter is None or self._client is None:  # made together, on the first check
            self._limiter = anyio.CapacityLimiter(CHECKS_AT_ONCE)
            self._client = httpx.AsyncClient(base_url=self.url, transport=self._transport,
                                             timeout=TIMEOUT_SECONDS)
        if self._waiting >= CHECKS_WAITING:
            raise HubUndecided(f"{self._waiting} requests are waiting for their tokens to be checked")
        self._waiting += 1
        try:
            async with self._limiter:
                response = await self._client.get("/api/v1/whoami", headers={"Authorization": f"Bearer {token}"})
        except httpx.TimeoutException:
            raise HubUndecided(f"hub at {self.url} did not answer within {TIMEOUT_SECONDS:.0f} s") from None
        except httpx.HTTPError as exc:
            raise HubUndecided(f"hub at {self.url} is unreachable: {exc or type(exc).__name__}") from None
        finally:
            self._waiting -= 1
        if response.status_code == 200:
            return True
        if response.status_code == 401:
            return False
        if response.status_code == 404:
            raise HubUndecided(f"hub at {self.url} has no GET /api/v1/whoami: it is older than this hub mcp")
        raise HubUndecided(f"hub at {self.url} answered {response.status_code} to the token check")

    def kept(self) -> dict[str, int]:
        """How many verdicts are remembered, of each kind."""
        return {"accepted": len(self._accepted), "refused": len(self._refused)}

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()


class TokenGate:
    """ASGI middleware: only a POST to ``/mcp`` with a token the hub knows reaches the SDK's app.

    Anything else is answered here, at once: another path 404; another method
    405 with ``Allow: POST`` (the endpoint is stateless, so it has no GET
    stream to offer, which the Streamable HTTP transport allows); no bearer
    token, or one the hub refuses, 401 with ``WWW-Authenticate``; a token the
    hub cannot judge now, 503 with ``Retry-After``.
    """

    def __init__(self, app: ASGIApp, verdicts: TokenVerdicts):
        self.app = app
        self.verdicts = verdicts

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self.app(scope, receive, self._closing(send))
            return
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if scope["path"].rstrip("/") != PATH:
            await _answer(send, 404, "Not Found", f"the MCP endpoint is {PATH}")
            return
        if scope["method"] != "POST":
            await _answer(send, 405, "Method Not Allowed", (
                "this endpoint is stateless: send each JSON-RPC message with POST; it opens no stream"),
                [(b"allow", b"POST")])
            return
        token = bearer_token(_header(scope, b"authorization"))
        if token is None:
            await _unauthorized(send, "send the hub token of an interface: Authorization: Bearer <token>")
            return
        try:
            accepted = await self.verdicts.accepts(token)
        except HubUndecided as undecided:
            log.warning("token check: %s", undecided)
            await _answer(send, 503, "Service Unavailable", f"the token could not be checked: {undecided}",
                          [(b"retry-after", b"5")])
            return
        if not accepted:
            await _unauthorized(send, "the hub does not know this token (revoked or mistyped)", invalid=True)
            return
        await self.app(scope, receive, send)

    def _closing(self, send: Send) -> Send:
        """``send`` for the lifespan: the hub client is closed before shutdown is reported complete."""
        async def sending(message: Message) -> None:
            if message["type"] == "lifespan.shutdown.complete":
                await self.verdicts.aclose()
            await send(message)
        return sending


async def _unauthorized(send: Send, description: str, *, invalid: bool = False) -> None:
    challenge = b'Bearer realm="sdlc-hub", error="invalid_token"' if invalid else b'Bearer realm="sdlc-hub"'
    await _answer(send, 401, "Unauthorized", description, [(b"www-authenticate", challenge)])


async def _answer(send: Send, status: int, title: str, description: str,
                  headers: Sequence[tuple[bytes, bytes]] = ()) -> None:
    body = json.dumps({"title": title, "description": description}).encode()
    await send({"type": "http.response.start", "status": status, "headers": [
        (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()), *headers]})
    await send({"type": "http.response.body", "body": body})


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


def app(server: MCPServer, url: str, host: str, *,
        transport: httpx.AsyncBaseTransport | None = None) -> ASGIApp:
    """The ASGI app: the SDK's Streamable HTTP endpoint at ``/mcp`` behind :class:`TokenGate`.

    Stateless, answering JSON: each POST stands alone, so the endpoint holds no
    session between requests and any request may carry a different caller.
    ``url`` is the hub's, which checks the tokens; ``host`` lets the SDK turn on
    its DNS-rebinding protection for loopback; ``transport`` routes the token
    checks in tests.
    """
    sdk = server.streamable_http_app(streamable_http_path=PATH, stateless_http=True, json_response=True, host=host)
    return TokenGate(sdk, TokenVerdicts(url, transport=transport))


def serve(server: MCPServer, url: str, address: str, log_level: str = "info") -> int:
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
    config = uvicorn.Config(app(server, url, host), log_level=log_level.lower(), lifespan="on", access_log=False)
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
