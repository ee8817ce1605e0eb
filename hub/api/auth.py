"""Bearer-token authentication and role checks, for every route.

Each resource says who may call it with a ``roles`` attribute: a set of roles,
or :data:`PUBLIC`, or a mapping from HTTP method to either when methods differ.
A resource (or method) that says nothing is admin-only, so a route added
without thought is closed rather than open.

Every answer of a route that needs a token — its errors, its downloads and the
401 of a missing token included — carries ``Cache-Control: no-store``: what a
token may read is for that token only, and no browser or proxy cache is to keep
it. The public routes (``/healthz``, ``/openapi.json``, the web page and its
files) keep their own caching.
"""

from __future__ import annotations

import falcon

from hub.roles import ADMIN, AGENT, ANY, INTERFACE, METRICS, PUBLIC
from hub.services.tokens import TokenService

# The role sets are defined in hub.roles; resources keep importing them from here.
__all__ = ["ADMIN", "AGENT", "ANY", "INTERFACE", "METRICS", "NO_STORE", "PRIVATE_PATHS", "PUBLIC", "AuthMiddleware",
           "roles_for"]
# What every answer of a route that needs a token says to caches.
NO_STORE = "no-store"
PRIVATE_PATHS = ("/api/", "/agent/")


class AuthMiddleware:
    def __init__(self, tokens: TokenService):
        self._tokens = tokens

    def process_resource(self, req: falcon.Request, resp, resource, params) -> None:
        if resource is None:  # no route: let the 404 through
            return
        roles = roles_for(resource, req.method)
        if not roles:  # PUBLIC
            return
        header = req.get_header("Authorization") or ""
        scheme, _, token = header.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise falcon.HTTPUnauthorized(
                title="Token required",
                description="Send 'Authorization: Bearer <token>'.",
                challenges=["Bearer"],
            )
        principal = self._tokens.authenticate(token.strip())
        if principal is None:
            raise falcon.HTTPUnauthorized(
                title="Unknown token",
                description="The token is not known to this hub (revoked or mistyped).",
                challenges=["Bearer"],
            )
        # Known before the role is checked, so that the request log names who was refused.
        req.context.principal = principal
        if principal.role not in roles:
            raise falcon.HTTPForbidden(
                title="Wrong role",
                description=f"This needs a token of role {' or '.join(sorted(roles))}; "
                f"token {principal.name!r} has role {principal.role!r}.",
            )

    def process_response(self, req: falcon.Request, resp: falcon.Response, resource,
                         req_succeeded: bool) -> None:
        # Here rather than in each responder: it runs after the error handlers
        # too, so no answer of a private route can miss it. The API's and the
        # agent protocol's paths are private whether a route matched or not.
        if (resource is not None and roles_for(resource, req.method)) or req.path.startswith(PRIVATE_PATHS):
            resp.set_header("Cache-Control", NO_STORE)


def roles_for(resource, method: str) -> frozenset[str]:
    """The roles that may call ``method`` on ``resource`` (empty: anyone)."""
    roles = getattr(resource, "roles", ADMIN)
    if isinstance(roles, dict):
        return roles.get(method.upper(), ADMIN)
    return roles
