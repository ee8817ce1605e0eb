"""``GET /openapi.json``: the API described from the route table and its schemas.

Nothing here is written by hand per endpoint: paths come from the route table,
methods from the resources' responders, request bodies and query parameters
from the JSON Schemas that validate them, and security from each resource's
``roles``. A route added to the table appears here with what it accepts.
"""

from __future__ import annotations

import re

import falcon

from hub import __version__
from hub.api.auth import PUBLIC, roles_for

METHODS = ("get", "post", "put", "delete", "patch")
_PARAM = re.compile(r"\{(\w+)(?::(\w+))?\}")
ERROR = {
    "type": "object",
    "properties": {"title": {"type": "string"}, "description": {"type": "string"},
                   "field": {"type": "string"}},
    "required": ["title", "description"],
}


def build_document(routes: list[tuple[str, object]]) -> dict:
    paths = {}
    for template, resource in routes:
        path = _PARAM.sub(r"{\1}", template)
        operations = {}
        for method in METHODS:
            responder = getattr(resource, f"on_{method}", None)
            if responder is not None:
                operations[method] = _operation(template, resource, method, responder)
        paths[path] = operations
    return {
        "openapi": "3.1.0",
        "info": {"title": "sdlc-hub", "version": __version__,
                 "description": "A mirror of a team's Jira issues; see docs/api.md and "
                                "docs/agent-protocol.md."},
        "components": {
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
            "schemas": {"Error": ERROR},
        },
        "paths": paths,
    }


def _operation(template: str, resource, method: str, responder) -> dict:
    roles = roles_for(resource, method)
    doc = (responder.__doc__ or type(resource).__doc__ or "").strip()
    operation = {
        "summary": doc.splitlines()[0] if doc else "",
        "parameters": [
            {"name": name, "in": "path", "required": True,
             "schema": {"type": "integer", "minimum": 1} if kind in ("id", "int") else {"type": "string"}}
            for name, kind in _PARAM.findall(template)
        ],
        "responses": {
            "200": {"description": "OK", "content": {"application/json": {}}},
            "default": {"description": "Error",
                        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
        },
    }
    query = getattr(responder, "query_schema", None)
    if query is not None:
        operation["parameters"] += [
            {"name": name, "in": "query", "required": name in query.get("required", []), "schema": schema}
            for name, schema in query.get("properties", {}).items()
        ]
    body = getattr(responder, "request_schema", None)
    if body is not None:
        operation["requestBody"] = {"required": True,
                                    "content": {"application/json": {"schema": body}}}
    if roles:
        operation["security"] = [{"bearer": []}]
        operation["x-roles"] = sorted(roles)
    return operation


class OpenAPIResource:
    """The machine-readable description of this API."""

    roles = PUBLIC

    def __init__(self) -> None:
        self._document: dict = {}

    def describe(self, routes: list[tuple[str, object]]) -> None:
        """Describe ``routes``, this resource's own among them."""
        self._document = build_document(routes)

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        resp.media = self._document
