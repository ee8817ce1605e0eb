"""The response shapes of the hub's records: the one place a row becomes JSON.

Services return rows (Peewee models) and plain data; the edges — the API's
resources, the worker's tasks and the CLI — turn the rows into these shapes, so that a
service never depends on how an edge answers, and one service never imports
another for its shape. The module sits below the edges, beside the builder, so that
no edge imports another for a shape. The shapes are part of the contract (docs/api.md,
docs/agent-protocol.md).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from datetime import datetime

from hub.models import (
    AgentStatus,
    Command,
    Issue,
    IssueChange,
    IssueComment,
    IssueNote,
    IssueWorklog,
    JiraCatalogue,
    Project,
    SyncRun,
    Token,
)
from hub.services.commands.agents import ListedAgent
from hub.services.commands.batches import CountedBatch
from hub.services.commands.sync_runs import ListedRun
from hub.services.issues.boards import Board, ListedBoard
from hub.services.issues.reading import (
    JSON_SUMMARY_FIELDS,
    SUMMARY_FIELDS,
    USER_FIELDS,
    IssueDetail,
    Link,
    Listed,
    Names,
)
from hub.services.issues.saved_filters import Filter
from hub.services.issues.sprints import IssueSprint, ListedSprint
from hub.services.search.facets import Facets, FacetValue
from hub.services.writes.shown import ShownWrite
from hub.vocabulary import ADMIN


def command(row: Command) -> dict:
    """A command as interfaces and agents read it."""
    return {
        "id": row.id,
        "type": row.type,
        "params": row.params,
        "status": row.status,
        "deliveries": row.deliveries,
        "agent_id": row.agent_id,
        "batch_id": row.batch_id,
        "created_at": row.created_at,
        "claimed_at": row.claimed_at,
        "lease_until": row.lease_until,
        "finished_at": row.finished_at,
        "result": row.result,
        "error": row.error,
    }


def issue(row: Issue, sprints: Sequence[IssueSprint] = (), *, description: bool = False,
          moved_from: Sequence[str] = ()) -> dict:
    """An issue as the mirror's lists show it, with its ``sprints`` and the keys it had before
    it moved (``moved_from``, oldest first); with its ``description`` and ``environment`` when asked."""
    data = {name: getattr(row, name) for name in SUMMARY_FIELDS}
    data["neighbor"] = bool(row.neighbor)
    data["gone"] = row.gone_at is not None
    data["sprints"] = [sprint(item) for item in sprints]
    data["moved_from"] = list(moved_from)
    if description:
        data["description"] = row.description
        data["environment"] = row.environment
    return data


def listed_issue(item: Listed) -> dict:
    """An item of the mirror's list (an ``Issue`` row and its sprints)."""
    return issue(item.row, item.sprints, moved_from=item.moved_from)


def search_hit(item: Listed) -> dict:
    """A search row (the SUMMARY_FIELDS, then the snippet) as :func:`issue` writes it.

    The search reads plain rows, not models, on purpose (bench/search.py): they are
    shaped here straight into dicts."""
    row = item.row
    data = dict(zip(SUMMARY_FIELDS, row[:-1], strict=True))
    for name in JSON_SUMMARY_FIELDS:
        if data[name] is not None:
            data[name] = json.loads(data[name])
    data["neighbor"] = bool(data["neighbor"])
    data["gone"] = data["gone_at"] is not None
    data["sprints"] = [sprint(one) for one in item.sprints]
    data["moved_from"] = list(item.moved_from)
    data["snippet"] = row[-1]
    return data


def sprint(item: IssueSprint) -> dict:
    """A sprint as an issue lists it."""
    return {"id": item.id, "name": item.name, "state": item.state}


def issue_detail(detail: IssueDetail, pending_writes: Sequence[ShownWrite] = ()) -> dict:
    """One issue with its description, environment, links both ways, sprints, sub-tasks and people;
    its writes still to reach Jira (``pending_writes``, oldest first), and Jira's transitions and
    edit screen as the mirror last heard them (null while not known)."""
    data = issue(detail.issue, detail.sprints, description=True, moved_from=detail.moved_from)
    data["links"] = {"outward": [link(item) for item in detail.outward],
                     "inward": [link(item) for item in detail.inward]}
    data["subtasks"] = [{"key": task.key, "summary": task.summary, "status": task.status,
                         "assignee": task.assignee, "gone": task.gone} for task in detail.subtasks]
    data["people"] = detail.people
    data["pending_writes"] = [write(item) for item in pending_writes]
    data["transitions"] = detail.issue.transitions
    data["edit_fields"] = detail.issue.edit_fields
    return data


