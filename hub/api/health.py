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
        """Whether the hub answers and its database with it."""
        resp.media = self._service.check()
