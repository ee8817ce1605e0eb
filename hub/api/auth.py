"""Authentication and role checks, for every route: a bearer token, or the web page's session cookie.

Each resource says who may call it with a ``roles`` attribute: a set of roles,
or :data:`PUBLIC`, or a mapping from HTTP method to either when methods differ.
A resource (or method) that says nothing is admin-only, so a route added
without thought is closed rather than open.

A request speaks for a token in one of two ways. Scripts, agents and the MCP
server send ``Authorization: Bearer <token>``, which wins whenever it is sent.
The web page signs in once (``POST /api/v1/session``, :mod:`hub.api.session`)
and from then on sends the session cookie, which a browser adds by itself —
also to a request another site makes it send. So a write that comes with the
cookie alone must show it comes from the hub's own page
(:func:`require_same_origin`): no ``Sec-Fetch-Site`` but ``same-origin``, no
``Origin`` but the hub's own, and the ``X-Hub-Request: 1`` header the page
always sends, which no cross-site form can send and no cross-site script may
without a CORS preflight the hub never grants. A resource with ``same_origin =
True`` (the session's own routes, whose sign-in takes no cookie) is checked so
for every write, however it authenticates.

Every answer of a route that needs a token — its errors, its downloads and the
401 of a missing token included — carries ``Cache-Control: no-store``: what a
token may read is for that token only, and no browser or proxy cache is to keep
it. The public routes (``/healthz``, ``/openapi.json``, the web page and its
files) keep their own caching.
"""

from __future__ import annotations

from collections.abc import Iterable

import falcon

from hub.roles import ADMIN, AGENT, ANY, INTERFACE, METRICS, PUBLIC
from hub.services.access.sessions import SessionService
from hub.services.access.tokens import Principal, TokenService

# The role sets are defined in hub.roles; resources keep importing them from here.
__all__ = ["ADMIN", "AGENT", "ANY", "INTERFACE", "METRICS", "NO_STORE", "PRIVATE_PATHS", "PUBLIC",
           "REQUEST_HEADER", "SESSION_COOKIE", "AuthMiddleware", "over_tls", "require_same_origin",
           "roles_for", "writes_to_jira"]
# What every answer of a route that needs a token says to caches.
NO_STORE = "no-store"
PRIVATE_PATHS = ("/api/", "/agent/")
# The web page's session cookie, and the header its every request carries.
SESSION_COOKIE = "hub_session"
REQUEST_HEADER = "X-Hub-Request"
WRITES = frozenset({"POST", "PUT", "PATCH", "DELETE"})


class AuthMiddleware:
    def __init__(self, tokens: TokenService, sessions: SessionService, trusted_proxies: Iterable[str] = ()):
        self._tokens = tokens
        self._sessions = sessions
        self._trusted = frozenset(trusted_proxies)

    def process_resource(self, req: falcon.Request, resp, resource, params) -> None:
        if resource is None:  # no route: let the 404 through
            return
        if getattr(resource, "same_origin", False) and req.method in WRITES:
            require_same_origin(req, self._trusted)
        roles = roles_for(resource, req.method)
        if not roles:  # PUBLIC
            return
        header = req.get_header("Authorization")
        session = req.cookies.get(SESSION_COOKIE)
        # The bearer token wins: a script's request is never taken for the page's.
        principal = self._session(req, resp, session) if header is None and session else self._bearer(header or "")
        # Known before the role is checked, so that the request log names who was refused.
        req.context.principal = principal
        if principal.role not in roles:
            raise falcon.HTTPForbidden(
                title="Wrong role",
                description=f"This needs a token of role {' or '.join(sorted(roles))}; "
                f"token {principal.name!r} has role {principal.role!r}.",
            )
        if writes_to_jira(resource, req.method) and not principal.can_write:
            raise falcon.HTTPForbidden(
                title="Writes not granted",
                description=f"Token {principal.name!r} may not write to Jira; an admin grants it: "
                "hub token add NAME --role interface --write",
            )

    def _bearer(self, header: str) -> Principal:
        scheme, _, token = header.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise falcon.HTTPUnauthorized(
                title="Token required",
                description="Send 'Authorization: Bearer <token>', or sign in on the hub's web page.",
                challenges=["Bearer"],
            )
        principal = self._tokens.authenticate(token.strip())
        if principal is None:
            raise falcon.HTTPUnauthorized(
                title="Unknown token",
                description="The token is not known to this hub (revoked or mistyped).",
                challenges=["Bearer"],
            )
        return principal

    def _session(self, req: falcon.Request, resp: falcon.Response, session: str) -> Principal:
        principal = self._sessions.authenticate(session)
        if principal is None:
            # The cookie is left as it is (it opens nothing): every request and every load of the
            # page until the next sign-in or sign-out can still be told why it ended.
            raise falcon.HTTPUnauthorized(title="Signed out", description=self._sessions.why_ended(session),
                                          challenges=["Bearer"])
        req.context.session = True
        if req.method in WRITES:
            require_same_origin(req, self._trusted)
        return principal

    def process_response(self, req: falcon.Request, resp: falcon.Response, resource,
                         req_succeeded: bool) -> None:
        # Here rather than in each responder: it runs after the error handlers
        # too, so no answer of a private route can miss it. The API's and the
        # agent protocol's paths are private whether a route matched or not.
        if (resource is not None and roles_for(resource, req.method)) or req.path.startswith(PRIVATE_PATHS):
            resp.set_header("Cache-Control", NO_STORE)


