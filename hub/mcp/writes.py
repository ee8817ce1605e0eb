"""The tools that write to Jira through the hub (docs/writes.md): comment, transition, edit, log
work, create an issue, link two, and read a write's outcome.

Each asks the hub's write route with an ``Idempotency-Key`` made for the call (sent again,
byte for byte, when the hub's answer was lost: a retried request never writes twice), then
waits a bounded time for the agent beside Jira to apply it (``GET /api/v1/writes/{id}?wait=
&known=``) and answers the outcome in words (:func:`hub.mcp.wording.write_said`). The hub
never writes Jira itself: while no agent takes the write, the tool says it is queued.
"""

from __future__ import annotations

import re
import time
import uuid
from collections.abc import Mapping
from typing import Annotated, Any, Literal

import anyio
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.tools import Tool
from mcp_types import ToolAnnotations
from pydantic import BaseModel, Field

from hub.mcp import wording
from hub.mcp.base import Key, ToolContext, hub_client, segment, tool
from hub.mcp.client import HubClient, HubProblem
from hub.mcp.results import EditableField, TransitionOption, WriteOutcome
from hub.vocabulary import APPLYING, FAILED, PENDING

TOOLS: list[Tool] = []

# Changes or replaces what Jira holds (a status, a field's value): destructive.
CHANGES = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=False, open_world_hint=True)
# Adds to Jira (a comment, a work log, an issue, a link), never changing what is there.
ADDS = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=True)
CHECKS = ToolAnnotations(read_only_hint=True, idempotent_hint=True, open_world_hint=False)

# The longest a tool waits for Jira's outcome: long enough for an agent that is polling to take
# and apply a write, short enough for an assistant's turn.
WAIT_SECONDS = 20
# A request whose answer was lost (the hub unreachable, a timeout) is sent again this many times
# in all, under the same Idempotency-Key: the hub answers the write the first one made, if any.
ASK_ATTEMPTS = 3
RETRY_PAUSE_SECONDS = 0.5

BodyFormat = Annotated[Literal["wiki", "markdown"], Field(description=(
    "the markup of the text given: `wiki` (Jira's wiki markup, the default) or `markdown` (converted to "
    "wiki markup by the hub)"))]
Wait = Annotated[int, Field(ge=0, le=WAIT_SECONDS, description=(
    f"seconds to wait for Jira's outcome (at most {WAIT_SECONDS}); 0 answers at once, queued"))]
IdempotencyKey = Annotated[str | None, Field(
    min_length=1, max_length=255, pattern=re.compile(r"^[!-~]+(?![\s\S])"), description=(
        "omit normally. After a call that ended in an error saying it is not known whether the hub recorded "
        "the write, call again with the key that error named: the hub answers that write, never a second"))]
Fields = Annotated[dict[str, Any], Field(min_length=1, max_length=100, description=(
    "fields by the mirror's names, in the issue object's flattened form: summary, description, priority "
    "(\"Major\"), assignee (a user name), duedate (\"2026-12-31\"), labels, components, fix_versions, "
    "affects_versions ([\"1.0\"]), environment, original_estimate, remaining_estimate (\"2h\"), any custom "
    "field by id (customfield_10010) or by name; labels, components and versions also as "
    "{\"add\": [...], \"remove\": [...]}"))]
Base = Annotated[dict[str, Any] | None, Field(max_length=100, description=(
    "the values you based the change on, by field (as get_issue showed them); omit to take the mirror's "
    "values now. Jira holding other values is a conflict: nothing is written"))]


class Visibility(BaseModel):
    """Who may read a comment in Jira."""

    type: Literal["group", "role"]
    value: str = Field(min_length=1, max_length=255, description="the group's or project role's name")


@tool(TOOLS, annotations=ADDS, description=(
    "Add a comment to a Jira issue, through the hub's agent beside Jira. `body` is Jira wiki markup, or "
    "Markdown with `format: markdown`; `visibility` limits it to a group or project role. Waits up to "
    "`wait` seconds for Jira's outcome: done (the new comment's id), or pending when the agent has not "
    "taken it yet (Jira may be out of reach: check later with get_write). Every call adds a comment: do "
    "not call it again to find out whether the first one was made; use get_write."))
async def add_comment(
    ctx: ToolContext, key: Key,
    body: Annotated[str, Field(min_length=1, max_length=32_767, description="the comment's text")],
    format: BodyFormat = "wiki", visibility: Visibility | None = None,
    wait: Wait = WAIT_SECONDS, idempotency_key: IdempotencyKey = None,
) -> WriteOutcome:
    params: dict[str, Any] = {"body": body, "format": format}
    if visibility is not None:
        params["visibility"] = visibility.model_dump()
    return await _ask(ctx, "POST", f"/api/v1/issues/{segment(key)}/comments", params, wait, idempotency_key)


