"""The hub's Prometheus metrics: one registry per app, read by ``GET /metrics``.

Two kinds of figures, by where the truth lives:

- events of the API process (claims, state pages, uploads, HTTP requests) are
  counted as they happen, by the services and the request middleware, in
  :class:`Metrics` (prometheus-client's counters are thread-safe);
- everything the database or the file store knows (the queue, deliveries,
  lease expiries, sync-run durations, cleanup removals, agents, the store) is
  read at scrape time by :class:`hub.services.operations.metrics_collector.HubCollector`, so that
  events of a separate ``hub worker`` process, and of earlier runs of the hub,
  are counted too.

Each app builds its own :class:`Metrics`, so several apps in one process (as
in the tests) never share or collide on a registry.
"""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Histogram, ProcessCollector, disable_created_metrics

# A `_created` series beside every counter doubles the text for a figure
# Prometheus does not use (it sees resets itself).
disable_created_metrics()

# Request latencies: milliseconds for most routes, up to the 30 s of a long-poll.
HTTP_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60)
# A route that no template matched (404 for an unknown path) is counted under
# this one label, so that scanners cannot create a series per path.
UNROUTED = "unrouted"


class Metrics:
    """The metric objects the API process counts into, on a registry of its own.

    Services take one in their constructor; those built without one (in the
    worker, in CLI commands) get a private instance nobody scrapes.
    """

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        self.claims = Counter("hub_claims", "Claim requests answered, by whether they handed out commands.",
                              ["result"], registry=r)
        for result in ("commands", "empty"):
            self.claims.labels(result)
        self.state_pages = Counter("hub_state_pages", "State pages of refresh and check_issues commands loaded.",
                                   registry=r)
        self.issues_loaded = Counter("hub_issues_loaded", "Issues loaded from state pages.", registry=r)
        self.upload_bytes = Counter("hub_upload_bytes", "Bytes of attachment content stored from uploads.",
                                    registry=r)
        self.uploads = Counter("hub_uploads", "Attachment uploads stored.", registry=r)
        self.conflicts = Counter("hub_conflicts", "Requests answered 409 (state conflict), by route.",
                                 ["route"], registry=r)
        self.http_requests = Counter("hub_http_requests", "HTTP requests answered, by route template, "
                                     "method and status.", ["route", "method", "status"], registry=r)
        self.http_duration = Histogram("hub_http_request_duration_seconds",
                                       "Seconds from a request's arrival to its response, by route template "
                                       "and method.", ["route", "method"], buckets=HTTP_BUCKETS, registry=r)
        ProcessCollector(registry=r)

    def watch(self, collector) -> None:
        """Also report what ``collector`` reads at scrape time."""
        self.registry.register(collector)
