"""The hub's MCP server: a few tools over the hub's HTTP API.

:func:`build_server` makes the ``MCPServer`` that ``hub mcp`` runs over stdio
or Streamable HTTP (:mod:`hub.mcp.http`). Each tool call opens a
:class:`~hub.mcp.client.HubClient` with the caller's token: the request's own
``Authorization: Bearer`` header over HTTP, the configured token over stdio.
What goes wrong reaches the assistant as a tool error carrying the hub's
message; nothing is printed on stdout, which is the stdio wire.
"""

from __future__ import annotations

import base64
import codecs
import re
import time
from collections.abc import Mapping
from importlib import metadata
from typing import Annotated, Literal
from urllib.parse import quote

import anyio
import httpx
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult, ImageContent, TextContent, ToolAnnotations
from pydantic import Field

from hub.mcp.client import HubClient
from hub.mcp.results import (
    WIKI,
    AttachmentFetch,
    AttachmentRead,
    EntryPage,
    IssueDetail,
    IssuePage,
    LinkedIssue,
    Links,
    Note,
    NoteList,
    ProjectList,
    RefreshResult,
    SyncStatus,
)
from hub.vocabulary import ISSUE_KEY_PATTERN, JIRA_ID_PATTERN

READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)
# Asks the hub to queue work for its agents; repeating it queues (or finds) the same kind of work.
ASKS = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=True)
WRITES = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False)

FINAL_COMMAND_STATUSES = ("done", "failed", "cancelled")
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

# Jira's own shapes of keys and ids, so that a tool refuses "att-1/content" or "../x" as bad
# arguments before any request: a value that is not an id never becomes a path at the hub.
# Compiled, because pydantic then checks them with Python's re: its default engine (Rust's
# regex) has no look-ahead, which the patterns use to mean the very end of the string. The
# tools' JSON Schemas carry the same text, which reads the same in ECMA-262.
Key = Annotated[str, Field(min_length=1, max_length=255, pattern=re.compile(ISSUE_KEY_PATTERN),
                           description="an issue key, e.g. AURORA-12")]
AttachmentId = Annotated[str, Field(min_length=1, max_length=255, pattern=re.compile(JIRA_ID_PATTERN),
                                    description="the attachment's Jira id, e.g. 10001")]
Cursor = Annotated[int | None, Field(ge=0, description="`next_cursor` of the previous page; omit for the first")]
Filter = Annotated[str | None, Field(min_length=1, max_length=255)]

INSTRUCTIONS = """\
A mirror of a team's Jira issues, kept by sdlc-hub. It answers from the mirror, so it works while
Jira is unreachable; request_refresh asks the hub's agent to reload issues from Jira, and
sync_status says how fresh the mirror is. Text fields are Jira wiki markup, returned as they are.
Attachments are fetched on demand: fetch_attachment, then read_attachment."""


# sync_status shows this many agents at most, each detail cut to this many
# characters: enough to tell whether the agents work, bounded however many
# agents the hub knows.
SYNC_STATUS_AGENTS = 20
SYNC_STATUS_DETAIL_CHARS = 200


def _brief_agent(agent: dict) -> dict:
    detail = agent.get("detail")
    if isinstance(detail, str) and len(detail) > SYNC_STATUS_DETAIL_CHARS:
        agent = {**agent, "detail": detail[:SYNC_STATUS_DETAIL_CHARS - 1] + "…"}
    return agent


