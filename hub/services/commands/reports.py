"""What agents report about the commands they hold: state pages, done, failed and files.

What a report does for each type of command, its kind says
(:mod:`hub.services.commands.kinds`): whether it takes state pages and how they load,
whether it takes a file, and what its ``done`` must hold and does."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import BinaryIO

from hub.clock import Clock, iso
from hub.db import database
from hub.errors import Conflict, NotFound
from hub.metrics import Metrics
from hub.models import Command
from hub.services.commands.dispatch import Dispatcher
from hub.services.commands.kinds import KINDS, Reporting, kind, taking_files, taking_pages
from hub.services.commands.runs import close_open_run
from hub.services.files.store import FileStore
from hub.services.mirror.catalogues import CatalogueService
from hub.services.mirror.loading import MirrorService
from hub.services.mirror.projects import ProjectService
from hub.services.mirror.screens import ScreenService
from hub.services.search.fulltext_backlog import SearchBacklog
from hub.vocabulary import DONE, FAILED

log = logging.getLogger(__name__)


class ReportService:
    def __init__(self, dispatcher: Dispatcher, mirror: MirrorService, projects: ProjectService,
                 store: FileStore, on_full_run_done: Callable[[int], None],
                 clock: Clock, *, metrics: Metrics, catalogues: CatalogueService,
                 backlog: SearchBacklog, screens: ScreenService | None = None):
        self._store = store
        self._screens = screens or ScreenService()
        self._backlog = backlog
        self._catalogues = catalogues
        self._metrics = metrics
        self._dispatcher = dispatcher
        self._mirror = mirror
        self._projects = projects
        self._on_full_run_done = on_full_run_done
        self._clock = clock

    def state(self, command_id: int, report: dict, *, token_id: int | None) -> dict:
        """Apply one page of issue states, all or nothing. A ``check_issues`` reports what
        Jira returned as ``neighbors`` only: they are mirrored as a refresh's neighbours are,
        and no run counts them."""
        issues, neighbors = report.get("issues") or [], report.get("neighbors") or []
        with database.atomic():
            command = self._held(command_id, report, token_id)
            context, issues_loaded = taking_pages(command).page(self._reporting(), command, issues)
            self._mirror.load_page(issues, neighbors, context)
            self._catalogues.load(report.get("catalogues"), context.now)
            self._screens.load(report.get("create_meta"), context.now)
        self._backlog.wake()  # committed: PostgreSQL's index catches up with the page
        self._metrics.state_pages.inc()
        self._metrics.issues_loaded.inc(len(issues))
        return {"issues_loaded": issues_loaded, "lease_until": command.lease_until}

    def done(self, command_id: int, report: dict, *, token_id: int | None) -> Command:
        """Finish a held command. A full run that loaded issues owes the neighbour
        marking: the debt is recorded with the run, in the same transaction, and
        paid by the task enqueued after COMMIT or, should that enqueue fail or be
        lost, by the periodic task that pays every debt left."""
        result = report.get("result")
        agent_id, delivery = report.get("agent_id"), report.get("delivery")
        full_run = None
        now = iso(self._clock.now())
        with database.atomic():
            # The holder check and the finish are one statement; a result that
            # turns out wrong for the command's type raises and undoes it.
            command = self._dispatcher.finish(
                command_id, token_id, agent_id, delivery, DONE, now,
                results={name: found.recorded(result) for name, found in KINDS.items()})
            if command is None:
                command = self._dispatcher.find(command_id)
                if command.status == DONE:
                    return self._repeated_done(command, report, token_id)
                raise self._dispatcher.refusal(command, token_id, agent_id, delivery)
            reporting = self._reporting(now)
            kind(command.type).done(reporting, command, result)
            full_run = reporting.marking
        if full_run is not None:
            self._enqueue_marking(full_run)
        return command

    def _enqueue_marking(self, run_id: int) -> None:
        # After COMMIT: the task must see the finished run. The command is done
        # and the debt recorded whatever happens here, so a queue that is busy,
        # missing or broken costs a delay, never the marking or the answer. The
        # queue's errors are whatever its storage raises, hence the broad catch.
        try:
            self._on_full_run_done(run_id)
        except Exception as exc:
            log.warning("sync run %d: could not enqueue the neighbour marking (%s); "
                        "the periodic task will do it", run_id, exc)

    def failed(self, command_id: int, report: dict, *, token_id: int | None) -> Command:
        """Fail a held command, keeping its error on the command and its run."""
        agent_id, delivery = report.get("agent_id"), report.get("delivery")
        now = iso(self._clock.now())
        with database.atomic():
            command = self._dispatcher.finish(command_id, token_id, agent_id, delivery,
                                              FAILED, now, error=report["error"])
            if command is None:
                raise self._dispatcher.refusal(self._dispatcher.find(command_id), token_id,
                                               agent_id, delivery)
            close_open_run(command.id, FAILED, now, error=report["error"])
        return command

    def upload(self, command_id: int, stream, *, length: int | None, max_bytes: int,
               expected_sha256: str | None, agent_id: str | None,
               delivery: int | None, token_id: int | None) -> dict:
        """Store the content of a held ``fetch_attachment``: ``{sha256, size}``.

        The holder is checked (and the lease extended) in a short transaction
        first; the body is then streamed to the store with no transaction open.
        """
        with database.atomic():
            taking_files(self._dispatcher.held(command_id, token_id, agent_id, delivery))
        sha256, size = self._store.receive(stream, length=length, max_bytes=max_bytes,
                                           expected_sha256=expected_sha256)
        self._metrics.uploads.inc()
        self._metrics.upload_bytes.inc(size)
        return {"sha256": sha256, "size": size}

    def file(self, command_id: int, *, agent_id: str | None, delivery: int | None,
             token_id: int | None) -> tuple[dict, BinaryIO]:
        """The upload a held command sends to Jira (a write's ``attach``): its ``{sha256, size,
        filename, mime_type}`` and the stored file, open from its start.

        The holder is checked (and the lease extended) as for any report; NotFound when the
        command names no file, or its file is no longer in the store.
        """
        with database.atomic():
            command = self._dispatcher.held(command_id, token_id, agent_id, delivery)
        file = (command.params or {}).get("file") if isinstance(command.params, dict) else None
        if not isinstance(file, dict) or not file.get("sha256"):
            raise NotFound(f"command {command_id} has no file")
        try:
            return file, self._store.open(file["sha256"])
        except FileNotFoundError:
            raise NotFound(f"the file of command {command_id} is no longer in the hub's store") from None

    def _held(self, command_id: int, report: dict, token_id: int | None) -> Command:
        return self._dispatcher.held(command_id, token_id, report.get("agent_id"),
                                     report.get("delivery"))

    def _reporting(self, now: str | None = None) -> Reporting:
        """What a kind's report hooks use: the projects, the file store and the time."""
        return Reporting(self._projects, self._store, now or iso(self._clock.now()))

    @staticmethod
    def _repeated_done(command: Command, report: dict, token_id: int | None) -> Command:
        """The same ``done`` again, from the holder: 200 and nothing changes."""
        agent_id = report.get("agent_id")
        if command.token_id is not None and command.token_id != token_id:
            raise Conflict(f"command {command.id} was done by another agent")
        if agent_id is not None and agent_id != command.agent_id:
            raise Conflict(f"command {command.id} was done by another agent")
        if not _same_result(command.type, report.get("result"), command.result):
            raise Conflict(f"command {command.id} is done already, with another result")
        return command



def _same_result(command_type: str, sent, recorded) -> bool:
    """Whether two results of a done say the same; a member absent reads as null."""
    if not isinstance(sent, dict) or not isinstance(recorded, dict):
        return sent == recorded
    return all(sent.get(name) == recorded.get(name) for name in kind(command_type).result_members)
