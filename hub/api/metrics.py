"""``GET /metrics``: the hub's figures in Prometheus's text format.

Behind a token like every other route: role ``metrics`` (made for a Prometheus
server, and good for nothing else) or ``admin``. What each metric means is in
docs/operations.md.
"""

from __future__ import annotations

import falcon
from prometheus_client import generate_latest

from hub.api.auth import METRICS
from hub.api.openapi import responds
from hub.metrics import Metrics

# The classic text format, which generate_latest writes: every Prometheus
# version reads it (newer prometheus-client versions call 1.0.0 "latest").
TEXT = "text/plain; version=0.0.4; charset=utf-8"


class MetricsResource:
    roles = METRICS

    def __init__(self, metrics: Metrics):
        self._metrics = metrics

    @responds(media="text/plain", operation_id="getMetrics")
    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        """The hub's metrics, in Prometheus's text format (version 0.0.4)."""
        resp.content_type = TEXT
        resp.data = generate_latest(self._metrics.registry)
