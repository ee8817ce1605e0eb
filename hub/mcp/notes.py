"""The tools for the hub's own notes on an issue (kept in the hub, never in Jira)."""

from __future__ import annotations

from typing import Annotated

from mcp.server.mcpserver.tools import Tool
from pydantic import Field

from hub.mcp.base import READ_ONLY, WRITES, Key, ToolContext, hub_client, segment, tool
from hub.mcp.results import Note, NoteList

TOOLS: list[Tool] = []


@tool(TOOLS, annotations=READ_ONLY, description=(
    "The hub's own notes on an issue (kept by the team's tools and assistants, not in Jira)."))
async def list_notes(ctx: ToolContext, key: Key) -> NoteList:
    async with hub_client(ctx) as h:
        notes = await h.get(f"/api/v1/issues/{segment(key)}/notes")
    return NoteList(key=key, items=notes["items"])


@tool(TOOLS, annotations=WRITES, description=(
    "Add a note to an issue in the hub (not in Jira): a finding, a summary, a reminder for the team. "
    "Its author is the token's name."))
async def add_note(ctx: ToolContext, key: Key, body: Annotated[str, Field(min_length=1, max_length=100_000)]) -> Note:
    async with hub_client(ctx) as h:
        return Note(**await h.post(f"/api/v1/issues/{segment(key)}/notes", {"body": body}))
