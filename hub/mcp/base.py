"""What every MCP tool shares: the hub it calls, the shapes of its arguments, its registration.

A tool is a module-level ``async def`` taking a :data:`ToolContext` and its
arguments, registered with :func:`tool` into its area's ``TOOLS`` (issues,
sync, attachments, notes); :func:`hub.mcp.server.build_server` lists them all.
The hub it reaches is the server's lifespan context, a :class:`HubAccess`.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Annotated, Any, TypeAlias, TypeVar
from urllib.parse import quote

import httpx
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.tools import Tool
from mcp_types import ToolAnnotations
from pydantic import BeforeValidator, Field

from hub.mcp.client import HubClient
from hub.vocabulary import ISSUE_KEY_PATTERN, JIRA_ID_PATTERN

READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)
# Asks the hub to queue work for its agents; repeating it queues (or finds) the same kind of work.
ASKS = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=True)
WRITES = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False)


def as_jira_writes_it(value: object) -> object:
    """A key in any case is the key (aurora-12 is AURORA-12, as Jira reads it): upper-cased before
    the check when it is ASCII, so that a look-alike of another alphabet is still refused."""
    return value.upper() if isinstance(value, str) and value.isascii() else value


# Jira's own shapes of keys and ids, so that a tool refuses "att-1/content" or "../x" as bad
# arguments before any request: a value that is not an id never becomes a path at the hub.
# Compiled, because pydantic then checks them with Python's re: its default engine (Rust's
# regex) has no look-ahead, which the patterns use to mean the very end of the string. The
# tools' JSON Schemas carry the same text, which reads the same in ECMA-262. The key's validator
# comes after its Field: pydantic then keeps the pattern in the tool's JSON Schema.
Key = Annotated[str, Field(min_length=1, max_length=255, pattern=re.compile(ISSUE_KEY_PATTERN),
                           description="an issue key, e.g. AURORA-12"),
                BeforeValidator(as_jira_writes_it)]
AttachmentId = Annotated[str, Field(min_length=1, max_length=255, pattern=re.compile(JIRA_ID_PATTERN),
                                    description="the attachment's Jira id, e.g. 10001")]
Cursor = Annotated[int | None, Field(ge=0, description="`next_cursor` of the previous page; omit for the first")]
Filter = Annotated[str | None, Field(min_length=1, max_length=255)]


def bearer_token(authorization: str | None) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` value, or None."""
    scheme, _, token = (authorization or "").partition(" ")
    return token.strip() or None if scheme.lower() == "bearer" else None


@dataclass(frozen=True)
class HubAccess:
    """The hub a server's tools call: its URL, the token for calls that bring none, how to reach it.

    ``token`` serves a call without an ``Authorization`` header (stdio,
    in-process); over HTTP every request brings its own. ``transport`` lets
    tests route the hub client.
    """

    url: str
    token: str | None = None
    transport: httpx.AsyncBaseTransport | None = None

    def client(self, headers: Mapping[str, str] | None) -> HubClient:
        """A client of the hub with the caller's bearer token, or else the configured one."""
        caller = bearer_token(headers.get("authorization")) if headers else None
        token = caller or self.token
        if not token:
            raise ToolError("no hub token: give an interface token (--token or HUB_TOKEN)")
        return HubClient(self.url, token, transport=self.transport)

    @asynccontextmanager
    async def lifespan(self, server: MCPServer[HubAccess]) -> AsyncIterator[HubAccess]:
        """The server's lifespan: it holds nothing open, and gives the tools this object."""
        yield self


# What a tool takes first: the SDK fills it in, its lifespan context the server's HubAccess.
ToolContext: TypeAlias = Context[HubAccess, Any]


def hub_client(ctx: ToolContext) -> HubClient:
    """A client of the hub for this call, to use as ``async with hub_client(ctx) as h``."""
    return ctx.request_context.lifespan_context.client(ctx.headers)


ToolFunction = TypeVar("ToolFunction", bound=Callable[..., Any])


def tool(tools: list[Tool], *, description: str, annotations: ToolAnnotations,
         structured_output: bool | None = None) -> Callable[[ToolFunction], ToolFunction]:
    """Register the decorated function as a tool, as ``MCPServer.tool`` would, into ``tools``.

    The function stays as it is; the :class:`Tool` made of it (its input and
    output schemas from its signature) is built once and serves every server.
    """
    def register(fn: ToolFunction) -> ToolFunction:
        tools.append(Tool.from_function(fn, description=description, annotations=annotations,
                                        structured_output=structured_output))
        return fn
    return register


def segment(value: str) -> str:
    """``value`` as one path segment: a key or id never reaches another route."""
    return quote(value, safe="")
