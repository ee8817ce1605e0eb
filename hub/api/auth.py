"""Bearer-token authentication and role checks, for every route.

Each resource says who may call it with a ``roles`` attribute: a set of roles,
or :data:`PUBLIC`, or a mapping from HTTP method to either when methods differ.
A resource (or method) that says nothing is admin-only, so a route added
without thought is closed rather than open.
"""

from __future__ import annotations

import falcon

from hub import vocabulary
from hub.services.tokens import TokenService

PUBLIC: frozenset[str] = frozenset()
AGENT = frozenset({vocabulary.AGENT})
INTERFACE = frozenset({vocabulary.INTERFACE, vocabulary.ADMIN})
ADMIN = frozenset({vocabulary.ADMIN})
METRICS = frozenset({vocabulary.METRICS, vocabulary.ADMIN})
# Any token the hub knows, whatever its role.
ANY = frozenset(vocabulary.TOKEN_ROLES)


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


def roles_for(resource, method: str) -> frozenset[str]:
    """The roles that may call ``method`` on ``resource`` (empty: anyone)."""
    roles = getattr(resource, "roles", ADMIN)
    if isinstance(roles, dict):
        return roles.get(method.upper(), ADMIN)
    return roles
