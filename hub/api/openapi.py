"""``GET /openapi.json``: the API described from the route table and its schemas.

Nothing here is written by hand per endpoint: paths come from the route table,
methods from the resources' responders, request bodies and query parameters
from the JSON Schemas that validate them, security from each resource's
``roles``, and success statuses, media types and state conflicts from each
responder's :func:`responds`. The error statuses follow from those: 401 and
403 where a token is needed, 400 and 404 where the path names something (400: a
segment that decodes to ``/``, ``.`` or ``..``, see :mod:`hub.api.paths`), 400, 413 and
422 where a body or a query is read, 503 wherever the database is used. A
route added to the table appears here with what it accepts and answers.
"""

from __future__ import annotations

import re
from typing import Any

import falcon

from hub import __version__
from hub.api import schemas
from hub.api.auth import NO_STORE, PUBLIC, roles_for, writes_to_jira

METHODS = ("get", "head", "post", "put", "delete", "patch")
JSON = "application/json"
OCTETS = "application/octet-stream"
_PARAM = re.compile(r"\{(\w+)(?::(\w+))?\}")
ERROR = {
    "type": "object",
    "properties": {"title": {"type": "string"}, "description": {"type": "string"},
                   "field": {"type": "string"},
                   "position": {"type": "object", "description": "where a JQL query's error is (jql=): "
                                "line 1, the 1-based character",
                                "properties": {"line": {"type": "integer"}, "character": {"type": "integer"}}}},
    "required": ["title", "description"],
}
# Path parameters by name (or by converter, for ``{name:id}``): what the
# services can find. Anything else names nothing: 404.
# A label in a path is any text: projects made from a v3 hub's base JQL may
# carry labels with spaces, which the pattern for new ones refuses. But no
# path segment holds a '/' or is '.' or '..' (hub.api.paths answers 400).
SEGMENT = {"type": "string", "minLength": 1, "maxLength": 255,
           "pattern": r"^(?!\.\.?(?![\s\S]))[^/]+(?![\s\S])",
           "description": "one path segment: no '/', and not '.' or '..' (400)"}
PATH_SCHEMAS = {"key": schemas.ISSUE_KEY, "attachment_id": schemas.ATTACHMENT_ID,
                "comment_id": schemas.JIRA_ID, "link_id": schemas.JIRA_ID,
                "label": SEGMENT, "name": schemas.TOKEN_NAME,
                "agent_id": {**schemas.AGENT_ID, "pattern": SEGMENT["pattern"],
                             "description": SEGMENT["description"]}}
CONVERTER_SCHEMAS = {"id": schemas.ID}
_TEXT = {"schema": {"type": "string"}}
# Every answer carries the id of its request's log line (hub.api.requests).
REQUEST_ID = {"X-Request-Id": {"description": "the request's id in the hub's log: the proxy's "
                               "X-Request-Id when it is a plain token, else one the hub made",
                               "required": True, **_TEXT}}
# Every answer of a route that needs a token, errors included (hub.api.auth).
NO_STORE_HEADER = {"Cache-Control": {"description": "no-store: an answer to a token is for that token only, "
                                     "and no cache keeps it", "required": True,
                                     "schema": {"type": "string", "const": NO_STORE}}}
ERROR_STATUSES: dict[int, tuple[str, dict]] = {
    400: ("Malformed: the body is not JSON, or nests too deep; or the path holds an encoded / "
          "(%2F) or a . or .. segment", {}),
    401: ("No token, or one this hub does not know", {"WWW-Authenticate": {**_TEXT, "required": True}}),
    403: ("The token's role may not call this", {}),
    404: ("Nothing by that name or id", {}),
    409: ("The request does not fit the current state", {}),
    413: ("The body is too large", {}),
    416: ("The range starts past the end of the file", {"Content-Range": _TEXT}),
    422: ("Valid JSON that breaks the contract; field names the offending field", {}),
    429: ("The token has as many commands queued as HUB_QUEUED_COMMANDS_PER_TOKEN allows; retry later",
          {"Retry-After": {**_TEXT, "required": True}}),
    503: ("The database stayed busy, or cannot be used (read-only, I/O error), or a JQL query or a search "
          "(q) ran past HUB_JQL_TIMEOUT_SECONDS and was stopped; retry later",
          {"Retry-After": {**_TEXT, "required": False}}),
    507: ("The hub's disk is full; nothing was written", {}),
}
WRITES = ("post", "put", "patch", "delete")


def responds(*statuses: int, media: str = JSON, errors: tuple[int, ...] = (),
             headers: dict[int, dict] | None = None, location: str | None = None,
             request_media: str | None = None, header_params: tuple[dict, ...] = (),
             db: bool = True, operation_id: str | None = None, answers: dict | None = None):
    """Declare what the decorated responder answers, for ``/openapi.json``.

    ``statuses`` are its success statuses (200 by default) with body ``media``;
    ``errors`` the statuses it gives beyond those that follow from its route
    (409 for a state conflict, ...). ``headers`` adds response headers by
    status; ``location`` is the path template a 201's ``Location`` names.
    ``request_media`` is a body that is not JSON (read raw); ``header_params``
    are the request headers it reads; ``db`` is False for the one responder
    that never touches the database. ``answers`` is the JSON Schema of its JSON
    body, where the document gives one.
    """
    declared = _declaration(statuses, media, errors, headers, location, request_media,
                            header_params, db, operation_id, answers)

    def decorate(responder):
        responder.responses = declared
        return responder

    return decorate