def bearer_token(authorization: str | None) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` value, or None."""
    scheme, _, token = (authorization or "").partition(" ")
    return token.strip() or None if scheme.lower() == "bearer" else None


def build_server(url: str, token: str | None = None, *,
                 transport: httpx.AsyncBaseTransport | None = None) -> MCPServer:
    """The MCP server for the hub at ``url``.

    ``token`` is used when a call comes without an ``Authorization`` header
    (stdio, in-process); over HTTP every request brings its own.
    ``transport`` lets tests route the hub client.
    """
    server = MCPServer("sdlc-hub", instructions=INSTRUCTIONS, version=_version())

    def hub(ctx: Context) -> HubClient:
        headers: Mapping[str, str] | None = ctx.headers
        caller = bearer_token(headers.get("authorization")) if headers else None
        if not (caller or token):
            raise ToolError("no hub token: give an interface token (--token or HUB_TOKEN)")
        return HubClient(url, caller or token, transport=transport)

    @server.tool(annotations=READ_ONLY, description=(
        "Search the mirrored Jira issues. Use it to find issues by words (`q`: full-text over key, summary, "
        "description and comments, ranked, each item with a highlighted `snippet`) and/or by exact filters; "
        "page with `cursor`. Returns `items`, `total` (all matches, on the first page; null when the hub does not "
        "count) and `next_cursor`. "
        "Then use get_issue for one issue's details."))
    async def search_issues(
        ctx: Context,
        q: Annotated[str | None, Field(min_length=1, max_length=1000, description="words to search for")] = None,
        project: Annotated[str | None, Field(min_length=1, max_length=255,
                                             description="a project's label (see list_projects)")] = None,
        issue_type: Filter = None,
        sprint: Annotated[str | None, Field(min_length=1, max_length=10_000, description="a sprint's name")] = None,
        updated_since: Annotated[str | None, Field(min_length=1, max_length=64, description=(
            "a UTC time, e.g. 2026-11-02T09:00:00+00:00: issues updated in Jira since then"))] = None,
        status: Filter = None, assignee: Filter = None, epic_key: Filter = None,
        label: Annotated[str | None, Field(min_length=1, max_length=255, description="one Jira label")] = None,
        limit: Annotated[int, Field(ge=1, le=100, description="issues per page")] = 20,
        cursor: Annotated[int | None, Field(ge=1, description="`next_cursor` of the previous page")] = None,
    ) -> IssuePage:
        async with hub(ctx) as h:
            page = await h.get("/api/v1/issues", q=q, project=project, issue_type=issue_type, sprint=sprint,
                               updated_since=updated_since, status=status, assignee=assignee,
                               epic_key=epic_key, label=label, limit=limit, cursor=cursor)
        return IssuePage(items=page["items"], total=page.get("total"), next_cursor=page["next_cursor"])

    @server.tool(annotations=READ_ONLY, description=(
        "One issue in full: its fields and description (Jira wiki markup), its links both ways with the "
        "other issue's summary and status, its attachments with their states, and the hub's notes. "
        "`include` adds the first page of comments and/or changes (changelog), with their totals; page "
        "further with get_comments / get_changelog."))
    async def get_issue(
        ctx: Context, key: Key,
        include: Annotated[list[Literal["comments", "changes"]] | None, Field(
            max_length=2, description="what else to add: comments, changes")] = None,
    ) -> IssueDetail:
        include = include or []
        async with hub(ctx) as h:
            issue = await h.get(f"/api/v1/issues/{_segment(key)}")
            attachments = await h.get(f"/api/v1/issues/{_segment(key)}/attachments")
            notes = await h.get(f"/api/v1/issues/{_segment(key)}/notes")
            # The hub answers each link with the other issue's summary and status: a constant
            # number of requests, however many links the issue has.
            links = issue.pop("links", {"outward": [], "inward": []})
            comments = await _entries(h, key, "comments", 0, 50) if "comments" in include else None
            changes = await _entries(h, key, "changes", 0, 50) if "changes" in include else None
        return IssueDetail(
            key=issue["key"], format=WIKI, fields=issue,
            links=Links(**{side: [_linked(link) for link in links[side]] for side in ("outward", "inward")}),
            attachments=attachments["items"], notes=notes["items"], comments=comments, changes=changes)

    @server.tool(annotations=READ_ONLY, description=(
        "An issue's comments, oldest first, a page at a time, with `total`: bodies are Jira wiki markup. "
        "Use it to read a discussion in full; follow `next_cursor` until it is null."))
    async def get_comments(ctx: Context, key: Key, cursor: Cursor = None,
                           limit: Annotated[int, Field(ge=1, le=200)] = 50) -> EntryPage:
        async with hub(ctx) as h:
            return await _entries(h, key, "comments", cursor or 0, limit)

    @server.tool(annotations=READ_ONLY, description=(
        "An issue's changelog, oldest first, one item per changed field (who, when, from, to), a page at a "
        "time, with `total`. Use it to see how an issue moved: status changes, reassignments, edits."))
    async def get_changelog(ctx: Context, key: Key, cursor: Cursor = None,
                            limit: Annotated[int, Field(ge=1, le=200)] = 50) -> EntryPage:
        async with hub(ctx) as h:
            return await _entries(h, key, "changes", cursor or 0, limit)

    @server.tool(annotations=READ_ONLY, description=(
        "The team's projects (each one Jira label) and the base JQL the mirror loads. Use it to learn which "
        "`project` values search_issues takes and what the mirror covers."))
    async def list_projects(ctx: Context) -> ProjectList:
        async with hub(ctx) as h:
            projects = await h.get("/api/v1/projects")
        return ProjectList(items=projects["items"], scope=projects.get("scope"), base_jql=projects.get("base_jql"))

    @server.tool(annotations=READ_ONLY, description=(
        "How fresh the mirror is: agents (how many, how many online, and a few of them), the last full and "
        "incremental refresh runs, and the command queue by type and status. Use it before trusting the "
        "mirror for recent changes."))
    async def sync_status(ctx: Context) -> SyncStatus:
        async with hub(ctx) as h:
            overview = await h.get("/api/v1/overview")
            # Online agents first, then the others, newest registered first: two
            # bounded pages whatever the number of agents.
            agents = (await h.get("/api/v1/agents", online="true", limit=SYNC_STATUS_AGENTS))["items"]
            if len(agents) < SYNC_STATUS_AGENTS:
                agents += (await h.get("/api/v1/agents", online="false",
                                       limit=SYNC_STATUS_AGENTS - len(agents)))["items"]
        return SyncStatus(agents=[_brief_agent(a) for a in agents[:SYNC_STATUS_AGENTS]],
                          agents_total=overview["agents"]["total"], agents_online=overview["agents"]["online"],
                          queue=overview["queue"], oldest_queued_at=overview["oldest_queued_at"],
                          oldest_queued_age_seconds=overview["oldest_queued_age_seconds"],
                          last_runs=overview["last_runs"], store=overview["store"])

    @server.tool(annotations=ASKS, description=(
        "Ask the hub's agent to reload issues from Jira: those matching `jql`, or without it everything the "
        "base JQL covers (a full run). With `wait_seconds` it waits that long for the refresh to finish. Use "
        "it when the mirror may be stale for what the user asks about."))
    async def request_refresh(
        ctx: Context,
        jql: Annotated[str | None, Field(min_length=1, max_length=10_000, description="e.g. key = AURORA-12")] = None,
        wait_seconds: Annotated[int, Field(ge=0, le=600, description="how long to wait for it to finish")] = 0,
    ) -> RefreshResult:
        body = {"type": "refresh", "params": {"jql": jql}} if jql else {"type": "refresh"}
        deadline = time.monotonic() + wait_seconds
        async with hub(ctx) as h:
            command = await h.post("/api/v1/commands", body)
            while command["status"] not in FINAL_COMMAND_STATUSES and time.monotonic() < deadline:
                await anyio.sleep(min(1.0, max(0.0, deadline - time.monotonic())))
                command = await h.get(f"/api/v1/commands/{command['id']}")
        return RefreshResult(command=command, finished=command["status"] in FINAL_COMMAND_STATUSES)

    @server.tool(annotations=ASKS, description=(
        "Ask for an attachment's content (the hub's agent downloads it from Jira) and wait up to "
        "`wait_seconds` for it to be `ready`. Then read it with read_attachment. Attachment ids are in "
        "get_issue's `attachments`."))
    async def fetch_attachment(
        ctx: Context, attachment_id: AttachmentId,
        wait_seconds: Annotated[int, Field(ge=0, le=300, description="how long to wait for `ready`")] = 30,
    ) -> AttachmentFetch:
        deadline = time.monotonic() + wait_seconds
        async with hub(ctx) as h:
            answer = await h.post(f"/api/v1/attachments/{_segment(attachment_id)}/fetch")
            command = answer.pop("command", None)
            state = answer
            while state["state"] == "fetching" and (left := deadline - time.monotonic()) > 0:
                seen = state["state"]
                state = await h.get(f"/api/v1/attachments/{_segment(attachment_id)}",
                                    wait=max(1, min(LONG_POLL_SECONDS, int(left))), known=seen)
                if state["state"] == seen:
                    # The hub answers at once when its long-poll slots are taken: do not spin.
                    await anyio.sleep(min(1.0, max(0.0, deadline - time.monotonic())))
            # The command as it ends: a ready attachment's answer names none, only its id.
            command_id = state.get("command_id") or (command or {}).get("id")
            if command_id is not None:
                command = await h.get(f"/api/v1/commands/{command_id}")
        return AttachmentFetch(attachment=state, ready=state["state"] == "ready", command=command)

    @server.tool(annotations=READ_ONLY, structured_output=True, description=(
        "Read a ready attachment: text files as text (up to `max_bytes`, saying whether it was cut), "
        "images as an image, anything else described with its size and a download URL. An attachment that "
        "is not ready is an error: call fetch_attachment first."))
    async def read_attachment(
        ctx: Context, attachment_id: AttachmentId,
        max_bytes: Annotated[int, Field(ge=1, le=1_000_000, description="at most this much text")] = 100_000,
    ) -> Annotated[CallToolResult, AttachmentRead]:
        async with hub(ctx) as h:
            state = await h.get(f"/api/v1/attachments/{_segment(attachment_id)}")
            if state["state"] != "ready":
                raise ToolError(_not_ready(state))
            path = f"/api/v1/attachments/{_segment(attachment_id)}/content"
            read = dict(attachment=state, download_url=h.url + path)
            kind = _kind(state)
            if kind == "image":
                data = await h.head_bytes(path, IMAGE_MAX_BYTES)
                result = AttachmentRead(kind="image", text=None, truncated=False, bytes_returned=len(data), **read)
                image = ImageContent(type="image", data=base64.b64encode(data).decode(), mime_type=state["mime_type"])
                return CallToolResult(content=[image], structured_content=result.model_dump(mode="json"))
            if kind == "text":
                data = await h.head_bytes(path, max_bytes)
                size = state.get("size")
                truncated = len(data) < size if size is not None else len(data) == max_bytes
                text = codecs.getincrementaldecoder("utf-8")("replace").decode(data, final=not truncated)
                result = AttachmentRead(kind="text", text=text, truncated=truncated, bytes_returned=len(data), **read)
                return CallToolResult(content=[TextContent(type="text", text=text)],
                                      structured_content=result.model_dump(mode="json"))
        result = AttachmentRead(kind="binary", text=None, truncated=False, bytes_returned=0, **read)
        described = (f"{state['filename']} ({state.get('mime_type') or 'unknown type'}, {state.get('size')} bytes) "
                     f"is not text or an image; download it from {result.download_url} with the hub token")
        return CallToolResult(content=[TextContent(type="text", text=described)],
                              structured_content=result.model_dump(mode="json"))

    @server.tool(annotations=READ_ONLY, description=(
        "The hub's own notes on an issue (kept by the team's tools and assistants, not in Jira)."))
    async def list_notes(ctx: Context, key: Key) -> NoteList:
        async with hub(ctx) as h:
            notes = await h.get(f"/api/v1/issues/{_segment(key)}/notes")
        return NoteList(key=key, items=notes["items"])

    @server.tool(annotations=WRITES, description=(
        "Add a note to an issue in the hub (not in Jira): a finding, a summary, a reminder for the team. "
        "Its author is the token's name."))
    async def add_note(ctx: Context, key: Key,
                       body: Annotated[str, Field(min_length=1, max_length=100_000)]) -> Note:
        async with hub(ctx) as h:
            return Note(**await h.post(f"/api/v1/issues/{_segment(key)}/notes", {"body": body}))

    return server


async def _entries(h: HubClient, key: str, what: str, offset: int, limit: int) -> EntryPage:
    """One page of an issue's comments or changes; the hub answers them whole, so the total is exact."""
    items = (await h.get(f"/api/v1/issues/{_segment(key)}/{what}"))["items"]
    end = offset + limit
    return EntryPage(key=key, format=WIKI if what == "comments" else None, items=items[offset:end],
                     total=len(items), next_cursor=end if end < len(items) else None)


def _linked(link: dict) -> LinkedIssue:
    return LinkedIssue(type=link["type"], key=link["key"], in_mirror=bool(link.get("in_mirror")),
                       summary=link.get("summary"), status=link.get("status"))


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
    if state["state"] == "fetching":
        return f"{name} is being fetched, not ready yet: wait with fetch_attachment"
    if state["state"] == "failed":
        return f"{name} is not ready: its last fetch failed ({state.get('error')}); fetch_attachment tries again"
    return f"{name} is not ready (state none): call fetch_attachment first"


def _version() -> str:
    try:
        return metadata.version("sdlc-hub")
    except metadata.PackageNotFoundError:  # run from a source tree that is not installed
        return ""


def _segment(value: str) -> str:
    """``value`` as one path segment: a key or id never reaches another route."""
    return quote(value, safe="")
