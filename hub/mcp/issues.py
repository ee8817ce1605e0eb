"""The tools that read the mirrored issues: search, one issue, its comments, changelog and worklogs,
the sprints, the projects."""

from __future__ import annotations

from typing import Annotated, Literal

from mcp.server.mcpserver.tools import Tool
from pydantic import Field

from hub.mcp import wording, writes
from hub.mcp.base import READ_ONLY, Cursor, Filter, Key, ToolContext, hub_client, segment, tool
from hub.mcp.client import HubClient
from hub.mcp.results import (
    MARKDOWN,
    WIKI,
    EntryPage,
    IssueDetail,
    IssuePage,
    LinkedIssue,
    Links,
    ProjectList,
    SprintPage,
    TimeTracking,
    WorklogPage,
    WorklogTotal,
)

TOOLS: list[Tool] = []
# Jira's ids of boards and sprints are 64-bit, as the hub stores them.
INT64_MAX = 2**63 - 1

# How text fields come (get_issue, get_comments, get_worklogs).
Format = Annotated[Literal["markdown", "wiki"], Field(description=(
    "how text fields come: `markdown` (the default: rendered by the hub from Jira's wiki markup, which "
    "assistants read best) or `wiki` (Jira's wiki markup as Jira holds it)"))]


# What search_issues' description teaches of JQL: the subset the hub evaluates, in a few lines.
JQL_SUBSET = (
    "`jql` takes Jira's JQL, evaluated over the mirror as Jira would: AND, OR, NOT, parentheses; = != > >= "
    "< <= ~ !~ IN, NOT IN, IS [NOT] EMPTY; fields project, key, summary, description, comment, text, status, "
    "resolution, priority, type, assignee, reporter, labels, component, fixVersion, affectedVersion, sprint, "
    "\"Epic Link\", parent, created, updated, resolved, duedate and custom fields (by name or cf[10012]); "
    "dates \"2026/10/22\" or -7d and startOfDay(), endOfWeek(), ... in the Jira user's time zone; "
    "openSprints(), closedSprints(), futureSprints(), linkedIssues(KEY); WAS, CHANGED (FROM, TO, BY, AFTER, "
    "BEFORE, ON, DURING) over the mirrored changelog; ORDER BY field [ASC|DESC], default key DESC. "
    "currentUser() and what else needs Jira itself is refused, naming it; a query that does not parse is "
    "refused with its position (line 1, character N). ")


@tool(TOOLS, annotations=READ_ONLY, description=(
    "Search the mirrored Jira issues. Use it to find issues by words (`q`: full-text over key, summary, "
    "description, comments, environment and text custom fields, ranked, each item with a highlighted "
    "`snippet`), by a JQL query (`jql`), and/or by exact filters (status, resolution, component, fix or "
    "affects version, sprint, parent, ...); page with `cursor`. " + JQL_SUBSET + "Returns `items`, `total` "
    "(all matches, on the first page; null when the hub does not count) and `next_cursor`. Issues gone "
    "from Jira (deleted, or no longer visible to the agent's user) are left out unless `gone` asks for them. "
    "Then use get_issue for one issue's details; list_filters and run_filter for the team's saved JQL."))
