"""Attachments as interfaces see them: state computed at read time, fetch requests, content.

The state of an attachment is never stored; every read computes it, as the
data-model spec defines it:

- ``ready``: an ``attachment_file`` row names it and its file is in the store;
- ``fetching``: not ready, and a ``fetch_attachment`` for it is queued or claimed;
- ``failed``: neither, and the last ``fetch_attachment`` for it (by id) failed or
  was cancelled; that command's ``error`` comes with the state;
- ``none``: never asked for, or asked for before cleanup removed its file.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache, partial
from typing import BinaryIO, Protocol

from hub import dialect
from hub.clock import Clock, iso
from hub.db import database
from hub.errors import Conflict, ContractError, NotFound
from hub.models import AttachmentFile, Batch, Command, IssueAttachment
from hub.services.access.tokens import require_token
from hub.services.files.store import FileStore
from hub.services.mirror.aliases import current_issue
from hub.vocabulary import (
    FAILED,
    FETCH_ATTACHMENT,
    FETCHING,
    NONE,
    QUEUED,
    READY,
)
from hub.vocabulary import (
    GIVEN_UP_STATUSES as GIVEN_UP,
)
from hub.vocabulary import (
    OPEN_STATUSES as OPEN,
)

# How often a long-polling read looks at the state again.
POLL_SECONDS = 0.25

# An attachment's fetches are found through the partial expression index
# ``command_attachment`` (schema v7): the expression and ``type = ...`` below
# must stay exactly as the index has them (hub.dialect.commands.fetch_of),
# and the attachment id compared with them must carry no column affinity
# (``asked.value`` from json_each, not ``issue_attachment.attachment_id``), or
# SQLite scans every command instead.
def _fetches(engine: dialect.Dialect) -> str:
    return (f"FROM command AS c WHERE c.type = '{FETCH_ATTACHMENT}'"
            f" AND {dialect.commands.fetch_of('asked.value', engine)}")


def _marks(values: tuple) -> str:
    return ", ".join("?" * len(values))


@cache
def states_sql(engine: dialect.Dialect) -> str:
    """Everything but the store check, for many ids in one statement: each asked id
    that the mirror lists, in the order asked, with its file row (if any), its
    newest fetch and its newest open fetch, and what its state is unless the
    file turns out to be in the store; and who attached it (by display name too,
    when the agent reported the user) and when."""
    fetches = _fetches(engine)
    return f"""
SELECT a.attachment_id, a.key, a.filename, a.size, a.mime_type, f.file, newest.id,
       CASE WHEN pending.id IS NOT NULL THEN '{FETCHING}'
            WHEN newest.status IN ({_marks(GIVEN_UP)}) THEN '{FAILED}'
            ELSE '{NONE}' END,
       CASE WHEN pending.id IS NULL AND newest.status IN ({_marks(GIVEN_UP)}) THEN newest.error END,
       coalesce(pending.id, newest.id),
       a.author, u.display_name, a.created, a.created_at
FROM {dialect.commands.asked_attachments(engine)}
JOIN issue_attachment AS a ON a.attachment_id = asked.value
LEFT JOIN jira_user AS u ON u.name = a.author
LEFT JOIN attachment_file AS f ON f.attachment_id = a.attachment_id
LEFT JOIN command AS newest ON newest.id = (
    SELECT c.id {fetches} ORDER BY c.id DESC LIMIT 1)
LEFT JOIN command AS pending ON pending.id = (
    SELECT c.id {fetches} AND c.status IN ({_marks(OPEN)})
    ORDER BY c.id DESC LIMIT 1)
