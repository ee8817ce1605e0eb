"""``/api/v1`` resources for writes to Jira (docs/writes.md): ask for one, read, wait, cancel, retry.

Every route answers the write object (:func:`hub.shapes.write`). Asking is for an admin token or
an interface token granted writes (``jira_writes``, checked by :mod:`hub.api.auth`: 403 otherwise);
reading writes is for any interface token. A request is checked at the edge (its JSON Schema in
:mod:`hub.api.write_schemas`, then the mirror in the service: 422 naming the field), recorded and
queued: 202. With an ``Idempotency-Key`` the token used before for the same request, the write
made then: 200.
"""

from __future__ import annotations

import re
from typing import BinaryIO, cast

import falcon

from hub import shapes
from hub.api import write_schemas as schemas
from hub.api.auth import INTERFACE
from hub.api.longpoll import RETRY_AFTER_HEADER, LongPolls, client_gone
from hub.api.openapi import OCTETS, responds
from hub.api.validation import accepts, query
from hub.errors import ContractError, TooLarge
from hub.services.files.store import FileStore
from hub.services.writes import checks
from hub.services.writes.service import Upload, WriteService
from hub.services.writes.shown import ShownWrite
from hub.vocabulary import (
    ATTACH,
    COMMENT,
    CREATE_ISSUE,
    EDIT,
    EDIT_COMMENT,
    LINK,
    LOG_WORK,
    REMOVE_LINK,
    TRANSITION,
)

IDEMPOTENCY_HEADER = "Idempotency-Key"
# Visible ASCII, as a header carries it safely: what a client's retry sends again byte for byte.
_IDEMPOTENCY_KEY = re.compile(r"[\x21-\x7e]{1,255}")
IDEMPOTENCY_PARAM = {
    "name": IDEMPOTENCY_HEADER, "in": "header", "required": False,
    "description": "the client's name for this write (at most 255 visible ASCII characters): sent again "
                   "by the same token, the write made the first time is answered (200), never a second",
    "schema": {"type": "string", "minLength": 1, "maxLength": 255, "pattern": "^[!-~]+(?![\\s\\S])"}}
_LOCATION = {"Location": {"description": "the write: /api/v1/writes/{id}", "required": True,
                          "schema": {"type": "string"}}}


def asks(request_media: str | None = None):
    """What a route that asks for a write answers: 202 a new write, 200 the one an Idempotency-Key
    made before; 409 the key used for another request; 422 an Idempotency-Key of another shape;
    429 the token's queue full."""
    return responds(202, 200, errors=(409, 422, 429), header_params=(IDEMPOTENCY_PARAM,),
                    headers={202: _LOCATION, 200: _LOCATION}, answers=schemas.WRITE,
                    request_media=request_media)


MIME_CHARS = 255


def idempotency_key(req: falcon.Request) -> str | None:
    """The request's Idempotency-Key, checked: 422 naming the header when it is no such key."""
    value = req.get_header(IDEMPOTENCY_HEADER)
    if value is None:
        return None
    if not _IDEMPOTENCY_KEY.fullmatch(value):
        raise ContractError(f"{IDEMPOTENCY_HEADER} must be 1 to 255 visible ASCII characters "
                            "(no spaces or controls)", IDEMPOTENCY_HEADER)
    return value


def _answer(resp: falcon.Response, write: ShownWrite, created: bool) -> None:
    resp.media = shapes.write(write)
    resp.status = falcon.HTTP_202 if created else falcon.HTTP_200
    resp.location = f"/api/v1/writes/{write.id}"


class _Asking:
    """What every route that asks for a write shares: the service, and who may ask."""

    roles = INTERFACE
    jira_writes = frozenset({"POST", "PATCH", "DELETE"})

    def __init__(self, writes: WriteService):
        self._writes = writes

    def _ask(self, req: falcon.Request, resp: falcon.Response, op: str, key: str | None, params: dict,
             base: dict | None = None) -> None:
        write, created = self._writes.request(op, key, params, req.context.principal, base=base,
                                              idempotency_key=idempotency_key(req))
        _answer(resp, write, created)


class CommentWritesResource(_Asking):
    @asks()
    @accepts(schemas.COMMENT)
    def on_post(self, req: falcon.Request, resp: falcon.Response, key: str) -> None:
        """Add a comment to the issue in Jira (a write: 202)."""
        self._ask(req, resp, COMMENT, key, req.context.body)


class CommentEditResource(_Asking):
    @asks()
    @accepts(schemas.EDIT_COMMENT)
    def on_patch(self, req: falcon.Request, resp: falcon.Response, key: str, comment_id: str) -> None:
        """Change a comment's body in Jira (a write: 202)."""
        self._ask(req, resp, EDIT_COMMENT, key, {"comment_id": comment_id, **req.context.body})


class TransitionWritesResource(_Asking):
    @asks()
    @accepts(schemas.TRANSITION)
    def on_post(self, req: falcon.Request, resp: falcon.Response, key: str) -> None:
        """Move the issue through a transition in Jira, by target status, name or id (a write: 202)."""
        body = dict(req.context.body)
        base = body.pop("base", None)
        self._ask(req, resp, TRANSITION, key, body, base)


class EditResource(_Asking):
    @asks()
    @accepts(schemas.EDIT)
    def on_patch(self, req: falcon.Request, resp: falcon.Response, key: str) -> None:
        """Set the issue's fields in Jira; ``base`` the values the maker saw (a write: 202)."""
        body = dict(req.context.body)
        base = body.pop("base", None)
        self._ask(req, resp, EDIT, key, body, base)


