"""The Falcon application: ``create_app(built)`` makes it, ``get_app()`` serves it.

What it runs on — the database, the queue, the services — is built by
:mod:`hub.assembly`; this module holds the route table and the middleware.

``get_app`` takes no arguments so that any WSGI server can load it, e.g.
``waitress-serve --call hub.api.app:get_app``; ``hub serve`` builds the app the
same way, through :mod:`hub.assembly`.
"""

from __future__ import annotations

from collections.abc import Callable

import falcon

from hub import startup
from hub.api import admin, agent, attachments, boards, commands, errors, filters, issues, render, writes
from hub.api.auth import AuthMiddleware
from hub.api.headers import SafeHeaders
from hub.api.health import HealthResource
from hub.api.longpoll import LongPolls
from hub.api.methods import Methods
from hub.api.metrics import MetricsResource
from hub.api.openapi import OpenAPIResource
from hub.api.paths import PathGuard
from hub.api.requests import RequestLog
from hub.api.session import SessionResource
from hub.api.validation import IdConverter, JsonBodyLimit
from hub.api.whoami import MeResource, WhoamiResource
from hub.assembly import Built, Services, build, build_services
from hub.clock import Clock
from hub.config import Config
from hub.web import resources as web
from worker.tasks import mark_neighbours

# Built by hub.assembly; named here too for the callers that took them from the app's module.
__all__ = ["Built", "Services", "build_app", "build_services", "create_app", "get_app", "routes"]


def routes(services: Services, config: Config, polls: LongPolls) -> list[tuple[str, object]]:
    """The route table: every path the hub answers, with its resource.

    ``polls`` is the long-poll gate the waiting routes share (``create_app`` makes one
    of ``HUB_LONG_POLL_THREADS`` slots). The web interface's routes come last;
    ``/openapi.json`` describes the API's routes only, not the page and its files.
    """
    s = services
    openapi = OpenAPIResource()
    me = MeResource()
    table = [
        ("/healthz", HealthResource(s.health)),
        ("/openapi.json", openapi),
        ("/metrics", MetricsResource(s.metrics)),
        ("/api/v1/whoami", WhoamiResource()),
        ("/api/v1/me", me),
        ("/api/v1/session", SessionResource(s.sessions, config.trusted_proxies)),
        # agents
        ("/agent/v1/heartbeat", agent.HeartbeatResource(s.dispatcher)),
        ("/agent/v1/claim", agent.ClaimResource(s.dispatcher, polls)),
        ("/agent/v1/commands/{command_id:id}/state", agent.StateResource(s.reports)),
        ("/agent/v1/commands/{command_id:id}/done", agent.DoneResource(s.reports)),
        ("/agent/v1/commands/{command_id:id}/failed", agent.FailedResource(s.reports)),
        ("/agent/v1/commands/{command_id:id}/file",
         agent.FileResource(s.reports, config.max_upload_bytes)),
        # interfaces
        ("/api/v1/commands", commands.CommandsResource(s.commands)),
        ("/api/v1/commands/{command_id:id}", commands.CommandResource(s.commands)),
        ("/api/v1/commands/{command_id:id}/cancel", commands.CancelResource(s.commands)),
        ("/api/v1/commands/{command_id:id}/retry", commands.RetryResource(s.commands)),
        ("/api/v1/sync-runs", commands.SyncRunsResource(s.runs)),
        ("/api/v1/agents", commands.AgentsResource(s.agents)),
        ("/api/v1/agents/{agent_id}", admin.AgentResource(s.agents)),
        ("/api/v1/overview", commands.OverviewResource(s.overview, s.jira_site)),
        ("/api/v1/issues", Methods(issues.IssuesResource(s.issues), writes.CreateIssueResource(s.writes))),
        ("/api/v1/issues/facets", issues.FacetsResource(s.facets)),
        ("/api/v1/issues/{key}",
         Methods(issues.IssueResource(s.issues, s.render, s.writes, s.jira_site), writes.EditResource(s.writes))),
        ("/api/v1/issues/{key}/comments",
         Methods(issues.CommentsResource(s.issues, s.render), writes.CommentWritesResource(s.writes))),
        ("/api/v1/issues/{key}/comments/{comment_id}", writes.CommentEditResource(s.writes)),
        ("/api/v1/issues/{key}/transitions",
         Methods(issues.TransitionsResource(s.screens), writes.TransitionWritesResource(s.writes))),
        ("/api/v1/issues/{key}/links", writes.LinkWritesResource(s.writes)),
        ("/api/v1/issues/{key}/links/{link_id}", writes.LinkRemovalResource(s.writes)),
        ("/api/v1/issues/{key}/changes", issues.ChangesResource(s.issues)),
        ("/api/v1/issues/{key}/worklogs",
         Methods(issues.WorklogsResource(s.issues, s.render), writes.WorklogWritesResource(s.writes))),
        ("/api/v1/issues/{key}/notes", issues.NotesResource(s.issues)),
        ("/api/v1/issues/{key}/refresh", commands.IssueRefreshResource(s.commands)),
        ("/api/v1/sprints", issues.SprintsResource(s.sprints)),
        ("/api/v1/boards", boards.BoardsResource(s.boards)),
        ("/api/v1/boards/{board_id:id}", boards.BoardResource(s.boards)),
        ("/api/v1/catalogues", issues.CataloguesResource(s.catalogues)),
        ("/api/v1/create-meta", issues.CreateMetaResource(s.screens)),
        ("/api/v1/users", issues.UsersResource(s.catalogues)),
        ("/api/v1/render", render.RenderResource(s.render)),
        ("/api/v1/notes/{note_id:id}", issues.NoteResource(s.issues)),
        ("/api/v1/filters", filters.FiltersResource(s.filters)),
        ("/api/v1/filters/{filter_id:id}", filters.FilterResource(s.filters)),
        ("/api/v1/filters/{filter_id:id}/issues", filters.FilterIssuesResource(s.filters)),
        ("/api/v1/projects", admin.ProjectsResource(s.projects)),
        ("/api/v1/projects/{label}", admin.ProjectResource(s.projects)),
        ("/api/v1/scope", admin.ScopeResource(s.projects)),
        ("/api/v1/batches", admin.BatchesResource(s.batches)),
        ("/api/v1/batches/{batch_id:id}", admin.BatchResource(s.batches)),
        ("/api/v1/tokens", admin.TokensResource(s.tokens)),
        ("/api/v1/tokens/{name}", admin.TokenResource(s.tokens)),
        ("/api/v1/issues/{key}/attachments",
         Methods(attachments.IssueAttachmentsResource(s.attachments),
                 writes.AttachResource(s.writes, s.store, config.max_upload_bytes))),
        ("/api/v1/writes", writes.WritesResource(s.writes)),
        ("/api/v1/writes/{write_id:id}", writes.WriteResource(s.writes, polls)),
        ("/api/v1/writes/{write_id:id}/cancel", writes.CancelWriteResource(s.writes)),
        ("/api/v1/writes/{write_id:id}/retry", writes.RetryWriteResource(s.writes)),
        ("/api/v1/attachments/states", attachments.AttachmentStatesResource(s.attachments)),
        ("/api/v1/attachments/{attachment_id}", attachments.AttachmentResource(s.attachments, polls)),
        ("/api/v1/attachments/{attachment_id}/fetch", attachments.FetchResource(s.attachments)),
        ("/api/v1/attachments/{attachment_id}/content", attachments.ContentResource(s.attachments)),
    ]
    openapi.describe(table)
    me.describe(table)
    files = web.load_files()
    assets = web.AssetResource(files)
    return [
        *table,
        # the web interface: its page and the files it loads
        ("/", web.IndexResource(files)),
        ("/ui/{name}", assets),
        ("/ui/v/{version}/{name}", assets),
    ]