def writes_to_jira(resource, method: str) -> bool:
    """Whether ``method`` on ``resource`` asks for a write to Jira, which only an admin token or one
    granted writes may (the resource's ``jira_writes``: the methods that do)."""
    return method.upper() in getattr(resource, "jira_writes", ())


def roles_for(resource, method: str) -> frozenset[str]:
    """The roles that may call ``method`` on ``resource`` (empty: anyone)."""
    roles = getattr(resource, "roles", ADMIN)
    if isinstance(roles, dict):
        # A method the resource does not answer is open to whoever may call one it does: its
        # answer is the 405 the method deserves, not a 403 that says the role is wrong.
        if method.upper() in roles:
            return roles[method.upper()]
        answered = list(roles.values())
        if not answered:
            return ADMIN
        return PUBLIC if PUBLIC in answered else frozenset().union(*answered)
    return roles


def over_tls(req: falcon.Request, trusted_proxies: Iterable[str]) -> bool:
    """Whether ``req`` reached the hub over TLS: the request's scheme, or a trusted
    proxy's ``X-Forwarded-Proto: https`` (its first value: the proxy nearest the client).

    Under ``hub serve`` with one trusted proxy, waitress has already made that proxy's
    ``X-Forwarded-Proto`` the scheme and deleted anyone else's; with several, it passes
    the header on and the peer's address is checked here (:mod:`hub.server`).
    """
    if req.scheme == "https":
        return True
    forwarded = (req.get_header("X-Forwarded-Proto") or "").split(",")[0].strip().lower()
    return forwarded == "https" and req.remote_addr in frozenset(trusted_proxies)


def own_origin(req: falcon.Request, trusted_proxies: Iterable[str]) -> str:
    """The hub's origin as the browser sees it: the scheme it was reached by, and its Host."""
    scheme = "https" if over_tls(req, trusted_proxies) else req.scheme
    return f"{scheme}://{req.get_header('Host') or req.netloc}".lower()


def require_same_origin(req: falcon.Request, trusted_proxies: Iterable[str]) -> None:
    """Refuse (403) a write that may come from another site: one a browser sends with the
    hub's cookie on behalf of a page that is not the hub's."""
    fetch_site = req.get_header("Sec-Fetch-Site")
    if fetch_site is not None and fetch_site.lower() != "same-origin":
        raise _cross_site(f"the browser says it comes from {fetch_site!r}, not from the hub's "
                          "own page (Sec-Fetch-Site: same-origin).")
    origin = req.get_header("Origin")
    own = own_origin(req, trusted_proxies)
    if origin is not None and origin.lower() != own:
        raise _cross_site(f"it comes from the page of {origin[:100]!r}, not from the hub's own ({own!r}).")
    if req.get_header(REQUEST_HEADER) != "1":
        raise _cross_site(f"it lacks the header '{REQUEST_HEADER}: 1' the hub's page sends with "
                          "every request.")


def _cross_site(why: str) -> falcon.HTTPForbidden:
    return falcon.HTTPForbidden(
        title="Cross-site request refused",
        description=f"This write was refused because {why} Writes with the hub's session cookie "
                    "are taken from the hub's own web page only; scripts send "
                    "'Authorization: Bearer <token>' instead.",
    )
