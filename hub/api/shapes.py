"""The response shapes of the hub's records: the one place a row becomes JSON.

Services return rows (Peewee models) and plain data; the edges — the API's
resources and the worker's tasks — turn the rows into these shapes, so that a
service never depends on how an edge answers, and one service never imports
another for its shape. The shapes are part of the contract (docs/api.md,
docs/agent-protocol.md).
"""

from __future__ import annotations

from typing import Callable

from hub.models import Command


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


def optional(shape: Callable[[Command], dict], row: Command | None) -> dict | None:
    """``shape(row)``, or None for no row."""
    return None if row is None else shape(row)


def page_of(shape: Callable, listed: dict) -> dict:
    """A page of rows (:func:`hub.services.pagination.page`) with each item in its shape."""
    return {**listed, "items": [shape(row) for row in listed["items"]]}
