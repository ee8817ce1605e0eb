"""The response shapes of the hub's records: the one place a row becomes JSON.

Services return rows (Peewee models) and plain data; the edges — the API's
resources and the worker's tasks — turn the rows into these shapes, so that a
service never depends on how an edge answers, and one service never imports
another for its shape. The shapes are part of the contract (docs/api.md,
docs/agent-protocol.md).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from hub.models import Command, IssueNote, Project, SyncRun


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