def _declaration(statuses=(), media=JSON, errors=(), headers=None, location=None,
                 request_media=None, header_params=(), db=True, operation_id=None, answers=None) -> dict:
    return {"statuses": statuses or (200,), "media": media, "errors": errors,
            "headers": headers or {}, "location": location, "request_media": request_media,
            "header_params": header_params, "db": db, "operation_id": operation_id, "answers": answers}


def build_document(routes: list[tuple[str, object]]) -> dict:
    """The OpenAPI 3.1 document of ``routes``."""
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


def _operation_id(resource, method: str) -> str:
    name = type(resource).__name__.removesuffix("Resource")
    return method + name[:1].upper() + name[1:]


def _operation(template: str, resource, method: str, responder) -> dict:
    roles = roles_for(resource, method)
    # A route whose methods several resources answer (hub.api.methods) names each by its own.
    owner = getattr(responder, "__self__", resource)
    doc = (responder.__doc__ or type(owner).__doc__ or "").strip()
    declared = getattr(responder, "responses", None) or _declaration()
    if method == "head":
        # HEAD answers as GET does, headers and statuses alike, without a body.
        declared = getattr(getattr(resource, "on_get", None), "responses", None) or declared
    operation: dict[str, Any] = {
        "operationId": declared["operation_id"] or _operation_id(owner, method),
        "summary": doc.splitlines()[0] if doc else _operation_id(owner, method),
        "parameters": [
            {"name": name, "in": "path", "required": True,
             "schema": CONVERTER_SCHEMAS.get(kind) or PATH_SCHEMAS.get(name, {"type": "string"})}
            for name, kind in _PARAM.findall(template)
        ],
    }
    errors = set(declared["errors"])
    query = getattr(responder, "query_schema", None)
    if query is not None:
        errors.add(422)
        operation["parameters"] += [
            {"name": name, "in": "query", "required": name in query.get("required", []), "schema": schema}
            for name, schema in query.get("properties", {}).items()
        ]
    operation["parameters"] += list(declared["header_params"])
    body = getattr(responder, "request_schema", None)
    if body is not None:
        errors |= {400, 413, 422}
        operation["requestBody"] = {"required": not getattr(responder, "request_optional", False),
                                    "content": {JSON: {"schema": body}}}
    elif declared["request_media"]:
        errors.add(413)
        operation["requestBody"] = {"required": True, "content": {
            declared["request_media"]: {"schema": {"type": "string", "contentMediaType": declared["request_media"]}}}}
    if _PARAM.search(template):
        errors |= {400, 404}
    if roles:
        errors |= {401, 403}
        operation["security"] = [{"bearer": []}]
        operation["x-roles"] = sorted(roles)
        if writes_to_jira(resource, method):
            # Of those roles, an admin token or an interface token granted writes (--write).
            operation["x-writes-to-jira"] = True
    if declared["db"]:
        errors.add(503)
        if method in WRITES:
            errors.add(507)
    operation["responses"] = {**_successes(declared, body=method != "head"), **{
        str(status): _error_response(status) for status in sorted(errors)}}
    if roles:
        for response in operation["responses"].values():
            response["headers"] = {**response["headers"], **NO_STORE_HEADER}
    return operation


def _successes(declared: dict, body: bool = True) -> dict:
    responses = {}
    for status in declared["statuses"]:
        response: dict = {"description": falcon.code_to_http_status(status)[4:]}
        if body and status not in (204, 304):
            media = declared["media"]
            json_body = {"schema": declared["answers"]} if declared["answers"] else {}
            response["content"] = {media: json_body if media == JSON else {"schema": {"type": "string"}}}
            if media != JSON:
                response["content"]["*/*"] = {"schema": {"type": "string"}}
        headers = {**REQUEST_ID, **declared["headers"].get(status, {})}
        if status == 201 and declared["location"]:
            headers["Location"] = {"description": f"the new resource: {declared['location']}",
                                   "required": True, **_TEXT}
        response["headers"] = headers
        responses[str(status)] = response
    return responses


def _error_response(status: int) -> dict:
    description, headers = ERROR_STATUSES[status]
    return {"description": description, "headers": {**REQUEST_ID, **headers},
            "content": {JSON: {"schema": {"$ref": "#/components/schemas/Error"}}}}


_DOCUMENTS: dict[tuple, dict] = {}


class OpenAPIResource:
    """The machine-readable description of this API."""

    roles = PUBLIC

    def __init__(self) -> None:
        self._document: dict = {}

    def describe(self, routes: list[tuple[str, object]]) -> None:
        """Describe ``routes``, this resource's own among them."""
        # The document follows from the templates and the resources' classes alone, so the
        # apps of one process (a test run builds thousands) share the one built for a table.
        key = tuple((template, type(resource)) for template, resource in routes)
        if key not in _DOCUMENTS:
            _DOCUMENTS[key] = build_document(routes)
        self._document = _DOCUMENTS[key]

    @responds(db=False, operation_id="getOpenAPI")
    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        """This document: the API as OpenAPI 3.1."""
        resp.media = self._document
