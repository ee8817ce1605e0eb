"""The hub's MCP server: a few tools over the hub's HTTP API.

:func:`build_server` makes the ``MCPServer`` that ``hub mcp`` runs over stdio
or Streamable HTTP (:mod:`hub.mcp.http`). The tools are module-level functions,
by area (:mod:`hub.mcp.issues`, :mod:`hub.mcp.sync`, :mod:`hub.mcp.attachments`,
:mod:`hub.mcp.notes`, and the writes to Jira in :mod:`hub.mcp.writes`); the server's lifespan context, a
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

from hub.mcp import attachments, filters, issues, notes, sync, writes
from hub.mcp.base import HubAccess, bearer_token

__all__ = ["INSTRUCTIONS", "READ_ONLY_TOOLS", "TOOLS", "bearer_token", "build_server"]

INSTRUCTIONS = """\
A mirror of a team's Jira issues, kept by sdlc-hub. It answers from the mirror, so it works while
Jira is unreachable; search_issues takes JQL as Jira does, and the team's saved filters are
list_filters and run_filter; request_refresh asks the hub's agent to reload issues from Jira, and
sync_status says how fresh the mirror is. Text fields (descriptions, comments) come as Markdown the
hub renders from Jira's wiki markup; format: wiki gives them as Jira holds them.
Attachments are fetched on demand: fetch_attachment, then read_attachment."""
# Said to assistants when the write tools are offered (not with --read-only).
WRITE_INSTRUCTIONS = """
Writes to Jira (add_comment, transition_issue, update_issue, log_work, create_issue, link_issues) are
queued by the hub and applied by its agent beside Jira, exactly once; each tool waits a little for the
outcome, and get_write(id) tells it later. Read the issue (get_issue) first: its transitions and
editable fields say what Jira accepts; a write based on values Jira no longer holds is a conflict."""

# In the order assistants list them (docs/mcp.md): reading, saved filters, freshness, attachments, notes.
TOOLS = (*issues.TOOLS, *filters.TOOLS, *sync.TOOLS, *attachments.TOOLS, *notes.TOOLS, *writes.TOOLS)
# What `hub mcp --read-only` offers: all but the writes to Jira.
READ_ONLY_TOOLS = tuple(item for item in TOOLS if item not in writes.TOOLS)


def build_server(url: str, token: str | None = None, *,
                 transport: httpx.AsyncBaseTransport | None = None, read_only: bool = False) -> MCPServer[HubAccess]:
    """The MCP server for the hub at ``url``.

    ``token`` is used when a call comes without an ``Authorization`` header
    (stdio, in-process); over HTTP every request brings its own.
    ``transport`` lets tests route the hub client. ``read_only`` leaves out the
    tools that write to Jira (:mod:`hub.mcp.writes`).
    """
    access = HubAccess(url, token, transport)
    tools, instructions = (READ_ONLY_TOOLS, INSTRUCTIONS) if read_only else (TOOLS, INSTRUCTIONS + WRITE_INSTRUCTIONS)
    return MCPServer("sdlc-hub", instructions=instructions, version=_version(), tools=list(tools),
                     lifespan=access.lifespan)


def _version() -> str:
    try:
        return metadata.version("sdlc-hub")
    except metadata.PackageNotFoundError:  # run from a source tree that is not installed
        return ""
