"""``/api/v1/session``: the web page signs in with a token, and out again.

``GET`` says whether the cookie sent (if any) signs the browser in, without a
401 when it does not: the page asks it whenever it loads. ``POST`` takes
``{"token": "…"}`` (an interface or admin token) and answers 201 with a
session cookie: ``HttpOnly`` (no script reads it), ``SameSite=Strict``
(no other site's page sends it), ``Path=/``, ``Max-Age`` of
``HUB_SESSION_HOURS``, and ``Secure`` when the request came over TLS. The page
then forgets the token. ``DELETE`` ends the session on the hub and clears the
cookie. Both are writes checked against cross-site requests
(:func:`hub.api.auth.require_same_origin`): a foreign page can neither sign a
browser in under its own token nor sign it out.
"""

from __future__ import annotations

from collections.abc import Iterable

import falcon

from hub.api import schemas
from hub.api.auth import PUBLIC, REQUEST_HEADER, SESSION_COOKIE, over_tls
from hub.api.openapi import responds
from hub.api.validation import accepts
from hub.clock import iso
from hub.services.access.sessions import SessionService

_SET_COOKIE = {"Set-Cookie": {"description": f"{SESSION_COOKIE}=…; HttpOnly; SameSite=Strict; Path=/; "
                              "Max-Age (HUB_SESSION_HOURS); Secure over TLS", "required": True,
                              "schema": {"type": "string"}}}
_CLEAR_COOKIE = {"Set-Cookie": {"description": f"{SESSION_COOKIE}= with an expiry in the past: the browser "
                                "forgets the cookie", "required": True, "schema": {"type": "string"}}}
_REQUEST_HEADER = {"name": REQUEST_HEADER, "in": "header", "required": True,
                   "description": "1: what the hub's page sends, and no cross-site form can (else 403)",
                   "schema": {"type": "string", "const": "1"}}


class SessionResource:
    """The web page's sign-in: a token exchanged for a session cookie."""

    roles = PUBLIC
    # Every write here is refused unless it comes from the hub's own page.
    same_origin = True

    def __init__(self, sessions: SessionService, trusted_proxies: Iterable[str] = ()):
        self._sessions = sessions
        self._trusted = tuple(trusted_proxies)

    @responds(answers=schemas.SESSION_STATE)
    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        """Whether the session cookie sent signs this browser in: 200 either way (the page asks
        it on every load, and a signed-out page is no error), with why a sent one no longer does."""
        session = req.cookies.get(SESSION_COOKIE)
        live = self._sessions.live(session) if session else None
        if live is None:
            resp.media = {"session": None, "ended": self._sessions.why_ended(session) if session else None}
            return
        resp.media = {"session": {"name": live.principal.name, "role": live.principal.role,
                                  "expires_at": live.expires_at}, "ended": None}

    @responds(201, errors=(401, 403), headers={201: _SET_COOKIE}, location="/api/v1/session",
              header_params=(_REQUEST_HEADER,), answers=schemas.SESSION)
    @accepts(schemas.NEW_SESSION)
    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        """Sign in: 201 with the session cookie; 401 for a token the hub does not know, 403 for an
        agent's or a scraper's."""
        started = self._sessions.start(req.context.body["token"])
        # The request log names who signed in, as it names the token of any other request.
        req.context.principal = started.principal
        resp.set_cookie(SESSION_COOKIE, started.session_id,
                        max_age=int(self._sessions.lifetime.total_seconds()), path="/",
                        secure=over_tls(req, self._trusted), http_only=True, same_site="Strict")
        resp.status = falcon.HTTP_201
        resp.location = "/api/v1/session"
        resp.media = {"name": started.principal.name, "role": started.principal.role,
                      "expires_at": iso(started.expires_at)}

    @responds(204, errors=(403,), headers={204: _CLEAR_COOKIE}, header_params=(_REQUEST_HEADER,))
    def on_delete(self, req: falcon.Request, resp: falcon.Response) -> None:
        """Sign out: the session the cookie names ends on the hub (if it still was), and the cookie
        is cleared: 204 either way."""
        session = req.cookies.get(SESSION_COOKIE)
        if session:
            self._sessions.end(session)
        resp.unset_cookie(SESSION_COOKIE, path="/", same_site="Strict")
        resp.status = falcon.HTTP_204
