"""Commands as interfaces see them: enqueue, list, read, cancel.

:meth:`CommandService.enqueue` holds the rules of each command type: which
params it takes, the batch it may join, the base JQL a bare refresh loads, and
that an attachment has at most one open fetch. Resources only parse and call.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Literal

from hub.clock import Clock, iso, parse_utc
from hub.db import database
from hub.dialect import commands as sql
from hub.errors import Conflict, ContractError, NotFound
from hub.models import Batch, Command
from hub.services.pagination import page
from hub.services.projects import ProjectService
from hub.services.sync_runs import close_open_run
from hub.services.work_signal import WorkSignal
from hub.vocabulary import (
    CANCELLED,
    CHECK_ISSUES,
    ENQUEUED_BY_INTERFACES,
    FETCH_ATTACHMENT,
    GIVEN_UP_STATUSES,
    OPEN_STATUSES,
    QUEUED,
    READY,
    REFRESH,
)

if TYPE_CHECKING:  # for the annotation only: the attachment service is handed in
    from hub.services.attachments import AttachmentService


class CommandService:
    def __init__(self, projects: ProjectService, attachments: AttachmentService,
                 signal: WorkSignal, clock: Clock | None = None):
        self._projects = projects
        self._attachments = attachments
        self._signal = signal
        self._clock = clock or Clock()

    def enqueue(self, type: str, params: dict | None = None,
                batch_id: int | None = None) -> tuple[Command, bool]:
        """Enqueue a command by the rules of its type: ``(command, created)``.

        - ``refresh`` takes ``params.jql`` (without it, the base JQL) and optionally
          ``params.updated_since``, a UTC time: only issues updated since then
          (an incremental run, never a full one). It always makes a new command.
        - ``fetch_attachment`` takes ``params.attachment_id`` only. While a fetch of
          that attachment is open, that command comes back (not created); a ready
          attachment enqueues nothing, and the command that fetched it comes back.
        - ``batch_id``, for either, names an existing batch the new command joins.

        ``check_issues`` is the hub's own: it follows a full run (see
        :meth:`hub.services.sync_runs.SyncRunService.mark_neighbours`), which alone knows
        what the run did not load; asked for here, it is a ContractError naming ``type``.
        """
        params = params or {}
        if type == CHECK_ISSUES:
            raise ContractError("type: check_issues commands are enqueued by the hub itself after "
                                "a full run; enqueue a full refresh instead", "type")
        if type not in ENQUEUED_BY_INTERFACES:
            raise ContractError(f"type must be one of {', '.join(ENQUEUED_BY_INTERFACES)}, got {type!r}",
                                "type")
        allowed = {REFRESH: {"jql", "updated_since"}, FETCH_ATTACHMENT: {"attachment_id"}}[type]
        extra = sorted(set(params) - allowed)
        if extra:
            raise ContractError(f"a {type} takes params.{' and params.'.join(sorted(allowed))} "
                                "only", f"params.{extra[0]}")
        if type == REFRESH:
            since = params.get("updated_since")
            if since is not None:
                moment = parse_utc(since)
                if moment is None:
                    raise ContractError("params.updated_since must be a UTC time like "
                                        f"2026-10-22T10:05:11+00:00, got {since!r}",
                                        "params.updated_since")
                since = iso(moment)
            return self.enqueue_refresh(params.get("jql"), batch_id, updated_since=since), True
        if "attachment_id" not in params:
            raise ContractError("a fetch_attachment needs params.attachment_id",
                                "params.attachment_id")
        state, command, created = self._attachments.request_fetch(params["attachment_id"], batch_id)
        if command is None:  # ready: the command that fetched it stands for the request
            if state["command_id"] is None:
                raise Conflict(f"attachment {params['attachment_id']!r} is ready already, "
                               "fetched before this hub kept its commands", state=READY)
            command = self.get(state["command_id"])
        return command, created

    def enqueue_refresh(self, jql: str | None = None, batch_id: int | None = None, *,
                        updated_since: str | None = None) -> Command:
        """Queue a ``refresh``; without ``jql`` it loads the base JQL (a full run,
        unless ``updated_since``, a UTC time in the hub's format, makes it incremental)."""
        with database.atomic():
            if jql is None:
                jql = self._projects.base_jql()
                if jql is None:
                    raise ContractError(
                        "params.jql is required: there is no base JQL yet (no projects); "
                        "add a project with 'hub project add' or send a jql",
                        "params.jql",
                    )
            if batch_id is not None and Batch.get_or_none(Batch.id == batch_id) is None:
                raise ContractError(f"batch {batch_id} does not exist", "batch_id")
            command = self._insert_refresh(jql, updated_since, batch_id)
        self._signal.notify()
        return command

    def enqueue_base_refresh(self, plan: Callable[[str], str | Literal[False] | None]) -> Command | None:
        """Queue a refresh of the base JQL as ``plan(base_jql)`` decides: False for
        none, None for a full run, a UTC time for an incremental run since then.

        ``plan`` is asked inside the insert's write transaction, so that what it
        reads (say, that no such refresh is open) still holds at the insert. None
        (nothing queued) when there is no base JQL or ``plan`` answers False.
        """
        with database.atomic():
            # On PostgreSQL writers do not wait for each other: what ``plan`` reads
            # holds at the insert only while no other scheduled refresh is planned.
            sql.serialize(sql.REFRESH_SCHEDULE)
            jql = self._projects.base_jql()
            if jql is None:
                return None
            updated_since = plan(jql)
            if updated_since is False:
                return None
            command = self._insert_refresh(jql, updated_since, None)
        self._signal.notify()
        return command

    def _insert_refresh(self, jql: str, updated_since: str | None, batch_id: int | None) -> Command:
        params = {"jql": jql}
        if updated_since is not None:
            params["updated_since"] = updated_since
        return Command.create(type=REFRESH, params=params, status=QUEUED, batch=batch_id,
                              created_at=iso(self._clock.now()))

    def get(self, command_id: int) -> Command:
        return self._get(command_id)

    def list(self, status: str | None = None, type: str | None = None,
             cursor: int | None = None, limit: int = 50) -> dict:
        """A page of commands (the rows), newest first."""
        query = Command.select()
        if status is not None:
            query = query.where(Command.status == status)
        if type is not None:
            query = query.where(Command.type == type)
        return page(query, Command.id, cursor, limit, _row)

    def retry(self, command_id: int) -> tuple[Command, bool]:
        """Enqueue again a command that failed or was cancelled: ``(command, created)``.

        The new command has the same type, params and batch, and goes by the rules
        of its type (:meth:`enqueue`): a ``fetch_attachment`` whose attachment has an
        open fetch, or is ready, gives that command back (not created). A
        ``check_issues`` the hub enqueued is queued again as it was. A command still
        open (queued or claimed), or done, is a Conflict: there is nothing to retry.
        """
        command = self._get(command_id)
        if command.status not in GIVEN_UP_STATUSES:
            hint = ("it is still open: cancel it first, or let it finish" if command.status in OPEN_STATUSES
                    else "it succeeded; enqueue a new command to run it again")
            raise Conflict(f"command {command_id} is {command.status}; only failed or cancelled commands "
                           f"can be retried ({hint})", state=command.status)
        params = dict(command.params or {})
        if command.type == CHECK_ISSUES:
            with database.atomic():
                again = Command.create(type=CHECK_ISSUES, params=params, status=QUEUED,
                                       batch=command.batch_id, created_at=iso(self._clock.now()))
            self._signal.notify()
            return again, True
        if command.type == REFRESH:
            if not params.get("jql"):
                raise Conflict(f"command {command_id} names no query to refresh again")
            return self.enqueue_refresh(params["jql"], command.batch_id,
                                        updated_since=params.get("updated_since")), True
        return self.enqueue(command.type, params, command.batch_id)

    def cancel(self, command_id: int) -> Command:
        """Cancel a queued or claimed command; its agent hears of it at its next heartbeat."""
        with database.atomic():
            # Locked on PostgreSQL, so a claim cannot take it between the check and
            # the save (a claim passes over a locked row; one that got it first is
            # waited for, and its command is cancelled as claimed).
            command = self._get(command_id, lock=True)
            if command.status not in OPEN_STATUSES:
                raise Conflict(f"command {command_id} is {command.status}; only queued or "
                               "claimed commands can be cancelled")
            now = iso(self._clock.now())
            command.status = CANCELLED
            command.finished_at = now
            command.lease_until = None
            command.save()
            close_open_run(command.id, "failed", now, error="command cancelled")
        return command

    @staticmethod
    def _get(command_id: int, *, lock: bool = False) -> Command:
        query = Command.select().where(Command.id == command_id)
        command = (sql.locked(query) if lock else query).get_or_none()
        if command is None:
            raise NotFound(f"no command {command_id}")
        return command


def _row(command: Command) -> Command:
    return command