async def search_issues(
    ctx: ToolContext,
    q: Annotated[str | None, Field(min_length=1, max_length=1000, description="words to search for")] = None,
    jql: Annotated[str | None, Field(max_length=10_000, description=(
        "a JQL query, e.g. assignee = ivanov AND status in (\"In Progress\", Review) ORDER BY priority DESC"
    ))] = None,
    project: Annotated[str | None, Field(min_length=1, max_length=255,
                                         description="a project's label (see list_projects)")] = None,
    issue_type: Filter = None,
    sprint: Annotated[str | None, Field(min_length=1, max_length=10_000, description=(
        "a sprint's id or name (see list_sprints): issues that were ever in it, past sprints included"))] = None,
    updated_since: Annotated[str | None, Field(min_length=1, max_length=64, description=(
        "a UTC time, e.g. 2026-11-02T09:00:00+00:00: issues updated in Jira since then"))] = None,
    status: Filter = None, assignee: Filter = None, epic_key: Filter = None,
    label: Annotated[str | None, Field(min_length=1, max_length=255, description="one Jira label")] = None,
    resolution: Annotated[str | None, Field(min_length=1, max_length=255, description=(
        "a resolution's name (e.g. Fixed), or `none` for unresolved issues"))] = None,
    component: Annotated[str | None, Field(min_length=1, max_length=255, description="a component's name")] = None,
    fix_version: Annotated[str | None, Field(min_length=1, max_length=255, description=(
        "a fix version's name or id: issues to be released in it"))] = None,
    affects_version: Annotated[str | None, Field(min_length=1, max_length=255, description=(
        "an affected version's name or id"))] = None,
    parent: Annotated[Key | None, Field(description="a parent issue's key: its sub-tasks")] = None,
    gone: Annotated[Literal["false", "true", "any"] | None, Field(description=(
        "issues gone from Jira: left out by default (`false`); `true` for only those, `any` for all"))] = None,
    sort: Annotated[Literal["priority"] | None, Field(description=(
        "`priority`: by Jira's configured order of priorities, then key; omit for the hub's usual order "
        "(or rank, with `q`)"))] = None,
    limit: Annotated[int, Field(ge=1, le=100, description="issues per page")] = 20,
    cursor: Annotated[int | None, Field(ge=1, description="`next_cursor` of the previous page")] = None,
) -> IssuePage:
    async with hub_client(ctx) as h:
        page = await h.get("/api/v1/issues", q=q, jql=jql, project=project, issue_type=issue_type, sprint=sprint,
                           updated_since=updated_since, status=status, assignee=assignee,
                           epic_key=epic_key, label=label, resolution=resolution, component=component,
                           fix_version=fix_version, affects_version=affects_version, parent=parent,
                           gone=gone, sort=sort, limit=limit, cursor=cursor)
    return issue_page(page)


def issue_page(page: dict) -> IssuePage:
    """A page of the hub's issues as the search tools answer it."""
    return IssuePage(items=[_readable(item) for item in page["items"]], total=page.get("total"),
                     next_cursor=page["next_cursor"])


@tool(TOOLS, annotations=READ_ONLY, description=(
    "One issue in full: its fields and description with resolution, components, "
    "fix and affects versions, environment, parent, sprints with their state, time tracking (`2h 30m`), "
    "its worklogs counted and summed, its custom fields by display name, its sub-tasks, its links both ways "
    "worded as Jira words them (`blocks AURORA-13`) with the other issue's summary and status, its "
    "attachments with their states, the hub's notes, the transitions Jira offers (where each goes, the fields "
    "it requires) and its editable fields with their allowed values, and its writes still on their way to "
    "Jira (`pending_writes`). An old key of an issue Jira moved finds it under its "
    "new key (`moved` says so). `include` adds the first page of comments and/or "
    "changes (changelog), with their totals; page further with get_comments / get_changelog, and read "
    "worklogs with get_worklogs. Text fields (description, environment, multi-line custom fields, comments) "
    "are Markdown the hub renders from Jira's wiki markup; `format: wiki` gives them as Jira holds them."))