def link(item: Link) -> dict:
    """A link of an issue: its type and phrase, the other issue, and whether the mirror holds that one."""
    return {"type": item.type, "phrase": item.phrase, "key": item.key, "summary": item.summary,
            "status": item.status, "in_mirror": item.in_mirror, "gone": item.gone}


def comment(row: IssueComment, names: Names | None = None) -> dict:
    """A comment of an issue, as mirrored from Jira, with its author's display name if known."""
    return {"id": row.comment_id, "author": row.author, "author_display": _display(names, row.author),
            "created": row.created, "updated": row.updated, "created_at": row.created_at, "body": row.body}


def change(row: IssueChange, names: Names | None = None) -> dict:
    """One changed field of an issue's changelog; a user field's keys also as login names."""
    data = {"history_id": row.history_id, "item_no": row.item_no, "author": row.author,
            "author_display": _display(names, row.author),
            "created": row.created, "created_at": row.created_at, "field": row.field,
            "field_type": row.field_type, "from": row.from_value,
            "from_string": row.from_string, "to": row.to_value,
            "to_string": row.to_string, "from_name": None, "to_name": None}
    if names is not None and row.field in USER_FIELDS:
        data["from_name"] = names.logins.get(row.from_value or "")
        data["to_name"] = names.logins.get(row.to_value or "")
    return data


def worklog(row: IssueWorklog, names: Names | None = None) -> dict:
    """Time logged on an issue (``time_spent`` in seconds; ``started_at`` its start in UTC)."""
    return {"id": row.worklog_id, "author": row.author, "author_display": _display(names, row.author),
            "started": row.started, "started_at": row.started_at, "time_spent": row.time_spent,
            "comment": row.comment, "created": row.created, "updated": row.updated}


def listed_sprint(item: ListedSprint) -> dict:
    """A sprint of the mirror, with how many mirrored issues were ever in it."""
    return item._asdict()


def listed_board(item: ListedBoard) -> dict:
    """A project's agile board: id, name (null until an agent sent its configuration), type, project."""
    return item._asdict()


def board(item: Board) -> dict:
    """A board with its columns (each status with its name and category), its active sprint (scrum),
    its cards by rank, how many cards there are in all, and the display names of their assignees."""
    sprint = item.sprint
    return {**listed_board(item.board),
            "columns": [{"name": column.name, "statuses": [status._asdict() for status in column.statuses]}
                        for column in item.columns],
            "sprint": None if sprint is None else {
                "id": sprint.sprint_id, "name": sprint.name, "state": sprint.state, "start_date": sprint.start_date,
                "end_date": sprint.end_date, "goal": sprint.goal},
            "issues": [card._asdict() for card in item.cards],
            "total": item.total,
            "people": item.people}


def catalogues(by_name: dict[str, list[JiraCatalogue]]) -> dict:
    """Jira's catalogues, each entry as the agent sent it: its id, name and what its kind adds."""
    return {name: [{"id": row.jira_id, "name": row.name, **(row.detail or {})} for row in rows]
            for name, rows in by_name.items()}


def _display(names: Names | None, login: str | None) -> str | None:
    return None if names is None or login is None else names.displays.get(login)


def agent(listed: ListedAgent) -> dict:
    """An agent, with whether it is online (the service's verdict, by its clock), the
    commands it holds now, and Jira's reachability as it last reported it (null: never)."""
    row: AgentStatus = listed.row
    return {"agent_id": row.agent_id, "version": row.version, "last_seen_at": row.last_seen_at,
            "state": row.state, "detail": row.detail, "online": listed.online,
            "holds": [{"id": held.id, "type": held.type, "params": held.params, "claimed_at": held.claimed_at,
                       "lease_until": held.lease_until, "deliveries": held.deliveries}
                      for held in listed.holds],
            "jira": listed.jira}


def batch(counted: CountedBatch) -> dict:
    """A batch, with its commands counted by status."""
    row = counted.batch
    return {"id": row.id, "title": row.title, "status": row.status,
            "created_by": row.created_by, "created_at": row.created_at,
            "project": row.project_id, "commands": counted.commands}


def token(row: Token) -> dict:
    """A token as it is listed: its name, role, creation and whether it may write to Jira (an admin
    token always may); never the token or its hash."""
    return {"name": row.name, "role": row.role, "created_at": row.created_at,
            "write": row.role == ADMIN or bool(row.may_write)}


def write(item: ShownWrite) -> dict:
    """A write to Jira as interfaces see it (docs/writes.md): its status as shown, Jira's words
    when it failed, each field's base and Jira value in a conflict, what Jira made when done."""
    return {"id": item.id, "op": item.op, "key": item.key, "params": item.params, "status": item.status,
            "requested_by": item.requested_by, "created_at": item.created_at, "updated_at": item.updated_at,
            "error": item.error, "conflict": item.conflict, "result": item.result,
            "command_id": item.command_id}


