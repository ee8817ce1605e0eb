"""Commands as interfaces see them: enqueue, list, read, cancel.

:meth:`CommandService.enqueue` applies the rules of each command type, which its
kind declares (:mod:`hub.services.commands.kinds`): which params it takes, who may
enqueue it, the batch it may join, the base JQL a bare refresh loads, and that an
attachment has at most one open fetch. Resources only parse and call.

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

from collections.abc import Callable
from typing import TYPE_CHECKING, Literal

from hub import dialect
from hub.clock import Clock, iso
from hub.db import database
from hub.errors import Conflict, ContractError, NotFound, TooMany
from hub.models import Command
from hub.services.commands.kinds import KINDS, enqueued_by_interfaces, refresh
from hub.services.commands.runs import close_open_run
from hub.services.commands.work_signal import WorkSignal
from hub.services.mirror.aliases import current_issue
from hub.services.mirror.projects import ProjectService
from hub.services.pagination import page
from hub.vocabulary import CANCELLED, GIVEN_UP_STATUSES, OPEN_STATUSES, QUEUED, REFRESH

if TYPE_CHECKING:  # for the annotation only: the attachment service is handed in
    from hub.services.files.attachments import AttachmentService


# How long a token past its bound of queued commands is told to wait (Retry-After):
# about what an agent takes to claim and run a few commands.
QUEUE_FULL_RETRY_SECONDS = 60
# The default of HUB_QUEUED_COMMANDS_PER_TOKEN (hub.config).
QUEUED_PER_TOKEN = 100


class CommandService:
    def __init__(self, projects: ProjectService, attachments: AttachmentService,
                 signal: WorkSignal, clock: Clock, *,
                 queued_per_token: int = QUEUED_PER_TOKEN):
        self._projects = projects
        self._attachments = attachments
        self._signal = signal
        self._clock = clock
        self._queued_per_token = queued_per_token

    def enqueue(self, type: str, params: dict | None = None,
                batch_id: int | None = None, *, token_id: int | None = None) -> tuple[Command, bool]:
        """Enqueue a command by the rules of its kind: ``(command, created)``.

        The checks, in this order, each a ContractError naming what it refuses: a
        kind the hub alone enqueues (``check_issues``, after a full run) says so;
        another unknown type names those interfaces may enqueue; a param the kind
        does not take, then one it needs and lacks; then the kind's own rule on
        their values (a refresh's ``updated_since`` range). The kind then enqueues
        it (:meth:`hub.services.commands.kinds.Kind.enqueue`): the open command of
        the same params, when there is one, comes back (not created).

        - ``batch_id`` names an existing batch the new command joins.
        - ``token_id`` is the asking token's: a new command counts against its bound
          of queued commands, and past it nothing is queued (TooMany). None (the hub's
          own) is not bounded.
        """
        params = params or {}
        wanted = KINDS.get(type)
        if wanted is not None and wanted.refusal is not None:
            raise ContractError(wanted.refusal, "type")
        if wanted is None:
            raise ContractError(f"type must be one of {', '.join(enqueued_by_interfaces())}, got {type!r}",
                                "type")
        allowed = set(wanted.params)
        extra = sorted(set(params) - allowed)
        if extra:
            raise ContractError(f"a {type} takes params.{' and params.'.join(sorted(allowed))} "
                                "only", f"params.{extra[0]}")
        for name in wanted.required:
            if name not in params:
                raise ContractError(f"a {type} needs params.{name}", f"params.{name}")
        return wanted.enqueue(self, wanted.checked_params(params, self._clock.now()), batch_id, token_id)

    def refresh_issue(self, key: str, *, token_id: int | None = None) -> tuple[Command, bool]:
        """Queue a refresh of one issue the mirror holds (by its key now, an old key finding it):
        a ``refresh`` of ``key = KEY``, an other query's run, never a full one. ``(command, created)``:
        the open refresh of that issue, queued or claimed, comes back rather than a second; NotFound
        for an issue the mirror does not hold, TooMany past the token's bound."""
        issue = current_issue(key)
        if issue is None:
            raise NotFound(f"no issue {key!r} in the mirror")
        return self.enqueue(REFRESH, {"jql": f"key = {issue.key}"}, token_id=token_id)

    @property
    def projects(self) -> ProjectService:
        """The projects, whose base JQL a bare refresh loads."""
        return self._projects

    @property
    def attachments(self) -> AttachmentService:
        """The attachments, whose service keeps one open fetch to each."""
        return self._attachments

    @property
    def clock(self) -> Clock:
        """The clock new commands are stamped by."""
        return self._clock

    def notify(self) -> None:
        """Wake the claims waiting for work: call after the COMMIT that queued it."""
        self._signal.notify()

    def hold_bound(self, token_id: int | None) -> None:
        """Serialise, on PostgreSQL, the requests of one token that may queue a command, so
        that :meth:`check_room` holds at the insert (SQLite's one writer already does)."""
        if token_id is not None:
            dialect.commands.serialize(dialect.commands.QUEUED_BY + str(token_id))

    def check_room(self, token_id: int | None, *, queued_now: bool = False) -> None:
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

    def enqueue_base_refresh(self, plan: Callable[[str], str | Literal[False] | None]) -> Command | None:
        """Queue a refresh of the base JQL as ``plan(base_jql)`` decides: False for
        none, None for a full run, a UTC time for an incremental run since then.

        ``plan`` is asked inside the insert's write transaction, so that what it
        reads (say, that no such refresh is open) still holds at the insert. None
        (nothing queued) when there is no base JQL or ``plan`` answers False.
        """
        return refresh.enqueue_base(self, plan)

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
        of its kind (:meth:`hub.services.commands.kinds.Kind.retry`), within
        ``token_id``'s bound of queued commands: a ``fetch_attachment`` whose
        attachment has an open fetch, or is ready, or a ``refresh`` of params an open
        refresh has, gives that command back (not created). A ``check_issues`` the
        hub enqueued is queued again as it was. A command still open (queued or
        claimed), or done, is a Conflict: there is nothing to retry.
        """
        command = self._get(command_id)
        if command.status not in GIVEN_UP_STATUSES:
            hint = ("it is still open: cancel it first, or let it finish" if command.status in OPEN_STATUSES
                    else "it succeeded; enqueue a new command to run it again")
            raise Conflict(f"command {command_id} is {command.status}; only failed or cancelled commands "
                           f"can be retried ({hint})", state=command.status)
        retried = KINDS.get(command.type)
        if retried is None:  # a type this hub no longer knows: refused as enqueue refuses it
            return self.enqueue(command.type, dict(command.params or {}), command.batch_id, token_id=token_id)
        return retried.retry(self, command, token_id)

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
        command = (dialect.commands.locked(query) if lock else query).get_or_none()
        if command is None:
            raise NotFound(f"no command {command_id}")
        return command


def _row(command: Command) -> Command:
    return command

