"""``/agent/v1``: the protocol agents speak (token role ``agent``)."""

from __future__ import annotations

from contextlib import nullcontext

import falcon

from hub import shapes
from hub.api import schemas
from hub.api.auth import AGENT
from hub.api.download import content_disposition, media_type
from hub.api.longpoll import RETRY_AFTER_HEADER, LongPolls, client_gone
from hub.api.openapi import OCTETS, responds
from hub.api.validation import accepts, query
from hub.errors import ContractError, TooLarge
from hub.services.commands.dispatch import Dispatcher
from hub.services.commands.reports import ReportService
from hub.services.files.store import is_sha256


class HeartbeatResource:
    roles = AGENT

    def __init__(self, dispatcher: Dispatcher):
        self._dispatcher = dispatcher

    @responds(errors=(409,))
    @accepts(schemas.HEARTBEAT)
    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        """Say the agent is alive; extends its leases and names its cancelled commands.

        409: an agent_id new to the token, past its HUB_AGENTS_PER_TOKEN."""
        body = req.context.body
        resp.media = self._dispatcher.heartbeat(
            body["agent_id"], body["version"], body.get("state"), body.get("detail"),
            token_id=req.context.principal.token_id, jira_time_zone=body.get("jira_time_zone"),
            jira=body.get("jira"), holding=body.get("holding"))


class ClaimResource:
    roles = AGENT

    def __init__(self, dispatcher: Dispatcher, polls: LongPolls):
        self._dispatcher = dispatcher
        self._polls = polls

    @responds(headers=RETRY_AFTER_HEADER, errors=(409,))
    @accepts(schemas.CLAIM)
    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        """Claim the oldest queued commands, long-polling up to ``wait`` seconds.

        409: an agent_id new to the token, past its HUB_AGENTS_PER_TOKEN."""
        body = req.context.body
        wait = body.get("wait", 0)
        with self._polls.slot(resp) if wait else nullcontext(True) as may_wait:
            commands = self._dispatcher.claim(
                body["agent_id"], body["version"], body.get("types"),
                body.get("limit", 1), wait if may_wait else 0, gone=client_gone(req),
                token_id=req.context.principal.token_id)
        resp.media = {"commands": commands}


class StateResource:
    roles = AGENT

    def __init__(self, reports: ReportService):
        self._reports = reports

    @responds(errors=(409,))
    @accepts(schemas.STATE_PAGE)
    def on_post(self, req: falcon.Request, resp: falcon.Response, command_id: int) -> None:
        """One page of issue states of a held refresh, applied all or nothing."""
        resp.media = self._reports.state(command_id, req.context.body,
                                           token_id=req.context.principal.token_id)


class DoneResource:
    roles = AGENT

    def __init__(self, reports: ReportService):
        self._reports = reports

    @responds(errors=(409,))
    @accepts(schemas.DONE)
    def on_post(self, req: falcon.Request, resp: falcon.Response, command_id: int) -> None:
        """Finish a held command with its result."""
        resp.media = shapes.command(self._reports.done(command_id, req.context.body,
                                                       token_id=req.context.principal.token_id))


class FailedResource:
    roles = AGENT

    def __init__(self, reports: ReportService):
        self._reports = reports

    @responds(errors=(409,))
    @accepts(schemas.FAILED)
    def on_post(self, req: falcon.Request, resp: falcon.Response, command_id: int) -> None:
        """Fail a held command, keeping its error."""
        resp.media = shapes.command(self._reports.failed(command_id, req.context.body,
                                                         token_id=req.context.principal.token_id))


class FileResource:
    roles = AGENT

    def __init__(self, reports: ReportService, max_upload_bytes: int):
        self._reports = reports
        self._max_upload_bytes = max_upload_bytes

    @responds(media=OCTETS, errors=(409,), headers={200: {
        "Content-Disposition": {"schema": {"type": "string"}, "description": "the file's name"}}})
    @query(schemas.UPLOAD_QUERY)
    def on_get(self, req: falcon.Request, resp: falcon.Response, command_id: int) -> None:
        """The upload a held write attaches to Jira (protocol v19), streamed; 404 when the command has none."""
        q = req.context.query
        file, stream = self._reports.file(command_id, agent_id=q.get("agent_id"), delivery=q.get("delivery"),
                                          token_id=req.context.principal.token_id)
        resp.content_type = media_type(file.get("mime_type"))
        resp.set_header("Content-Disposition", content_disposition(str(file.get("filename") or "file")))
        resp.set_header("X-Content-Type-Options", "nosniff")
        # Sent through wsgi.file_wrapper from waitress's event loop, as an attachment's content is.
        resp.set_stream(stream, int(file["size"]))

    @responds(errors=(400, 409, 422), request_media=OCTETS, header_params=({
        "name": "X-Content-SHA256", "in": "header", "required": False,
        "description": "the content's sha256, checked before the file is kept",
        "schema": {"type": "string", "pattern": "^[0-9A-Fa-f]{64}(?![\\s\\S])"}},))
    @query(schemas.UPLOAD_QUERY)
    def on_put(self, req: falcon.Request, resp: falcon.Response, command_id: int) -> None:
        """The content of a held fetch_attachment, as the raw body."""
        # Refused before the command is even looked up: waitress's own body
        # limit is the larger of the upload and JSON limits, not this one.
        if req.content_length is not None and req.content_length > self._max_upload_bytes:
            raise TooLarge(f"the file is {req.content_length} bytes; this hub takes at most "
                           f"{self._max_upload_bytes} (HUB_MAX_UPLOAD_BYTES)")
        expected = req.get_header("X-Content-SHA256")
        if expected is not None and not is_sha256(expected.strip().lower()):
            raise ContractError("X-Content-SHA256 must be 64 hex digits", "X-Content-SHA256")
        q = req.context.query
        resp.media = self._reports.upload(
            command_id, req.bounded_stream, length=req.content_length,
            max_bytes=self._max_upload_bytes,
            expected_sha256=expected.strip().lower() if expected else None,
            agent_id=q.get("agent_id"), delivery=q.get("delivery"),
            token_id=req.context.principal.token_id)
