"""The hub at a glance: queue, agents, the last scheduled-kind runs, the file store, writes to Jira.

One read for the operations page of an interface, an assistant's "is the mirror
fresh?" and the metrics; each figure is computed at read time from the database
and the store, so it is never stale and costs nothing while nobody asks.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from peewee import fn

from hub.clock import Clock
from hub.db import database
from hub.models import Command, Issue, SyncRun
from hub.services.commands.agents import AgentService
from hub.services.commands.schedule import FULL, INCREMENTAL, refresh_kind
from hub.services.files.store import FileStore
from hub.services.mirror.projects import ProjectService
from hub.services.search.jql.zone import JqlZone
from hub.services.writes.shown import shown_status
from hub.vocabulary import APPLYING, CLAIMED, CONFLICT, DONE, FAILED, PENDING, QUEUED, REFRESH

# How many recent finished refreshes to look through for the last of each kind.
RECENT_RUNS = 200
# Writes by operation and by their rows' and their commands' status: the shown status follows
# from the pair (hub.services.writes.shown).
_WRITES_BY_STATUS = ("SELECT w.op, w.status, c.status, COUNT(*) FROM write w "
                     "LEFT JOIN command c ON c.id = w.command_id GROUP BY w.op, w.status, c.status")
# The oldest write still to reach Jira: its row pending and its command queued or claimed.
_OLDEST_OPEN_WRITE = ("SELECT MIN(w.created_at) FROM write w LEFT JOIN command c ON c.id = w.command_id "
                      f"WHERE w.status = '{PENDING}' AND (c.status IS NULL OR c.status IN ('{QUEUED}', '{CLAIMED}'))")


class OverviewService:
    def __init__(self, projects: ProjectService, agents: AgentService, store: FileStore,
                 clock: Clock, zone: JqlZone):
        self._projects = projects
        self._zone = zone
        self._agents = agents
        self._store = store
        self._clock = clock

    def overview(self) -> dict:
        """``{queue, oldest_queued_at, oldest_queued_age_seconds, agents, last_runs, store,
        gone_issues, jql_time_zone, writes}`` (``last_runs`` holds the rows: the edge gives them their shape;
        ``jql_time_zone`` is ``{name, source}``, the zone JQL reads dates in and where it comes from)."""
        oldest = self._oldest_queued_at()
        return {
            "queue": self.queue_depth(),
            "oldest_queued_at": oldest,
            "oldest_queued_age_seconds": self._age(oldest),
            # Counted, not loaded: agents forgotten (HUB_AGENT_FORGET_HOURS) are not counted.
            "agents": self._agents.counts(),
            "last_runs": self.last_runs(),
            "store": self.store(),
            "gone_issues": self.gone_issues(),
            "jql_time_zone": self.jql_time_zone(),
            "writes": self.writes(),
        }

    def writes(self) -> dict:
        """Writes to Jira that need an eye: ``{pending, applying, failed, conflict}`` counted by the
        status they are shown with, and ``oldest_pending_age_seconds`` (None with none open)."""
        counts = {PENDING: 0, APPLYING: 0, FAILED: 0, CONFLICT: 0}
        for (_, status), n in self.write_counts().items():
            if status in counts:
                counts[status] += n
        return {**counts, "oldest_pending_age_seconds": self.oldest_open_write_age()}

    @staticmethod
    def write_counts() -> dict[tuple[str, str], int]:
        """Writes counted by operation and the status they are shown with: ``{(op, status): n}``."""
        counts: dict[tuple[str, str], int] = {}
        for op, stored, command_status, n in database.execute_sql(_WRITES_BY_STATUS):
            key = (op, shown_status(stored, command_status))
            counts[key] = counts.get(key, 0) + n
        return counts

    def oldest_open_write_age(self) -> float | None:
        """Seconds since the oldest write still pending or applying was asked for; None with none."""
        return self._age(database.execute_sql(_OLDEST_OPEN_WRITE).fetchone()[0])

    def jql_time_zone(self) -> dict:
        """The zone JQL's dates are read in, and whence: HUB_JQL_TIME_ZONE, jira or default."""
        in_use = self._zone.in_use()
        return {"name": in_use.name, "source": in_use.source}

    @staticmethod
    def gone_issues() -> int:
        """Issues a check found gone from Jira (kept, left out of lists by default)."""
        # Counted on the partial index issue_gone: it holds the gone issues alone.
        return Issue.select().where(Issue.gone_at.is_null(False)).count()

    def oldest_queued_age(self) -> float | None:
        """Seconds since the oldest queued command was enqueued; None with none queued."""
        return self._age(self._oldest_queued_at())

    @staticmethod
    def _oldest_queued_at() -> str | None:
        return Command.select(fn.MIN(Command.created_at)).where(Command.status == QUEUED).scalar()

    @staticmethod
    def queue_depth() -> list[dict]:
        """Commands counted by type and status: ``[{type, status, count}]``."""
        # Peewee's stubs type the rows of .tuples() as models, hence the ignore.
        rows: Iterable[tuple[str, str, int]] = (Command  # type: ignore[assignment]
                                                .select(Command.type, Command.status, fn.COUNT(Command.id).alias("n"))
                                                .group_by(Command.type, Command.status)
                                                .order_by(Command.type, Command.status).tuples())
        return [{"type": t, "status": s, "count": n} for t, s, n in rows]

    def last_runs(self) -> dict:
        """The last finished ``full`` and ``incremental`` refresh, each a sync run (the row) or None."""
        base_jql = self._projects.base_jql()
        found: dict[str, SyncRun | None] = {FULL: None, INCREMENTAL: None}
        recent = (SyncRun.select(SyncRun, Command.id, Command.params).join(Command)
                  .where(SyncRun.status == DONE, Command.type == REFRESH)
                  .order_by(SyncRun.id.desc()).limit(RECENT_RUNS))
        for run in recent:
            assert run.command is not None, "the join keeps only runs with their command"
            kind = refresh_kind(run.command.params, base_jql)
            if kind in found and found[kind] is None:
                found[kind] = run
            if all(found.values()):
                break
        return found

    def store(self) -> dict:
        """Files in the attachment store and their bytes (leftover uploads not counted)."""
        return self._store.usage()

    def _age(self, when: str | None) -> float | None:
        if when is None:
            return None
        return max(0.0, (self._clock.now() - datetime.fromisoformat(when)).total_seconds())