class WorklogWritesResource(_Asking):
    @asks()
    @accepts(schemas.LOG_WORK)
    def on_post(self, req: falcon.Request, resp: falcon.Response, key: str) -> None:
        """Log work on the issue in Jira (a write: 202)."""
        self._ask(req, resp, LOG_WORK, key, req.context.body)


class CreateIssueResource(_Asking):
    @asks()
    @accepts(schemas.CREATE_ISSUE)
    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        """Create an issue in Jira; its key is the write's result (a write: 202)."""
        self._ask(req, resp, CREATE_ISSUE, None, req.context.body)


class LinkWritesResource(_Asking):
    @asks()
    @accepts(schemas.LINK)
    def on_post(self, req: falcon.Request, resp: falcon.Response, key: str) -> None:
        """Link the issue to another in Jira (a write: 202)."""
        self._ask(req, resp, LINK, key, req.context.body)

    @asks()
    @query(schemas.LINK_QUERY)
    def on_delete(self, req: falcon.Request, resp: falcon.Response, key: str) -> None:
        """Remove the issue's link of ``type`` to ``outward`` (or from ``inward``) in Jira, as the
        mirror shows it, when its id is not at hand (a write: 202)."""
        self._ask(req, resp, REMOVE_LINK, key, dict(req.context.query))


class LinkRemovalResource(_Asking):
    @asks()
    def on_delete(self, req: falcon.Request, resp: falcon.Response, key: str, link_id: str) -> None:
        """Remove one of the issue's links in Jira, by its id (a write: 202)."""
        self._ask(req, resp, REMOVE_LINK, key, {"link_id": link_id})


class AttachResource(_Asking):
    """The raw body is the file, streamed into the hub's file store before the write is queued."""

    def __init__(self, writes: WriteService, store: FileStore, max_upload_bytes: int):
        super().__init__(writes)
        self._store = store
        self._max_upload_bytes = max_upload_bytes

    @asks(request_media=OCTETS)
    @query(schemas.ATTACH_QUERY)
    def on_post(self, req: falcon.Request, resp: falcon.Response, key: str) -> None:
        """Attach the body, a file named ``filename``, to the issue in Jira (a write: 202)."""
        if req.content_length is not None and req.content_length > self._max_upload_bytes:
            raise TooLarge(f"the file is {req.content_length} bytes; this hub takes at most "
                           f"{self._max_upload_bytes} (HUB_MAX_UPLOAD_BYTES)")
        if not req.content_length:
            # waitress gives a chunked body its length once read: none, or 0, is no file at all.
            raise ContractError("the file is the request's body, and it is empty: send its bytes "
                                "(Jira takes no empty attachment)", "body")
        key_asked = idempotency_key(req)
        # An issue the mirror does not hold is refused before the body is read into the store.
        checks.check(ATTACH, key, {})
        sha256, size = self._store.receive(cast(BinaryIO, req.bounded_stream), length=req.content_length,
                                           max_bytes=self._max_upload_bytes)
        mime_type = (req.content_type or "application/octet-stream")[:MIME_CHARS]
        filename = req.context.query["filename"]
        upload = Upload(sha256=sha256, size=size, filename=filename, mime_type=mime_type)
        write, created = self._writes.request(
            ATTACH, key, {"filename": filename, "size": size, "mime_type": mime_type},
            req.context.principal, idempotency_key=key_asked, upload=upload)
        _answer(resp, write, created)


class WritesResource:
    roles = INTERFACE

    def __init__(self, writes: WriteService):
        self._writes = writes

    @responds(answers=schemas.WRITE_PAGE)
    @query(schemas.WRITE_LIST)
    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        """Writes, newest first; of one issue, status or operation when asked."""
        q = req.context.query
        listed = self._writes.list(key=q.get("key"), status=q.get("status"), op=q.get("op"),
                                   cursor=q.get("cursor"), limit=q.get("limit", 50))
        resp.media = {**listed, "items": [shapes.write(item) for item in listed["items"]]}


class WriteResource:
    roles = INTERFACE

    def __init__(self, writes: WriteService, polls: LongPolls):
        self._writes = writes
        self._polls = polls

    @responds(headers=RETRY_AFTER_HEADER, answers=schemas.WRITE)
    @query(schemas.WRITE_QUERY)
    def on_get(self, req: falcon.Request, resp: falcon.Response, write_id: int) -> None:
        """One write; ``wait`` and ``known`` hold it until its status is no longer ``known``.

        With no long-poll slot free, the write now comes back at once, with ``Retry-After``.
        """
        q = req.context.query
        if not (q.get("wait") and q.get("known")):
            resp.media = shapes.write(self._writes.get(write_id))
            return
        with self._polls.slot(resp) as may_wait:
            if may_wait:
                write = self._writes.wait_for_change(write_id, q["known"], q["wait"], gone=client_gone(req),
                                                     token_id=req.context.principal.token_id)
            else:
                write = self._writes.get(write_id)
        resp.media = shapes.write(write)


class CancelWriteResource(_Asking):
    @responds(errors=(409,), answers=schemas.WRITE)
    def on_post(self, req: falcon.Request, resp: falcon.Response, write_id: int) -> None:
        """Cancel a pending write before any agent takes it; 409 once it is applying or ended."""
        resp.media = shapes.write(self._writes.cancel(write_id))


class RetryWriteResource(_Asking):
    @responds(202, errors=(409, 429), answers=schemas.WRITE)
    @accepts(schemas.RETRY, optional=True)
    def on_post(self, req: falcon.Request, resp: falcon.Response, write_id: int) -> None:
        """Apply again a write that failed or ended in conflict; ``base`` anew for a conflict."""
        resp.media = shapes.write(self._writes.retry(write_id, req.context.principal,
                                                     base=req.context.body.get("base")))
        resp.status = falcon.HTTP_202
