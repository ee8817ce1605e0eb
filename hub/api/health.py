"""``GET /healthz``: no token; answers while the database does."""

from __future__ import annotations

import falcon

from hub.api.auth import PUBLIC
from hub.services.health import HealthService


class HealthResource:
    roles = PUBLIC

    def __init__(self, service: HealthService):
        self._service = service

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        resp.media = self._service.check()

    def on_head(self, req: falcon.Request, resp: falcon.Response) -> None:
        """As GET, without the body: for probes that only look at the status."""
        self.on_get(req, resp)
