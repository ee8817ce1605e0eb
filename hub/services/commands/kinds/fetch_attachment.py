"""``fetch_attachment``: bring one attachment's content from Jira into the hub's file store.

Interfaces enqueue it (``params.attachment_id`` only); an attachment has at most one
open fetch, and a ready one enqueues nothing (the attachment service's rules, see
:meth:`~hub.services.files.attachments.AttachmentService.request_fetch`). Agents of
protocol v14 and later are given it. The agent uploads the file, then reports ``done``
with ``{sha256, size}`` naming it; that ``done`` alone writes ``attachment_file``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hub.db import database
from hub.errors import Conflict, ContractError
from hub.models import AttachmentFile, Command
from hub.services.commands.kinds.registry import Kind, Queue, Reporting
from hub.services.files.store import is_sha256
from hub.vocabulary import FETCH_ATTACHMENT, JIRA_ID_PATTERN, READY

# The largest integer SQLite stores (hub/api/schemas.py's INT64_MAX).
_INT64_MAX = 2**63 - 1


@dataclass(frozen=True)
class FetchAttachment(Kind):
    """A fetch of one attachment's content."""

    def enqueue(self, queue: Queue, params: dict, batch_id: int | None,
                token_id: int | None) -> tuple[Command, bool]:
        """A fetch an interface asks for, by :meth:`AttachmentService.request_fetch`'s rules,
        within the token's bound."""
        attachment_id = params["attachment_id"]
        with database.atomic():
            # The token's bound is taken first, as for a refresh; the attachment's own
            # lock (one open fetch) is taken inside, by the attachment service. A fetch
            # answered with the open one queues nothing, so the bound is checked after:
            # past it, the new command goes with this transaction.
            queue.hold_bound(token_id)
            state, command, created = queue.attachments.request_fetch(attachment_id, batch_id)
            if created and command is not None and token_id is not None:
                command.token_id = token_id
                Command.update(token_id=token_id).where(Command.id == command.id).execute()
                queue.check_room(token_id, queued_now=True)
        if created:
            # request_fetch told the agents before this transaction committed: again, now.
            queue.notify()
        if command is None:  # ready: the command that fetched it stands for the request
            if state["command_id"] is None:
                raise Conflict(f"attachment {attachment_id!r} is ready already, "
                               "fetched before this hub kept its commands", state=READY)
            command = queue.get(state["command_id"])
        return command, created

    def done(self, reporting: Reporting, command: Command, result: Any) -> None:
        """The only writer of ``attachment_file``: the file the result names, once it is
        in the store with that size."""
        if not isinstance(result, dict) or not is_sha256(result.get("sha256")):
            raise ContractError("a fetch_attachment's result is {sha256, size}: sha256 as 64 "
                                "lowercase hex digits", "result.sha256")
        size = result.get("size")
        if not isinstance(size, int) or isinstance(size, bool) or size < 0:
            raise ContractError("result.size must be the file's size in bytes", "result.size")
        stored = reporting.store.size(result["sha256"])
        if stored is None:
            raise Conflict(f"no file {result['sha256']} in the store: upload it with "
                           f"PUT /agent/v1/commands/{command.id}/file first")
        if stored != size:
            raise Conflict(f"file {result['sha256']} is {stored} bytes, not {size}")
        attachment_id = (command.params or {}).get("attachment_id")
        row = {"file": result["sha256"], "size": size, "fetched_at": reporting.now}
        (AttachmentFile.insert(attachment_id=attachment_id, **row)
         .on_conflict(conflict_target=[AttachmentFile.attachment_id], update=row).execute())


KIND = FetchAttachment(
    FETCH_ATTACHMENT,
    # Jira's attachment id (hub/api/schemas.py's ATTACHMENT_ID).
    params={"attachment_id": {"type": "string", "maxLength": 18, "pattern": JIRA_ID_PATTERN}},
    required=("attachment_id",),
    since=14,
    result_schema={
        "type": "object",
        "properties": {"sha256": {"type": "string", "pattern": r"^[0-9a-f]{64}(?![\s\S])"},
                       "size": {"type": "integer", "minimum": 0, "maximum": _INT64_MAX}},
        "required": ["sha256", "size"],
    },
    result_words="a fetch_attachment's {sha256, size}",
    files=True,
)
