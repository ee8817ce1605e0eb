"""Paths as the client sent them: one segment is one segment, and names what it says.

waitress decodes the path before the app sees it (``PATH_INFO``), so
``/api/v1/issues/AURORA-1%2Fnotes`` would reach the notes route and
``/api/v1/issues/%2e%2e`` would name an issue ``..``. :class:`PathGuard` reads
the raw request target (``REQUEST_URI``, which waitress sets; ``RAW_URI`` under
gunicorn) and refuses, before routing, a path holding an encoded ``/`` or a
segment that is ``.`` or ``..`` in either spelling: 400, whatever the route.

After routing, the path parameters that name Jira's things are checked against
the shapes Jira gives them (:mod:`hub.vocabulary`): an issue key or an
attachment id that Jira cannot have made is 404, as a command id that is no
number is (the ``id`` converter), with a message that says why. An issue key
is read in any case (``aurora-12`` is AURORA-12, as in Jira), upper-cased
before the check.
"""

from __future__ import annotations

import re
from urllib.parse import unquote

import falcon

from hub.errors import NotFound
from hub.vocabulary import ISSUE_KEY_PATTERN, JIRA_ID_PATTERN

_ENCODED_SLASH = re.compile(r"%2f", re.IGNORECASE)
_DOT_SEGMENTS = frozenset({".", ".."})
# Path parameters that name Jira's things, and what they must look like.
_SHAPES = {
    "key": (re.compile(ISSUE_KEY_PATTERN), "an issue key",
            "Jira's keys are a project key and a number, like AURORA-12"),
    "attachment_id": (re.compile(JIRA_ID_PATTERN), "an attachment id",
                      "Jira's attachment ids are numbers, like 10001"),
    "comment_id": (re.compile(JIRA_ID_PATTERN), "a comment id", "Jira's comment ids are numbers, like 10001"),
    "link_id": (re.compile(JIRA_ID_PATTERN), "a link id", "Jira's issue link ids are numbers, like 10001"),
}
_KEY = _SHAPES["key"][0]
# How much of a refused value an answer quotes.
EXCERPT_CHARS = 40


def raw_path(environ: dict) -> str:
    """The path of the request target as sent, still percent-encoded; the
    decoded ``PATH_INFO`` when the server does not say (Falcon's test client)."""
    raw = environ.get("REQUEST_URI") or environ.get("RAW_URI")
    if not raw:
        return environ.get("PATH_INFO", "")
    path = raw.split("?", 1)[0].split("#", 1)[0]
    if not path.startswith("/") and "://" in path:  # absolute-form: http://host/path
        path = "/" + path.split("://", 1)[1].partition("/")[2]
    return path


def path_problem(path: str) -> str | None:
    """What is wrong with a raw path, or None: an encoded ``/``, or a ``.`` or
    ``..`` segment, plain or percent-encoded."""
    if _ENCODED_SLASH.search(path):
        return "an encoded '/' (%2F)"
    if any(unquote(segment, errors="replace") in _DOT_SEGMENTS for segment in path.split("/")):
        return "a '.' or '..' segment"
    return None


class PathGuard:
    """Falcon middleware; put it after authentication, so that a refused
    parameter is refused to a caller who may call the route at all."""

    def process_request(self, req: falcon.Request, resp: falcon.Response) -> None:
        problem = path_problem(raw_path(req.env))
        # The decoded path too: a server that keeps no raw target still keeps dot segments.
        if problem is None and any(segment in _DOT_SEGMENTS for segment in req.path.split("/")):
            problem = "a '.' or '..' segment"
        if problem is not None:
            raise falcon.HTTPBadRequest(
                title="Bad path",
                description=f"The path holds {problem}: each segment of a path names one "
                            "thing, and none is '.' or '..'.")

    def process_resource(self, req: falcon.Request, resp: falcon.Response, resource,
                         params: dict) -> None:
        key = params.get("key")
        # Keys are matched in any case, as Jira matches them: the route is given the key as
        # Jira writes it (ASCII capitals only: no other letter may turn into one), and the
        # resource answers under it (``Content-Location``), as for an old key of a moved issue.
        # A value that is no key in any case is refused as the client wrote it.
        if key is not None and key.isascii() and _KEY.match(key.upper()):
            req.context.key_asked = key
            params["key"] = key.upper()
        for name, (pattern, what, hint) in _SHAPES.items():
            value = params.get(name)
            if value is not None and not pattern.match(value):
                raise NotFound(f"{_excerpt(value)} is not {what}: {hint}")


def _excerpt(value: str) -> str:
    text = value if len(value) <= EXCERPT_CHARS else value[:EXCERPT_CHARS] + "…"
    return repr(text)
