"""The web interface's sessions: a sign-in exchanges a token for a session id.

The page posts its token once; the hub answers with a random session id, which
the API sets as an HttpOnly cookie (:mod:`hub.api.session`), so no script of the
page ever holds the token again. Like a token, the session id is never stored or
logged: ``web_session`` (schema v13) keeps its sha256, found by a unique index.

A session speaks for the token that signed in, and is only ever read joined to
that token: a revoked token's sessions are deleted in the transaction that
deletes it (:meth:`hub.services.access.tokens.TokenService.revoke`), and even a row
left behind would name no token. A session lasts ``lifetime`` from its sign-in;
the worker deletes expired ones (:meth:`SessionService.expire`). One token keeps
at most ``per_token`` sessions: a sign-in past that ends the token's oldest, so
that a token signing in over and over (a script, a leaked token) cannot grow the
table without end, while a person's few browsers stay signed in.
"""

from __future__ import annotations

import hashlib
import logging
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

import peewee

from hub import dialect
from hub.clock import Clock, iso
from hub.db import database
from hub.errors import Forbidden, Unauthenticated
from hub.models import WebSession
from hub.services.access.tokens import Principal, TokenService
from hub.vocabulary import ADMIN, INTERFACE

log = logging.getLogger(__name__)
# The roles that may sign in to the web interface: the page reads the mirror.
SIGN_IN_ROLES = (INTERFACE, ADMIN)
# last_seen_at is written at most this often per session, so that a page's
# requests do not each take the write lock.
TOUCH_SECONDS = 60
# The default of HUB_SESSIONS_PER_TOKEN (hub.config): a person's browsers and devices.
SESSIONS_PER_TOKEN = 20


@dataclass(frozen=True)
class StartedSession:
    """A new session: its id (for the cookie, shown this once), its principal and its end."""

    session_id: str
    principal: Principal
    expires_at: datetime


@dataclass(frozen=True)
class LiveSession:
    """A session that lets its token in: who it speaks for, and when it ends (the hub's format)."""

    principal: Principal
    expires_at: str


def _digest(session_id: str) -> str:
    return hashlib.sha256(session_id.encode("utf-8")).hexdigest()


class SessionService:
    def __init__(self, tokens: TokenService, lifetime: timedelta, clock: Clock, *,
                 per_token: int = SESSIONS_PER_TOKEN):
        self._tokens = tokens
        self._lifetime = lifetime
        self._clock = clock
        self._per_token = per_token

    @property
    def lifetime(self) -> timedelta:
        """How long a session lasts from its sign-in (``HUB_SESSION_HOURS``)."""
        return self._lifetime

    def start(self, token: str) -> StartedSession:
        """Sign in with ``token``: a new session for it.

        Raises Unauthenticated for a token the hub does not know, and Forbidden
        for one whose role may not use the web interface (an agent's, a scraper's).
        When the token already keeps ``per_token`` sessions, its oldest ones end,
        in the same transaction, to leave room for this one.
        """
        principal = self._tokens.authenticate(token)
        if principal is None:
            raise Unauthenticated("The hub does not know this token (revoked or mistyped); "
                                  "check it with whoever gave it to you.")
        if principal.role not in SIGN_IN_ROLES:
            raise Forbidden(f"A token of role {principal.role!r} cannot sign in to the web interface: "
                            f"use a token of role interface or admin.")
        session_id = secrets.token_urlsafe(32)
        now = self._clock.now()
        expires = now + self._lifetime
        with database.atomic():
            self._make_room(principal.token_id)
            # The token may be revoked between the check above and here: insert
            # only while it exists, in the same transaction as the check.
            created = database.execute_sql(
                "INSERT INTO web_session (sha256, token_id, created_at, last_seen_at, expires_at)"
                " SELECT ?, id, ?, ?, ? FROM token WHERE id = ?",
                (_digest(session_id), iso(now), iso(now), iso(expires), principal.token_id)).rowcount
        if not created:
            raise Unauthenticated("The token was revoked while signing in; nothing was kept.")
        return StartedSession(session_id, principal, expires)

    def _make_room(self, token_id: int) -> None:
        """End the token's oldest sessions but the newest ``per_token - 1``, so that the
        sign-in about to be kept is the token's ``per_token``-th at most."""
        # Two sign-ins of one token at once take turns (on SQLite, BEGIN IMMEDIATE does):
        # each counts what the other kept.
        dialect.hold(f"web sessions of token {token_id}")
        ended = database.execute_sql(
            "DELETE FROM web_session WHERE token_id = ? AND id NOT IN (SELECT id FROM web_session"
            " WHERE token_id = ? ORDER BY created_at DESC, id DESC LIMIT ?)",
            (token_id, token_id, self._per_token - 1)).rowcount
        if ended:
            log.info("a sign-in of token %d ended its %d oldest web session(s) (HUB_SESSIONS_PER_TOKEN = %d)",
                     token_id, ended, self._per_token)

    def authenticate(self, session_id: str) -> Principal | None:
        """The principal of a live session, or None (unknown, expired, or its token revoked)."""
        live = self.live(session_id)
        return live.principal if live else None

    def live(self, session_id: str) -> LiveSession | None:
        """A live session's principal and end, or None (unknown, expired, or its token revoked)."""
        row = database.execute_sql(
            "SELECT s.id, s.last_seen_at, s.expires_at, t.id, t.name, t.role, t.may_write FROM web_session s"
            " JOIN token t ON t.id = s.token_id WHERE s.sha256 = ?", (_digest(session_id),)).fetchone()
        if row is None:
            return None
        session, last_seen, expires, token_id, name, role, may_write = row
        now = self._clock.now()
        if iso(now) >= expires:
            return None
        if iso(now - timedelta(seconds=TOUCH_SECONDS)) >= last_seen:
            try:
                with database.atomic():
                    WebSession.update(last_seen_at=iso(now)).where(WebSession.id == session).execute()
            except peewee.OperationalError as exc:
                # last_seen_at is for people reading the table: a read is not to fail
                # because it could not be written (the database busy, read-only, full).
                log.warning("a session's last_seen_at was not written: %s", exc)
        return LiveSession(Principal(token_id, name, role, bool(may_write)), expires)

    def why_ended(self, session_id: str) -> str:
        """Why ``session_id`` lets nobody in any more, in words for the person signed in."""
        row = database.execute_sql("SELECT expires_at FROM web_session WHERE sha256 = ?",
                                   (_digest(session_id),)).fetchone()
        if row is not None and iso(self._clock.now()) >= row[0]:
            hours = int(self._lifetime.total_seconds() // 3600)
            return f"Your sign-in expired: a sign-in lasts {hours} hours. Sign in again with your token."
        return ("Your sign-in has ended: you signed out in another tab, it expired, its token signed in "
                f"on more than {self._per_token} browsers since (the oldest sign-in ends), or its token "
                "was revoked. Sign in again with a token.")

    def end(self, session_id: str) -> bool:
        """Sign out: delete the session; whether there was one."""
        with database.atomic():
            return bool(WebSession.delete().where(WebSession.sha256 == _digest(session_id)).execute())

    def expire(self) -> int:
        """Delete the sessions past their end; how many. Idempotent: the worker's housekeeping."""
        with database.atomic():
            return WebSession.delete().where(WebSession.expires_at <= iso(self._clock.now())).execute()

    def count(self, token_id: int | None = None) -> int:
        """Sessions kept (of one token, if given), expired ones not yet deleted included."""
        query = WebSession.select()
        if token_id is not None:
            query = query.where(WebSession.token_id == token_id)
        return query.count()