def create_app(built: Built | Config, on_full_run_done: Callable[[int], None] | None = None,
               clock: Clock | None = None) -> falcon.App:
    """The API on what :func:`hub.assembly.build` built, whose database is migrated.

    Given a ``Config`` instead, it builds first: ``create_app(config,
    on_full_run_done, clock)`` is ``create_app(build(config, on_full_run_done, clock))``
    (``on_full_run_done`` and ``clock`` are read only then; by default a full run
    enqueues the worker's neighbour marking).
    """
    if isinstance(built, Config):
        built = build(built, on_full_run_done or mark_neighbours, clock)
    services, config = built.services, built.config
    # The request log first: it sees every request, and every answer last.
    # The safe headers go on every answer, a refused one's too. The path guard
    # refuses a raw path before routing, and checks the path's keys and ids
    # after authentication.
    auth = AuthMiddleware(services.tokens, services.sessions, config.trusted_proxies)
    app = falcon.App(middleware=(RequestLog(services.metrics), SafeHeaders(), auth, PathGuard(),
                                 JsonBodyLimit(config.max_json_bytes)))
    app.router_options.converters["id"] = IdConverter
    errors.install(app, services.health)
    # One gate for the whole app: claims and attachment waits share the slots.
    polls = LongPolls(config.long_poll_threads)
    for path, resource in routes(services, config, polls):
        app.add_route(path, resource)
    return app


def build_app(config: Config, clock: Clock | None = None) -> falcon.App:
    """The API on a prepared data dir; a full run enqueues the worker's
    neighbour marking on the configured queue."""
    return create_app(build(config, mark_neighbours, clock))


def get_app() -> falcon.App:
    """The API configured from the environment, after preparing the data dir
    (for any WSGI server: ``waitress-serve --call hub.api.app:get_app``)."""
    config = Config.from_env()
    startup.prepare(config)
    return build_app(config)
