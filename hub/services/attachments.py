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
from dataclasses import dataclass
from pathlib import Path

from hub.clock import Clock, iso
from hub.db import database
from hub.errors import Conflict, NotFound
from hub.models import AttachmentFile, Command, Issue, IssueAttachment
from hub.services.commands import serialize_command
from hub.services.files import FileStore
from hub.services.work_signal import WorkSignal

OPEN = ("queued", "claimed")
GIVEN_UP = ("failed", "cancelled")
# How often a long-polling read looks at the state again.
POLL_SECONDS = 0.25

# fetch_attachment commands, with the attachment id read from their params;
# params that are not JSON (none the hub writes) name no attachment.
_COMMANDS_FOR = """
SELECT id, status, error, aid FROM (
  SELECT id, status, error,
         CASE WHEN json_valid(params) THEN json_extract(params, '$.attachment_id') END AS aid
  FROM command WHERE type = 'fetch_attachment')
WHERE aid IN (SELECT value FROM json_each(?))
ORDER BY id
"""


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
        self._store = store
        self._signal = signal
        self._clock = clock or Clock()

    def states(self, ids: list[str]) -> list[dict]:
        """The state objects of the known ids among ``ids``, in their order."""
        ids = list(dict.fromkeys(ids))
        listed = {a.attachment_id: a for a in
                  IssueAttachment.select().where(IssueAttachment.attachment_id.in_(ids))}
        files = {f.attachment_id: f for f in
                 AttachmentFile.select().where(AttachmentFile.attachment_id.in_(list(listed)))}
        commands: dict[str, list[tuple]] = {}
        for command_id, status, error, aid in database.execute_sql(
                _COMMANDS_FOR, (json.dumps(list(listed)),)):
            commands.setdefault(aid, []).append((command_id, status, error))
        return [self._describe(listed[i], files.get(i), commands.get(i, []))
                for i in ids if i in listed]

    def state(self, attachment_id: str) -> dict:
        states = self.states([attachment_id])
        if not states:
            raise NotFound(f"no attachment {attachment_id!r} in the mirror")
        return states[0]

    def wait_for_change(self, attachment_id: str, known: str, wait: float) -> dict:
        """The state, held up to ``wait`` seconds while it is still ``known``."""
        deadline = time.monotonic() + wait
        while True:
            state = self.state(attachment_id)
            remaining = deadline - time.monotonic()
            if state["state"] != known or remaining <= 0:
                return state
            time.sleep(min(POLL_SECONDS, remaining))

    def for_issue(self, key: str) -> list[dict]:
        if Issue.get_or_none(Issue.key == key) is None:
            raise NotFound(f"no issue {key!r} in the mirror")
        ids = [a.attachment_id for a in IssueAttachment.select(IssueAttachment.attachment_id)
               .where(IssueAttachment.key == key).order_by(IssueAttachment.attachment_id)]
        return self.states(ids)

    def request_fetch(self, attachment_id: str) -> tuple[dict, dict | None, bool]:
        """Ask for an attachment's content: ``(state, command, created)``.

        Ready: nothing is enqueued. Fetching: the open command is returned, never
        a second one. None or failed: a new ``fetch_attachment`` is enqueued. The
        check and the insert share one write transaction.
        """
        with database.atomic():
            state = self.state(attachment_id)
            if state["state"] == "ready":
                return state, None, False
            if state["state"] == "fetching":
                return state, serialize_command(Command.get_by_id(state["command_id"])), False
            command = Command.create(type="fetch_attachment",
                                     params={"attachment_id": attachment_id},
                                     status="queued", created_at=iso(self._clock.now()))
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

    def _describe(self, attachment: IssueAttachment, file: AttachmentFile | None,
                  commands: list[tuple]) -> dict:
        state, error, command_id = "none", None, None
        if commands:
            command_id = commands[-1][0]
        open_ = [c for c in commands if c[1] in OPEN]
        if file is not None and self._store.size(file.file) is not None:
            state = "ready"
        elif open_:
            state, command_id = "fetching", open_[-1][0]
        elif commands and commands[-1][1] in GIVEN_UP:
            state, error = "failed", commands[-1][2]
        return {
            "attachment_id": attachment.attachment_id, "key": attachment.key,
            "filename": attachment.filename, "size": attachment.size,
            "mime_type": attachment.mime_type, "state": state, "error": error,
            "command_id": command_id,
        }