ORDER BY asked.key
"""


# SQLite's, as it reads (the tests look at its query plan).
STATES_SQL = states_sql(dialect.SQLITE)


def state_rows(ids: list[str]) -> list[tuple]:
    """The rows the states of ``ids`` are made of, one per listed id, in order.

    Each is ``(attachment_id, key, filename, size, mime_type, file, last_id,
    state, error, command_id, author, author_display, created, created_at)``:
    ``file`` the ``attachment_file`` row's file (or None), ``last_id`` the newest
    fetch, ``state``/``error``/``command_id`` what the attachment reads as when
    that file is not in the store, then who attached it and when. Ids must be
    distinct; one statement, so one snapshot, whatever their number.
    """
    params = (*GIVEN_UP, *GIVEN_UP, json.dumps(ids), *OPEN)
    return database.execute_sql(states_sql(dialect.current()), params).fetchall()


@dataclass(frozen=True)
class Content:
    """A ready attachment's file and what a download needs to describe it.

    ``open()`` gives the file, open for reading (FileNotFoundError once the
    store no longer has it)."""

    open: Callable[[], BinaryIO]
    sha256: str
    size: int
    filename: str
    mime_type: str | None


class Signal(Protocol):
    """What a queued fetch is told to: the hub's work signal (:mod:`hub.services.commands.work_signal`),
    which wakes the claims waiting for work. Only its ``notify`` is needed here, so that files import
    nothing of the commands domain, which imports them."""

    def notify(self) -> None:
        """Work was queued (and committed)."""


class AttachmentService:
    def __init__(self, store: FileStore, signal: Signal, clock: Clock):
        self._store = store
        self._signal = signal
        self._clock = clock

    def states(self, ids: list[str]) -> list[dict]:
        """The state objects of the known ids among ``ids``, in their order."""
        rows = state_rows(list(dict.fromkeys(ids)))
        # One look at the store for them all (on S3, requests side by side).
        present = self._store.present({row[5] for row in rows if row[5] is not None})
        return [self._describe(row, present) for row in rows]

    def state(self, attachment_id: str) -> dict:
        states = self.states([attachment_id])
        if not states:
            raise NotFound(f"no attachment {attachment_id!r} in the mirror")
        return states[0]

    def wait_for_change(self, attachment_id: str, known: str, wait: float, *,
                        gone: Callable[[], bool] = lambda: False, token_id: int | None = None) -> dict:
        """The state, held up to ``wait`` seconds while it is still ``known``.

        Stops early once ``gone()`` says the client has left (checked every
        POLL_SECONDS), so a closed poll gives its thread back. Each state is
        answered only while the token ``token_id`` still exists: one revoked
        while the poll waits raises Unauthenticated within POLL_SECONDS.
        """
        deadline = time.monotonic() + wait
        while True:
            state = self.state(attachment_id)
            require_token(token_id)
            remaining = deadline - time.monotonic()
            if state["state"] != known or remaining <= 0 or gone():
                return state
            time.sleep(min(POLL_SECONDS, remaining))

    def for_issue(self, key: str) -> list[dict]:
        """The states of an issue's attachments (by an old key of a moved issue too)."""
        issue = current_issue(key)
        if issue is None:
            raise NotFound(f"no issue {key!r} in the mirror")
        key = issue.key
        ids = [a.attachment_id for a in IssueAttachment.select(IssueAttachment.attachment_id)
               .where(IssueAttachment.key == key).order_by(IssueAttachment.attachment_id)]
        return self.states(ids)

    def request_fetch(self, attachment_id: str,
                      batch_id: int | None = None) -> tuple[dict, Command | None, bool]:
        """Ask for an attachment's content: ``(state, command, created)``.

        Ready: nothing is enqueued. Fetching: the open command is returned, never
        a second one, in whatever batch it already is. None or failed: a new
        ``fetch_attachment`` is enqueued, into ``batch_id`` when given. The
        check and the insert share one write transaction, which on PostgreSQL
        first takes the attachment's advisory lock: two requests at once make
        one command.
        """
        with database.atomic():
            dialect.commands.serialize(dialect.commands.FETCH + attachment_id)
            if batch_id is not None and Batch.get_or_none(Batch.id == batch_id) is None:
                raise ContractError(f"batch {batch_id} does not exist", "batch_id")
            state = self.state(attachment_id)
            if state["state"] == READY:
                return state, None, False
            if state["state"] == FETCHING:
                return state, Command.get_by_id(state["command_id"]), False
            command = Command.create(type=FETCH_ATTACHMENT,
                                     params={"attachment_id": attachment_id},
                                     status=QUEUED, batch=batch_id,
                                     created_at=iso(self._clock.now()))
            state = self.state(attachment_id)
        # Agents hear of it only once it is committed.
        self._signal.notify()
        return state, command, True

    def content(self, attachment_id: str) -> Content:
        """The file of a ready attachment; Conflict (with the state) otherwise."""
        state = self.state(attachment_id)
        if state["state"] != READY:
            raise Conflict(f"attachment {attachment_id!r} is {state['state']}, not ready; "
                           "request it with POST /api/v1/attachments/{id}/fetch",
                           state=state["state"], error=state["error"])
        row = AttachmentFile.get_by_id(attachment_id)
        return Content(partial(self._store.open, row.file), row.file, row.size,
                       state["filename"], state["mime_type"])

    def _describe(self, row: tuple, present: set[str]) -> dict:
        (attachment_id, key, filename, size, mime_type, file, last_id, state, error, command_id,
         author, author_display, created, created_at) = row
        # The store is checked here, not in SQL: cleanup may have removed the
        # file while its row stays, and then the attachment is not ready.
        if file is not None and file in present:
            state, error, command_id = READY, None, last_id
        return {
            "attachment_id": attachment_id, "key": key, "filename": filename, "size": size,
            "mime_type": mime_type, "state": state, "error": error, "command_id": command_id,
            "author": author, "author_display": author_display, "created": created, "created_at": created_at,
        }