async def get_issue(
    ctx: ToolContext, key: Key,
    include: Annotated[list[Literal["comments", "changes"]] | None, Field(
        max_length=2, description="what else to add: comments, changes")] = None,
    format: Format = "markdown",
) -> IssueDetail:
    include = include or []
    async with hub_client(ctx) as h:
        issue = _as_asked(await h.get(f"/api/v1/issues/{segment(key)}", render=_render(format)),
                          ("description", "environment"))
        asked, key = key, issue["key"]  # an old key of a moved issue answers the issue under its key now
        attachments = await h.get(f"/api/v1/issues/{segment(key)}/attachments")
        notes = await h.get(f"/api/v1/issues/{segment(key)}/notes")
        # One worklog is enough: the page carries the issue's count and time of them all.
        worklogs = await h.get(f"/api/v1/issues/{segment(key)}/worklogs", limit=1)
        # The hub answers each link with the other issue's summary and status: a constant
        # number of requests, however many links the issue has.
        links = issue.pop("links", {"outward": [], "inward": []})
        comments = await _entries(h, key, "comments", 0, 50, format) if "comments" in include else None
        changes = await _entries(h, key, "changes", 0, 50) if "changes" in include else None
    subtasks = issue.pop("subtasks", None) or []
    # Jira's screens for the write tools (null: not known yet), and the writes still on their way.
    screens = writes.screens_unknown(issue)
    transitions, edit_fields = issue.pop("transitions", None), issue.pop("edit_fields", None)
    pending_writes = issue.pop("pending_writes", None) or []
    custom = {field_id: _as_asked(field, ("value",)) if isinstance(field, dict) else field
              for field_id, field in (issue.pop("custom_fields", None) or {}).items()}
    spent = worklogs.get("time_spent") or 0
    return IssueDetail(
        key=issue["key"], moved=wording.moved(asked, issue["key"], issue.get("moved_from") or []),
        format=_answered(format), fields=issue, custom_fields=wording.custom_fields(custom),
        time_tracking=TimeTracking(original_estimate=wording.duration(issue.get("time_original_estimate")),
                                   remaining=wording.duration(issue.get("time_estimate")),
                                   spent=wording.duration(issue.get("time_spent"))),
        worklogs=WorklogTotal(count=worklogs.get("total") or 0, time_spent=wording.duration(spent) or "0m",
                              time_spent_seconds=spent),
        subtasks=subtasks, gone=_gone(issue),
        links=Links(**{side: [_linked(link) for link in links[side]] for side in ("outward", "inward")}),
        attachments=attachments["items"], notes=notes["items"], comments=comments, changes=changes,
        transitions=None if transitions is None else writes.transition_options(transitions),
        editable_fields=None if edit_fields is None else writes.screen_fields(edit_fields),
        pending_writes=pending_writes, screens=screens)


@tool(TOOLS, annotations=READ_ONLY, description=(
    "An issue's comments, oldest first, a page at a time, with `total`: bodies are Markdown the hub renders "
    "from Jira's wiki markup (`format: wiki` for the markup as Jira holds it). "
    "Use it to read a discussion in full; follow `next_cursor` until it is null."))
async def get_comments(ctx: ToolContext, key: Key, cursor: Cursor = None,
                       limit: Annotated[int, Field(ge=1, le=200)] = 50, format: Format = "markdown") -> EntryPage:
    async with hub_client(ctx) as h:
        return await _entries(h, key, "comments", cursor or 0, limit, format)


@tool(TOOLS, annotations=READ_ONLY, description=(
    "An issue's changelog, oldest first, one item per changed field (who, when, from, to), a page at a "
    "time, with `total`. Use it to see how an issue moved: status changes, reassignments, edits."))
async def get_changelog(ctx: ToolContext, key: Key, cursor: Cursor = None,
                        limit: Annotated[int, Field(ge=1, le=200)] = 50) -> EntryPage:
    async with hub_client(ctx) as h:
        return await _entries(h, key, "changes", cursor or 0, limit)


@tool(TOOLS, annotations=READ_ONLY, description=(
    "An issue's worklogs (who logged how much time when, and why), oldest first, a page at a time, with "
    "`total` and the time of them all (`2h 30m`: a day of 8 hours, a week of 5 days). Use it to see "
    "where time on an issue went. Comments are Markdown (`format: wiki` for Jira's wiki markup)."))
async def get_worklogs(ctx: ToolContext, key: Key,
                       cursor: Annotated[int | None, Field(ge=1, description=(
                           "`next_cursor` of the previous page; omit for the first"))] = None,
                       limit: Annotated[int, Field(ge=1, le=200)] = 50, format: Format = "markdown") -> WorklogPage:
    async with hub_client(ctx) as h:
        page = await h.get(f"/api/v1/issues/{segment(key)}/worklogs", cursor=cursor, limit=limit,
                           render=_render(format))
    spent = page.get("time_spent") or 0
    items = [{**_as_asked(item, ("comment",)), "time_spent_text": wording.duration(item.get("time_spent"))}
             for item in page["items"]]
    return WorklogPage(key=key, format=_answered(format), items=items, total=page["total"],
                       time_spent=wording.duration(spent) or "0m", time_spent_seconds=spent,
                       next_cursor=page["next_cursor"])


