"""Commands as interfaces see them: enqueue, list, read, cancel.

:meth:`CommandService.enqueue` holds the rules of each command type: which
params it takes, the batch it may join, the base JQL a bare refresh loads, and
that an attachment has at most one open fetch. Resources only parse and call.

An interface cannot flood the queue, which agents drain oldest first: a request
for a command identical to an open one (same type and params, queued or
claimed) is answered with that one, so at most one full refresh is open at a
time; and one token has at most ``queued_per_token`` commands queued at once
(:class:`~hub.errors.TooMany` past it). Who queued a command is kept in its
``token_id`` while it waits: a claim writes the claiming token there, and a
lease that runs out clears it, so a queued command with a ``token_id`` counts
against the token that asked for it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Literal

from hub.clock import Clock, iso, parse_utc
from hub.db import database
from hub.dialect import commands as sql
from hub.errors import Conflict, ContractError, NotFound, TooMany
from hub.models import Batch, Command
from hub.services.commands.sync_runs import close_open_run
from hub.services.commands.work_signal import WorkSignal
from hub.services.mirror.projects import ProjectService
from hub.services.pagination import page
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
    from hub.services.files.attachments import AttachmentService


# How long a token past its bound of queued commands is told to wait (Retry-After):
# about what an agent takes to claim and run a few commands.
QUEUE_FULL_RETRY_SECONDS = 60
# The default of HUB_QUEUED_COMMANDS_PER_TOKEN (hub.config).
QUEUED_PER_TOKEN = 100


class CommandService:
    def __init__(self, projects: ProjectService, attachments: AttachmentService,
                 signal: WorkSignal, clock: Clock | None = None, *,
                 queued_per_token: int = QUEUED_PER_TOKEN):
        self._projects = projects
        self._attachments = attachments
        self._signal = signal
        self._clock = clock or Clock()
        self._queued_per_token = queued_per_token

    def enqueue(self, type: str, params: dict | None = None,
                batch_id: int | None = None, *, token_id: int | None = None) -> tuple[Command, bool]:
        """Enqueue a command by the rules of its type: ``(command, created)``.

        - ``refresh`` takes ``params.jql`` (without it, the base JQL) and optionally
          ``params.updated_since``, a UTC time: only issues updated since then
          (an incremental run, never a full one). While a refresh of the same params
          is open (queued or claimed), that command comes back (not created): one
          full refresh is open at a time, whoever asked for it.
        - ``fetch_attachment`` takes ``params.attachment_id`` only. While a fetch of
          that attachment is open, that command comes back (not created); a ready
          attachment enqueues nothing, and the command that fetched it comes back.
        - ``batch_id``, for either, names an existing batch the new command joins.
        - ``token_id`` is the asking token's: a new command counts against its bound
          of queued commands, and past it nothing is queued (TooMany). None (the hub's
          own) is not bounded.

        ``check_issues`` is the hub's own: it follows a full run (see
        :meth:`hub.services.commands.sync_runs.SyncRunService.mark_neighbours`), which alone knows
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
                # A sane range (docs/api.md): no Jira kept issues before 2000, a moment past
                # tomorrow selects nothing, and the agent writes it in the Jira user's zone.
                latest = self._clock.now() + timedelta(days=1)
                if not datetime(2000, 1, 1, tzinfo=UTC) <= moment <= latest:
                    raise ContractError("params.updated_since must be from 2000-01-01T00:00:00+00:00 to "
                                        f"a day from now ({iso(latest)}), got {since!r}",
                                        "params.updated_since")
                since = iso(moment)
            return self._request_refresh(params.get("jql"), batch_id, since, token_id)
        if "attachment_id" not in params:
            raise ContractError("a fetch_attachment needs params.attachment_id",
                                "params.attachment_id")
        return self._request_fetch(params["attachment_id"], batch_id, token_id)

    def _request_fetch(self, attachment_id: str, batch_id: int | None,
                       token_id: int | None) -> tuple[Command, bool]:
        """A fetch an interface asks for, by :meth:`AttachmentService.request_fetch`'s rules,
        within the token's bound."""
        with database.atomic():
            # The token's bound is taken first, as for a refresh; the attachment's own
            # lock (one open fetch) is taken inside, by the attachment service. A fetch
            # answered with the open one queues nothing, so the bound is checked after:
            # past it, the new command goes with this transaction.
            self._hold_bound(token_id)
            state, command, created = self._attachments.request_fetch(attachment_id, batch_id)
            if created and command is not None and token_id is not None:
                command.token_id = token_id
                Command.update(token_id=token_id).where(Command.id == command.id).execute()
                self._check_room(token_id, queued_now=True)
        if created:
            # request_fetch told the agents before this transaction committed: again, now.
            self._signal.notify()
        if command is None:  # ready: the command that fetched it stands for the request
            if state["command_id"] is None:
                raise Conflict(f"attachment {attachment_id!r} is ready already, "
                               "fetched before this hub kept its commands", state=READY)
            command = self.get(state["command_id"])
        return command, created

    def _request_refresh(self, jql: str | None, batch_id: int | None, updated_since: str | None,
                         token_id: int | None) -> tuple[Command, bool]:
        """A refresh an interface asks for: the open one of the same params if there is
        one (not created), else a new one within the token's bound."""
        with database.atomic():
            base = self._projects.base_jql()
            if jql is None:
                jql = self._require_base(base)
            if batch_id is not None and Batch.get_or_none(Batch.id == batch_id) is None:
                raise ContractError(f"batch {batch_id} does not exist", "batch_id")
            wanted = _refresh_params(jql, updated_since)
            # Locks in one order everywhere: the token's bound, then the query's. A
            # refresh of the base JQL takes the schedule's lock, which the scheduled
            # refreshes take too: theirs and an interface's are one open command.
            self._hold_bound(token_id)
            sql.serialize(sql.REFRESH_SCHEDULE if jql == base
                          else sql.SAME_REFRESH + json.dumps(wanted, sort_keys=True))
            open_one = _open_same(REFRESH, wanted)
            if open_one is not None:
                return open_one, False
            self._check_room(token_id)
            command = self._insert_refresh(jql, updated_since, batch_id, token_id)
        self._signal.notify()
        return command, True

    def _hold_bound(self, token_id: int | None) -> None:
        """Serialise, on PostgreSQL, the requests of one token that may queue a command, so
        that :meth:`_check_room` holds at the insert (SQLite's one writer already does)."""
        if token_id is not None:
            sql.serialize(sql.QUEUED_BY + str(token_id))

    def _check_room(self, token_id: int | None, *, queued_now: bool = False) -> None:
        """TooMany when the token already has as many commands queued as it may (before
        the new one; ``queued_now``: the new one is queued already, and counted)."""
        if token_id is None:
            return
        queued = (Command.select()
                  .where(Command.status == QUEUED, Command.token_id == token_id)
                  .limit(self._queued_per_token + 1).count()) - int(queued_now)
        if queued >= self._queued_per_token:
            raise TooMany(f"this token has {queued} commands queued, as many as one token may "
                          f"(HUB_QUEUED_COMMANDS_PER_TOKEN = {self._queued_per_token}); nothing was "
                          "queued: retry once agents have taken some, or cancel those no longer "
                          "needed", retry_after=QUEUE_FULL_RETRY_SECONDS)

    @staticmethod
    def _require_base(base: str | None) -> str:
        if base is None:
            raise ContractError(
                "params.jql is required: there is no base JQL yet (no projects); "
                "add a project with 'hub project add' or send a jql",
                "params.jql",
            )
        return base

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

    def _insert_refresh(self, jql: str, updated_since: str | None, batch_id: int | None,
                        token_id: int | None = None) -> Command:
        return Command.create(type=REFRESH, params=_refresh_params(jql, updated_since), status=QUEUED,
                              batch=batch_id, created_at=iso(self._clock.now()), token_id=token_id)

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

    def retry(self, command_id: int, *, token_id: int | None = None) -> tuple[Command, bool]:
        """Enqueue again a command that failed or was cancelled: ``(command, created)``.

        The new command has the same type, params and batch, and goes by the rules
        of its type (:meth:`enqueue`), within ``token_id``'s bound of queued commands:
        a ``fetch_attachment`` whose attachment has an open fetch, or is ready, or a
        ``refresh`` of params an open refresh has, gives that command back (not
        created). A ``check_issues`` the hub enqueued is queued again as it was. A
        command still open (queued or claimed), or done, is a Conflict: there is
        nothing to retry.
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
                self._hold_bound(token_id)
                self._check_room(token_id)
                again = Command.create(type=CHECK_ISSUES, params=params, status=QUEUED,
                                       batch=command.batch_id, created_at=iso(self._clock.now()),
                                       token_id=token_id)
            self._signal.notify()
            return again, True
        if command.type == REFRESH:
            if not params.get("jql"):
                raise Conflict(f"command {command_id} names no query to refresh again")
            return self._request_refresh(params["jql"], command.batch_id, params.get("updated_since"),
                                         token_id)
        return self.enqueue(command.type, params, command.batch_id, token_id=token_id)

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


def _refresh_params(jql: str, updated_since: str | None) -> dict:
    params = {"jql": jql}
    if updated_since is not None:
        params["updated_since"] = updated_since
    return params


def _open_same(type: str, params: dict) -> Command | None:
    """The oldest open (queued or claimed) command of ``type`` with exactly ``params``."""
    # Compared as values, not as stored text: a command queued by an older hub may spell
    # the same JSON otherwise. Open commands of one type are few (the bound above).
    for command in (Command.select().where(Command.type == type, Command.status.in_(OPEN_STATUSES))
                    .order_by(Command.id)):
        if command.params == params:
            return command
    return None
