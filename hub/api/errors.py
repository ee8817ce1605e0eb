"""The one place where errors become HTTP responses.

Every error body is JSON ``{title, description}``. Domain errors map by class;
a database that stays locked past the busy timeout answers 503 with
``Retry-After`` rather than leaking SQLite's message; a database that cannot be
written (disk full: 507; read-only, I/O error: 503) answers with SQLite's own
words, which also go to the log and to ``/healthz``.
"""

from __future__ import annotations

import logging

import falcon
import peewee

from hub.errors import (
    BadRequest,
    Conflict,
    ContractError,
    Forbidden,
    HubError,
    NotFound,
    TooLarge,
    TooSlow,
    Unauthenticated,
    Unavailable,
)
from hub.services.health import HealthService

log = logging.getLogger(__name__)

STATUS: dict[type[HubError], str] = {
    BadRequest: falcon.HTTP_400,
    Unauthenticated: falcon.HTTP_401,
    Forbidden: falcon.HTTP_403,
    NotFound: falcon.HTTP_404,
    Conflict: falcon.HTTP_409,
    TooLarge: falcon.HTTP_413,
    ContractError: falcon.HTTP_422,
    TooSlow: falcon.HTTP_503,
    Unavailable: falcon.HTTP_503,
}


def install(app: falcon.App, health: HealthService) -> None:
    """Register the handlers and the serializer on ``app``; database failures of the
    machine's (disk full, read-only) are also told to ``health``."""
    app.set_error_serializer(_serialize)
    app.add_error_handler(HubError, _domain_error)
    app.add_error_handler(peewee.DatabaseError, _DatabaseErrors(health))


def _serialize(req: falcon.Request, resp: falcon.Response, exc: falcon.HTTPError) -> None:
    resp.content_type = falcon.MEDIA_JSON
    resp.media = {"title": exc.title, "description": exc.description or exc.title}


def _domain_error(req, resp, exc: HubError, params) -> None:
    status = next((s for cls, s in STATUS.items() if isinstance(exc, cls)), falcon.HTTP_400)
    resp.status = status
    if isinstance(exc, Unauthenticated):
        # As the auth layer's own 401: the client is to present a (new) bearer token.
        resp.set_header("WWW-Authenticate", "Bearer")
    if isinstance(exc, (TooSlow, Unavailable)):
        resp.set_header("Retry-After", str(exc.retry_after))
    resp.media = {**exc.extra, "title": exc.title, "description": exc.description}


class _DatabaseErrors:
    """SQLite errors as answers that name their real cause; nothing was written."""

    def __init__(self, health: HealthService):
        self._health = health

    def __call__(self, req, resp, exc: peewee.DatabaseError, params) -> None:
        message = str(exc)
        if "locked" in message or "busy" in message:
            log.warning("%s %s: database busy past the timeout", req.method, req.path)
            raise falcon.HTTPServiceUnavailable(
                title="Busy",
                description="The database is busy with other writes; retry shortly.",
                retry_after=1,
            )
        log.error("%s %s: database error: %s", req.method, req.path, message)
        if "full" in message:
            self._health.write_failed(message)
            raise falcon.HTTPInsufficientStorage(
                title="Disk full",
                description=f"The hub's disk is full ({message}); nothing was written. "
                            "Retry once the operator has made room.",
            )
        if "readonly" in message or "read-only" in message or "I/O" in message:
            self._health.write_failed(message)
        raise falcon.HTTPServiceUnavailable(
            title="Database unavailable",
            description=f"The hub could not use its database ({message}); nothing was written.",
            retry_after=30,
        )
