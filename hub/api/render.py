"""``POST /api/v1/render``: a text not yet in Jira rendered as the hub renders Jira's own, for the
web page's preview of a comment or description being written. A pure function of the text (and
of the mirror's attachments and users): nothing is stored or sent to Jira."""

from __future__ import annotations

import falcon

from hub.api.auth import INTERFACE
from hub.api.openapi import responds
from hub.api.schemas import ISSUE_KEY
from hub.api.validation import accepts
from hub.api.write_schemas import FORMAT, OPTIONAL_TEXT
from hub.errors import ContractError, NotFound
from hub.services.markup.rendering import RenderService

RENDER_TEXT = {
    "type": "object",
    "properties": {
        "text": {**OPTIONAL_TEXT, "description": "the text to render (at most Jira's 32,767 characters)"},
        "format": FORMAT,
        "key": {**ISSUE_KEY, "description": "the issue whose attachments the text's images name"},
    },
    "required": ["text"],
    "additionalProperties": False,
}
RENDERED_TEXT = {
    "type": "object",
    "properties": {"html": {"type": "string", "description": "sanitised HTML, as ?render=html gives a description"}},
    "required": ["html"],
}


class RenderResource:
    roles = INTERFACE

    def __init__(self, render: RenderService):
        self._render = render

    @responds(answers=RENDERED_TEXT)
    @accepts(RENDER_TEXT)
    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        """A text (Jira wiki markup, or Markdown with ``format``) as the sanitised HTML a description
        renders to: images from the attachments of issue ``key``, mentions by display name."""
        body = req.context.body
        key = body.get("key")
        try:
            html = self._render.preview(body["text"], body.get("format", "wiki"), key)
        except NotFound:
            raise ContractError(f"key: the mirror holds no issue {key!r}", "key") from None
        resp.media = {"html": html}