@tool(TOOLS, annotations=READ_ONLY, description=(
    "The sprints the mirror knows, active first, then future, then closed, newest first: each with its "
    "state, start, end and complete dates, board, goal and how many mirrored issues were ever in it. "
    "Use it to find a sprint's id or name for search_issues(sprint=...)."))
async def list_sprints(
    ctx: ToolContext,
    state: Annotated[Literal["future", "active", "closed"] | None, Field(
        description="only sprints in this state")] = None,
    board: Annotated[int | None, Field(ge=1, le=INT64_MAX, description="only this board's sprints (its id)")] = None,
    limit: Annotated[int, Field(ge=1, le=100, description="sprints per page")] = 50,
    cursor: Annotated[int | None, Field(ge=1, description="`next_cursor` of the previous page")] = None,
) -> SprintPage:
    async with hub_client(ctx) as h:
        page = await h.get("/api/v1/sprints", state=state, board=board, limit=limit, cursor=cursor)
    return SprintPage(items=page["items"], next_cursor=page["next_cursor"])


@tool(TOOLS, annotations=READ_ONLY, description=(
    "The team's projects (each one Jira label) and the base JQL the mirror loads. Use it to learn which "
    "`project` values search_issues takes and what the mirror covers."))
async def list_projects(ctx: ToolContext) -> ProjectList:
    async with hub_client(ctx) as h:
        projects = await h.get("/api/v1/projects")
    return ProjectList(items=projects["items"], scope=projects.get("scope"), base_jql=projects.get("base_jql"))


async def _entries(h: HubClient, key: str, what: str, offset: int, limit: int,
                   format: str = "markdown") -> EntryPage:
    """One page of an issue's comments or changes; the hub answers them whole, so the total is exact."""
    if what != "comments":
        items = (await h.get(f"/api/v1/issues/{segment(key)}/{what}"))["items"]
        shown = None
    else:
        items = [_as_asked(item, ("body",)) for item in
                 (await h.get(f"/api/v1/issues/{segment(key)}/{what}", render=_render(format)))["items"]]
        shown = _answered(format)
    end = offset + limit
    return EntryPage(key=key, format=shown, items=items[offset:end],
                     total=len(items), next_cursor=end if end < len(items) else None)


# -- text fields as Markdown (the default) or as Jira's wiki markup -------------------------

def _render(format: str) -> str | None:
    """The hub's ``render`` for a tool's ``format``: Markdown is rendered by the hub."""
    return "markdown" if format == "markdown" else None


def _answered(format: str) -> Literal["markdown", "jira-wiki"]:
    return MARKDOWN if format == "markdown" else WIKI


def _as_asked(item: dict, fields: tuple[str, ...]) -> dict:
    """An object with each wiki ``field`` replaced by its Markdown when the hub rendered it
    (``<field>_markdown``), so that a tool's fields keep their names in either format."""
    item = dict(item)
    for name in fields:
        rendered = item.pop(f"{name}_markdown", None)
        if f"{name}" in item and rendered is not None:
            item[name] = rendered
    return item


def _readable(item: dict) -> dict:
    """A listed issue with its custom fields by display name, as get_issue shows them: readable,
    and bounded however much text a team keeps in them."""
    return {**item, "custom_fields": wording.custom_fields(item.get("custom_fields") or {})}


def _gone(issue: dict) -> str | None:
    """What an assistant should tell of a gone issue, in a sentence; None while Jira returns it."""
    if not issue.get("gone"):
        return None
    reason = issue.get("gone_reason") or "not found in Jira"
    return (f"Gone from Jira since {issue.get('gone_at')}: {reason}. The mirror keeps what it last "
            "loaded; it is not a live issue.")


def _linked(link: dict) -> LinkedIssue:
    phrase = link.get("phrase") or link["type"]
    return LinkedIssue(type=link["type"], phrase=phrase, text=wording.link_text(phrase, link["key"]),
                       key=link["key"], in_mirror=bool(link.get("in_mirror")),
                       summary=link.get("summary"), status=link.get("status"), gone=bool(link.get("gone")))
