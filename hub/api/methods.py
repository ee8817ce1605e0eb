"""One route answered by the resources of several areas, each for its own methods.

A path such as ``/api/v1/issues/{key}/comments`` is read in the issues' area (GET) and written
through in the writes' area (POST); Falcon takes one resource per path, and the areas import none
of each other. :class:`Methods` is that one resource: each method's responder is the first given
resource's that has one, with that resource's roles and ``jira_writes``, so that authentication,
``/openapi.json`` and ``GET /api/v1/me`` read it as they read any resource.
"""

from __future__ import annotations

from hub.api.auth import roles_for, writes_to_jira

METHODS = ("get", "head", "post", "put", "patch", "delete")


class Methods:
    """A route's methods, taken from ``resources`` in order (the first with a responder wins)."""

    def __init__(self, *resources: object):
        roles: dict[str, frozenset[str]] = {}
        jira_writes: set[str] = set()
        for resource in resources:
            for method in METHODS:
                responder = getattr(resource, f"on_{method}", None)
                if responder is None or method.upper() in roles:
                    continue
                setattr(self, f"on_{method}", responder)
                roles[method.upper()] = roles_for(resource, method)
                if writes_to_jira(resource, method):
                    jira_writes.add(method.upper())
        # One role set for every method, as a single resource's: a method none answers is then
        # refused by Falcon (405, or 400 for no method at all) to anyone who may call the route.
        shared = set(roles.values())
        self.roles: dict[str, frozenset[str]] | frozenset[str] = shared.pop() if len(shared) == 1 else roles
        self.jira_writes = frozenset(jira_writes)
