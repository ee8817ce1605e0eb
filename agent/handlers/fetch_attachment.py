"""``fetch_attachment``: one attachment's bytes, streamed from Jira to the hub through a temp file."""

from __future__ import annotations

import hashlib
import logging
import os
import tempfile

from agent.handlers.context import Context
from agent.hub_client import Command
from agent.jira_client import JiraError

log = logging.getLogger("hub-agent")

KIND = "fetch_attachment"


def looks_like_html(content_type: str | None, expected_mime: str | None, head: bytes) -> bool:
    """An HTML page where a file was expected: an SSO proxy's login form answers 200 with one."""
    if (expected_mime or "").startswith("text/html"):
        return False
    if (content_type or "").split(";")[0].strip().lower() in ("text/html", "application/xhtml+xml"):
        return True
    start = head.lstrip()[:15].lower()
    return start.startswith(b"<!doctype html") or start.startswith(b"<html")


def handle(ctx: Context, command: Command) -> None:
    """Stream the attachment to a temp file while hashing, refuse an HTML page, PUT it, then done."""
    aid = str(command.params.get("attachment_id"))
    ctx.say(command, f"attachment {aid}")
    meta = ctx.jira.attachment(aid)
    digest, size = hashlib.sha256(), 0
    fd, path = tempfile.mkstemp(prefix="hub-agent-")
    try:
        with os.fdopen(fd, "wb") as out, ctx.jira.download(meta["content"]) as response:
            head = b""
            for chunk in response.iter_bytes(1 << 20):
                if len(head) < 512:
                    head += chunk[:512 - len(head)]
                digest.update(chunk)
                out.write(chunk)
                size += len(chunk)
            content_type = response.headers.get("Content-Type")
            final = response.url  # where the redirects ended: the proxy's sign-in page, if that is what it is
        if looks_like_html(content_type, meta.get("mimeType"), head):
            raise JiraError(200, f"Jira served an HTML page ({content_type or 'no content type'}, {size} bytes)"
                                 f" instead of attachment {aid} ({meta.get('filename')}, {meta.get('size')}"
                                 f" bytes), at {final}: a sign-in page of a proxy in front of Jira?")
        if meta.get("size") is not None and int(meta["size"]) != size:
            raise JiraError(200, f"attachment {aid}: Jira lists {meta['size']} bytes but sent {size}")
        stored = ctx.hub.put_file(command, path, digest.hexdigest())
        ctx.hub.done(command, {"sha256": stored["sha256"], "size": stored["size"]})
        log.info("command %s: attachment %s uploaded, %s bytes", command.id, aid, size)
    finally:
        os.unlink(path)