def note(row: IssueNote) -> dict:
    """A note an interface keeps on an issue."""
    return {"id": row.id, "key": row.key, "author": row.author, "body": row.body,
            "created_at": row.created_at, "updated_at": row.updated_at}


def saved_filter(item: Filter) -> dict:
    """A saved filter: its name, its JQL, and the name of the token that saved it."""
    return {"id": item.id, "name": item.name, "jql": item.jql, "owner": item.owner,
            "created_at": item.created_at, "updated_at": item.updated_at}


def project(row: Project) -> dict:
    """A project: its Jira label, its name, its agile board."""
    return {"label": row.label, "name": row.name, "board_id": row.board_id,
            "board_type": row.board_type, "created_at": row.created_at}


def run(row: SyncRun) -> dict:
    """A sync run, with its duration in seconds (None while it runs)."""
    return {
        "id": row.id,
        "command_id": row.command_id,
        "query": row.query,
        "status": row.status,
        "started_at": row.started_at,
        "finished_at": row.finished_at,
        "duration_seconds": _duration(row),
        "issues_loaded": row.issues_loaded,
        "history_at": row.history_at,
        "error": row.error,
    }


def listed_run(item: ListedRun) -> dict:
    """A sync run of the list, with its ``kind``: full, incremental or jql (a refresh of another query)."""
    return {**run(item.row), "kind": item.kind}


def overview(figures: dict) -> dict:
    """The hub at a glance (:meth:`hub.services.operations.overview.OverviewService.overview`),
    its last runs in their shape."""
    last_runs = {kind: optional(lambda row, kind=kind: {**run(row), "kind": kind}, row)
                 for kind, row in figures["last_runs"].items()}
    return {**figures, "last_runs": last_runs}


def optional(shape: Callable, row) -> dict | None:
    """``shape(row)``, or None for no row."""
    return None if row is None else shape(row)


def page_of(shape: Callable, listed: dict) -> dict:
    """A page or listing of rows (:mod:`hub.services.pagination`) with each item in its shape."""
    return {**listed, "items": [shape(row) for row in listed["items"]]}


def named_page_of(shape: Callable, listed: dict) -> dict:
    """A listing whose service told the :class:`~hub.services.issues.reading.Names` of its people
    (``names``): each item in its shape, which reads them."""
    rest = {k: v for k, v in listed.items() if k != "names"}
    return {**rest, "items": [shape(row, listed["names"]) for row in listed["items"]]}


def _duration(row: SyncRun) -> float | None:
    if row.finished_at is None:
        return None
    return (datetime.fromisoformat(row.finished_at) - datetime.fromisoformat(row.started_at)).total_seconds()


# -- rendered wiki text (?render=html|markdown) -------------------------------------------------

def add_rendered(items: list[dict], fields: list[str], texts: list[str | None], form: str) -> None:
    """Each item's wiki ``field`` rendered in ``form`` beside it, as ``<field>_<form>``
    (``description_html``, ``body_markdown``): the raw field stays as Jira holds it."""
    for item, name, text in zip(items, fields, texts, strict=True):
        item[f"{name}_{form}"] = text


def facets(found: Facets) -> dict:
    """The facets of a query: each value with its count (a sprint's id, a person's display name)."""
    return {"total": found.total, "facets": {
        name: {"values": [_facet_value(value) for value in facet.values], "more": facet.more}
        for name, facet in found.facets.items()}}


def _facet_value(value: FacetValue) -> dict:
    shaped: dict = {"value": value.value, "count": value.count}
    if value.id is not None:
        shaped["id"] = value.id
    if value.name is not None:
        shaped["name"] = value.name
    return shaped


#: Custom field types whose text is Jira wiki markup, as the description is.
WIKI_FIELD_TYPES = frozenset({"com.atlassian.jira.plugin.system.customfieldtypes:textarea"})


def wiki_fields(data: dict) -> tuple[list[dict], list[str]]:
    """Where an issue object (:func:`issue_detail`) holds wiki text: ``(items, fields)``, the
    issue's ``description`` and ``environment`` and each wiki custom field's ``value``."""
    items, fields = [data, data], ["description", "environment"]
    for custom in (data.get("custom_fields") or {}).values():
        if isinstance(custom, dict) and custom.get("custom") in WIKI_FIELD_TYPES and isinstance(
                custom.get("value"), str):
            items.append(custom)
            fields.append("value")
    return items, fields
