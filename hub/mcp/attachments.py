"""The tools for attachments: have the agent fetch one into the hub, then read it as text or an image."""

from __future__ import annotations

import base64
import codecs
import time
from typing import Annotated, Literal

import anyio
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.tools import Tool
from mcp_types import CallToolResult, ImageContent, TextContent
from pydantic import Field

from hub.mcp.base import ASKS, READ_ONLY, AttachmentId, ToolContext, hub_client, segment, tool
from hub.mcp.client import HubClient
from hub.mcp.results import AttachmentFetch, AttachmentRead
from hub.vocabulary import FAILED, FETCHING, NONE, READY

# The hub holds one attachment long-poll at most this long (docs/api.md).
LONG_POLL_SECONDS = 30
# Images past this are described, not inlined: a model's context is not a file transfer.
IMAGE_MAX_BYTES = 5 * 1024 * 1024
IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")
TEXT_TYPES = ("application/json", "application/xml", "application/yaml", "application/x-yaml",
              "application/javascript", "application/sql", "application/x-sh", "application/csv")
TEXT_SUFFIXES = (".txt", ".log", ".md", ".csv", ".tsv", ".json", ".xml", ".yaml", ".yml", ".ini", ".cfg",
                 ".conf", ".properties", ".sql", ".sh", ".py", ".java", ".js", ".ts", ".kt", ".go", ".c",
                 ".h", ".cpp", ".cs", ".html", ".css")

TOOLS: list[Tool] = []


@tool(TOOLS, annotations=ASKS, description=(
    "Ask for an attachment's content (the hub's agent downloads it from Jira) and wait up to "
    "`wait_seconds` for it to be `ready`. Then read it with read_attachment. Attachment ids are in "
    "get_issue's `attachments`."))
async def fetch_attachment(
    ctx: ToolContext, attachment_id: AttachmentId,
    wait_seconds: Annotated[int, Field(ge=0, le=300, description="how long to wait for `ready`")] = 30,
) -> AttachmentFetch:
    deadline = time.monotonic() + wait_seconds
    async with hub_client(ctx) as h:
        answer = await h.post(f"/api/v1/attachments/{segment(attachment_id)}/fetch")
        command = answer.pop("command", None)
        state = await _settled(h, attachment_id, answer, deadline)
        # The command as it ends: a ready attachment's answer names none, only its id.
        command_id = state.get("command_id") or (command or {}).get("id")
        if command_id is not None:
            command = await h.get(f"/api/v1/commands/{command_id}")
    return AttachmentFetch(attachment=state, ready=state["state"] == READY, command=command)


@tool(TOOLS, annotations=READ_ONLY, structured_output=True, description=(
    "Read a ready attachment: text files as text (up to `max_bytes`, saying whether it was cut), "
    "images as an image, anything else described with its size and a download URL. An attachment that "
    "is not ready is an error: call fetch_attachment first."))
async def read_attachment(
    ctx: ToolContext, attachment_id: AttachmentId,
    max_bytes: Annotated[int, Field(ge=1, le=1_000_000, description="at most this much text")] = 100_000,
) -> Annotated[CallToolResult, AttachmentRead]:
    async with hub_client(ctx) as h:
        state = await h.get(f"/api/v1/attachments/{segment(attachment_id)}")
        if state["state"] != READY:
            raise ToolError(_not_ready(state))
        path = f"/api/v1/attachments/{segment(attachment_id)}/content"
        kind = _kind(state)
        if kind == "image":
            return await _image(h, path, state)
        if kind == "text":
            return await _text(h, path, state, max_bytes)
    return _described(state, h.url + path)


async def _settled(h: HubClient, attachment_id: str, state: dict, deadline: float) -> dict:
    """The attachment's state once it is no longer fetching, or when ``deadline`` passes."""
    while state["state"] == FETCHING and (left := deadline - time.monotonic()) > 0:
        seen = state["state"]
        state = await h.get(f"/api/v1/attachments/{segment(attachment_id)}",
                            wait=max(1, min(LONG_POLL_SECONDS, int(left))), known=seen)
        if state["state"] == seen:
            # The hub answers at once when its long-poll slots are taken: do not spin.
            await anyio.sleep(min(1.0, max(0.0, deadline - time.monotonic())))
    return state


async def _image(h: HubClient, path: str, state: dict) -> CallToolResult:
    data = await h.head_bytes(path, IMAGE_MAX_BYTES)
    result = AttachmentRead(kind="image", text=None, truncated=False, bytes_returned=len(data),
                            attachment=state, download_url=h.url + path)
    image = ImageContent(type="image", data=base64.b64encode(data).decode(), mime_type=state["mime_type"])
    return CallToolResult(content=[image], structured_content=result.model_dump(mode="json"))


async def _text(h: HubClient, path: str, state: dict, max_bytes: int) -> CallToolResult:
    data = await h.head_bytes(path, max_bytes)
    size = state.get("size")
    truncated = len(data) < size if size is not None else len(data) == max_bytes
    text = codecs.getincrementaldecoder("utf-8")("replace").decode(data, final=not truncated)
    result = AttachmentRead(kind="text", text=text, truncated=truncated, bytes_returned=len(data),
                            attachment=state, download_url=h.url + path)
    return CallToolResult(content=[TextContent(type="text", text=text)],
                          structured_content=result.model_dump(mode="json"))


def _described(state: dict, download_url: str) -> CallToolResult:
    result = AttachmentRead(kind="binary", text=None, truncated=False, bytes_returned=0,
                            attachment=state, download_url=download_url)
    described = (f"{state['filename']} ({state.get('mime_type') or 'unknown type'}, {state.get('size')} bytes) "
                 f"is not text or an image; download it from {result.download_url} with the hub token")
    return CallToolResult(content=[TextContent(type="text", text=described)],
                          structured_content=result.model_dump(mode="json"))


def _kind(state: dict) -> Literal["text", "image", "binary"]:
    mime = (state.get("mime_type") or "").split(";")[0].strip().lower()
    size = state.get("size")
    if mime in IMAGE_TYPES and (size is None or size <= IMAGE_MAX_BYTES):
        return "image"
    if mime.startswith("text/") or mime in TEXT_TYPES or mime.endswith(("+json", "+xml")):
        return "text"
    if mime in ("", "application/octet-stream") and (state.get("filename") or "").lower().endswith(TEXT_SUFFIXES):
        return "text"
    return "binary"


def _not_ready(state: dict) -> str:
    name = f"attachment {state['attachment_id']} ({state['filename']})"
    if state["state"] == FETCHING:
        return f"{name} is being fetched, not ready yet: wait with fetch_attachment"
    if state["state"] == FAILED:
        return f"{name} is not ready: its last fetch failed ({state.get('error')}); fetch_attachment tries again"
    return f"{name} is not ready (state {NONE}): call fetch_attachment first"
