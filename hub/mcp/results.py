"""What the MCP tools answer: each result's shape, which becomes its output schema.

Items of the hub's own lists (issues, comments, changes, commands, notes, ...)
are passed as the hub answers them (docs/api.md), so they are open objects here.
"""

from __future__ import annotations

from typing import Any, Final, Literal

from pydantic import BaseModel, Field

from hub.mcp.wording import ALLOWED_SHOWN, CUSTOM_VALUE_CHARS

Item = dict[str, Any]
# A Literal to the type checker, as the `format` fields below want.
WIKI: Final = "jira-wiki"
MARKDOWN: Final = "markdown"
# What a text field holds: Markdown the hub rendered (the default), or Jira's wiki markup.
TextFormat = Literal["markdown", "jira-wiki"]


class IssuePage(BaseModel):
    """One page of issues."""

    items: list[Item] = Field(description="issues, as GET /api/v1/issues lists them (with `snippet` for `q`), "
                                          "but for `custom_fields`, by display name as get_issue shows them")
    total: int | None = Field(description="how many issues match in all: the hub counts them on the first page "
                                          "(no `cursor`); null on later pages or when the hub does not count")
    next_cursor: int | None = Field(description="pass back as `cursor` for the next page; null on the last")


class EntryPage(BaseModel):
    """One page of an issue's comments or changelog, with the total count."""

    key: str
    format: TextFormat | None = Field(
        description="the markup of text fields: comment bodies are Markdown (`markdown`, rendered by the hub "
                    "from Jira's wiki markup) or Jira wiki markup as Jira holds them (`jira-wiki`)")
    items: list[Item]
    total: int = Field(description="how many the issue has in all; never silently cut")
    next_cursor: int | None = Field(description="pass back as `cursor` for the next page; null on the last")


class LinkedIssue(BaseModel):
    """One link of an issue, worded as Jira words it, with the other issue's summary and status
    when the mirror holds it."""

    type: str
    phrase: str = Field(description="the link as read from this issue: `blocks` outward, `is blocked by` "
                                    "inward (Jira's names of the link type; its type name when unknown)")
    text: str = Field(description="the phrase and the other issue: `blocks AURORA-13`")
    key: str
    summary: str | None
    status: str | None
    in_mirror: bool
    gone: bool = Field(False, description="the other issue is gone from Jira (the mirror keeps it)")


class Links(BaseModel):
    outward: list[LinkedIssue] = Field(description="this issue's links to others (it blocks, relates to, ...)")
    inward: list[LinkedIssue] = Field(description="other issues' links to this one")


class TimeTracking(BaseModel):
    """An issue's time tracking in Jira's notation (`1w 2d 3h 30m`: a day of 8 hours, a week of 5 days)."""

    original_estimate: str | None = Field(description="the original estimate; null when none")
    remaining: str | None = Field(description="the remaining estimate; null when none")
    spent: str | None = Field(description="the time logged, as Jira sums it; null when none")


class WorklogTotal(BaseModel):
    count: int = Field(description="how many worklogs the mirror holds for the issue (get_worklogs lists them)")
    time_spent: str = Field(description="their time summed, in Jira's notation")
    time_spent_seconds: int


class EditableField(BaseModel):
    """A field on one of Jira's screens (the edit screen, a transition's, a create screen)."""

    id: str = Field(description="the field's Jira id: `resolution`, `priority`, `customfield_10010`")
    name: str = Field(description="its display name")
    type: str | None = Field(description="Jira's schema type: string, priority, user, array, option, ...")
    required: bool
    allowed: list[str] | None = Field(description=(
        f"the values it takes (names), at most {ALLOWED_SHOWN}; null when Jira lists none (free text, users)"))
    operations: list[str] = Field(description="how it may be changed: set, add, remove")


class TransitionOption(BaseModel):
    """One transition Jira offers an issue now."""

    id: str
    name: str
    to: str | None = Field(description="the status it leads to")
    text: str = Field(description="the transition in a line: `Resolve Issue (31) → Resolved; requires Resolution`")
    fields: list[EditableField] = Field(description="the fields its screen takes; the required ones must be given")


