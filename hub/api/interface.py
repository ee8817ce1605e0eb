"""``/api/v1`` resources for commands, sync runs and agents (token role ``interface`` or ``admin``)."""

from __future__ import annotations

import falcon

from hub.api import schemas
from hub.api.auth import INTERFACE
from hub.api.validation import accepts, query
from hub.services.agents import AgentService
from hub.services.commands import CommandService
from hub.services.sync_runs import SyncRunService


class CommandsResource:
    roles = INTERFACE

    def __init__(self, commands: CommandService):
        self._commands = commands

    @query(schemas.COMMAND_LIST)
    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        resp.media = self._commands.list(**req.context.query)

    @accepts(schemas.NEW_COMMAND)
    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        body = req.context.body
        resp.media = self._commands.enqueue_refresh(
            (body.get("params") or {}).get("jql"), body.get("batch_id"))
        resp.status = falcon.HTTP_201


class CommandResource:
    roles = INTERFACE

    def __init__(self, commands: CommandService):
        self._commands = commands

    def on_get(self, req: falcon.Request, resp: falcon.Response, command_id: int) -> None:
        resp.media = self._commands.get(command_id)


class CancelResource:
    roles = INTERFACE

    def __init__(self, commands: CommandService):
        self._commands = commands

    def on_post(self, req: falcon.Request, resp: falcon.Response, command_id: int) -> None:
        resp.media = self._commands.cancel(command_id)


class SyncRunsResource:
    roles = INTERFACE

    def __init__(self, runs: SyncRunService):
        self._runs = runs

    @query(schemas.SYNC_RUN_LIST)
    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        resp.media = self._runs.list(**req.context.query)


class AgentsResource:
    roles = INTERFACE

    def __init__(self, agents: AgentService):
        self._agents = agents

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        resp.media = self._agents.list()