@tool(TOOLS, annotations=CHANGES, description=(
    "Move a Jira issue through a workflow transition (change its status), through the hub's agent beside "
    "Jira. `to` is the target status (\"Resolved\"), the transition's name or its id, as get_issue's "
    "`transitions` list them with the fields each screen requires (e.g. `fields: {\"resolution\": "
    "\"Fixed\"}`); `comment` adds a comment with it. The status you saw (`base`, else the mirror's) must "
    "still be Jira's, or the outcome is a conflict and nothing is written. Waits up to `wait` seconds for "
    "the outcome: done, conflict (read the issue again, then retry with the new base), failed (Jira's "
    "words, what a field allows) or pending (check later with get_write)."))
async def transition_issue(
    ctx: ToolContext, key: Key,
    to: Annotated[str, Field(min_length=1, max_length=255, description=(
        "a target status name, a transition name or a transition id, matched in that order"))],
    fields: Annotated[dict[str, Any] | None, Field(max_length=100, description=(
        "the transition screen's fields, in the mirror's flattened form: resolution: \"Fixed\", assignee: "
        "\"ivanov\", fix_versions: [\"1.0\"], time_spent: \"1h\" to log work"))] = None,
    comment: Annotated[str | None, Field(min_length=1, max_length=32_767,
                                         description="a comment to add with the transition")] = None,
    format: BodyFormat = "wiki",
    base: Annotated[dict[str, Any] | None, Field(max_length=100, description=(
        "the status you saw, {\"status\": \"Open\"}; omit for the mirror's now"))] = None,
    wait: Wait = WAIT_SECONDS, idempotency_key: IdempotencyKey = None,
) -> WriteOutcome:
    params = _present({"to": to, "fields": fields, "comment": comment, "base": base})
    if comment is not None:
        params["format"] = format
    return await _ask(ctx, "POST", f"/api/v1/issues/{segment(key)}/transitions", params, wait, idempotency_key)


@tool(TOOLS, annotations=CHANGES, description=(
    "Change fields of a Jira issue (its edit screen: get_issue's `editable_fields` lists them with their "
    "allowed values), through the hub's agent beside Jira. The values you saw (`base`, else the mirror's) "
    "must still be Jira's: if any differs the outcome is a conflict and nothing at all is written; "
    "add/remove forms never conflict. Waits up to `wait` seconds for the outcome: done, conflict (each "
    "field's value when asked and Jira's now: read the issue again, then retry with the new base), failed "
    "(Jira's words, what a field allows) or pending (check later with get_write)."))
async def update_issue(
    ctx: ToolContext, key: Key, fields: Fields, base: Base = None,
    format: Annotated[Literal["wiki", "markdown"], Field(description=(
        "the markup of description and other text fields: `wiki` (the default) or `markdown`"))] = "wiki",
    wait: Wait = WAIT_SECONDS, idempotency_key: IdempotencyKey = None,
) -> WriteOutcome:
    params = _present({"fields": fields, "base": base, "format": format})
    return await _ask(ctx, "PATCH", f"/api/v1/issues/{segment(key)}", params, wait, idempotency_key)


@tool(TOOLS, annotations=ADDS, description=(
    "Log work on a Jira issue, through the hub's agent beside Jira: `time_spent` in Jira's notation "
    "(\"1h 30m\", a day of 8 hours) or seconds, when it was `started` (now by default), a `comment`, and "
    "how the remaining estimate changes (`adjust_estimate`: auto, leave, new with `new_estimate`, manual "
    "with `reduce_by`). Waits up to `wait` seconds for the outcome: done (the work log's id) or pending "
    "(check later with get_write). Every call logs work anew."))
async def log_work(
    ctx: ToolContext, key: Key,
    time_spent: Annotated[str | int, Field(description="\"1h 30m\", or seconds (at least 60)")],
    started: Annotated[str | None, Field(max_length=64, description=(
        "when the work started, e.g. 2026-12-07T09:00:00+00:00; now when omitted"))] = None,
    comment: Annotated[str | None, Field(max_length=32_767, description="what was done")] = None,
    adjust_estimate: Literal["auto", "leave", "new", "manual"] | None = None,
    new_estimate: Annotated[str | None, Field(min_length=1, max_length=100,
                                              description="with adjust_estimate new: \"3h\"")] = None,
    reduce_by: Annotated[str | None, Field(min_length=1, max_length=100,
                                           description="with adjust_estimate manual: \"1h\"")] = None,
    format: BodyFormat = "wiki", wait: Wait = WAIT_SECONDS, idempotency_key: IdempotencyKey = None,
) -> WriteOutcome:
    params = _present({"time_spent": time_spent, "started": started, "comment": comment,
                       "adjust_estimate": adjust_estimate, "new_estimate": new_estimate, "reduce_by": reduce_by})
    if comment is not None:
        params["format"] = format
    return await _ask(ctx, "POST", f"/api/v1/issues/{segment(key)}/worklogs", params, wait, idempotency_key)


