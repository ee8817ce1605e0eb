"""What agents report about the commands they hold: state pages, done, failed."""

from __future__ import annotations

import logging
from typing import Callable

from hub.clock import Clock, iso
from hub.db import database
from hub.errors import Conflict, ContractError
from hub.models import Command, SyncRun
from hub.services.commands import serialize_command
from hub.services.dispatch import Dispatcher
from hub.services.mirror import MirrorService, RunContext
from hub.services.projects import ProjectService
from hub.services.sync_runs import close_open_run, open_run, running_run

log = logging.getLogger(__name__)


class ReportService:
    def __init__(self, dispatcher: Dispatcher, mirror: MirrorService, projects: ProjectService,
                 on_full_run_done: Callable[[int], None], clock: Clock | None = None):
        self._dispatcher = dispatcher
        self._mirror = mirror
        self._projects = projects
        self._on_full_run_done = on_full_run_done
        self._clock = clock or Clock()

    def state(self, command_id: int, report: dict) -> dict:
        """Apply one page of issue states, all or nothing."""
        issues, neighbors = report.get("issues") or [], report.get("neighbors") or []
        with database.atomic():
            command = self._held(command_id, report)
            if command.type != "refresh":
                raise Conflict(f"command {command_id} is a {command.type}; state pages belong "
                               "to refresh commands")
            run = self._run(command)
            context = RunContext(full=self._is_full(command), started_at=run.started_at,
                                 now=iso(self._clock.now()))
            self._mirror.load_page(issues, neighbors, context)
            run.issues_loaded += len(issues)
            run.save()
        return {"issues_loaded": run.issues_loaded, "lease_until": command.lease_until}

    def done(self, command_id: int, report: dict) -> dict:
        result = report.get("result")
        full_run = None
        with database.atomic():
            command = Command.get_or_none(Command.id == command_id)
            if command is not None and command.status == "done":
                return self._repeated_done(command, report)
            command = self._held(command_id, report)
            now = iso(self._clock.now())
            if command.type == "refresh":
                result = self._refresh_result(result)
                run = self._run(command)
                run.status, run.finished_at = "done", now
                run.history_at = result.get("history_at")
                run.save()
                if self._is_full(command) and run.issues_loaded >= 1:
                    full_run = run.id
            else:
                raise Conflict(f"command {command_id} is a {command.type}; this hub does not "
                               "accept its results yet")
            command.status, command.finished_at = "done", now
            command.result, command.lease_until = result, None
            command.save()
        if full_run is not None:
            # After COMMIT: the task must see the finished run.
            self._on_full_run_done(full_run)
        return serialize_command(command)

    def failed(self, command_id: int, report: dict) -> dict:
        with database.atomic():
            command = self._held(command_id, report)
            now = iso(self._clock.now())
            command.status, command.finished_at = "failed", now
            command.error, command.lease_until = report["error"], None
            command.save()
            close_open_run(command.id, "failed", now, error=report["error"])
        return serialize_command(command)

    def _held(self, command_id: int, report: dict) -> Command:
        return self._dispatcher.held(command_id, report.get("agent_id"), report.get("delivery"))

    def _is_full(self, command: Command) -> bool:
        """A refresh of exactly the base JQL as it is now is a full run."""
        jql = (command.params or {}).get("jql")
        return jql is not None and jql == self._projects.base_jql()

    def _run(self, command: Command) -> SyncRun:
        # A command claimed by a hub that did not open runs at claim has none;
        # it gets one from its claim time.
        run = running_run(command.id)
        if run is None:
            run = open_run(command.id, (command.params or {}).get("jql", ""),
                           command.claimed_at or iso(self._clock.now()))
        return run

    @staticmethod
    def _refresh_result(result) -> dict:
        if not isinstance(result, dict):
            raise ContractError("a refresh's result is {total, history_at?}", "result")
        total = result.get("total")
        if not isinstance(total, int) or isinstance(total, bool) or total < 0:
            raise ContractError("result.total must be a whole number of issues", "result.total")
        history_at = result.get("history_at")
        if history_at is not None and not isinstance(history_at, str):
            raise ContractError("result.history_at must be a time string or null", "result.history_at")
        return result

    @staticmethod
    def _repeated_done(command: Command, report: dict) -> dict:
        agent_id = report.get("agent_id")
        if agent_id is not None and agent_id != command.agent_id:
            raise Conflict(f"command {command.id} was done by another agent")
        if report.get("result") != command.result:
            raise Conflict(f"command {command.id} is done already, with another result")
        return serialize_command(command)
