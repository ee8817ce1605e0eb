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
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from peewee import chunked

from hub.clock import Clock, iso
from hub.db import database
from hub.errors import Conflict, ContractError, NotFound
from hub.models import AttachmentFile, Batch, Command, Issue, IssueAttachment
from hub.services.commands import OPEN_STATUSES as OPEN, serialize_command
from hub.services.files import FileStore
from hub.services.work_signal import WorkSignal

GIVEN_UP = ("failed", "cancelled")
# How often a long-polling read looks at the state again.
POLL_SECONDS = 0.25

FINAL = ("done", "failed", "cancelled")


class FetchHistory:
    """Which fetch_attachment commands each attachment has, kept up to date cheaply.

    Finding an attachment's commands means reading ``params`` JSON, which no
    index covers; doing that at every read would scan the whole command table.
    But commands are never deleted, their ids are never reused (AUTOINCREMENT),
    and a command in a final status (done, failed, cancelled) never changes
    again. So this keeps what it has read; each read looks only at commands
    added since, and re-reads the open ones of the attachments asked about.
    Each process keeps its own, all from the same database: none goes stale.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._last_id = 0
        self._by_attachment: dict[str, list[list]] = {}  # aid -> [[id, status, error], ...] by id

    def commands(self, ids: list[str]) -> dict[str, list[list]]:
        """Call inside a read transaction: ``{attachment_id: [[id, status, error], ...]}``."""
        with self._lock:
            self._read_new()
            found = {aid: self._by_attachment[aid] for aid in ids if aid in self._by_attachment}
            self._refresh_open([entry for entries in found.values() for entry in entries
                                if entry[1] not in FINAL])
            return {aid: [list(entry) for entry in entries] for aid, entries in found.items()}

    def _read_new(self) -> None:
        rows = database.execute_sql(
            "SELECT id, status, error, params FROM command"
            " WHERE id > ? AND type = 'fetch_attachment' ORDER BY id", (self._last_id,))
        for command_id, status, error, params in rows:
            try:
                aid = json.loads(params).get("attachment_id")
            except (ValueError, TypeError, AttributeError):
                aid = None
            if aid is not None:
                self._by_attachment.setdefault(str(aid), []).append([command_id, status, error])
        newest = database.execute_sql("SELECT max(id) FROM command").fetchone()[0] or 0
        self._last_id = max(self._last_id, newest)

    @staticmethod
    def _refresh_open(entries: list[list]) -> None:
        by_id = {entry[0]: entry for entry in entries}
        for chunk in chunked(list(by_id), 500):
            rows = database.execute_sql(
                f"SELECT id, status, error FROM command WHERE id IN ({', '.join('?' * len(chunk))})",
                chunk)
            for command_id, status, error in rows:
                by_id[command_id][1], by_id[command_id][2] = status, error


@dataclass(frozen=True)
class Content:
    """A ready attachment's file and what a download needs to describe it."""

    path: Path
    sha256: str
    size: int
    filename: str
    mime_type: str | None


