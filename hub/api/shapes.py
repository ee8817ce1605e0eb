"""The response shapes of the hub's records: the one place a row becomes JSON.

Services return rows (Peewee models) and plain data; the edges — the API's
resources and the worker's tasks — turn the rows into these shapes, so that a
service never depends on how an edge answers, and one service never imports
another for its shape. The shapes are part of the contract (docs/api.md,
docs/agent-protocol.md).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime

from hub.models import AgentStatus, Command, Issue, IssueChange, IssueComment, IssueNote, Project, SyncRun, Token
from hub.services.agents import ListedAgent
from hub.services.batches import CountedBatch
from hub.services.issues import SUMMARY_FIELDS, IssueDetail, Link


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


def issue(row: Issue, *, description: bool = False) -> dict:
    """An issue as the mirror's lists show it; with its ``description`` when asked."""
    data = {name: getattr(row, name) for name in SUMMARY_FIELDS}
    data["neighbor"] = bool(row.neighbor)
    if description:
        data["description"] = row.description
    return data


def search_hit(row: tuple) -> dict:
    """A search row (the SUMMARY_FIELDS, then the snippet) as :func:`issue` writes it.

    The search reads plain rows, not models, on purpose (bench/search.py): they are
    shaped here straight into dicts."""
    data = dict(zip(SUMMARY_FIELDS, row[:-1], strict=True))
    data["labels"] = None if data["labels"] is None else json.loads(data["labels"])
    data["neighbor"] = bool(data["neighbor"])
    data["snippet"] = row[-1]
    return data


def issue_detail(detail: IssueDetail) -> dict:
    """One issue with its description and its links both ways."""
    data = issue(detail.issue, description=True)
    data["links"] = {"outward": [link(item) for item in detail.outward],
                     "inward": [link(item) for item in detail.inward]}
    return data


def link(item: Link) -> dict:
    """A link of an issue: its type, the other issue, and whether the mirror holds that one."""
    return {"type": item.type, "key": item.key, "summary": item.summary, "status": item.status,
            "in_mirror": item.in_mirror}


def comment(row: IssueComment) -> dict:
    """A comment of an issue, as mirrored from Jira."""
    return {"id": row.comment_id, "author": row.author, "created": row.created,
            "updated": row.updated, "created_at": row.created_at, "body": row.body}


def change(row: IssueChange) -> dict:
    """One changed field of an issue's changelog."""
    return {"history_id": row.history_id, "item_no": row.item_no, "author": row.author,
            "created": row.created, "created_at": row.created_at, "field": row.field,
            "field_type": row.field_type, "from": row.from_value,
            "from_string": row.from_string, "to": row.to_value,
            "to_string": row.to_string}


def agent(listed: ListedAgent) -> dict:
    """An agent, with whether it is online (the service's verdict, by its clock)."""
    row: AgentStatus = listed.row
    return {"agent_id": row.agent_id, "version": row.version, "last_seen_at": row.last_seen_at,
            "state": row.state, "detail": row.detail, "online": listed.online}


def batch(counted: CountedBatch) -> dict:
    """A batch, with its commands counted by status."""
    row = counted.batch
    return {"id": row.id, "title": row.title, "status": row.status,
            "created_by": row.created_by, "created_at": row.created_at,
            "project": row.project_id, "commands": counted.commands}


def token(row: Token) -> dict:
    """A token as it is listed: its name, role and creation; never the token or its hash."""
    return {"name": row.name, "role": row.role, "created_at": row.created_at}


def note(row: IssueNote) -> dict:
    """A note an interface keeps on an issue."""
    return {"id": row.id, "key": row.key, "author": row.author, "body": row.body,
            "created_at": row.created_at, "updated_at": row.updated_at}


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


def overview(figures: dict) -> dict:
    """The hub at a glance (:meth:`hub.services.overview.OverviewService.overview`),
    its last runs in their shape."""
    last_runs = {kind: optional(run, row) for kind, row in figures["last_runs"].items()}
    return {**figures, "last_runs": last_runs}


def optional(shape: Callable, row) -> dict | None:
    """``shape(row)``, or None for no row."""
    return None if row is None else shape(row)


def page_of(shape: Callable, listed: dict) -> dict:
    """A page or listing of rows (:mod:`hub.services.pagination`) with each item in its shape."""
    return {**listed, "items": [shape(row) for row in listed["items"]]}


def _duration(row: SyncRun) -> float | None:
    if row.finished_at is None:
        return None
    return (datetime.fromisoformat(row.finished_at) - datetime.fromisoformat(row.started_at)).total_seconds()
