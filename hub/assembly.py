"""The one place that builds a running hub from its settings.

In order, as Falcon's ``look`` example does it: the settings (``Config``); the
database, the worker's queue (the Huey instance pointed at ``queue.sqlite``) and
the file store (:func:`open_store`: ``files/`` or an S3 bucket); then the
services on them, wired once (:func:`build_services`), into a :class:`Built`.
What runs on that is built by its own edge: :func:`hub.api.app.create_app`
makes the API of a ``Built``, and the worker's tasks (:mod:`worker.tasks`) call
the services the builder leaves on the queue.

The data dir is prepared first (:func:`hub.startup.prepare`), by the caller, so
it can report the migration. ``hub serve``, ``hub worker``,
:func:`hub.api.app.get_app` and ``worker.main`` all build here (the worker
through :func:`worker.tasks.build_worker`); nothing reads the environment or
creates a file at import. The edges import this module, never the reverse: it
sits between them and the services (see docs/architecture.md).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta

from peewee import Database

from hub import datadir
from hub.clock import Clock
from hub.config import Config
from hub.db import open_hub_database
from hub.metrics import Metrics
from hub.services.access.sessions import SessionService
from hub.services.access.tokens import TokenService
from hub.services.commands.agents import AgentService
from hub.services.commands.batches import BatchService
from hub.services.commands.dispatch import Dispatcher
from hub.services.commands.queue import CommandService
from hub.services.commands.reports import ReportService
from hub.services.commands.schedule import RefreshSchedule
from hub.services.commands.sync_runs import SyncRunService
from hub.services.commands.work_signal import WorkSignal
from hub.services.commands.work_signal_postgres import PostgresWorkSignal
from hub.services.commands.work_signal_sqlite import SqliteWorkSignal
from hub.services.files.attachments import AttachmentService
from hub.services.files.cleanup import CleanupService
from hub.services.files.store import FileStore
from hub.services.files.store_local import LocalFileStore
from hub.services.issues.boards import BoardService
from hub.services.issues.reading import IssueService
from hub.services.issues.saved_filters import FilterService
from hub.services.issues.sprints import SprintService
from hub.services.markup.rendering import RenderService
from hub.services.mirror.catalogues import CatalogueService
from hub.services.mirror.jira_site import JiraSite
from hub.services.mirror.loading import MirrorService
from hub.services.mirror.projects import ProjectService
from hub.services.mirror.screens import ScreenService
from hub.services.operations.backup import Backups
from hub.services.operations.health import HealthService, WriteProbe
from hub.services.operations.health_postgres import PostgresWriteProbe
from hub.services.operations.health_sqlite import SqliteWriteProbe
from hub.services.operations.metrics_collector import HubCollector
from hub.services.operations.overview import OverviewService
from hub.services.operations.periods import PeriodService
from hub.services.search.facets import FacetService
from hub.services.search.fulltext import FullText
from hub.services.search.fulltext_backlog import SearchBacklog
from hub.services.search.fulltext_backlog_postgres import PostgresSearchBacklog
from hub.services.search.fulltext_backlog_sqlite import SqliteSearchBacklog
from hub.services.search.fulltext_postgres import PostgresFullText
from hub.services.search.fulltext_sqlite import SqliteFullText
from hub.services.search.jql.zone import JqlZone
from hub.services.writes.service import WriteService
from worker.instance import HubHuey, huey


@dataclass(frozen=True)
class Services:
    """Everything the resources and the tasks call, built once per hub."""

    tokens: TokenService
    sessions: SessionService
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
    cleanup: CleanupService
    refresh_schedule: RefreshSchedule
    metrics: Metrics
    store: FileStore
    catalogues: CatalogueService
    sprints: SprintService
    filters: FilterService
    jql_zone: JqlZone
    render: RenderService
    facets: FacetService
    signal: WorkSignal
    writes: WriteService
    periods: PeriodService
    backlog: SearchBacklog
    screens: ScreenService
    jira_site: JiraSite
    boards: BoardService

    def close(self) -> None:
        """Let go of the threads and connections the services hold: the work signal's
        listener, the search backlog's thread and the file store's client."""
        self.signal.close()
        self.backlog.close()
        self.store.close()


@dataclass(frozen=True)
class Built:
    """A hub built from its settings: what :func:`hub.api.app.create_app` and the
    worker's tasks run on."""

    config: Config
    services: Services
    queue: HubHuey
    database: Database

    def close(self) -> None:
        """Let go of what the build opened that holds a thread or a connection, once the
        hub is done with (a test's hub, at the test's end): the work signal's listener
        (PostgreSQL's ``LISTEN``), the queue's connection, the file store's client and the
        calling thread's connection to the database (left open when that thread is inside
        a transaction, which is its own to end). The data dir, the database and the store
        keep what they hold; anything used again after this connects anew."""
        self.services.close()
        self.queue.storage.close()
        if not self.database.is_closed() and not self.database.in_transaction():
            self.database.close()


