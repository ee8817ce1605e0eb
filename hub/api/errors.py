"""The one place where errors become HTTP responses.

Every error body is JSON ``{title, description}``. Domain errors map by class;
a database that stays locked past the busy timeout answers 503 with
``Retry-After`` rather than leaking SQLite's message.
"""

from __future__ import annotations

import logging

import falcon
import peewee

from hub.errors import BadRequest, Conflict, ContractError, HubError, NotFound, TooLarge

log = logging.getLogger(__name__)

STATUS = {
    BadRequest: falcon.HTTP_400,
    NotFound: falcon.HTTP_404,
    Conflict: falcon.HTTP_409,
    TooLarge: falcon.HTTP_413,
    ContractError: falcon.HTTP_422,
}


def install(app: falcon.App) -> None:
    """Register the handlers and the serializer on ``app``."""
    app.set_error_serializer(_serialize)
    app.add_error_handler(HubError, _domain_error)
    app.add_error_handler(peewee.OperationalError, _database_error)


def _serialize(req: falcon.Request, resp: falcon.Response, exc: falcon.HTTPError) -> None:
    resp.content_type = falcon.MEDIA_JSON
    resp.media = {"title": exc.title, "description": exc.description or exc.title}


def _domain_error(req, resp, exc: HubError, params) -> None:
    status = next((s for cls, s in STATUS.items() if isinstance(exc, cls)), falcon.HTTP_400)
    resp.status = status
    resp.media = {**exc.extra, "title": exc.title, "description": exc.description}


def _database_error(req, resp, exc: peewee.OperationalError, params) -> None:
    if "locked" in str(exc) or "busy" in str(exc):
        log.warning("%s %s: database busy past the timeout", req.method, req.path)
        raise falcon.HTTPServiceUnavailable(
            title="Busy",
            description="The database is busy with other writes; retry shortly.",
            retry_after=1,
        )
    log.error("%s %s: database error: %s", req.method, req.path, exc)
    raise falcon.HTTPInternalServerError(
        title="Internal error", description="The hub could not read or write its database."
    )