class IssueDetail(BaseModel):
    """One issue as the mirror holds it."""

    key: str = Field(description="the key the issue has now (asked by an old key, the moved issue's)")
    moved: str | None = Field(None, description=(
        "when Jira moved the issue to another key: which keys it had before (`moved_from` in `fields`), "
        "and that the key asked is an old one"))
    format: TextFormat = Field(
        description="`description`, `environment`, multi-line custom fields (and comment bodies) are Markdown "
                    "(`markdown`, rendered by the hub from Jira's wiki markup) or Jira wiki markup (`jira-wiki`)")
    fields: Item = Field(description=(
        "the issue's fields as GET /api/v1/issues/{key} answers them (`description`, `environment`, "
        "`resolution`, `resolved`, `components`, `fix_versions` and `affects_versions` with `released`, "
        "`parent_key`, `sprints` with their state, time tracking in seconds, `people`, ...), but for "
        "`links`, `subtasks` and `custom_fields`, which follow"))
    custom_fields: dict[str, str] = Field(description=(
        "the issue's other Jira fields by display name, each value as text (`Story Points`: `5`; lists "
        f"joined with `, `; cut to {CUSTOM_VALUE_CHARS} characters, ending in `…`); a name two fields "
        "share is followed by the field's id"))
    time_tracking: TimeTracking
    worklogs: WorklogTotal
    subtasks: list[Item] = Field(description="its sub-tasks: key, summary, status, gone")
    gone: str | None = Field(None, description=(
        "set when the issue is gone from Jira (deleted, or no longer visible to the agent's user): since "
        "when and why, in a sentence; its fields are as last mirrored. Null while Jira returns it"))
    links: Links
    attachments: list[Item] = Field(description="its attachments, each with `state` (ready, fetching, failed, none)")
    notes: list[Item] = Field(description="the hub's own notes on it")
    comments: EntryPage | None = Field(None, description="the first page of comments, with `include: comments`")
    changes: EntryPage | None = Field(None, description="the first page of changes, with `include: changes`")
    transitions: list[TransitionOption] | None = Field(None, description=(
        "the transitions Jira offers the issue now (for transition_issue): where each goes and the fields its "
        "screen takes; null when the hub does not know them yet (the agent has not sent them)"))
    editable_fields: list[EditableField] | None = Field(None, description=(
        "the fields Jira's edit screen offers (for update_issue), with what each allows; null when the hub "
        "does not know them yet"))
    pending_writes: list[Item] = Field(default_factory=list, description=(
        "writes to this issue still to reach Jira (pending or applying), oldest first: the mirror does not "
        "show them until they are done"))
    screens: str | None = Field(None, description="what is not known of transitions and editable fields, and why")


class WorklogPage(BaseModel):
    """One page of an issue's worklogs, with the issue's totals."""

    key: str
    format: TextFormat = Field(description="worklog comments are Markdown (`markdown`) or Jira wiki markup "
                                           "(`jira-wiki`)")
    items: list[Item] = Field(description="worklogs as GET /api/v1/issues/{key}/worklogs lists them, each with "
                                          "`time_spent` in seconds and `time_spent_text` in Jira's notation")
    total: int = Field(description="how many worklogs the issue has in all")
    time_spent: str = Field(description="the time of all of them, in Jira's notation")
    time_spent_seconds: int
    next_cursor: int | None = Field(description="pass back as `cursor` for the next page; null on the last")


class SprintPage(BaseModel):
    """One page of the sprints the mirror knows."""

    items: list[Item] = Field(description="sprints as GET /api/v1/sprints lists them: id, name, state, "
                                          "start, end and complete dates, board, goal and `issues` (how "
                                          "many mirrored issues were ever in it)")
    next_cursor: int | None = Field(description="pass back as `cursor` for the next page; null on the last")


class FilterList(BaseModel):
    """One page of the team's saved filters."""

    items: list[Item] = Field(description="saved filters: `id`, `name`, `jql`, `owner` (the saving token's "
                                          "name), `created_at`, `updated_at`")
    next_cursor: int | None = Field(description="pass back as `cursor` for the next page; null on the last")


class ProjectList(BaseModel):
    items: list[Item] = Field(description="projects: one Jira label each, with a name and maybe a board")
    scope: str | None = Field(description="the JQL before the labels clause")
    base_jql: str | None = Field(description="the JQL a full refresh loads; null with no projects")


class SyncStatus(BaseModel):
    agents: list[Item] = Field(description="at most 20 agents, the online ones first, each with `online`, "
                               "`last_seen_at`, `detail` (cut to 200 characters), `holds` (the commands it "
                               "holds now: id, type, claimed_at, lease_until) and `jira` (whether its last call "
                               "to Jira was answered: reachable, checked_at, error, since; null: not reported)")
    agents_total: int = Field(description="agents heard from within the hub's forget time (HUB_AGENT_FORGET_HOURS)")
    agents_online: int = Field(description="agents heard from within the last 120 seconds")
    queue: list[Item] = Field(description="commands counted by type and status")
    oldest_queued_at: str | None
    oldest_queued_age_seconds: float | None
    last_runs: Item = Field(description="`full` and `incremental`: the last finished run of each, or null")
    store: Item = Field(description="the attachment store: files and bytes")


class RefreshResult(BaseModel):
    command: Item = Field(description="the refresh command as the hub shows it")
    queued: bool = Field(description="whether this call queued it; false: a refresh of the same query was "
                                     "already queued or running, and this is that one")
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


class WriteOutcome(BaseModel):
    """A write to Jira as the hub shows it, and what it means."""

    id: int = Field(description="the write's id: get_write(id) tells its status later")
    status: Literal["pending", "applying", "done", "failed", "conflict", "cancelled"] = Field(description=(
        "pending: queued, no agent has taken it; applying: the agent beside Jira is applying it; done: in "
        "Jira; failed: Jira (or the agent's rules) refused it; conflict: Jira changed since it was asked, "
        "nothing written; cancelled: withdrawn before any agent took it"))
    said: str = Field(description="the status in words, and what to do next")
    op: str
    key: str | None = Field(description="the issue written to; null for a new issue")
    result: Item | None = Field(description=(
        "what Jira made when done: `comment_id`, `worklog_id`, `key` and `id` of a new issue, `link_id`, "
        "`transition`, `fields`"))
    error: str | None = Field(description="why it failed, in Jira's words")
    conflict: Item | None = Field(description="per field, `base` (the value when asked) and `jira` (Jira's now)")
    write: Item = Field(description="the write object as the hub answers it (GET /api/v1/writes/{id})")
