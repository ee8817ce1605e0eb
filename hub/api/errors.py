"""The one place where errors become HTTP responses.

Every error body is JSON ``{title, description}``. Domain errors map by class;
database errors by the engine's code (SQLite's result code, PostgreSQL's
SQLSTATE), never by their message: a database that stays locked past the busy
timeout, a deadlock or a serialisation failure answers 503 with ``Retry-After``
rather than leaking the engine's message; a database that cannot be written
(disk full: 507; read-only, I/O error, unreachable: 503) answers with the
engine's own words, which also go to the log and to ``/healthz``.
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
    TooMany,
    TooSlow,
    Unauthenticated,
    Unavailable,
)
from hub.services.operations.health import HealthService

log = logging.getLogger(__name__)

STATUS: dict[type[HubError], str] = {
    BadRequest: falcon.HTTP_400,
    Unauthenticated: falcon.HTTP_401,
    Forbidden: falcon.HTTP_403,
    NotFound: falcon.HTTP_404,
    Conflict: falcon.HTTP_409,
    TooLarge: falcon.HTTP_413,
    ContractError: falcon.HTTP_422,
    TooMany: falcon.HTTP_429,
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
    if isinstance(exc, (TooSlow, TooMany, Unavailable)):
        resp.set_header("Retry-After", str(exc.retry_after))
    resp.media = {**exc.extra, "title": exc.title, "description": exc.description}


# SQLite's primary result codes (sqlite3.Error.sqlite_errorcode & 0xff).
_SQLITE_BUSY = {5, 6}  # SQLITE_BUSY, SQLITE_LOCKED: another writer held on past the busy timeout
_SQLITE_FULL = {13}  # SQLITE_FULL
_SQLITE_MACHINE = {8, 10, 11, 14}  # READONLY, IOERR, CORRUPT, CANTOPEN: the machine's, not the request's

# PostgreSQL's SQLSTATEs (psycopg's Error.sqlstate).
# Serialization failure, deadlock, a lock waited on past the busy timeout, a statement
# cancelled: the work is to be retried, as on SQLite's busy database.
_PG_BUSY = {"40001", "40P01", "55P03", "57014"}
_PG_FULL = {"53100"}  # disk_full
# The server's own state: shutting down, starting, a read-only standby, an I/O error.
_PG_MACHINE = {"57P01", "57P02", "57P03", "25006", "58030"}
# A unique or foreign key a concurrent write took first (SQLite's one writer at a time
# lets the services check these before they write; PostgreSQL's writers overlap).
_PG_CONFLICT = {"23505", "23503"}
# Text PostgreSQL cannot hold (a NUL, a character outside the encoding): the request's.
_PG_REFUSED = {"22021", "22P05"}


def database_cause(exc: BaseException) -> BaseException:
    """The driver's error inside Peewee's (Peewee keeps it as ``orig``)."""
    orig = getattr(exc, "orig", None)
    if isinstance(orig, BaseException):
        return orig
    return exc.__cause__ or exc.__context__ or exc


def classify(exc: BaseException) -> str:
    """``busy``, ``full``, ``machine`` (the engine cannot be used: health is told), ``conflict``
    (a key a concurrent write took first), ``refused``
    (a value of the request the engine cannot hold) or ``other``,
    from the driver's error code: SQLite's result code, PostgreSQL's SQLSTATE."""
    cause = database_cause(exc)
    code = getattr(cause, "sqlite_errorcode", None)
    if isinstance(code, int):
        primary = code & 0xFF
        if primary in _SQLITE_BUSY:
            return "busy"
        if primary in _SQLITE_FULL:
            return "full"
        return "machine" if primary in _SQLITE_MACHINE else "other"
    sqlstate = getattr(cause, "sqlstate", None)
    if sqlstate in _PG_REFUSED or (sqlstate is None and _is_client_data_error(cause)):
        return "refused"
    if sqlstate in _PG_BUSY:
        return "busy"
    if sqlstate in _PG_CONFLICT:
        return "conflict"
    if sqlstate in _PG_FULL:
        return "full"
    if sqlstate in _PG_MACHINE or (sqlstate or "").startswith(("08", "53")):
        return "machine"
    if sqlstate is None and _is_lost_connection(cause):
        return "machine"
    return "other"


def _is_client_data_error(cause: BaseException) -> bool:
    """psycopg's DataError raised before the server saw the statement: a value it cannot
    send (PostgreSQL text holds no NUL; SQLite's does, and finds no row)."""
    module = type(cause).__module__ or ""
    return module.startswith("psycopg") and type(cause).__name__ == "DataError"


def _is_lost_connection(cause: BaseException) -> bool:
    """psycopg's OperationalError with no SQLSTATE: the server could not be reached or went away."""
    module = type(cause).__module__ or ""
    return module.startswith("psycopg") and type(cause).__name__ == "OperationalError"


class _DatabaseErrors:
    """Database errors as answers that name their real cause; nothing was written.

    Mapped by the driver's code (SQLite's result code, PostgreSQL's SQLSTATE),
    never by the words of the message: busy, deadlocked or serialisation
    failures are 503 with ``Retry-After: 1``; a full disk 507; an engine that
    cannot be used (read-only, I/O error, unreachable, shutting down) 503, told
    to ``/healthz`` too.
    """

    def __init__(self, health: HealthService):
        self._health = health

    def __call__(self, req, resp, exc: peewee.DatabaseError, params) -> None:
        kind = classify(exc)
        message = str(database_cause(exc)).strip()
        if kind == "busy":
            log.warning("%s %s: database busy past the timeout (%s)", req.method, req.path,
                        getattr(database_cause(exc), "sqlstate", None) or "locked")
            raise falcon.HTTPServiceUnavailable(
                title="Busy",
                description="The database is busy with other writes; retry shortly.",
                retry_after=1,
            )
        if kind == "conflict":
            log.info("%s %s: conflict with a concurrent write: %s", req.method, req.path, message)
            raise falcon.HTTPConflict(
                title="Conflict",
                description="Another request changed the same thing at the same moment; nothing was written. "
                            "Read the current state and retry.",
            )
        if kind == "refused":
            log.info("%s %s: refused by the database: %s", req.method, req.path, message)
            raise falcon.HTTPBadRequest(
                title="Bad request",
                description=f"A value of the request cannot be stored or compared ({message}); nothing was written.",
            )
        log.error("%s %s: database error: %s", req.method, req.path, message)
        if kind == "full":
            self._health.write_failed(message)
            raise falcon.HTTPInsufficientStorage(
                title="Disk full",
                description=f"The hub's disk is full ({message}); nothing was written. "
                            "Retry once the operator has made room.",
            )
        if kind == "machine":
            self._health.write_failed(message)
        raise falcon.HTTPServiceUnavailable(
            title="Database unavailable",
            description=f"The hub could not use its database ({message}); nothing was written.",
            retry_after=30,
        )
