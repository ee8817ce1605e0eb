"""``/api/v1`` resources for commands, sync runs and agents (token role ``interface`` or ``admin``)."""

from __future__ import annotations

import falcon

from hub import shapes
from hub.api import schemas
from hub.api.auth import INTERFACE
from hub.api.openapi import responds
from hub.api.validation import accepts, query
from hub.services.commands.agents import AgentService
from hub.services.commands.queue import CommandService
from hub.services.commands.sync_runs import SyncRunService
from hub.services.mirror.jira_site import JiraSite
from hub.services.operations.overview import OverviewService


class CommandsResource:
    roles = INTERFACE

    def __init__(self, commands: CommandService):
        self._commands = commands

    @query(schemas.COMMAND_LIST)
    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        """Commands, newest first, filtered by status and type."""
        resp.media = shapes.page_of(shapes.command, self._commands.list(**req.context.query))

    @responds(201, 200, errors=(404, 409, 429), location="/api/v1/commands/{id}")
    @accepts(schemas.NEW_COMMAND)
    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        """Enqueue a command: 201 with it, or 200 with the open command of the same type and
        params (one fetch per attachment) already there; 429 past the token's bound of queued
        commands (HUB_QUEUED_COMMANDS_PER_TOKEN)."""
        body = req.context.body
        command, created = self._commands.enqueue(body["type"], body.get("params"), body.get("batch_id"),
                                                  token_id=req.context.principal.token_id)
        resp.media = shapes.command(command)
        resp.status = falcon.HTTP_201 if created else falcon.HTTP_200
        if created:
            resp.location = f"/api/v1/commands/{command.id}"


_COMMAND_LOCATION = {"Location": {"description": "the command: /api/v1/commands/{id}", "required": True,
                                  "schema": {"type": "string"}}}


class IssueRefreshResource:
    roles = INTERFACE

    def __init__(self, commands: CommandService):
        self._commands = commands

    @responds(202, 200, errors=(429,), headers={202: _COMMAND_LOCATION, 200: _COMMAND_LOCATION},
              answers=schemas.ISSUE_REFRESH)
    def on_post(self, req: falcon.Request, resp: falcon.Response, key: str) -> None:
        """Refresh one issue from Jira: 202 with the queued ``refresh`` of ``key = KEY`` (an other
        query's run, never a full one), or 200 with the one already queued or claimed for it; 404
        for an issue the mirror does not hold, 429 past the token's bound of queued commands."""
        command, created = self._commands.refresh_issue(key, token_id=req.context.principal.token_id)
        resp.media = {"command": shapes.command(command)}
        resp.status = falcon.HTTP_202 if created else falcon.HTTP_200
        resp.location = f"/api/v1/commands/{command.id}"


class CommandResource:
    roles = INTERFACE

    def __init__(self, commands: CommandService):
        self._commands = commands

    def on_get(self, req: falcon.Request, resp: falcon.Response, command_id: int) -> None:
        """One command."""
        resp.media = shapes.command(self._commands.get(command_id))


class CancelResource:
    roles = INTERFACE

    def __init__(self, commands: CommandService):
        self._commands = commands

    @responds(errors=(409,))
    def on_post(self, req: falcon.Request, resp: falcon.Response, command_id: int) -> None:
        """Cancel a queued or claimed command."""
        resp.media = shapes.command(self._commands.cancel(command_id))


class RetryResource:
    roles = INTERFACE

    def __init__(self, commands: CommandService):
        self._commands = commands

    @responds(201, 200, errors=(409, 429), location="/api/v1/commands/{id}")
    def on_post(self, req: falcon.Request, resp: falcon.Response, command_id: int) -> None:
        """Enqueue a failed or cancelled command again (same type, params and batch): 201 with
        the new command, or 200 with the open one of the same type and params; 409 for an open
        or done one; 429 past the token's bound of queued commands."""
        command, created = self._commands.retry(command_id, token_id=req.context.principal.token_id)
        resp.media = shapes.command(command)
        resp.status = falcon.HTTP_201 if created else falcon.HTTP_200
        if created:
            resp.location = f"/api/v1/commands/{command.id}"


class SyncRunsResource:
    roles = INTERFACE

    def __init__(self, runs: SyncRunService):
        self._runs = runs

    @query(schemas.SYNC_RUN_LIST)
    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        """Sync runs, newest first, each with its kind (full, incremental or jql)."""
        resp.media = shapes.page_of(shapes.listed_run, self._runs.list(**req.context.query))


class AgentsResource:
    roles = INTERFACE

    def __init__(self, agents: AgentService):
        self._agents = agents

    @query(schemas.AGENT_LIST)
    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        """Agents heard from lately, newest registered first, with whether each is online.

        Agents unseen for HUB_AGENT_FORGET_HOURS are forgotten; ``online=true|false``
        keeps those that are (not) online."""
        q = dict(req.context.query)
        online = {"true": True, "false": False}.get(q.pop("online", None))
        resp.media = shapes.page_of(shapes.agent, self._agents.list(online=online, **q))


class OverviewResource:
    roles = INTERFACE

    def __init__(self, overview: OverviewService, site: JiraSite):
        self._overview = overview
        self._site = site

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        """The hub at a glance: queue depth by type and status, agents, the last full and
        incremental runs, the file store; Jira's base URL in use (``jira_base_url``, null while unknown)."""
        resp.media = {**shapes.overview(self._overview.overview()), "jira_base_url": self._site.base_url()}