def configure_queue(config: Config) -> HubHuey:
    """The Huey instance on ``config``'s queue: its file, created private if missing,
    or the PostgreSQL or Redis queue ``HUB_QUEUE_URL`` names."""
    if config.queue_url is None:
        datadir.create_private_file(config.queue_path)
    return huey.configure(config)


def open_store(config: Config) -> FileStore:
    """The attachment file store ``config`` names: ``files/`` in the data dir, or the
    S3 bucket of ``HUB_STORE_URL`` (read through this node's cache in the data dir)."""
    if config.store_url:
        from hub.services.files.store_s3 import S3FileStore

        return S3FileStore.from_url(config.store_url, config.data_dir / "cache" / "files",
                                    config.store_cache_bytes)
    return LocalFileStore(config.files_dir)


def build_fulltext(config: Config) -> FullText:
    """The full-text search of ``config``'s engine: FTS5 on SQLite, tsvectors on PostgreSQL."""
    return PostgresFullText() if config.backend == "postgresql" else SqliteFullText()


def build_backlog(config: Config) -> SearchBacklog:
    """What indexes the issues pages marked, after they commit: PostgreSQL's search
    index only (on SQLite a page indexes its own)."""
    if config.database_url:
        return PostgresSearchBacklog(config.database_url)
    return SqliteSearchBacklog()


def build_signal(config: Config) -> WorkSignal:
    """The work signal of ``config``'s engine: in this process on SQLite; on
    PostgreSQL, carried to every node of the database by LISTEN/NOTIFY."""
    if config.database_url:
        return PostgresWorkSignal(config.database_url)
    return SqliteWorkSignal()


def build_probe(config: Config) -> WriteProbe:
    """The /healthz write probe of ``config``'s engine: a committed write to hub.sqlite,
    or to the PostgreSQL database, through a connection of its own."""
    if config.database_url:
        return PostgresWriteProbe(config.database_url)
    return SqliteWriteProbe(config.db_path)


