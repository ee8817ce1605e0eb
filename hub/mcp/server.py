"""The hub's MCP server: a few tools over the hub's HTTP API.

:func:`build_server` makes the ``MCPServer`` that ``hub mcp`` runs over stdio
or Streamable HTTP (:mod:`hub.mcp.http`). The tools are module-level functions,
by area (:mod:`hub.mcp.issues`, :mod:`hub.mcp.sync`, :mod:`hub.mcp.attachments`,
:mod:`hub.mcp.notes`); the server's lifespan context, a
:class:`~hub.mcp.base.HubAccess`, tells them which hub to call. Each tool call
opens a :class:`~hub.mcp.client.HubClient` with the caller's token: the
request's own ``Authorization: Bearer`` header over HTTP, the configured token
over stdio. What goes wrong reaches the assistant as a tool error carrying the
hub's message; nothing is printed on stdout, which is the stdio wire.
"""

from __future__ import annotations

from importlib import metadata

import httpx
from mcp.server.mcpserver import MCPServer

from hub.mcp import attachments, filters, issues, notes, sync
from hub.mcp.base import HubAccess, bearer_token

__all__ = ["INSTRUCTIONS", "TOOLS", "bearer_token", "build_server"]

INSTRUCTIONS = """\
A mirror of a team's Jira issues, kept by sdlc-hub. It answers from the mirror, so it works while
Jira is unreachable; search_issues takes JQL as Jira does, and the team's saved filters are
list_filters and run_filter; request_refresh asks the hub's agent to reload issues from Jira, and
sync_status says how fresh the mirror is. Text fields (descriptions, comments) come as Markdown the
hub renders from Jira's wiki markup; format: wiki gives them as Jira holds them.
Attachments are fetched on demand: fetch_attachment, then read_attachment."""

# In the order assistants list them (docs/mcp.md): reading, saved filters, freshness, attachments, notes.
TOOLS = (*issues.TOOLS, *filters.TOOLS, *sync.TOOLS, *attachments.TOOLS, *notes.TOOLS)


def build_server(url: str, token: str | None = None, *,
                 transport: httpx.AsyncBaseTransport | None = None) -> MCPServer[HubAccess]:
    """The MCP server for the hub at ``url``.

    ``token`` is used when a call comes without an ``Authorization`` header
    (stdio, in-process); over HTTP every request brings its own.
    ``transport`` lets tests route the hub client.
    """
    access = HubAccess(url, token, transport)
    return MCPServer("sdlc-hub", instructions=INSTRUCTIONS, version=_version(), tools=list(TOOLS),
                     lifespan=access.lifespan)


def _version() -> str:
    try:
        return metadata.version("sdlc-hub")
    except metadata.PackageNotFoundError:  # run from a source tree that is not installed
        return ""
