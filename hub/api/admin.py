"""``/api/v1`` resources for batches, and the admin-only ones: projects, scope, tokens,
removing an agent."""

from __future__ import annotations

from typing import ClassVar
from urllib.parse import quote

import falcon

from hub import shapes
from hub.api import schemas
from hub.api.auth import ADMIN, INTERFACE
from hub.api.openapi import responds
from hub.api.validation import accepts, query
from hub.services.access.tokens import TokenService
from hub.services.commands.agents import AgentService
from hub.services.commands.batches import BatchService
from hub.services.mirror.projects import ProjectService
from hub.services.pagination import listing
from hub.vocabulary import ADMIN as ADMIN_ROLE


class BatchesResource:
    roles = INTERFACE

    def __init__(self, batches: BatchService):
        self._batches = batches

    @query(schemas.BATCH_LIST)
    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        """Batches, newest first, with their commands counted by status."""
        resp.media = shapes.page_of(shapes.batch, self._batches.list(**req.context.query))

    @responds(201, location="/api/v1/batches/{id}")
    @accepts(schemas.NEW_BATCH)
    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        """Open a batch; enqueue commands into it with ``batch_id``."""
        body = req.context.body
        resp.media = shapes.batch(self._batches.create(body["title"], req.context.principal.name,
                                                      body.get("project")))
        resp.status = falcon.HTTP_201
        resp.location = f"/api/v1/batches/{resp.media['id']}"


class BatchResource:
    roles = INTERFACE

    def __init__(self, batches: BatchService):
        self._batches = batches

    def on_get(self, req: falcon.Request, resp: falcon.Response, batch_id: int) -> None:
        """One batch, with its commands counted by status."""
        resp.media = shapes.batch(self._batches.get(batch_id))


class ProjectsResource:
    roles: ClassVar[dict[str, frozenset[str]]] = {"GET": INTERFACE, "POST": ADMIN}

    def __init__(self, projects: ProjectService):
        self._projects = projects

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        """Projects, the scope, and the base JQL they make (null without projects)."""
        resp.media = listing(map(shapes.project, self._projects.list()), scope=self._projects.scope(),
                             base_jql=self._projects.base_jql())

    @responds(201, errors=(409,), location="/api/v1/projects/{label}")
    @accepts(schemas.NEW_PROJECT)
    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        """Add a project (admin)."""
        body = req.context.body
        project = self._projects.add(body["label"], body["name"], body.get("board_id"),
                                     body.get("board_type"))
        resp.media = shapes.project(project)
        resp.status = falcon.HTTP_201
        resp.location = f"/api/v1/projects/{quote(project.label, safe='')}"


class ProjectResource:
    roles = ADMIN

    def __init__(self, projects: ProjectService):
        self._projects = projects

    @responds(204, errors=(409,))
    def on_delete(self, req: falcon.Request, resp: falcon.Response, label: str) -> None:
        """Remove a project that no batch names (admin)."""
        self._projects.remove(label)
        resp.status = falcon.HTTP_204


class ScopeResource:
    roles: ClassVar[dict[str, frozenset[str]]] = {"GET": INTERFACE, "PUT": ADMIN}

    def __init__(self, projects: ProjectService):
        self._projects = projects

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        """The scope and the base JQL."""
        resp.media = {"jql": self._projects.scope(), "base_jql": self._projects.base_jql()}

    @accepts(schemas.SCOPE)
    def on_put(self, req: falcon.Request, resp: falcon.Response) -> None:
        """Set the part of the base JQL before its labels clause (admin)."""
        self._projects.set_scope(req.context.body["jql"])
        resp.media = {"jql": self._projects.scope(), "base_jql": self._projects.base_jql()}


class TokensResource:
    roles = ADMIN

    def __init__(self, tokens: TokenService):
        self._tokens = tokens

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        """Tokens: name, role, created; never the tokens themselves."""
        resp.media = listing(map(shapes.token, self._tokens.list()))

    @responds(201, errors=(409,), location="/api/v1/tokens/{name}")
    @accepts(schemas.NEW_TOKEN)
    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        """Make a token; the answer is the only time it is shown."""
        body = req.context.body
        token = self._tokens.add(body["name"], body["role"], write=body.get("write", False))
        resp.media = {"name": body["name"], "role": body["role"],
                      "write": body["role"] == ADMIN_ROLE or body.get("write", False), "token": token}
        resp.status = falcon.HTTP_201
        resp.location = f"/api/v1/tokens/{body['name']}"


class TokenResource:
    roles = ADMIN

    def __init__(self, tokens: TokenService):
        self._tokens = tokens

    @responds(204)
    def on_delete(self, req: falcon.Request, resp: falcon.Response, name: str) -> None:
        """Revoke a token: its holder gets 401 from now on."""
        self._tokens.revoke(name)
        resp.status = falcon.HTTP_204


class AgentResource:
    roles = ADMIN

    def __init__(self, agents: AgentService):
        self._agents = agents

    @responds(204)
    def on_delete(self, req: falcon.Request, resp: falcon.Response, agent_id: str) -> None:
        """Remove an agent (admin), freeing its id for its token.

        It no longer counts against its token's HUB_AGENTS_PER_TOKEN; heard from
        again, it registers again."""
        self._agents.remove(agent_id)
        resp.status = falcon.HTTP_204