def build_services(config: Config, on_full_run_done: Callable[[int], None],
                   clock: Clock | None = None, store: FileStore | None = None) -> Services:
    """The services on ``config``'s database and file store (``store``, else the one
    :func:`open_store` opens), each built once and handed to those that call it; one
    ``Metrics`` and one clock for them all."""
    clock = clock or Clock()
    metrics = Metrics()
    # One signal per hub: a command queued here (by the API or a task) wakes the
    # claims long-polling in this process, and on PostgreSQL those of every other node.
    signal = build_signal(config)
    projects = ProjectService(clock)
    agents = AgentService.from_config(config, clock)
    dispatcher = Dispatcher(config.lease_seconds, config.max_deliveries, signal, clock, metrics=metrics,
                            agents=agents)
    store = store or open_store(config)
    attachments = AttachmentService(store, signal, clock)
    commands = CommandService(projects, attachments, signal, clock,
                              queued_per_token=config.queued_commands_per_token)
    jql_zone = JqlZone(config.jql_time_zone)
    overview = OverviewService(projects, agents, store, clock, zone=jql_zone)
    backlog = build_backlog(config)
    metrics.watch(HubCollector(overview, agents, clock, backlog))
    catalogues = CatalogueService()
    screens = ScreenService()
    sprints = SprintService()
    fulltext = build_fulltext(config)
    issues = IssueService(clock, catalogues, sprints, jql_timeout_seconds=config.jql_timeout_seconds,
                          jql_zone=jql_zone, fulltext=fulltext)
    tokens = TokenService(clock)
    return Services(
        tokens=tokens,
        sessions=SessionService(tokens, timedelta(hours=config.session_hours), clock,
                                per_token=config.sessions_per_token),
        commands=commands,
        dispatcher=dispatcher,
        reports=ReportService(dispatcher, MirrorService(), projects, store, on_full_run_done, clock,
                              metrics=metrics, catalogues=catalogues, backlog=backlog, screens=screens),
        runs=SyncRunService(clock, signal, projects=projects),
        agents=agents,
        attachments=attachments,
        issues=issues,
        projects=projects,
        batches=BatchService(clock),
        health=HealthService(config, clock, build_probe(config)),
        overview=overview,
        cleanup=CleanupService(store, config.files_quota_bytes, config.files_max_age_days, clock),
        refresh_schedule=RefreshSchedule(commands, config.refresh_overlap_minutes),
        metrics=metrics,
        store=store,
        catalogues=catalogues,
        sprints=sprints,
        filters=FilterService(issues, clock, per_token=config.saved_filters_per_token),
        jql_zone=jql_zone,
        render=RenderService(attachments, catalogues),
        facets=FacetService(clock, catalogues, jql_timeout_seconds=config.jql_timeout_seconds, jql_zone=jql_zone,
                            matching=fulltext.matching),
        signal=signal,
        writes=WriteService(commands, clock),
        periods=PeriodService(clock),
        backlog=backlog,
        screens=screens,
        jira_site=JiraSite(config.jira_url),
        boards=BoardService(clock, catalogues),
    )


def build(config: Config, on_full_run_done: Callable[[int], None],
          clock: Clock | None = None, store: FileStore | None = None) -> Built:
    """The hub on a prepared data dir: database open, queue configured, services wired.

    ``on_full_run_done(run_id)`` is called after a full run finishes: the edge
    that builds passes the worker's task that enqueues the neighbour marking
    (``worker.tasks.mark_neighbours``; tests may pass anything). ``clock`` sets
    the time for every service, the tasks' included. The queue keeps what is
    built, so that its tasks call these same services.
    """
    queue = configure_queue(config)
    database = open_hub_database(config)
    services = build_services(config, on_full_run_done, clock, store)
    built = Built(config, services, queue, database)
    queue.services = services
    return built


def backups(config: Config, clock: Clock | None = None) -> Backups:
    """``hub backup`` / ``hub restore`` for ``config``'s engine: the data dir's ``hub.sqlite``
    (SQLite's online backup), or the database at ``HUB_DATABASE_URL`` (``pg_dump``) with
    the hub's file store (:func:`open_store`); ``clock`` dates the manifest."""
    clock = clock or Clock()
    if not config.database_url:
        from hub.services.operations.backup_sqlite import SqliteBackups

        # files/ is read in place; an object store's (HUB_STORE_URL) files are listed, not copied.
        return SqliteBackups(config.data_dir, clock, open_store(config), config.store_url)
    from hub.services.operations.backup_postgres import PostgresBackups

    return PostgresBackups(config.database_url, open_store(config), config.data_dir, clock=clock,
                           store_url=config.store_url, bindir=config.pg_bindir)
