"""The Falcon application: ``create_app(config)`` builds it, ``get_app()`` serves it.

``get_app`` takes no arguments so that any WSGI server can load it, e.g.
``waitress-serve --call hub.api.app:get_app``; ``hub serve`` builds the app the
same way, through :mod:`hub.assembly`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import falcon

from hub import startup
from hub.api import admin, agent, attachments, errors, interface, issues
from hub.api.auth import AuthMiddleware
from hub.api.health import HealthResource
from hub.api.longpoll import LongPolls
from hub.api.metrics import MetricsResource
from hub.api.openapi import OpenAPIResource
from hub.api.paths import PathGuard
from hub.api.requests import RequestLog
from hub.api.validation import IdConverter, JsonBodyLimit
from hub.api.whoami import WhoamiResource
from hub.clock import Clock
from hub.config import Config
from hub.db import open_database
from hub.metrics import Metrics
from hub.services.agents import AgentService
from hub.services.attachments import AttachmentService
from hub.services.batches import BatchService
from hub.services.collector import HubCollector
from hub.services.commands import CommandService
from hub.services.dispatch import Dispatcher
from hub.services.files import FileStore
from hub.services.health import HealthService
from hub.services.issues import IssueService
from hub.services.mirror import MirrorService
from hub.services.overview import OverviewService
from hub.services.projects import ProjectService
from hub.services.reports import ReportService
from hub.services.sync_runs import SyncRunService
from hub.services.tokens import TokenService
from hub.services.work_signal import WorkSignal
from hub.web import resources as web


@dataclass(frozen=True)
class Services:
    """Everything the resources call, built once per app."""

    tokens: TokenService
    commands: CommandService
    dispatcher: Dispatcher
    reports: ReportService
    runs: SyncRunService
    agents: AgentService
    attachments: AttachmentService
    issues: IssueService
    projects: ProjectService
    batches: BatchService
    health: HealthService
    overview: OverviewService
    metrics: Metrics


def build_services(config: Config, on_full_run_done: Callable[[int], None],
                   clock: Clock | None = None) -> Services:
    clock = clock or Clock()
    metrics = Metrics()
    signal = WorkSignal()
    projects = ProjectService(clock)
    agents = AgentService.from_config(config, clock)
    dispatcher = Dispatcher(config.lease_seconds, config.max_deliveries, signal, clock, metrics=metrics,
                            agents=agents)
    store = FileStore(config.files_dir)
    attachments = AttachmentService(store, signal, clock)
    overview = OverviewService(projects, agents, config.files_dir, clock)
    metrics.watch(HubCollector(overview, agents, clock))
    return Services(
        tokens=TokenService(clock),
        commands=CommandService(projects, attachments, signal, clock),
        dispatcher=dispatcher,
        reports=ReportService(dispatcher, MirrorService(), projects, store, on_full_run_done, clock,
                              metrics=metrics),
        runs=SyncRunService(),
        agents=agents,
        attachments=attachments,
        issues=IssueService(clock),
        projects=projects,
        batches=BatchService(clock),
        health=HealthService(config, clock),
        overview=overview,
        metrics=metrics,
    )


def routes(services: Services, config: Config,
           polls: LongPolls | None = None) -> list[tuple[str, object]]:
    """The route table: every path the hub answers, with its resource.

    ``polls`` is the long-poll gate the waiting routes share; by default one of
    ``HUB_LONG_POLL_THREADS`` slots. The web interface's routes come last;
    ``/openapi.json`` describes the API's routes only, not the page and its files.
    """
    s = services
    polls = polls or LongPolls(config.long_poll_threads)
    openapi = OpenAPIResource()
    table = [
        ("/healthz", HealthResource(s.health)),
        ("/openapi.json", openapi),
        ("/metrics", MetricsResource(s.metrics)),
        ("/api/v1/whoami", WhoamiResource()),
        # agents
        ("/agent/v1/heartbeat", agent.HeartbeatResource(s.dispatcher)),
        ("/agent/v1/claim", agent.ClaimResource(s.dispatcher, polls)),
        ("/agent/v1/commands/{command_id:id}/state", agent.StateResource(s.reports)),
        ("/agent/v1/commands/{command_id:id}/done", agent.DoneResource(s.reports)),
        ("/agent/v1/commands/{command_id:id}/failed", agent.FailedResource(s.reports)),
        ("/agent/v1/commands/{command_id:id}/file",
         agent.FileResource(s.reports, config.max_upload_bytes)),
        # interfaces
        ("/api/v1/commands", interface.CommandsResource(s.commands)),
        ("/api/v1/commands/{command_id:id}", interface.CommandResource(s.commands)),
        ("/api/v1/commands/{command_id:id}/cancel", interface.CancelResource(s.commands)),
        ("/api/v1/sync-runs", interface.SyncRunsResource(s.runs)),
        ("/api/v1/agents", interface.AgentsResource(s.agents)),
        ("/api/v1/agents/{agent_id}", admin.AgentResource(s.agents)),
        ("/api/v1/overview", interface.OverviewResource(s.overview)),
        ("/api/v1/issues", issues.IssuesResource(s.issues)),
        ("/api/v1/issues/{key}", issues.IssueResource(s.issues)),
        ("/api/v1/issues/{key}/comments", issues.CommentsResource(s.issues)),
        ("/api/v1/issues/{key}/changes", issues.ChangesResource(s.issues)),
        ("/api/v1/issues/{key}/notes", issues.NotesResource(s.issues)),
        ("/api/v1/notes/{note_id:id}", issues.NoteResource(s.issues)),
        ("/api/v1/projects", admin.ProjectsResource(s.projects)),
        ("/api/v1/projects/{label}", admin.ProjectResource(s.projects)),
        ("/api/v1/scope", admin.ScopeResource(s.projects)),
        ("/api/v1/batches", admin.BatchesResource(s.batches)),
        ("/api/v1/batches/{batch_id:id}", admin.BatchResource(s.batches)),
        ("/api/v1/tokens", admin.TokensResource(s.tokens)),
        ("/api/v1/tokens/{name}", admin.TokenResource(s.tokens)),
        ("/api/v1/issues/{key}/attachments", attachments.IssueAttachmentsResource(s.attachments)),
        ("/api/v1/attachments/states", attachments.AttachmentStatesResource(s.attachments)),
        ("/api/v1/attachments/{attachment_id}", attachments.AttachmentResource(s.attachments, polls)),
        ("/api/v1/attachments/{attachment_id}/fetch", attachments.FetchResource(s.attachments)),
        ("/api/v1/attachments/{attachment_id}/content", attachments.ContentResource(s.attachments)),
    ]
    openapi.describe(table)
    files = web.load_files()
    return [
        *table,
        # the web interface: its page and the files it loads
        ("/", web.IndexResource(files)),
        ("/ui/{name}", web.AssetResource(files)),
    ]


def create_app(config: Config, on_full_run_done: Callable[[int], None],
               clock: Clock | None = None) -> falcon.App:
    """The API over ``config``'s database, which must already be migrated.

    ``on_full_run_done(run_id)`` is called after a full run finishes, to enqueue
    its neighbour marking (:mod:`hub.assembly` passes the worker's task; tests may
    pass anything). ``clock`` lets tests set the time.
    """
    open_database(config.db_path, busy_timeout_seconds=config.busy_timeout_seconds)
    services = build_services(config, on_full_run_done, clock)
    # The request log first: it sees every request, and every answer last.
    # The path guard refuses a raw path before routing, and checks the path's
    # keys and ids after authentication.
    app = falcon.App(middleware=(RequestLog(services.metrics), AuthMiddleware(services.tokens),
                                 PathGuard(), JsonBodyLimit(config.max_json_bytes)))
    app.router_options.converters["id"] = IdConverter
    errors.install(app, services.health)
    # One gate for the whole app: claims and attachment waits share the slots.
    polls = LongPolls(config.long_poll_threads)
    for path, resource in routes(services, config, polls):
        app.add_route(path, resource)
    return app


def get_app() -> falcon.App:
    """The API configured from the environment, after preparing the data dir
    (for any WSGI server: ``waitress-serve --call hub.api.app:get_app``)."""
    from hub.assembly import build_app

    config = Config.from_env()
    startup.prepare(config)
    return build_app(config)
