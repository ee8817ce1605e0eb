"""``/api/v1`` resources for commands, sync runs and agents (token role ``interface`` or ``admin``)."""

from __future__ import annotations

import falcon

from hub.api import schemas
from hub.api.openapi import responds
from hub.api.auth import INTERFACE
from hub.api.validation import accepts, query
from hub.services.agents import AgentService
from hub.services.attachments import AttachmentService
from hub.services.commands import CommandService
from hub.services.sync_runs import SyncRunService


class CommandsResource:
    roles = INTERFACE

    def __init__(self, commands: CommandService, attachments: AttachmentService):
        self._commands = commands
        self._attachments = attachments

    @query(schemas.COMMAND_LIST)
    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        """Commands, newest first, filtered by status and type."""
        resp.media = self._commands.list(**req.context.query)

    @responds(201, 200, errors=(404,), location="/api/v1/commands/{id}")
    @accepts(schemas.NEW_COMMAND)
    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        """Enqueue a command: 201 with it, or 200 with the command already there."""
        # NEW_COMMAND has already checked which params each type takes.
        body = req.context.body
        params = body.get("params") or {}
        if body["type"] == "refresh":
            resp.media = self._commands.enqueue_refresh(params.get("jql"), body.get("batch_id"))
            resp.status = falcon.HTTP_201
            resp.location = f"/api/v1/commands/{resp.media['id']}"
            return
        state, command, created = self._attachments.request_fetch(
            params["attachment_id"], body.get("batch_id"))
        # Ready: nothing new; the command that fetched it stands for the request.
        resp.media = command or self._commands.get(state["command_id"])
        resp.status = falcon.HTTP_201 if created else falcon.HTTP_200
        if created:
            resp.location = f"/api/v1/commands/{resp.media['id']}"


class CommandResource:
    roles = INTERFACE

    def __init__(self, commands: CommandService):
        self._commands = commands

    def on_get(self, req: falcon.Request, resp: falcon.Response, command_id: int) -> None:
        """One command."""
        resp.media = self._commands.get(command_id)


class CancelResource:
    roles = INTERFACE

    def __init__(self, commands: CommandService):
        self._commands = commands

    @responds(errors=(409,))
    def on_post(self, req: falcon.Request, resp: falcon.Response, command_id: int) -> None:
        """Cancel a queued or claimed command."""
        resp.media = self._commands.cancel(command_id)


class SyncRunsResource:
    roles = INTERFACE

    def __init__(self, runs: SyncRunService):
        self._runs = runs

    @query(schemas.SYNC_RUN_LIST)
    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        """Sync runs, newest first."""
        resp.media = self._runs.list(**req.context.query)


class AgentsResource:
    roles = INTERFACE

    def __init__(self, agents: AgentService):
        self._agents = agents

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        """Agents, with whether each is online."""
        resp.media = self._agents.list()
