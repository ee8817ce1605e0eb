"""Sync runs: one per delivery of a ``refresh``, and the full-run neighbour marking, which also
asks an agent (v16 and later) to check the issues the run did not load (``check_issues``)."""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

from peewee import JOIN

from hub.clock import Clock, iso
from hub.db import database
from hub.dialect import commands as sql
from hub.models import Command, Issue, SyncRun
from hub.services.commands.work_signal import WorkSignal
from hub.services.pagination import page
from hub.vocabulary import CHECK_ISSUES, CHECK_ISSUES_SINCE, DONE, FAILED, OPEN_STATUSES, QUEUED, RUNNING

if TYPE_CHECKING:  # for the annotation only: the project service is handed in
    from hub.services.mirror.projects import ProjectService

log = logging.getLogger(__name__)

# What a refresh is, by its params and the base JQL: ``full`` (exactly the base JQL),
# ``incremental`` (with ``updated_since``), or ``jql`` (any other query).
INCREMENTAL, FULL, OTHER_QUERY = "incremental", "full", "jql"


def refresh_kind(params: dict | None, base_jql: str | None) -> str | None:
    """``incremental`` for a refresh with ``updated_since``, ``full`` for one of
    exactly ``base_jql`` without it, None for any other refresh."""
    params = params or {}
    if params.get("updated_since") is not None:
        return INCREMENTAL
    if base_jql is not None and params.get("jql") == base_jql:
        return FULL
    return None


@dataclass(frozen=True)
class ListedRun:
    """A sync run and what kind of refresh it ran (:data:`FULL`, :data:`INCREMENTAL`, :data:`OTHER_QUERY`),
    judged by its command's params and the base JQL as it is now."""

    row: SyncRun
    kind: str

# Keys a check_issues names at most: the agent reads them 100 to a search.
CHECK_KEYS = 500
# The keys that open check_issues commands name already: not asked for twice.
_OPEN = ", ".join(repr(s) for s in OPEN_STATUSES)


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


def open_runs(runs: list[tuple[int, str, str, int]]) -> None:
    """Open a running run for each ``(command_id, query, started_at, agent_version)``, in one statement."""
    # One INSERT over a JSON array rather than executemany: it goes through the
    # database's own execute, whose errors the API knows how to answer.
    database.execute_sql(
        "INSERT INTO sync_run (command_id, query, status, started_at, issues_loaded, agent_version) "
        f"{sql.runs_from_json()}", (json.dumps(runs, ensure_ascii=False),))


def fail_runs_of_expired(command_ids: list[int], finished_at: str) -> None:
    """Close the running runs of commands whose lease ran out, in one statement.

    Call before the re-queued commands lose their ``agent_id``: the error
    names the agent whose lease it was.
    """
    database.execute_sql(
        f"UPDATE sync_run SET status = '{FAILED}', finished_at = ?, history_at = NULL, "
        "error = 'lease of agent ' || coalesce((SELECT agent_id FROM command "
        "WHERE command.id = sync_run.command_id), 'None') || ' expired' "
        f"WHERE status = '{RUNNING}' AND command_id IN {sql.id_list()}",
        (finished_at, json.dumps(command_ids)))


class SyncRunService:
    def __init__(self, clock: Clock | None = None, signal: WorkSignal | None = None, *,
                 projects: ProjectService | None = None):
        self._clock = clock or Clock()
        self._signal = signal
        # Tells full runs from the others by the base JQL; without it, none is full.
        self._projects = projects

    def list(self, status: str | None = None, cursor: int | None = None, limit: int = 50) -> dict:
        """A page of sync runs, newest first, each a :class:`ListedRun` (the run and its kind)."""
        # Outer: a run outlives nothing, but its command_id may be null by the schema.
        query = SyncRun.select(SyncRun, Command.id, Command.params).join(Command, JOIN.LEFT_OUTER)
        if status is not None:
            query = query.where(SyncRun.status == status)
        base_jql = self._projects.base_jql() if self._projects is not None else None

        def listed(run: SyncRun) -> ListedRun:
            params = run.command.params if run.command_id is not None and run.command is not None else None
            return ListedRun(run, refresh_kind(params, base_jql) or OTHER_QUERY)

        return page(query, SyncRun.id, cursor, limit, listed)

    def mark_neighbours(self, run_id: int) -> int:
        """After a full run: issues it did not update become neighbours, and, when the
        agent that ran it speaks v16 or later, ``check_issues`` commands ask Jira whether
        they still exist (see :meth:`_enqueue_checks`).

        Idempotent, and safe to run late or twice: it acts only on a finished run
        that loaded at least one issue, and marks only issues last fetched
        before that run started. It settles the run's debt (``neighbors_due``), and
        records the checks it enqueued on the run (``checks_enqueued``), so a second
        marking enqueues none. Returns how many issues changed.
        """
        checks = 0
        with database.atomic():
            # Locked on PostgreSQL: two markings of one run at once would both
            # find its checks not yet enqueued.
            run = sql.locked(SyncRun.select().where(SyncRun.id == run_id)).get_or_none()
            if run is None:
                return 0
            changed = 0
            if run.status == DONE and run.issues_loaded >= 1:
                # The rows locked in key order first (on PostgreSQL), the order in which a
                # page writes the known issues it loads: locked as the scan found them, they
                # could meet a page holding one and waiting for another, a deadlock.
                stale = sql.locked(Issue.select(Issue.key)
                                   .where(Issue.fetched_at < run.started_at, Issue.neighbor == 0)
                                   .order_by(Issue.key))
                changed = Issue.update(neighbor=1).where(Issue.key.in_(stale)).execute()
                if run.checks_enqueued is None and (run.agent_version or 0) >= CHECK_ISSUES_SINCE:
                    checks = self._enqueue_checks(run)
            if run.neighbors_due:
                SyncRun.update(neighbors_due=0).where(SyncRun.id == run_id).execute()
        if changed:
            log.info("sync run %d: %d issues outside the full run marked as neighbours",
                     run_id, changed)
        if checks:
            log.info("sync run %d: %d check_issues commands enqueued", run_id, checks)
            if self._signal is not None:
                self._signal.notify()  # after COMMIT: a waiting claim may take them at once
        return changed

    def _enqueue_checks(self, run: SyncRun) -> int:
        """Queue ``check_issues`` for the issues the run did not load: last fetched before it
        started, not gone already, not named by an open check; keys sorted, CHECK_KEYS to a
        command. Records their number on the run; returns it. Call inside the marking's
        transaction."""
        keys = [row[0] for row in database.execute_sql(
            "SELECT key FROM issue WHERE fetched_at < ? AND gone_at IS NULL "
            f"AND key NOT IN ({sql.checking_keys(_OPEN)}) ORDER BY key", (run.started_at,))]
        now = iso(self._clock.now())
        batches = [keys[start:start + CHECK_KEYS] for start in range(0, len(keys), CHECK_KEYS)]
        for batch in batches:
            Command.create(type=CHECK_ISSUES, params={"keys": batch, "run_id": run.id}, status=QUEUED,
                           created_at=now)
        SyncRun.update(checks_enqueued=len(batches)).where(SyncRun.id == run.id).execute()
        return len(batches)

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

