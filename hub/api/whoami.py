"""``GET /api/v1/whoami`` and ``GET /api/v1/me``: who the caller is, for any token the hub knows.

``whoami`` is the cheapest authenticated call there is (the token check and
nothing else), so a service in front of the hub can ask whether the hub accepts
a token before it does any work for its bearer: ``hub mcp --http`` does so before
a request reaches the MCP SDK.

``me`` adds what the caller's role may do, so that an interface offers only the
actions it may use. Each action is named by the route that does it, and a role
may the action when the route table's ``roles`` for that route and method let it
in: the list follows the routes' roles, never a copy of them.
"""

from __future__ import annotations

import falcon

from hub import vocabulary
from hub.api import schemas
from hub.api.auth import ANY, roles_for, writes_to_jira
from hub.api.openapi import responds
from hub.roles import ACTIONS


def actions_by_role(routes: list[tuple[str, object]]) -> dict[str, tuple[str, ...]]:
    """What each role may do, from the roles of the routes in ``routes``.

    Raises LookupError when an action's route is not in the table, so that a
    route renamed without this table following fails at start, not on screen.
    """
    table = dict(routes)
    may: dict[str, list[str]] = {role: [] for role in vocabulary.TOKEN_ROLES}
    for action, (method, template) in ACTIONS.items():
        if template not in table:
            raise LookupError(f"action {action!r} names {template}, which is no route")
        for role in roles_for(table[template], method):
            may[role].append(action)
    return {role: tuple(actions) for role, actions in may.items()}


class WhoamiResource:
    roles = ANY

    @responds(answers=schemas.WHOAMI)
    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        """The token's name and role: 200 for any token the hub knows, 401 for any other."""
        principal = req.context.principal
        resp.media = {"name": principal.name, "role": principal.role}


class MeResource:
    """The caller's token name, role and the actions its role may use."""

    roles = ANY

    def __init__(self) -> None:
        self._may: dict[str, tuple[str, ...]] = {}
        self._writes: frozenset[str] = frozenset()

    def describe(self, routes: list[tuple[str, object]]) -> None:
        """Learn what each role may do from the route table ``routes``."""
        self._may = actions_by_role(routes)
        table = dict(routes)
        # Actions that write to Jira: a role's token may them only when granted writes.
        self._writes = frozenset(action for action, (method, template) in ACTIONS.items()
                                 if writes_to_jira(table[template], method))

    @responds(answers=schemas.ME)
    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        """The token's name, role and what its role may do: 200 for any token the hub knows."""
        principal = req.context.principal
        resp.media = {"name": principal.name, "role": principal.role,
                      "may": [action for action in self._may.get(principal.role, ())
                              if principal.can_write or action not in self._writes]}
