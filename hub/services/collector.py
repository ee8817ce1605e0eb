"""What ``GET /metrics`` reads from the database and the file store at scrape time.

Figures that outlive a process or come from another one (a separate ``hub
worker``) are read here rather than counted in memory: the queue, deliveries,
lease expiries and cleanup removals (tallied in ``setting``, see
:mod:`hub.services.tallies`), sync-run durations, agents and the store. Nothing
is computed while nobody scrapes.
"""

from __future__ import annotations

from datetime import datetime
from typing import Iterable

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily

from hub.clock import Clock
from hub.db import database
from hub.services.agents import AgentService
from hub.services.cleanup import RULES
from hub.services.overview import OverviewService
from hub.services.tallies import CLEANUP, LEASE_EXPIRED, read_tallies

# Sync runs: an incremental run takes seconds, a full one minutes to hours.
RUN_BUCKETS = (1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600, 7200, 14400)
# Per status: how many finished runs, their total seconds, then how many took at
# most each bucket's seconds (cumulative, as Prometheus wants them).
_RUN_DURATIONS = (
    "SELECT status, COUNT(*), TOTAL(d), "
    + ", ".join(f"TOTAL(d <= {b})" for b in RUN_BUCKETS)
    + " FROM (SELECT status, MAX(0.0, (julianday(finished_at) - julianday(started_at)) * 86400.0) AS d"
    " FROM sync_run WHERE finished_at IS NOT NULL) GROUP BY status ORDER BY status")
_DELIVERIES = "SELECT type, COALESCE(SUM(deliveries), 0) FROM command GROUP BY type ORDER BY type"


def _families() -> dict[str, object]:
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
        "agents": GaugeMetricFamily("hub_agents", "Agents ever heard from, by whether they are online "
                                    "(heard from within 120 s).", labels=["online"]),
        "agent_age": GaugeMetricFamily("hub_agent_last_seen_age_seconds", "Seconds since each agent was "
                                       "last heard from.", labels=["agent_id"]),
    }


class HubCollector:
    """Figures read from the database and the file store when Prometheus scrapes.

    ``overview`` is the app's :class:`~hub.services.overview.OverviewService`
    (queue, store), ``agents`` its :class:`~hub.services.agents.AgentService`,
    ``clock`` the clock both read.
    """

    def __init__(self, overview: OverviewService, agents: AgentService, clock: Clock):
        self._overview = overview
        self._agents = agents
        self._clock = clock

    def describe(self) -> Iterable:
        return list(_families().values())

    def collect(self) -> Iterable:
        # One read transaction: every figure of a scrape from the same snapshot.
        with database.atomic("DEFERRED"):
            queue = self._overview.queue_depth()
            oldest = self._overview.oldest_queued_age()
            deliveries = database.execute_sql(_DELIVERIES).fetchall()
            durations = database.execute_sql(_RUN_DURATIONS).fetchall()
            tallies = read_tallies()
            agents = self._agents.list()["items"]
        store = self._overview.store()
        now = self._clock.now()

        f = _families()
        for row in queue:
            f["queue"].add_metric([row["type"], row["status"]], row["count"])
        f["oldest"].add_metric([], oldest or 0.0)
        for type_, total in deliveries:
            f["deliveries"].add_metric([type_], total)
        for outcome in ("requeued", "failed"):
            f["expiries"].add_metric([outcome], tallies.get(f"{LEASE_EXPIRED}.{outcome}", 0))
        for status, count, total, *within in durations:
            buckets = [(str(float(b)), int(n)) for b, n in zip(RUN_BUCKETS, within)]
            f["runs"].add_metric([status], buckets + [("+Inf", count)], total)
        f["store_bytes"].add_metric([], store["bytes"])
        f["store_files"].add_metric([], store["files"])
        for rule in RULES:
            f["removed_files"].add_metric([rule], tallies.get(f"{CLEANUP}.{rule}.files", 0))
            f["removed_bytes"].add_metric([rule], tallies.get(f"{CLEANUP}.{rule}.bytes", 0))
        online = sum(1 for a in agents if a["online"])
        f["agents"].add_metric(["true"], online)
        f["agents"].add_metric(["false"], len(agents) - online)
        for agent in agents:
            age = (now - datetime.fromisoformat(agent["last_seen_at"])).total_seconds()
            f["agent_age"].add_metric([agent["agent_id"]], max(0.0, age))
        return list(f.values())
