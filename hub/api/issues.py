"""``/api/v1`` resources that read the mirror and keep notes."""

from __future__ import annotations

import hashlib
import json

import falcon

from hub import shapes
from hub.api import schemas
from hub.api.auth import INTERFACE
from hub.api.openapi import responds
from hub.api.validation import accepts, query
from hub.conditional import etag_matches
from hub.services.issues.reading import IssueService
from hub.services.issues.sprints import SprintService
from hub.services.markup.rendering import RenderService
from hub.services.mirror.catalogues import CatalogueService
from hub.services.mirror.jira_site import JiraSite
from hub.services.mirror.screens import ScreenService
from hub.services.search.facets import FacetService
from hub.services.writes.service import WriteService

_HEADER = {"schema": {"type": "string"}}
ISSUE_HEADERS: dict[int, dict] = {
    200: {"Content-Location": schemas.MOVED_LOCATION, "ETag": _HEADER},
    304: {"ETag": _HEADER},
}
IF_NONE_MATCH = ({"name": "If-None-Match", "in": "header", "required": False, "schema": {"type": "string"},
                  "description": "the ETag of an answer the client holds: 304, without a body, while the "
                                 "answer would be the same"},)


def body_etag(data: object) -> str:
    """A weak ETag of a JSON answer: a hash of its canonical serialization, so that the same
    answer always has the same tag (whatever the order its members were built in)."""
    canonical = json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":"), default=str)
    return 'W/"' + hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:40] + '"'


class IssuesResource:
    roles = INTERFACE

    def __init__(self, issues: IssueService):
        self._issues = issues

    @responds(answers=schemas.ISSUE_PAGE)
    @query(schemas.ISSUE_LIST)
    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        """Issues of the mirror, filtered: most recently mirrored first, or with ``q``
        searched and best match first, each with a snippet."""
        listed = self._issues.list(**req.context.query)
        # A search answers plain rows (the fast path), a listing the issues' rows.
        shape = shapes.listed_issue if req.context.query.get("q") is None else shapes.search_hit
        resp.media = shapes.page_of(shape, listed)


class FacetsResource:
    roles = INTERFACE

    def __init__(self, facets: FacetService):
        self._facets = facets

    @responds(answers=schemas.FACETS)
    @query(schemas.FACET_QUERY)
    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        """The values the issues of the list's query hold (status, assignee, …), each with its count."""
        asked = dict(req.context.query)
        fields = asked.pop("fields", None)
        found = self._facets.facets(fields=fields.split(",") if fields else None, **asked)
        resp.media = shapes.facets(found)


class IssueResource:
    roles = INTERFACE

    def __init__(self, issues: IssueService, render: RenderService, writes: WriteService, site: JiraSite):
        self._issues = issues
        self._render = render
        self._writes = writes
        self._site = site

    @responds(200, 304, headers=ISSUE_HEADERS, header_params=IF_NONE_MATCH, answers=schemas.ISSUE)
    @query(schemas.RENDERED)
    def on_get(self, req: falcon.Request, resp: falcon.Response, key: str) -> None:
        """One issue, with its description and its links both ways; by an old key, the moved issue;
        with ``render``, its description and environment rendered too.

        Asked by an old key or in another case (``aurora-12``), the answer names its own path;
        ``jira_url`` is its page in Jira (null while Jira's base URL is not known).
        The answer's ``ETag`` hashes its body: ``If-None-Match`` naming it answers 304, so that a
        page re-reading the issue every few seconds is sent the issue only when it changed."""
        detail = self._issues.get(key)
        if detail.issue.key != req.context.get("key_asked", key):
            resp.content_location = f"/api/v1/issues/{detail.issue.key}"
        data = shapes.issue_detail(detail, self._writes.pending_for(detail.issue.key))
        data["jira_url"] = self._site.issue_url(detail.issue.key)
        form = req.context.query.get("render")
        if form is not None:
            items, fields = shapes.wiki_fields(data)
            texts = self._render.texts(detail.issue.key, [item[name] for item, name in zip(items, fields, strict=True)],
                                       form)
            shapes.add_rendered(items, fields, texts, form)
        etag = body_etag(data)
        resp.set_header("ETag", etag)
        if etag_matches(req.get_header("If-None-Match"), etag.removeprefix("W/")):
            resp.status = falcon.HTTP_304
            return
        resp.media = data


class CommentsResource:
    roles = INTERFACE

    def __init__(self, issues: IssueService, render: RenderService):
        self._issues = issues
        self._render = render

    @query(schemas.COMMENT_LIST)
    def on_get(self, req: falcon.Request, resp: falcon.Response, key: str) -> None:
        """An issue's comments, oldest first, with their ``total``: all of them, or with ``limit``
        a page (``next_cursor`` for the next); with ``render``, each body rendered too."""
        asked = dict(req.context.query)
        form = asked.pop("render", None)
        page = shapes.named_page_of(shapes.comment, self._issues.comments(key, **asked))
        if form is not None:
            items = page["items"]
            texts = self._render.texts(key, [item["body"] for item in items], form)
            shapes.add_rendered(items, ["body"] * len(items), texts, form)
        resp.media = page


