"""``GET /api/v1/whoami``: the token's own name and role, for any token the hub knows.

The cheapest authenticated call there is (the token check and nothing else), so
a service in front of the hub can ask whether the hub accepts a token before it
does any work for its bearer: ``hub mcp --http`` does so before a request reaches
the MCP SDK.
"""

from __future__ import annotations

import falcon

from hub.api import schemas
from hub.api.auth import ANY
from hub.api.openapi import responds


class WhoamiResource:
    roles = ANY

    @responds(answers=schemas.WHOAMI)
    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        """The token's name and role: 200 for any token the hub knows, 401 for any other."""
        principal = req.context.principal
        resp.media = {"name": principal.name, "role": principal.role}
