"""What the MCP tools answer: each result's shape, which becomes its output schema.

Items of the hub's own lists (issues, comments, changes, commands, notes, ...)
are passed as the hub answers them (docs/api.md), so they are open objects here.
"""

from __future__ import annotations

from typing import Any, Final, Literal

from pydantic import BaseModel, Field

Item = dict[str, Any]
# A Literal to the type checker, as the `format` fields below want.
WIKI: Final = "jira-wiki"


class IssuePage(BaseModel):
    """One page of issues."""

    items: list[Item] = Field(description="issues, as GET /api/v1/issues lists them (with `snippet` for `q`)")
    total: int | None = Field(description="how many issues match in all: the hub counts them on the first page "
                                          "(no `cursor`); null on later pages or when the hub does not count")
    next_cursor: int | None = Field(description="pass back as `cursor` for the next page; null on the last")


class EntryPage(BaseModel):
    """One page of an issue's comments or changelog, with the total count."""

    key: str
    format: Literal["jira-wiki"] | None = Field(
        description="the markup of text fields: comment bodies are Jira wiki markup, as Jira holds them")
    items: list[Item]
    total: int = Field(description="how many the issue has in all; never silently cut")
    next_cursor: int | None = Field(description="pass back as `cursor` for the next page; null on the last")


class LinkedIssue(BaseModel):
    """One link of an issue, with the other issue's summary and status when the mirror holds it."""

    type: str
    key: str
    summary: str | None
    status: str | None
    in_mirror: bool


class Links(BaseModel):
    outward: list[LinkedIssue] = Field(description="this issue's links to others (it blocks, relates to, ...)")
    inward: list[LinkedIssue] = Field(description="other issues' links to this one")


class IssueDetail(BaseModel):
    """One issue as the mirror holds it."""

    key: str
    format: Literal["jira-wiki"] = Field(description="`description` (and comment bodies) are Jira wiki markup")
    fields: Item = Field(description="the issue's fields, `description` included")
    links: Links
    attachments: list[Item] = Field(description="its attachments, each with `state` (ready, fetching, failed, none)")
    notes: list[Item] = Field(description="the hub's own notes on it")
    comments: EntryPage | None = Field(None, description="the first page of comments, with `include: comments`")
    changes: EntryPage | None = Field(None, description="the first page of changes, with `include: changes`")


class ProjectList(BaseModel):
    items: list[Item] = Field(description="projects: one Jira label each, with a name and maybe a board")
    scope: str | None = Field(description="the JQL before the labels clause")
    base_jql: str | None = Field(description="the JQL a full refresh loads; null with no projects")


class SyncStatus(BaseModel):
    agents: list[Item] = Field(description="at most 20 agents, the online ones first, each with `online`, "
                               "`last_seen_at` and `detail` (cut to 200 characters)")
    agents_total: int = Field(description="agents heard from within the hub's forget time (HUB_AGENT_FORGET_HOURS)")
    agents_online: int = Field(description="agents heard from within the last 120 seconds")
    queue: list[Item] = Field(description="commands counted by type and status")
    oldest_queued_at: str | None
    oldest_queued_age_seconds: float | None
    last_runs: Item = Field(description="`full` and `incremental`: the last finished run of each, or null")
    store: Item = Field(description="the attachment store: files and bytes")


class RefreshResult(BaseModel):
    command: Item = Field(description="the refresh command as the hub shows it")
    finished: bool = Field(description="whether it ended (done, failed or cancelled) within the wait")


class AttachmentFetch(BaseModel):
    attachment: Item = Field(description="the attachment and its `state` when the wait ended")
    ready: bool
    command: Item | None = Field(description="the fetch_attachment command that serves the request")


class AttachmentRead(BaseModel):
    attachment: Item
    kind: Literal["text", "image", "binary"] = Field(
        description="text: `text` holds it; image: an image content block holds it; binary: not inlined")
    text: str | None
    truncated: bool = Field(description="whether the text stops at `max_bytes` before the file's end")
    bytes_returned: int
    download_url: str = Field(description="the content at the hub (needs the same token)")


class NoteList(BaseModel):
    key: str
    items: list[Item]


class Note(BaseModel):
    id: int
    key: str
    author: str
    body: str
    created_at: str
    updated_at: str
