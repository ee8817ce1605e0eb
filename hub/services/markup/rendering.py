"""An issue's wiki text rendered for an interface: the description, the environment,
comments and worklog comments as sanitised HTML (``html``) or Markdown (``markdown``),
with the issue's attachments (images) and the users catalogue's display names (mentions).

The conversions themselves are hub/services/markup/convert.py; this service gathers what they
need from the mirror, once per answer."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable

from hub.services.files.attachments import AttachmentService
from hub.services.markup import convert as markup
from hub.services.markup.markdown_wiki import to_wiki
from hub.services.mirror.catalogues import CatalogueService
from hub.vocabulary import READY

log = logging.getLogger(__name__)

#: The forms a text can be rendered in (the ``render`` query parameter).
FORMS = ("html", "markdown")
#: How long (CPU seconds of the answering thread) the conversions of one answer may take
#: together: past it, every text not converted before (not in the cache) is plain text.
ANSWER_SECONDS = 5.0


class RenderService:
    def __init__(self, attachments: AttachmentService, catalogues: CatalogueService):
        self._attachments = attachments
        self._catalogues = catalogues

    def texts(self, key: str, texts: Iterable[str | None], form: str) -> list[str | None]:
        """Each of an issue's ``texts`` (wiki markup, or None) in ``form``; None stays None.
        Images are placed from the issue's attachments by file name (the latest of a name)."""
        if form not in FORMS:
            raise ValueError(f"no form {form!r}")
        texts = list(texts)
        names = self._names()
        # One answer's texts share one budget of time, which no input can exceed: a page of
        # hostile comments must not cost a minute. Once it is spent, a text is served from the
        # cache or shown as plain text, never converted (markup._convert).
        until = time.thread_time() + ANSWER_SECONDS
        if form == "markdown":
            rendered = [None if text is None else markup.to_markdown(text, users=names, deadline=until)
                        for text in texts]
        else:
            attachments = self._attachments_of(key)
            rendered = [None if text is None else markup.to_html(text, attachments=attachments, users=names,
                                                                 deadline=until)
                        for text in texts]
        if time.thread_time() >= until:
            # For the operator: a page of such texts is hostile, or longer than it should be.
            log.warning("rendering %s: one answer's %.0f s of CPU were spent on %d texts; those not "
                        "converted before are shown as plain text", key, ANSWER_SECONDS, len(texts))
        return rendered

    def preview(self, text: str, format: str = "wiki", key: str | None = None) -> str:
        """A text not yet in Jira (``format``: ``wiki``, or ``markdown`` converted to wiki as a write
        converts it) as sanitised HTML, the same HTML a description gets: images from the attachments
        of issue ``key`` (none without one), mentions by display name. NotFound for a ``key`` the
        mirror does not hold."""
        wiki = to_wiki(text) if format == "markdown" else text
        attachments = self._attachments_of(key) if key is not None else {}
        until = time.thread_time() + ANSWER_SECONDS
        return markup.to_html(wiki, attachments=attachments, users=self._names(), deadline=until)

    def _attachments_of(self, key: str) -> dict[str, markup.AttachmentRef]:
        found: dict[str, markup.AttachmentRef] = {}
        # Ordered by id as text: an id of more digits is newer, so sort by length first.
        for state in sorted(self._attachments.for_issue(key),
                            key=lambda item: (len(item["attachment_id"]), item["attachment_id"])):
            found[state["filename"]] = markup.AttachmentRef(state["attachment_id"], state["state"] == READY,
                                                            state["mime_type"])
        return found

    def _names(self):
        """Display names by login, each looked up once in the users catalogue when a mention asks."""
        known: dict[str, str | None] = {}

        def name(login: str) -> str | None:
            if login not in known:
                user = self._catalogues.users([login]).get(login)
                known[login] = user.display_name if user is not None else None
            return known[login]

        return name