@tool(TOOLS, annotations=ADDS, description=(
    "Create a Jira issue, through the hub's agent beside Jira: its `project` key, `issue_type` (Bug, Story, "
    "Task, Sub-task with `parent`), `summary`, optional `description` and other `fields` in the mirror's "
    "flattened form. Waits up to `wait` seconds for the outcome: done (the new issue's key), failed "
    "(Jira's words: a required field missing, a value not allowed) or pending (check later with "
    "get_write). Every call creates an issue."))
async def create_issue(
    ctx: ToolContext,
    project: Annotated[str, Field(min_length=1, max_length=255, pattern=re.compile(r"^[A-Z][A-Z0-9_]*(?![\s\S])"),
                                  description="the project's key, e.g. AURORA")],
    issue_type: Annotated[str, Field(min_length=1, max_length=255, description="the issue type's name: Bug")],
    summary: Annotated[str, Field(min_length=1, max_length=255)],
    description: Annotated[str | None, Field(max_length=32_767)] = None,
    fields: Annotated[dict[str, Any] | None, Field(max_length=100, description=(
        "other fields, as update_issue takes them: priority, assignee, labels, components, ..."))] = None,
    parent: Annotated[Key | None, Field(description="the parent issue of a sub-task")] = None,
    format: BodyFormat = "wiki", wait: Wait = WAIT_SECONDS, idempotency_key: IdempotencyKey = None,
) -> WriteOutcome:
    params = _present({"project": project, "issue_type": issue_type, "summary": summary,
                       "description": description, "fields": fields, "parent": parent, "format": format})
    return await _ask(ctx, "POST", "/api/v1/issues", params, wait, idempotency_key)


@tool(TOOLS, annotations=ADDS, description=(
    "Link two Jira issues, through the hub's agent beside Jira: `type` is the link type's name (Blocks, "
    "Relates, Duplicate) or its phrase; give `outward` for \"KEY blocks outward\" or `inward` for \"inward "
    "blocks KEY\". Waits up to `wait` seconds for the outcome: done (the link's id) or pending (check later "
    "with get_write)."))
async def link_issues(
    ctx: ToolContext, key: Key,
    type: Annotated[str, Field(min_length=1, max_length=255, description="the link type's name or phrase")],
    outward: Annotated[Key | None, Field(description="the other issue, when this one is the link's source")] = None,
    inward: Annotated[Key | None, Field(description="the other issue, when it is the link's source")] = None,
    wait: Wait = WAIT_SECONDS, idempotency_key: IdempotencyKey = None,
) -> WriteOutcome:
    if (outward is None) == (inward is None):
        raise ToolError("link_issues takes exactly one of outward and inward: the other issue")
    params = _present({"type": type, "outward": outward, "inward": inward})
    return await _ask(ctx, "POST", f"/api/v1/issues/{segment(key)}/links", params, wait, idempotency_key)


@tool(TOOLS, annotations=CHECKS, description=(
    "A write to Jira by its id (what add_comment, transition_issue, update_issue, log_work, create_issue and "
    "link_issues answered): its status and what it means — pending, applying, done (what Jira made), "
    "conflict (each field's value when asked and Jira's now) or failed (Jira's words). `wait` holds the "
    "answer up to that many seconds while it is pending or applying."))
async def get_write(
    ctx: ToolContext,
    write_id: Annotated[int, Field(ge=1, le=2**63 - 1, description="the write's id")],
    wait: Annotated[int, Field(ge=0, le=WAIT_SECONDS, description=(
        f"seconds to wait for an outcome while it is pending or applying (at most {WAIT_SECONDS})"))] = 0,
) -> WriteOutcome:
    async with hub_client(ctx) as h:
        write = await _settled(h, await h.get(f"/api/v1/writes/{write_id}"), wait)
        hints = await _hints(h, write)
    return outcome(write, hints)


def outcome(write: Mapping[str, Any], hints: list[str] | None = None) -> WriteOutcome:
    """The hub's write object as a tool answers it."""
    return WriteOutcome(id=write["id"], status=write["status"], said=wording.write_said(write, hints),
                        op=write["op"], key=write.get("key"), result=write.get("result"),
                        error=write.get("error"), conflict=write.get("conflict"), write=dict(write))


