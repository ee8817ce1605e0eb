"""``GET /healthz``: no token; 200 while the hub can do its work, 503 with the reasons when not."""

from __future__ import annotations

import falcon

from hub.api.auth import PUBLIC
from hub.services.operations.health import HealthService


class HealthResource:
    roles = PUBLIC

    def __init__(self, service: HealthService):
        self._service = service

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        """Whether the hub can work: 200, or 503 with the problems found."""
        health = self._service.check()
        if health["status"] != "ok":
            resp.status = falcon.HTTP_503
            resp.set_header("Retry-After", "30")
            health = {"title": "Unhealthy", "description": "; ".join(health["problems"]), **health}
        resp.media = health

    def on_head(self, req: falcon.Request, resp: falcon.Response) -> None:
        """As GET, without the body: for probes that only look at the status."""
        self.on_get(req, resp)
