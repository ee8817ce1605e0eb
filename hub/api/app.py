"""The Falcon application: ``create_app(config)`` builds it, ``get_app()`` serves it.

``get_app`` takes no arguments so that any WSGI server can load it, e.g.
``waitress-serve --call hub.api.app:get_app``; ``hub serve`` uses ``create_app``.
"""

from __future__ import annotations

import falcon

from hub import startup
from hub.api import errors
from hub.api.health import HealthResource
from hub.config import Config
from hub.db import open_database
from hub.services.health import HealthService


def routes(config: Config) -> list[tuple[str, object]]:
    """The route table: every path the hub answers, with its resource."""
    return [
        ("/healthz", HealthResource(HealthService())),
    ]


def create_app(config: Config) -> falcon.App:
    """The API over ``config``'s database, which must already be migrated."""
    open_database(config.db_path, busy_timeout_seconds=config.busy_timeout_seconds)
    app = falcon.App()
    errors.install(app)
    for path, resource in routes(config):
        app.add_route(path, resource)
    return app


def get_app() -> falcon.App:
    """The API configured from the environment, after preparing the data dir."""
    config = Config.from_env()
    startup.prepare(config)
    return create_app(config)
