"""Sync runs: one per delivery of a ``refresh``, and the full-run neighbour marking."""

from __future__ import annotations

import logging

from hub.db import database
from hub.models import Issue, SyncRun
from hub.services.pagination import page
from hub.vocabulary import DONE, RUNNING

log = logging.getLogger(__name__)


def serialize_run(run: SyncRun) -> dict:
    return {
        "id": run.id,
        "command_id": run.command_id,
        "query": run.query,
        "status": run.status,
        "started_at": run.started_at,
        "finished_at": run.finished_at,
        "issues_loaded": run.issues_loaded,
        "history_at": run.history_at,
        "error": run.error,
    }


def open_run(command_id: int, query: str, started_at: str) -> SyncRun:
    return SyncRun.create(command=command_id, query=query, status=RUNNING,
                          started_at=started_at, issues_loaded=0)


def running_run(command_id: int) -> SyncRun | None:
    return (SyncRun.select()
            .where(SyncRun.command == command_id, SyncRun.status == RUNNING)
            .order_by(SyncRun.id.desc())
            .first())


def close_open_run(command_id: int, status: str, finished_at: str, *,
                   error: str | None = None, history_at: str | None = None) -> SyncRun | None:
    """Finish the running run of a command, if it has one."""
    run = running_run(command_id)
    if run is not None:
        run.status, run.finished_at, run.error, run.history_at = status, finished_at, error, history_at
        run.save()
    return run


class SyncRunService:
    def list(self, status: str | None = None, cursor: int | None = None, limit: int = 50) -> dict:
        query = SyncRun.select()
        if status is not None:
            query = query.where(SyncRun.status == status)
        return page(query, SyncRun.id, cursor, limit, serialize_run)

    def mark_neighbours(self, run_id: int) -> int:
        """After a full run: issues it did not update become neighbours.

        Idempotent, and safe to run late or twice: it acts only on a finished run
        that loaded at least one issue, and marks only issues last fetched
        before that run started. It settles the run's debt (``neighbors_due``).
        Returns how many issues changed.
        """
        with database.atomic():
            run = SyncRun.get_or_none(SyncRun.id == run_id)
            if run is None:
                return 0
            changed = 0
            if run.status == DONE and run.issues_loaded >= 1:
                changed = (Issue.update(neighbor=1)
                           .where(Issue.fetched_at < run.started_at, Issue.neighbor == 0)
                           .execute())
            if run.neighbors_due:
                SyncRun.update(neighbors_due=0).where(SyncRun.id == run_id).execute()
        if changed:
            log.info("sync run %d: %d issues outside the full run marked as neighbours",
                     run_id, changed)
        return changed

    def mark_due(self) -> int:
        """Do every neighbour marking still owed (its task was lost or has not run);
        returns how many runs were settled."""
        due = [run.id for run in SyncRun.select(SyncRun.id)
               .where(SyncRun.neighbors_due == 1).order_by(SyncRun.id)]
        for run_id in due:
            self.mark_neighbours(run_id)
        if due:
            log.info("neighbour marking owed by %d full runs: done", len(due))
        return len(due)