async def _ask(ctx: ToolContext, method: str, path: str, params: dict, wait: int,
               idempotency_key: str | None) -> WriteOutcome:
    key = idempotency_key or f"mcp-{uuid.uuid4().hex}"
    async with hub_client(ctx) as h:
        write = await _sent(h, method, path, params, key)
        write = await _settled(h, write, wait)
        hints = await _hints(h, write)
    return outcome(write, hints)


async def _sent(h: HubClient, method: str, path: str, params: dict, key: str) -> dict:
    """The write the hub recorded, the request sent again under the same key while its answer is
    lost; a refusal (the hub's 4xx) is never sent again."""
    for attempt in range(1, ASK_ATTEMPTS + 1):
        try:
            return await h.write(method, path, params, key)
        except HubProblem as problem:
            if problem.status is not None:
                raise
            if attempt == ASK_ATTEMPTS:
                raise HubProblem(f"{problem}. It is not known whether the hub recorded the write: call again "
                                 f"with idempotency_key {key!r} to find out without writing twice") from None
            await anyio.sleep(RETRY_PAUSE_SECONDS * attempt)
    raise AssertionError("unreachable")  # the loop returns or raises


async def _settled(h: HubClient, write: dict, wait: float) -> dict:
    """The write once it ends, or as it is when ``wait`` seconds have passed (the hub holds each
    request until the status changes)."""
    deadline = time.monotonic() + wait
    while write["status"] in (PENDING, APPLYING):
        left = deadline - time.monotonic()
        if left < 1:
            break
        known = write["status"]
        write = await h.get(f"/api/v1/writes/{write['id']}", wait=int(left), known=known)
        if write["status"] == known:  # the hub had no long-poll slot free, or the wait ran out
            await anyio.sleep(min(1.0, max(0.0, deadline - time.monotonic())))
    return write


async def _hints(h: HubClient, write: dict) -> list[str]:
    """For a failed edit or transition whose error names fields without what they allow: what the
    issue's screens, as the mirror knows them, allow for each."""
    error = write.get("error") or ""
    if write["status"] != FAILED or write["op"] not in ("edit", "transition") or "allowed:" in error:
        return []
    try:
        issue = await h.get(f"/api/v1/issues/{segment(write['key'])}")
    except HubProblem:
        return []
    screen = dict(issue.get("edit_fields") or {}) if write["op"] == "edit" else {}
    for transition in (issue.get("transitions") or []) if write["op"] == "transition" else []:
        screen.update(transition.get("fields") or {})
    said = error.casefold()
    return [wording.allowed_text(str(field.get("name") or field_id), field["allowed"])
            for field_id, field in screen.items()
            if field.get("allowed") and any(f"{name}:".casefold() in said
                                            for name in (field_id, field.get("name")) if name)]


# -- an issue's screens, as get_issue shows them ------------------------------------------------

def screen_fields(fields: Mapping[str, Any] | None) -> list[EditableField]:
    """A screen's fields (the mirror's ``{id: {name, required, type, allowed, operations}}``)."""
    return [EditableField(id=field_id, name=str(field.get("name") or field_id), type=field.get("type"),
                          required=bool(field.get("required")),
                          allowed=[str(v) for v in field["allowed"][:wording.ALLOWED_SHOWN]]
                          if isinstance(field.get("allowed"), list) else None,
                          operations=list(field.get("operations") or []))
            for field_id, field in (fields or {}).items() if isinstance(field, Mapping)]


def transition_options(transitions: list[Mapping[str, Any]]) -> list[TransitionOption]:
    """The transitions Jira offers, each with a line that says where it goes and what it requires."""
    options = []
    for transition in transitions:
        fields = screen_fields(transition.get("fields"))
        required = [field.name + (f" (one of {', '.join(field.allowed)})" if field.allowed else "")
                    for field in fields if field.required]
        text = f"{transition.get('name')} ({transition.get('id')}) → {transition.get('to')}"
        options.append(TransitionOption(
            id=str(transition.get("id")), name=str(transition.get("name")), to=transition.get("to"),
            text=text + (f"; requires {'; '.join(required)}" if required else ""), fields=fields))
    return options


def screens_unknown(issue: Mapping[str, Any]) -> str | None:
    """What get_issue says when the hub does not know the issue's transitions or edit screen yet."""
    unknown = [what for what, member in (("transitions", "transitions"), ("editable fields", "edit_fields"))
               if issue.get(member) is None]
    if not unknown:
        return None
    return (f"{' and '.join(unknown).capitalize()} not known yet: the agent beside Jira sends them when it "
            "next loads the issue (request_refresh). transition_issue and update_issue work regardless; "
            "Jira says what it refuses.")


def _present(params: dict[str, Any]) -> dict[str, Any]:
    return {name: value for name, value in params.items() if value is not None}