class ChangesResource:
    roles = INTERFACE

    def __init__(self, issues: IssueService):
        self._issues = issues

    def on_get(self, req: falcon.Request, resp: falcon.Response, key: str) -> None:
        """An issue's changelog, oldest first, one item per changed field."""
        resp.media = shapes.named_page_of(shapes.change, self._issues.changes(key))


class WorklogsResource:
    roles = INTERFACE

    def __init__(self, issues: IssueService, render: RenderService):
        self._issues = issues
        self._render = render

    @query(schemas.WORKLOG_LIST)
    def on_get(self, req: falcon.Request, resp: falcon.Response, key: str) -> None:
        """An issue's worklogs, earliest start first, with their total and the time they log;
        with ``render``, each comment rendered too."""
        asked = dict(req.context.query)
        form = asked.pop("render", None)
        page = shapes.named_page_of(shapes.worklog, self._issues.worklogs(key, **asked))
        if form is not None:
            items = page["items"]
            texts = self._render.texts(key, [item["comment"] for item in items], form)
            shapes.add_rendered(items, ["comment"] * len(items), texts, form)
        resp.media = page


class SprintsResource:
    roles = INTERFACE

    def __init__(self, sprints: SprintService):
        self._sprints = sprints

    @query(schemas.SPRINT_LIST)
    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        """The mirror's sprints: active, then future, then closed, latest start first."""
        resp.media = shapes.page_of(shapes.listed_sprint, self._sprints.list(**req.context.query))


class CataloguesResource:
    roles = INTERFACE

    def __init__(self, catalogues: CatalogueService):
        self._catalogues = catalogues

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        """Jira's catalogues as the agent reported them, each in Jira's order."""
        resp.media = shapes.catalogues(self._catalogues.catalogues())


class UsersResource:
    roles = INTERFACE

    def __init__(self, catalogues: CatalogueService):
        self._catalogues = catalogues

    @responds(answers=schemas.USERS)
    @query(schemas.USER_QUERY)
    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        """The Jira users the mirror knows whose login or display name holds ``q`` (any case), best
        first (those starting with it first); without ``q`` all of them: at most ``limit`` (20)."""
        asked = req.context.query
        users = self._catalogues.find_users(asked.get("q"), asked.get("limit", 20))
        resp.media = {"items": [{"name": user.name, "display_name": user.display_name} for user in users]}


class TransitionsResource:
    roles = INTERFACE

    def __init__(self, screens: ScreenService):
        self._screens = screens

    @responds(answers=schemas.TRANSITIONS)
    def on_get(self, req: falcon.Request, resp: falcon.Response, key: str) -> None:
        """The transitions Jira offers from the issue's status, each with its screen's fields, as an
        agent last loaded them; ``known`` false (and no items) before any agent of protocol v19 did."""
        transitions = self._screens.transitions(key).transitions
        resp.media = {"items": transitions or [], "known": transitions is not None}


class CreateMetaResource:
    roles = INTERFACE

    def __init__(self, screens: ScreenService):
        self._screens = screens

    @responds(answers=schemas.CREATE_META)
    @query(schemas.CREATE_META_QUERY)
    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        """Jira's create screens as agents last read them, of one project or issue type when asked:
        each with its fields (required, allowed values)."""
        rows = self._screens.create_meta(**req.context.query)
        resp.media = {"items": [{"project": row.project, "issue_type": row.issue_type, "fields": row.fields,
                                 "updated_at": row.updated_at} for row in rows]}


class NotesResource:
    roles = INTERFACE

    def __init__(self, issues: IssueService):
        self._issues = issues

    def on_get(self, req: falcon.Request, resp: falcon.Response, key: str) -> None:
        """The notes interfaces keep on an issue."""
        resp.media = shapes.page_of(shapes.note, self._issues.notes(key))

    @responds(201, location="/api/v1/notes/{id}")
    @accepts(schemas.NOTE)
    def on_post(self, req: falcon.Request, resp: falcon.Response, key: str) -> None:
        """Add a note; its author is the token's name."""
        note = self._issues.add_note(key, req.context.principal.name, req.context.body["body"])
        resp.media = shapes.note(note)
        resp.status = falcon.HTTP_201
        resp.location = f"/api/v1/notes/{note.id}"


class NoteResource:
    roles = INTERFACE

    def __init__(self, issues: IssueService):
        self._issues = issues

    @accepts(schemas.NOTE)
    def on_patch(self, req: falcon.Request, resp: falcon.Response, note_id: int) -> None:
        """Change a note's text: its author's token or an admin token only."""
        principal = req.context.principal
        resp.media = shapes.note(self._issues.edit_note(note_id, req.context.body["body"],
                                                        by=principal.name, role=principal.role))

    @responds(204)
    def on_delete(self, req: falcon.Request, resp: falcon.Response, note_id: int) -> None:
        """Delete a note: its author's token or an admin token only."""
        principal = req.context.principal
        self._issues.delete_note(note_id, by=principal.name, role=principal.role)
        resp.status = falcon.HTTP_204

