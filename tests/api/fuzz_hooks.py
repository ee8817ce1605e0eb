"""Schemathesis hooks for tests/api/test_fuzz.py.

Each operation is called with the token of one role it is open to (its ``x-roles``): the
agent's for the agent protocol, the interface's for what the interface may do (and for
the operations that need no token), the admin's for what only an admin may do; an operation
that writes to Jira (``x-writes-to-jira``) is called with an interface token granted writes
(``writer``). The tokens come in ``HUB_FUZZ_TOKENS``, a JSON object by role.

Long-polls (``wait`` on claims and attachment reads) may hold a request for
up to 30 s; valid waits are cut to one second so that the run stays short.
Invalid ones are left alone: they are refused at once, and must be.
"""

from __future__ import annotations

import json
import os

import schemathesis

# The role an operation is called with: the first of these its x-roles name.
ROLES_IN_TURN = ("agent", "interface", "admin")


def _short(container):
    if isinstance(container, dict):
        wait = container.get("wait")
        if isinstance(wait, (int, float)) and not isinstance(wait, bool) and 1 < wait <= 30:
            container["wait"] = 1
        elif isinstance(wait, str) and wait.isdigit() and 1 < int(wait) <= 30:
            container["wait"] = "1"
    return container


@schemathesis.hook
def map_case(context, case):
    _short(case.body)
    _short(case.query)
    return case


@schemathesis.auth(refresh_interval=None, retry_on=[])
class RoleToken:
    """The bearer token of the first role in :data:`ROLES_IN_TURN` the operation is open to."""

    def get(self, case, ctx):
        raw = case.operation.definition.raw
        roles = raw.get("x-roles") or ["interface"]
        role = next((role for role in ROLES_IN_TURN if role in roles), "admin")
        if role == "interface" and raw.get("x-writes-to-jira"):
            role = "writer"
        return json.loads(os.environ["HUB_FUZZ_TOKENS"])[role]

    def set(self, case, data, ctx):
        case.headers = {**(case.headers or {}), "Authorization": f"Bearer {data}"}
