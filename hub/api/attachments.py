"""``/api/v1`` resources for attachments (token role ``interface`` or ``admin``)."""

from __future__ import annotations

import falcon

from hub import shapes
from hub.api import schemas
from hub.api.auth import INTERFACE
from hub.api.download import (
    FileSlice,
    Unsatisfiable,
    content_disposition,
    media_type,
    parse_range,
    range_applies,
)
from hub.api.longpoll import RETRY_AFTER_HEADER, LongPolls, client_gone
from hub.api.openapi import OCTETS, responds
from hub.api.validation import accepts, query
from hub.conditional import etag_matches
from hub.errors import Conflict
from hub.services.files.attachments import AttachmentService, Content
from hub.services.pagination import listing

_HEADER = {"schema": {"type": "string"}}
DOWNLOAD_HEADERS: dict[int, dict] = {
    200: {"ETag": _HEADER, "Accept-Ranges": _HEADER, "Content-Disposition": _HEADER},
    206: {"ETag": _HEADER, "Content-Range": {**_HEADER, "required": True},
          "Content-Disposition": _HEADER},
    304: {"ETag": _HEADER},
}
DOWNLOAD_PARAMS = tuple(
    {"name": name, "in": "header", "required": False, "description": description, "schema": {"type": "string"}}
    for name, description in [
        ("Range", "one byte range, e.g. bytes=0-1023 or bytes=-500 (206)"),
        ("If-Range", "the ETag the client holds: the range is served only while it still names the file"),
        ("If-None-Match", "ETags the client holds: 304 when one names the file"),
    ])


class AttachmentResource:
    roles = INTERFACE

    def __init__(self, attachments: AttachmentService, polls: LongPolls):
        self._attachments = attachments
        self._polls = polls

    @responds(headers=RETRY_AFTER_HEADER)
    @query(schemas.ATTACHMENT_QUERY)
    def on_get(self, req: falcon.Request, resp: falcon.Response, attachment_id: str) -> None:
        """One attachment with its state; ``wait`` and ``known`` hold it until the state changes.

        With no long-poll slot free, the state now comes back at once, with ``Retry-After``.
        """
        q = req.context.query
        if not (q.get("wait") and q.get("known")):
            resp.media = self._attachments.state(attachment_id)
            return
        with self._polls.slot(resp) as may_wait:
            if may_wait:
                resp.media = self._attachments.wait_for_change(
                    attachment_id, q["known"], q["wait"], gone=client_gone(req),
                    token_id=req.context.principal.token_id)
            else:
                resp.media = self._attachments.state(attachment_id)


class AttachmentStatesResource:
    roles = INTERFACE

    def __init__(self, attachments: AttachmentService):
        self._attachments = attachments

    @accepts(schemas.ATTACHMENT_STATES)
    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        """The states of many attachments; ids the mirror does not know are left out."""
        resp.media = {"items": self._attachments.states(req.context.body["ids"])}


class FetchResource:
    roles = INTERFACE

    def __init__(self, attachments: AttachmentService):
        self._attachments = attachments

    @responds(201, 200, location="/api/v1/commands/{id}")
    def on_post(self, req: falcon.Request, resp: falcon.Response, attachment_id: str) -> None:
        """Ask for the content: 201 with a new command, or 200 (ready, or already fetching)."""
        state, command, created = self._attachments.request_fetch(attachment_id)
        resp.media = {**state, "command": shapes.optional(shapes.command, command)}
        resp.status = falcon.HTTP_201 if created else falcon.HTTP_200
        if created and command is not None:
            resp.location = f"/api/v1/commands/{command.id}"


class ContentResource:
    roles = INTERFACE

    def __init__(self, attachments: AttachmentService):
        self._attachments = attachments

    @responds(200, 206, 304, media=OCTETS, errors=(409, 416), headers=DOWNLOAD_HEADERS,
              header_params=DOWNLOAD_PARAMS)
    def on_get(self, req: falcon.Request, resp: falcon.Response, attachment_id: str) -> None:
        """The file, streamed; ``Range``, ``If-Range`` and ``If-None-Match`` are honoured."""
        content, span = self._describe(req, resp, attachment_id)
        if content is None:
            return
        try:
            file = content.open()  # the response streams it and the server closes it
        except FileNotFoundError:
            # Cleanup removed it between the state check and here (or, on S3, the
            # object does not hold its sha256): the answer is the error's, in JSON.
            resp.content_type = falcon.MEDIA_JSON
            for name in ("ETag", "Accept-Ranges", "Content-Disposition", "Content-Range"):
                resp.delete_header(name)
            raise Conflict(f"attachment {attachment_id!r} is none, not ready", state="none") from None
        # Both go out through wsgi.file_wrapper (FileSlice is seekable), which
        # waitress sends from its event loop: a client that stops reading holds
        # a socket and an open file, never a worker thread. (The S3 store hands
        # out a file of the node's cache, filled before this returns.)
        if span is None:
            resp.set_stream(file, content.size)
        else:
            first, last = span
            resp.set_stream(FileSlice(file, first, last - first + 1), last - first + 1)

    def on_head(self, req: falcon.Request, resp: falcon.Response, attachment_id: str) -> None:
        """The headers a GET would send, without the file."""
        content, span = self._describe(req, resp, attachment_id)
        if content is not None:
            resp.content_length = content.size if span is None else span[1] - span[0] + 1

    def _describe(self, req: falcon.Request, resp: falcon.Response,
                  attachment_id: str) -> tuple[Content | None, tuple[int, int] | None]:
        """Set the response's status and headers; the content and range to send, if any."""
        content = self._attachments.content(attachment_id)
        etag = f'"{content.sha256}"'
        resp.set_header("ETag", etag)
        resp.set_header("Accept-Ranges", "bytes")
        if etag_matches(req.get_header("If-None-Match"), etag):
            resp.status = falcon.HTTP_304
            return None, None
        span = None
        if range_applies(req.get_header("If-Range"), etag):
            try:
                span = parse_range(req.get_header("Range"), content.size)
            except Unsatisfiable:
                raise falcon.HTTPRangeNotSatisfiable(content.size) from None
        resp.content_type = media_type(content.mime_type)
        resp.set_header("Content-Disposition", content_disposition(content.filename))
        resp.set_header("X-Content-Type-Options", "nosniff")
        if span is not None:
            resp.status = falcon.HTTP_206
            resp.set_header("Content-Range", f"bytes {span[0]}-{span[1]}/{content.size}")
        return content, span


class IssueAttachmentsResource:
    roles = INTERFACE

    def __init__(self, attachments: AttachmentService):
        self._attachments = attachments

    def on_get(self, req: falcon.Request, resp: falcon.Response, key: str) -> None:
        """The attachments listed on one issue, with their states."""
        resp.media = listing(self._attachments.for_issue(key))
