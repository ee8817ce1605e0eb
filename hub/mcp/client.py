"""A small client of the hub's HTTP API, as the MCP server uses it.

The MCP server never opens the hub's database: everything it shows comes
through ``/api/v1`` with an interface token, so it runs wherever the assistant
runs. Every failure becomes a :class:`HubProblem` whose message is what an
assistant should read: the hub's own words for a refusal, or why the hub could
not be reached.
"""

from __future__ import annotations

import functools
import ssl
from typing import Any

import httpx
from mcp.server.mcpserver.exceptions import ToolError

# Long-polls at the hub hold at most 30 s; a request waits a little longer.
TIMEOUT_SECONDS = 45.0


class HubProblem(ToolError):
    """The hub refused a request or could not be reached; ``str()`` says which and why.

    A :class:`ToolError`, so a tool call that meets one answers ``isError`` with
    this message (the SDK logs it to stderr, without a traceback).
    """

    def __init__(self, message: str, status: int | None = None):
        super().__init__(message)
        self.status = status


def refusal(response: httpx.Response) -> HubProblem:
    """The hub's own error (``{"title", "description"}``) as a :class:`HubProblem`."""
    try:
        body = response.json()
    except ValueError:
        body = {}
    body = body if isinstance(body, dict) else {}
    title = body.get("title") or response.reason_phrase
    description = body.get("description")
    if response.status_code == 401:
        hint = "the hub does not know this token (give an interface token: --token or HUB_TOKEN)"
        return HubProblem(f"hub answered 401 {title}: {hint}", 401)
    if response.status_code == 403:
        hint = "this token's role may not do that (an interface or admin token is needed)"
        return HubProblem(f"hub answered 403 {title}: {description or hint}", 403)
    if response.status_code == 429:
        # Past the token's bound of queued commands: say when to ask again, as the hub does.
        after = response.headers.get("Retry-After")
        wait = f"; retry after {after} s" if after else ""
        return HubProblem(f"hub answered 429 {title}: {description or 'too many requests'}{wait}", 429)
    field = f" (field {body['field']})" if body.get("field") else ""
    # A JQL error's place, so that an assistant can correct the query where it went wrong.
    position = body.get("position")
    if isinstance(position, dict) and isinstance(position.get("character"), int):
        field = (f" (field {body.get('field') or 'jql'}, line {position.get('line', 1)}, "
                 f"character {position['character']})")
    text = f": {description}" if description else ""
    return HubProblem(f"hub answered {response.status_code} {title}{text}{field}", response.status_code)


@functools.cache
def tls_context() -> ssl.SSLContext:
    """The one TLS context of this process's clients of the hub (verifying, as httpx's own):
    httpx would make one per client, reading the CA bundle each time, and a tool call makes
    a client (a thirtieth of a second of CPU each)."""
    return httpx.create_ssl_context()


class HubClient:
    """One token's view of one hub; use as ``async with HubClient(url, token) as hub``."""

    def __init__(self, url: str, token: str, *, transport: httpx.AsyncBaseTransport | None = None):
        self.url = url.rstrip("/")
        self._client = httpx.AsyncClient(
            base_url=self.url, transport=transport, timeout=TIMEOUT_SECONDS, verify=tls_context(),
            headers={"Authorization": f"Bearer {token}", "Accept": "application/json"})

    async def __aenter__(self) -> HubClient:
        return self

    async def __aexit__(self, *exc_info) -> None:
        await self._client.aclose()

    async def get(self, path: str, **params: Any) -> dict:
        """GET a JSON document; parameters that are None are left out."""
        return (await self._send("GET", path, params=_present(params))).json()

    async def post(self, path: str, body: dict | None = None) -> dict:
        """POST a JSON body (or none); the answer's JSON."""
        return (await self._send("POST", path, json=body)).json()

    async def post_new(self, path: str, body: dict | None = None) -> tuple[dict, bool]:
        """POST a JSON body that may make something: the answer's JSON and whether it was made
        (201), or the hub answered with what was there already (200)."""
        response = await self._send("POST", path, json=body)
        return response.json(), response.status_code == 201

    async def write(self, method: str, path: str, body: dict | None, idempotency_key: str) -> dict:
        """Ask for a write to Jira (``POST``, ``PATCH`` or ``DELETE`` of a write route) under
        ``idempotency_key``: the write object, made now (202) or the one that key made before (200)."""
        headers = {"Idempotency-Key": idempotency_key}
        return (await self._send(method, path, json=body, headers=headers)).json()

    async def head_bytes(self, path: str, limit: int) -> bytes:
        """The first ``limit`` bytes of a download (one ``Range`` request)."""
        response = await self._send("GET", path, headers={"Range": f"bytes=0-{limit - 1}"})
        return response.content[:limit]

    async def _send(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        try:
            response = await self._client.request(method, path, **kwargs)
        except httpx.TimeoutException:
            raise HubProblem(f"hub at {self.url} did not answer within {TIMEOUT_SECONDS:.0f} s") from None
        except httpx.HTTPError as exc:
            raise HubProblem(f"hub at {self.url} is unreachable: {exc or type(exc).__name__}") from None
        if response.status_code >= 400:
            raise refusal(response)
        return response


def _present(params: dict[str, Any]) -> dict[str, Any]:
    return {name: value for name, value in params.items() if value is not None}