class AttachmentService:
    def __init__(self, store: FileStore, signal: WorkSignal, clock: Clock | None = None):
        self._history = FetchHistory()
        self._store = store
        self._signal = signal
        self._clock = clock or Clock()

    def states(self, ids: list[str]) -> list[dict]:
        """The state objects of the known ids among ``ids``, in their order."""
        ids = list(dict.fromkeys(ids))
        with database.atomic("DEFERRED"):  # one snapshot for all three reads
            listed, files = {}, {}
            for chunk in chunked(ids, 500):
                marks = ", ".join("?" * len(chunk))
                listed.update((row[0], row) for row in database.execute_sql(
                    "SELECT attachment_id, key, filename, size, mime_type FROM issue_attachment"
                    f" WHERE attachment_id IN ({marks})", chunk))
                files.update(database.execute_sql(
                    f"SELECT attachment_id, file FROM attachment_file WHERE attachment_id IN ({marks})",
                    chunk))
            commands = self._history.commands(list(listed))
        return [self._describe(listed[i], files.get(i), commands.get(i, []))
                for i in ids if i in listed]

    def state(self, attachment_id: str) -> dict:
        states = self.states([attachment_id])
        if not states:
            raise NotFound(f"no attachment {attachment_id!r} in the mirror")
        return states[0]

    def wait_for_change(self, attachment_id: str, known: str, wait: float, *,
                        gone: Callable[[], bool] = lambda: False) -> dict:
        """The state, held up to ``wait`` seconds while it is still ``known``.

        Stops early once ``gone()`` says the client has left (checked every
        POLL_SECONDS), so a closed poll gives its thread back.
        """
        deadline = time.monotonic() + wait
        while True:
            state = self.state(attachment_id)
            remaining = deadline - time.monotonic()
            if state["state"] != known or remaining <= 0 or gone():
                return state
            time.sleep(min(POLL_SECONDS, remaining))

    def for_issue(self, key: str) -> list[dict]:
        if Issue.get_or_none(Issue.key == key) is None:
            raise NotFound(f"no issue {key!r} in the mirror")
        ids = [a.attachment_id for a in IssueAttachment.select(IssueAttachment.attachment_id)
               .where(IssueAttachment.key == key).order_by(IssueAttachment.attachment_id)]
        return self.states(ids)

    def request_fetch(self, attachment_id: str,
                      batch_id: int | None = None) -> tuple[dict, dict | None, bool]:
        """Ask for an attachment's content: ``(state, command, created)``.

        Ready: nothing is enqueued. Fetching: the open command is returned, never
        a second one, in whatever batch it already is. None or failed: a new
        ``fetch_attachment`` is enqueued, into ``batch_id`` when given. The
        check and the insert share one write transaction.
        """
        with database.atomic():
            if batch_id is not None and Batch.get_or_none(Batch.id == batch_id) is None:
                raise ContractError(f"batch {batch_id} does not exist", "batch_id")
            state = self.state(attachment_id)
            if state["state"] == "ready":
                return state, None, False
            if state["state"] == "fetching":
                return state, serialize_command(Command.get_by_id(state["command_id"])), False
            command = Command.create(type="fetch_attachment",
                                     params={"attachment_id": attachment_id},
                                     status="queued", batch=batch_id,
                                     created_at=iso(self._clock.now()))
        # Read again only after COMMIT: the history must never see a command
        # that a rollback could still take back.
        state = self.state(attachment_id)
        self._signal.notify()
        return state, serialize_command(command), True

    def content(self, attachment_id: str) -> Content:
        """The file of a ready attachment; Conflict (with the state) otherwise."""
        state = self.state(attachment_id)
        if state["state"] != "ready":
            raise Conflict(f"attachment {attachment_id!r} is {state['state']}, not ready; "
                           "request it with POST /api/v1/attachments/{id}/fetch",
                           state=state["state"], error=state["error"])
        row = AttachmentFile.get_by_id(attachment_id)
        return Content(self._store.path(row.file), row.file, row.size,
                       state["filename"], state["mime_type"])

    def _describe(self, attachment: tuple, file: str | None, commands: list[list]) -> dict:
        attachment_id, key, filename, size, mime_type = attachment
        state, error, command_id = "none", None, None
        if commands:
            command_id = commands[-1][0]
        open_ = [c for c in commands if c[1] in OPEN]
        if file is not None and self._store.size(file) is not None:
            state = "ready"
        elif open_:
            state, command_id = "fetching", open_[-1][0]
        elif commands and commands[-1][1] in GIVEN_UP:
            state, error = "failed", commands[-1][2]
        return {
            "attachment_id": attachment_id, "key": key, "filename": filename, "size": size,
            "mime_type": mime_type, "state": state, "error": error, "command_id": command_id,
        }
