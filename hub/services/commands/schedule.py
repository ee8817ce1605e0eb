"""The refreshes the hub enqueues on its own, to keep the mirror fresh.

Two kinds, each on its own cron (``HUB_REFRESH_CRON``, ``HUB_FULL_REFRESH_CRON``):

- incremental: a refresh of the base JQL with ``params.updated_since`` = the
  start of the last finished refresh of the base JQL, minus
  ``HUB_REFRESH_OVERLAP_MINUTES``. A run's start is when it was claimed, before
  its agent searched, so nothing updated after it is missed; the overlap covers
  clocks that disagree and the agent writing the time to the minute in Jira's
  query. With no finished refresh of the base JQL yet (a new hub, or the base
  JQL changed with a project) there is no start point: nothing is queued until
  a full run has loaded everything once (queued by hand, by an interface, or by
  the full schedule), so a new hub never fills its queue before its operator
  has seen it work.
- full: a refresh of exactly the base JQL, the one kind of run that can tell
  neighbours (and issues gone from the scope) from matches.

At most one of each kind is open (queued or claimed): an agent that is away
finds one of each waiting, not a pile. Without a base JQL (no projects) nothing
is enqueued.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import Literal

from peewee import fn

from hub.clock import iso
from hub.models import Command, SyncRun
from hub.services.commands.queue import CommandService
from hub.services.commands.sync_runs import FULL, INCREMENTAL, refresh_kind
from hub.vocabulary import DONE, OPEN_STATUSES, REFRESH

log = logging.getLogger(__name__)

__all__ = ["FULL", "INCREMENTAL", "RefreshSchedule", "refresh_kind"]


class RefreshSchedule:
    """Enqueues the scheduled refreshes through :class:`CommandService`."""

    def __init__(self, commands: CommandService, overlap_minutes: int):
        self._commands = commands
        self._overlap = timedelta(minutes=overlap_minutes)

    def enqueue_incremental(self) -> Command | None:
        """An incremental refresh of the base JQL: the command queued, or None when
        nothing was (not while no refresh of the base JQL has finished)."""
        return self._enqueue(INCREMENTAL)

    def enqueue_full(self) -> Command | None:
        """A full refresh of the base JQL: the command queued, or None when nothing was."""
        return self._enqueue(FULL)

    def _enqueue(self, wanted: str) -> Command | None:
        def plan(base_jql: str) -> str | Literal[False] | None:
            # Asked inside the insert's write transaction: what it reads cannot
            # change before the insert, so two workers cannot both enqueue.
            since = None
            if wanted == INCREMENTAL:
                last_start = self._last_finished_start(base_jql)
                if last_start is None:  # no start point: wait for a full run
                    log.debug("no finished refresh of the base JQL yet: no incremental refresh")
                    return False
                since = iso(datetime.fromisoformat(last_start) - self._overlap)
            if self._open(wanted, base_jql):
                return False
            return since

        command = self._commands.enqueue_base_refresh(plan)
        if command is not None:
            since = command.params.get("updated_since")
            log.info("scheduled %s refresh queued: command %d%s", wanted, command.id,
                     f", updated since {since}" if since else "")
        return command

    @staticmethod
    def _last_finished_start(base_jql: str) -> str | None:
        # Hub-format times compare in time order as strings.
        return (SyncRun.select(fn.MAX(SyncRun.started_at))
                .where(SyncRun.status == DONE, SyncRun.query == base_jql)
                .scalar())

    @staticmethod
    def _open(kind: str, base_jql: str) -> bool:
        open_refreshes = Command.select(Command.params).where(
            Command.type == REFRESH, Command.status.in_(OPEN_STATUSES))
        return any(refresh_kind(c.params, base_jql) == kind for c in open_refreshes)
