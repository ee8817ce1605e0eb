"""Sync runs: one per delivery of a ``refresh``, and the full-run neighbour marking."""

from __future__ import annotations

import json
import logging

from hub.db import database
from hub.models import Issue, SyncRun
from hub.services.pagination import page
from hub.vocabulary import DONE, FAILED, RUNNING

log = logging.getLogger(__name__)


def open_run(command_id: int, query: str, started_at: str) -> SyncRun:
    return SyncRun.create(command=command_id, query=query, status=RUNNING,
                          started_at=started_at, issues_loaded=0)


# The newest running run of a command, found through the index on command_id.
_NEWEST_RUNNING = (f"(SELECT id FROM sync_run WHERE command_id = ? AND status = '{RUNNING}' "
                   "ORDER BY id DESC LIMIT 1)")


def count_page(command_id: int, issues: int) -> tuple[str, int] | None:
    """Add a state page's ``issues`` to the command's running run, in one statement.

    Returns the run's ``(started_at, issues_loaded)``, or None when the command has
    no running run. Call inside the page's transaction, so that a page that fails
    is not counted.
    """
    row = database.execute_sql(
        f"UPDATE sync_run SET issues_loaded = issues_loaded + ? WHERE id = {_NEWEST_RUNNING} "
        "RETURNING started_at, issues_loaded", (issues, command_id)).fetchone()
    return (row[0], row[1]) if row else None


def close_open_run(command_id: int, status: str, finished_at: str, *,
                   error: str | None = None, history_at: str | None = None) -> tuple[int, int] | None:
    """Finish the running run of a command, if it has one, in one statement.

    Returns the run's ``(id, issues_loaded)``, or None when there was none.
    """
    row = database.execute_sql(
        "UPDATE sync_run SET status = ?, finished_at = ?, error = ?, history_at = ? "
        f"WHERE id = {_NEWEST_RUNNING} RETURNING id, issues_loaded",
        (status, finished_at, error, history_at, command_id)).fetchone()
    return (row[0], row[1]) if row else None


def open_runs(runs: list[tuple[int, str, str]]) -> None:
    """Open a running run for each ``(command_id, query, started_at)``, in one statement."""
    # One INSERT over a JSON array rather than executemany: it goes through the
    # database's own execute, whose errors the API knows how to answer.
    database.execute_sql(
        "INSERT INTO sync_run (command_id, query, status, started_at, issues_loaded) "
        f"SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]'), '{RUNNING}', "
        "json_extract(value, '$[2]'), 0 FROM json_each(?) "
        "ORDER BY key", (json.dumps(runs, ensure_ascii=False),))


def fail_runs_of_expired(command_ids: list[int], finished_at: str) -> None:
    """Close the running runs of commands whose lease ran out, in one statement.

    Call before the re-queued commands lose their ``agent_id``: the error
    names the agent whose lease it was.
    """
    database.execute_sql(
        f"UPDATE sync_run SET status = '{FAILED}', finished_at = ?, history_at = NULL, "
        "error = 'lease of agent ' || coalesce((SELECT agent_id FROM command "
        "WHERE command.id = sync_run.command_id), 'None') || ' expired' "
        f"WHERE status = '{RUNNING}' AND command_id IN (SELECT value FROM json_each(?))",
        (finished_at, json.dumps(command_ids)))


class SyncRunService:
    def list(self, status: str | None = None, cursor: int | None = None, limit: int = 50) -> dict:
        query = SyncRun.select()
        if status is not None:
            query = query.where(SyncRun.status == status)
        return page(query, SyncRun.id, cursor, limit, _row)

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


def _row(run: SyncRun) -> SyncRun:
    return run
