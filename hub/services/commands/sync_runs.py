"""Sync runs: one per delivery of a ``refresh`` (its rows written by
:mod:`hub.services.commands.runs`), listed, and the full-run neighbour marking, which also
asks an agent (v16 and later) to check the issues the run did not load (``check_issues``)."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

from peewee import JOIN

from hub import dialect
from hub.clock import Clock
from hub.db import database
from hub.models import Command, Issue, SyncRun
from hub.services.commands.kinds import check_issues
from hub.services.commands.work_signal import WorkSignal
from hub.services.pagination import page
from hub.vocabulary import DONE

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

class SyncRunService:
    def __init__(self, clock: Clock, signal: WorkSignal, *, projects: ProjectService):
        self._clock = clock
        self._signal = signal
        # Tells full runs from the others by the base JQL.
        self._projects = projects

    def list(self, status: str | None = None, cursor: int | None = None, limit: int = 50) -> dict:
        """A page of sync runs, newest first, each a :class:`ListedRun` (the run and its kind)."""
        # Outer: a run outlives nothing, but its command_id may be null by the schema.
        query = SyncRun.select(SyncRun, Command.id, Command.params).join(Command, JOIN.LEFT_OUTER)
        if status is not None:
            query = query.where(SyncRun.status == status)
        base_jql = self._projects.base_jql()

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
            run = dialect.commands.locked(SyncRun.select().where(SyncRun.id == run_id)).get_or_none()
            if run is None:
                return 0
            changed = 0
            if run.status == DONE and run.issues_loaded >= 1:
                # The rows locked in key order first (on PostgreSQL), the order in which a
                # page writes the known issues it loads: locked as the scan found them, they
                # could meet a page holding one and waiting for another, a deadlock.
                stale = dialect.commands.locked(Issue.select(Issue.key)
                                   .where(Issue.fetched_at < run.started_at, Issue.neighbor == 0)
                                   .order_by(Issue.key))
                changed = Issue.update(neighbor=1).where(Issue.key.in_(stale)).execute()
                if run.checks_enqueued is None:
                    checks = self._enqueue_checks(run)
            if run.neighbors_due:
                SyncRun.update(neighbors_due=0).where(SyncRun.id == run_id).execute()
        if changed:
            log.info("sync run %d: %d issues outside the full run marked as neighbours",
                     run_id, changed)
        if checks:
            log.info("sync run %d: %d check_issues commands enqueued", run_id, checks)
            self._signal.notify()  # after COMMIT: a waiting claim may take them at once
        return changed

    def _enqueue_checks(self, run: SyncRun) -> int:
        """Queue ``check_issues`` for what the run did not load
        (:func:`hub.services.commands.kinds.check_issues.enqueue_checks`), when the agent
        that ran it is new enough to be given them; returns how many."""
        if (run.agent_version or 0) < check_issues.KIND.since:
            return 0
        return check_issues.enqueue_checks(run, self._clock)

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

