"""A write as interfaces see it: its row, with the status its command gives it.

The ``write`` table keeps a write's outcome (``pending`` until its agent reports one). Whether a
pending write is being applied, or ended without an outcome (its command failed: the agent's gates
refused it, or it was cancelled), is its command's status, read with it:

| write.status | command.status            | shown                    |
|--------------|---------------------------|--------------------------|
| pending      | queued (or none)          | pending                  |
| pending      | claimed                   | applying                 |
| pending      | failed                    | failed (the command's error) |
| pending      | cancelled                 | cancelled                |
| any other    | —                         | the row's                |
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from peewee import JOIN

from hub.models import Command, Write
from hub.vocabulary import APPLYING, CANCELLED, CLAIMED, CONFLICT, DONE, FAILED, PENDING, QUEUED


@dataclass(frozen=True)
class ShownWrite:
    """One write, as the API answers it (``hub.shapes.write``)."""

    id: int
    op: str
    key: str | None
    project: str | None
    params: dict
    base: dict | None
    status: str
    requested_by: str
    token_id: int | None
    created_at: str
    updated_at: str
    error: str | None
    conflict: dict | None
    result: dict | None
    command_id: int | None


def shown_status(stored: str, command_status: str | None) -> str:
    """The status a write is shown with (the table in this module's docstring)."""
    if stored != PENDING or command_status in (None, QUEUED):
        return stored
    return {CLAIMED: APPLYING, FAILED: FAILED, CANCELLED: CANCELLED}.get(command_status, stored)


def joined():
    """Writes with their commands' status and error (``command_status``, ``command_error``)."""
    return (Write.select(Write, Command.status.alias("command_status"), Command.error.alias("command_error"))
            .join(Command, JOIN.LEFT_OUTER, on=(Command.id == Write.command_id)).objects())


def shown(row: Any) -> ShownWrite:
    """A row of :func:`joined` as shown."""
    command_status = getattr(row, "command_status", None)
    status = shown_status(row.status, command_status)
    error = row.error
    if status == FAILED and error is None:
        error = getattr(row, "command_error", None)
    return ShownWrite(id=row.id, op=row.op, key=row.key, project=row.project, params=row.params or {},
                      base=row.base, status=status, requested_by=row.requested_by, token_id=row.token_id,
                      created_at=row.created_at, updated_at=row.updated_at, error=error,
                      conflict=row.conflict, result=row.result, command_id=row.command_id)


def where_shown(status: str):
    """The condition on :func:`joined` that a write is shown with ``status``."""
    pending = Write.status == PENDING
    if status == PENDING:
        return pending & (Command.status.is_null() | (Command.status == QUEUED))
    if status == APPLYING:
        return pending & (Command.status == CLAIMED)
    if status in (FAILED, CANCELLED):
        return (Write.status == status) | (pending & (Command.status == status))
    if status in (DONE, CONFLICT):
        return Write.status == status
    raise ValueError(status)


def still_open():
    """The condition on :func:`joined` that a write is shown pending or applying."""
    return (Write.status == PENDING) & (Command.status.is_null() | Command.status.in_((QUEUED, CLAIMED)))
