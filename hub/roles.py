"""Who may call a route: the role sets every edge that serves routes declares.

A resource names one of these in its ``roles`` attribute (see
:mod:`hub.api.auth`, which checks them). They live apart from the API so that
the web interface's resources, another edge, can say who may read them without
importing the API's middleware.
"""

from __future__ import annotations

from hub import vocabulary

PUBLIC: frozenset[str] = frozenset()
AGENT = frozenset({vocabulary.AGENT})
INTERFACE = frozenset({vocabulary.INTERFACE, vocabulary.ADMIN})
ADMIN = frozenset({vocabulary.ADMIN})
METRICS = frozenset({vocabulary.METRICS, vocabulary.ADMIN})
# Any token the hub knows, whatever its role.
ANY = frozenset(vocabulary.TOKEN_ROLES)

# The actions an interface may offer (GET /api/v1/me's "may"), each by the method
# and route template that do it: a role may an action when that route's roles let
# it in, so the list follows the route table and is never kept beside it.
ACTIONS: dict[str, tuple[str, str]] = {
    "read": ("GET", "/api/v1/issues"),
    "notes": ("POST", "/api/v1/issues/{key}/notes"),
    "filters": ("POST", "/api/v1/filters"),
    "enqueue_refresh": ("POST", "/api/v1/commands"),
    "refresh_issue": ("POST", "/api/v1/issues/{key}/refresh"),
    "fetch_attachments": ("POST", "/api/v1/attachments/{attachment_id}/fetch"),
    "cancel_commands": ("POST", "/api/v1/commands/{command_id:id}/cancel"),
    "retry_commands": ("POST", "/api/v1/commands/{command_id:id}/retry"),
    "remove_agents": ("DELETE", "/api/v1/agents/{agent_id}"),
    "admin": ("POST", "/api/v1/tokens"),
    "metrics": ("GET", "/metrics"),
    "agent": ("POST", "/agent/v1/claim"),
    # Writes to Jira: for an admin token, or an interface token granted them (--write).
    "write": ("POST", "/api/v1/issues/{key}/comments"),
}

