"""What ``GET /metrics`` reads from the database and the file store at scrape time.

Figures that outlive a process or come from another one (a separate ``hub
worker``) are read here rather than counted in memory: the queue, deliveries,
lease expiries and cleanup removals (tallied in ``setting``, see
:mod:`hub.services.tallies`), sync-run durations, agents and the store. Nothing
is computed while nobody scrapes, and a scrape reads only the commands and runs
that changed since the previous one (:class:`FinalRows`), so that its cost does
not grow with the hub's history.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Any

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily

from hub import dialect
from hub.clock import Clock
from hub.db import database
from hub.services.commands.agents import AgentService
from hub.services.files.cleanup import RULES
from hub.services.operations.overview import OverviewService
from hub.services.search.fulltext_backlog import SearchBacklog
from hub.services.tallies import CLEANUP, LEASE_EXPIRED, read_tallies
from hub.vocabulary import OPEN_STATUSES

# Sync runs: an incremental run takes seconds, a full one minutes to hours.
RUN_BUCKETS = (1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600, 7200, 14400)
# Rows a scrape reads: ``final`` says the row will not change again.
_COMMANDS = ("SELECT id, type, status, deliveries, status NOT IN ({open}) AS final FROM command"
             .format(open=", ".join(f"'{s}'" for s in OPEN_STATUSES)))



def _runs() -> str:
    return (f"SELECT id, status, {dialect.current().seconds_between('started_at', 'finished_at')}, "
            "finished_at IS NOT NULL AS final FROM sync_run")


class FinalRows:
    """The rows of a table read once each after they became final.

    ``command`` and ``sync_run`` only grow (nothing deletes their rows), and a
    row that is final (a finished command, a finished run) never changes again.
    So each scrape reads only the rows added since the last one and those that
    were still open then, by primary key: its cost follows what changed, not the
    hub's history. ``select`` is ``SELECT id, <columns>, <final> FROM <table>``.
    """

    def __init__(self, select: Callable[[], str] | str):
        self._select = select
        self._upto = 0  # every row up to this id has been read
        self._open: list[int] = []  # ids up to _upto that were not final yet

    def read(self) -> tuple[list[tuple], list[tuple]]:
        """``(newly final rows, rows still open)``, each row its columns without
        id and final flag. Call inside one read transaction, one call at a time."""
        select = self._select() if callable(self._select) else self._select
        rows = database.execute_sql(
            f"{select} WHERE id > ? UNION ALL {select} "
            f"WHERE id IN {dialect.current().json_values(cast='BIGINT')}",
            (self._upto, json.dumps(self._open))).fetchall()
        final = [row[1:-1] for row in rows if row[-1]]
        still_open = [row for row in rows if not row[-1]]
        self._open = [row[0] for row in still_open]
        self._upto = max([self._upto, *(row[0] for row in rows)])
        return final, [row[1:-1] for row in still_open]


def _families() -> dict[str, Any]:
    """Every family the collector reports, empty, by a short name."""
    return {
        "queue": GaugeMetricFamily("hub_queue_commands", "Commands by type and status (the pairs that exist).",
                                   labels=["type", "status"]),
        "oldest": GaugeMetricFamily("hub_queue_oldest_queued_age_seconds",
                                    "Age of the oldest queued command; 0 with nothing queued."),
        "deliveries": CounterMetricFamily("hub_command_deliveries", "Times commands were handed to agents, "
                                          "by type.", labels=["type"]),
        "expiries": CounterMetricFamily("hub_lease_expiries", "Leases that ran out, by outcome: requeued, or "
                                        "failed past HUB_MAX_DELIVERIES.", labels=["outcome"]),
        "runs": HistogramMetricFamily("hub_sync_run_duration_seconds", "Durations of finished sync runs, "
                                      "by status.", labels=["status"]),
        "store_bytes": GaugeMetricFamily("hub_store_bytes", "Bytes of the attachment store."),
        "store_files": GaugeMetricFamily("hub_store_files", "Files in the attachment store."),
        "removed_files": CounterMetricFamily("hub_cleanup_removed_files", "Files the file-store cleanup "
                                             "removed, by rule.", labels=["rule"]),
        "removed_bytes": CounterMetricFamily("hub_cleanup_removed_bytes", "Bytes the file-store cleanup "
                                             "removed, by rule.", labels=["rule"]),
        "backlog": GaugeMetricFamily("hub_search_backlog_issues", "Issues whose search vectors wait to be "
                                     "computed after the page that changed them (PostgreSQL; 0 on SQLite)."),
        "writes": GaugeMetricFamily("hub_writes", "Writes to Jira by operation and the status they are shown "
                                    "with (the pairs that exist).", labels=["op", "status"]),
        "oldest_write": GaugeMetricFamily("hub_writes_oldest_pending_age_seconds",
                                          "Age of the oldest write still pending or applying; 0 with none."),
        "gone": GaugeMetricFamily("hub_issues_gone", "Issues of the mirror that Jira no longer returns "
                                  "(found by check_issues after a full run)."),
        "agents": GaugeMetricFamily("hub_agents", "Agents heard from within HUB_AGENT_FORGET_HOURS, by "
                                    "whether they are online (heard from within 120 s).", labels=["online"]),
        "agent_age": GaugeMetricFamily("hub_agent_last_seen_age_seconds", "Seconds since each agent was "
                                       "last heard from (agents not forgotten).", labels=["agent_id"]),
        "agent_jira": GaugeMetricFamily("hub_agent_jira_reachable", "1 while an agent's last call to Jira was "
                                        "answered, 0 while it was not, as the agent reported it (protocol v18; "
                                        "agents that report it, not forgotten).", labels=["agent_id"]),
    }


class HubCollector:
    """Figures read from the database and the file store when Prometheus scrapes.

    ``overview`` is the app's :class:`~hub.services.operations.overview.OverviewService`
    (the oldest queued command, the store), ``agents`` its :class:`~hub.services.commands.agents.AgentService`,
    ``clock`` the clock both read.
    """

    def __init__(self, overview: OverviewService, agents: AgentService, clock: Clock,
                 backlog: SearchBacklog):
        self._overview = overview
        self._backlog = backlog
        self._agents = agents
        self._clock = clock
        # Scrapes take turns: each folds what it read into the totals below.
        self._lock = threading.Lock()
        self._commands = FinalRows(_COMMANDS)
        self._runs = FinalRows(_runs)
        # Final commands: (type, status) -> [count, deliveries].
        self._final_commands: dict[tuple[str, str], list[int]] = {}
        # Finished runs by status: [count, total seconds, count within each bucket].
        self._finished_runs: dict[str, list] = {}

    def describe(self) -> Iterable:
        return list(_families().values())

    def collect(self) -> Iterable:
        # One read transaction: every figure of a scrape from the same snapshot.
        with self._lock, database.atomic("DEFERRED"):
            commands = self._command_counts()
            runs = self._run_durations()
            oldest = self._overview.oldest_queued_age()
            tallies = read_tallies()
            agents = self._agents.counts()
            seen = self._agents.seen()
            jira = self._agents.jira([agent_id for agent_id, _ in seen])
            gone = self._overview.gone_issues()
            writes = self._overview.write_counts()
            oldest_write = self._overview.oldest_open_write_age()
            waiting = self._backlog.waiting()
        store = self._overview.store()
        now = self._clock.now()

        f = _families()
        deliveries: dict[str, int] = {}
        for (type_, status), (count, delivered) in sorted(commands.items()):
            f["queue"].add_metric([type_, status], count)
            deliveries[type_] = deliveries.get(type_, 0) + delivered
        f["oldest"].add_metric([], oldest or 0.0)
        for type_, total in sorted(deliveries.items()):
            f["deliveries"].add_metric([type_], total)
        for outcome in ("requeued", "failed"):
            f["expiries"].add_metric([outcome], tallies.get(f"{LEASE_EXPIRED}.{outcome}", 0))
        for status, (count, total, *within) in sorted(runs.items()):
            buckets = [(str(float(b)), n) for b, n in zip(RUN_BUCKETS, within, strict=True)]
            f["runs"].add_metric([status], [*buckets, ("+Inf", count)], total)
        f["store_bytes"].add_metric([], store["bytes"])
        f["store_files"].add_metric([], store["files"])
        for rule in RULES:
            f["removed_files"].add_metric([rule], tallies.get(f"{CLEANUP}.{rule}.files", 0))
            f["removed_bytes"].add_metric([rule], tallies.get(f"{CLEANUP}.{rule}.bytes", 0))
        f["gone"].add_metric([], gone)
        for (op, status), count in sorted(writes.items()):
            f["writes"].add_metric([op, status], count)
        f["oldest_write"].add_metric([], oldest_write or 0.0)
        f["backlog"].add_metric([], waiting)
        f["agents"].add_metric(["true"], agents["online"])
        f["agents"].add_metric(["false"], agents["total"] - agents["online"])
        # One series per agent not forgotten: at most HUB_AGENTS_PER_TOKEN per agent token.
        for agent_id, last_seen_at in seen:
            age = (now - datetime.fromisoformat(last_seen_at)).total_seconds()
            f["agent_age"].add_metric([agent_id], max(0.0, age))
            if agent_id in jira:
                f["agent_jira"].add_metric([agent_id], 1 if jira[agent_id]["reachable"] else 0)
        return list(f.values())

    def _command_counts(self) -> dict[tuple[str, str], list[int]]:
        """``(type, status) -> [count, deliveries]`` of every command."""
        final, still_open = self._commands.read()
        for type_, status, delivered in final:
            totals = self._final_commands.setdefault((type_, status), [0, 0])
            totals[0] += 1
            totals[1] += delivered
        counts = {key: list(totals) for key, totals in self._final_commands.items()}
        for type_, status, delivered in still_open:
            totals = counts.setdefault((type_, status), [0, 0])
            totals[0] += 1
            totals[1] += delivered
        return counts

    def _run_durations(self) -> dict[str, list]:
        """``status -> [count, total seconds, count within each of RUN_BUCKETS]`` of finished runs."""
        final, _ = self._runs.read()
        for status, seconds in final:
            totals = self._finished_runs.setdefault(status, [0, 0.0] + [0] * len(RUN_BUCKETS))
            totals[0] += 1
            totals[1] += seconds
            for n, bound in enumerate(RUN_BUCKETS):
                if seconds <= bound:
                    totals[2 + n] += 1
        return {status: list(totals) for status, totals in self._finished_runs.items()}
