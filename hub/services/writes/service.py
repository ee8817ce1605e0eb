"""The writes interfaces ask for: request, read, wait for, cancel and retry (docs/writes.md)."""

from __future__ import annotations

import builtins
import json
import time
from collections.abc import Callable
from dataclasses import dataclass

from hub import dialect
from hub.clock import Clock, iso
from hub.db import database
from hub.errors import Conflict, NotFound
from hub.models import Command, Write
from hub.services.access.tokens import Principal, require_token
from hub.services.commands.kinds.write import command_params, serial_key
from hub.services.commands.queue import CommandService
from hub.services.pagination import page
from hub.services.writes import checks, ops
from hub.services.writes.shown import ShownWrite, joined, shown, still_open, where_shown
from hub.vocabulary import CANCELLED, CONFLICT, CREATE_ISSUE, FAILED, PENDING, QUEUED, WRITE

# How often a long-poll on a write looks again (as an attachment's does).
POLL_SECONDS = 0.25
# Writes an issue object lists as pending, at most: an issue with more shows the oldest.
PENDING_SHOWN = 50


@dataclass(frozen=True)
class Upload:
    """An attachment's file, in the store already: what a write of ``attach`` sends to Jira."""

    sha256: str
    size: int
    filename: str
    mime_type: str


class WriteService:
    """Writes: each one row of ``write`` and, while it is to be applied, one ``write`` command."""

    def __init__(self, commands: CommandService, clock: Clock):
        self._commands = commands
        self._clock = clock

    def request(self, op: str, key: str | None, params: dict, by: Principal, *,
                base: dict | None = None, idempotency_key: str | None = None,
                upload: Upload | None = None) -> tuple[ShownWrite, bool]:
        """Record a write and queue its command: ``(write, created)``.

        Checked first against the mirror (ContractError naming the field). With an
        ``idempotency_key``, a request the token made before under the same key answers the
        write it made then (not created); under the same key with another request, Conflict.
        The write counts against the token's bound of queued commands (TooMany past it).
        """
        params = ops.as_wiki(op, params)
        issue = checks.check(op, key, params)
        if issue is not None:
            key = issue.key
        project = params.get("project") if op == CREATE_ISSUE else None
        saw = ops.base_of(op, issue, params, base)
        file = None if upload is None else {"sha256": upload.sha256, "size": upload.size,
                                            "filename": upload.filename, "mime_type": upload.mime_type}
        now = iso(self._clock.now())
        with database.atomic():
            # One token's requests in turn (on PostgreSQL; SQLite has one writer): its bound of
            # queued commands, and an Idempotency-Key seen once, hold at the insert.
            self._commands.hold_bound(by.token_id)
            if idempotency_key is not None:
                earlier = (Write.select().where(Write.token_id == by.token_id,
                                                Write.idempotency_key == idempotency_key).first())
                if earlier is not None:
                    if (earlier.op, earlier.key, _same(earlier.params), earlier.project) != (
                            op, key, _same(params), project):
                        raise Conflict(f"Idempotency-Key {idempotency_key!r} was used by this token for "
                                       f"write {earlier.id} ({earlier.op} {earlier.key or earlier.project}), "
                                       "a different request; use a new key for a new write")
                    return self.get(earlier.id), False
            self._commands.check_room(by.token_id)
            write = Write.create(op=op, key=key, project=project, params=params, base=saw, token_id=by.token_id,
                                 requested_by=by.name, idempotency_key=idempotency_key, status=PENDING,
                                 file=None if upload is None else upload.sha256, created_at=now, updated_at=now)
            self._queue(write, file, by.token_id, now)
        self._commands.notify()
        return self.get(write.id), True

    def _queue(self, write: Write, file: dict | None, token_id: int | None, now: str) -> None:
        """The command that applies ``write``, queued in the caller's transaction."""
        command = Command.create(type=WRITE, params=command_params(write, file), status=QUEUED,
                                 created_at=now, token_id=token_id, serial_key=serial_key(write.key))
        Write.update(command_id=command.id).where(Write.id == write.id).execute()
        write.command_id = command.id

    def get(self, write_id: int) -> ShownWrite:
        row = joined().where(Write.id == write_id).first()
        if row is None:
            raise NotFound(f"no write {write_id}")
        return shown(row)

    def list(self, key: str | None = None, status: str | None = None, op: str | None = None,
             cursor: int | None = None, limit: int = 50) -> dict:
        """A page of writes, newest first, of one issue, status or operation when asked."""
        query = joined()
        if key is not None:
            query = query.where(Write.key == key)
        if status is not None:
            query = query.where(where_shown(status))
        if op is not None:
            query = query.where(Write.op == op)
        return page(query, Write.id, cursor, limit, shown)

    def pending_for(self, key: str) -> builtins.list[ShownWrite]:
        """The issue's writes not yet ended (pending or applying), oldest first."""
        return [shown(row) for row in joined().where(Write.key == key, still_open())
                .order_by(Write.id).limit(PENDING_SHOWN)]

    def wait_for_change(self, write_id: int, known: str, wait: float, *,
                        gone: Callable[[], bool] = lambda: False, token_id: int | None = None) -> ShownWrite:
        """The write, held up to ``wait`` seconds while its status is still ``known``; early once
        ``gone()`` says the client left. A token revoked meanwhile raises Unauthenticated."""
        deadline = time.monotonic() + wait
        while True:
            write = self.get(write_id)
            require_token(token_id)
            remaining = deadline - time.monotonic()
            if write.status != known or remaining <= 0 or gone():
                return write
            time.sleep(min(POLL_SECONDS, remaining))

    def cancel(self, write_id: int) -> ShownWrite:
        """Cancel a write still pending: its command is cancelled before any agent took it.
        A write being applied, or ended, is a Conflict: Jira may hold it already."""
        with database.atomic():
            write = self.get(write_id)
            command = None
            if write.command_id is not None:
                command = dialect.commands.locked(Command.select().where(Command.id == write.command_id)).first()
            if write.status != PENDING or (command is not None and command.status != QUEUED):
                state = write.status if command is None or write.status != PENDING else "applying"
                raise Conflict(f"write {write_id} is {state}; only a pending write can be cancelled "
                               "(one being applied may be in Jira already)", state=state)
            now = iso(self._clock.now())
            if command is not None:
                Command.update(status=CANCELLED, finished_at=now).where(Command.id == command.id).execute()
            Write.update(status=CANCELLED, updated_at=now).where(Write.id == write_id).execute()
        return self.get(write_id)

    def retry(self, write_id: int, by: Principal, *, base: dict | None = None) -> ShownWrite:
        """Apply again a write that failed or ended in conflict, with a command of its own. A
        conflict's base is taken anew (the request's ``base``, over the mirror's values now)."""
        now = iso(self._clock.now())
        with database.atomic():
            self._commands.hold_bound(by.token_id)
            write = self.get(write_id)
            if write.status not in (FAILED, CONFLICT):
                raise Conflict(f"write {write_id} is {write.status}; only a failed write or one in conflict "
                               "can be retried", state=write.status)
            self._commands.check_room(by.token_id)
            issue = checks.check(write.op, write.key, write.params)
            saw = ops.base_of(write.op, issue, write.params, base) if write.status == CONFLICT else write.base
            row = Write.get_by_id(write_id)
            file = (Command.get_by_id(row.command_id).params or {}).get("file") if row.command_id else None
            (Write.update(status=PENDING, base=saw, error=None, conflict=None, result=None, updated_at=now)
             .where(Write.id == write_id).execute())
            row.base = saw
            self._queue(row, file, by.token_id, now)
        self._commands.notify()
        return self.get(write_id)


def _same(params: dict) -> str:
    """Params as canonical JSON: two requests are the same when these are."""
    return json.dumps(params, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
