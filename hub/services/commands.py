"""Commands as interfaces see them: enqueue, list, read, cancel."""

from __future__ import annotations

from hub.clock import Clock, iso
from hub.db import database
from hub.errors import Conflict, ContractError, NotFound
from hub.models import Batch, Command
from hub.services.pagination import page
from hub.services.projects import ProjectService
from hub.services.sync_runs import close_open_run
from hub.services.work_signal import WorkSignal

OPEN_STATUSES = ("queued", "claimed")


def serialize_command(command: Command) -> dict:
    return {
        "id": command.id,
        "type": command.type,
        "params": command.params,
        "status": command.status,
        "deliveries": command.deliveries,
        "agent_id": command.agent_id,
        "batch_id": command.batch_id,
        "created_at": command.created_at,
        "claimed_at": command.claimed_at,
        "lease_until": command.lease_until,
        "finished_at": command.finished_at,
        "result": command.result,
        "error": command.error,
    }


class CommandService:
    def __init__(self, projects: ProjectService, signal: WorkSignal, clock: Clock | None = None):
        self._projects = projects
        self._signal = signal
        self._clock = clock or Clock()

    def enqueue_refresh(self, jql: str | None = None, batch_id: int | None = None) -> dict:
        """Queue a ``refresh``; without ``jql`` it loads the base JQL (a full run)."""
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
            command = Command.create(
                type="refresh",
                params={"jql": jql},
                status="queued",
                batch=batch_id,
                created_at=iso(self._clock.now()),
            )
        self._signal.notify()
        return serialize_command(command)

    def get(self, command_id: int) -> dict:
        return serialize_command(self._get(command_id))

    def list(self, status: str | None = None, type: str | None = None,
             cursor: int | None = None, limit: int = 50) -> dict:
        query = Command.select()
        if status is not None:
            query = query.where(Command.status == status)
        if type is not None:
            query = query.where(Command.type == type)
        return page(query, Command.id, cursor, limit, serialize_command)

    def cancel(self, command_id: int) -> dict:
        """Cancel a queued or claimed command; its agent hears of it at its next heartbeat."""
        with database.atomic():
            command = self._get(command_id)
            if command.status not in OPEN_STATUSES:
                raise Conflict(f"command {command_id} is {command.status}; only queued or "
                               "claimed commands can be cancelled")
            now = iso(self._clock.now())
            command.status = "cancelled"
            command.finished_at = now
            command.lease_until = None
            command.save()
            close_open_run(command.id, "failed", now, error="command cancelled")
        return serialize_command(command)

    @staticmethod
    def _get(command_id: int) -> Command:
        command = Command.get_or_none(Command.id == command_id)
        if command is None:
            raise NotFound(f"no command {command_id}")
        return command
