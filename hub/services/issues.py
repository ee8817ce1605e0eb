"""Reading the mirror, and the notes interfaces keep on issues.

Interfaces read ``issue``, ``issue_link``, ``issue_comment`` and
``issue_change`` but never write them; only state loaded from agents does
(:mod:`hub.services.mirror`). Notes (``issue_note``) are the hub's own data.
"""

from __future__ import annotations

from peewee import SQL

from hub.clock import Clock, iso
from hub.db import database
from hub.errors import NotFound
from hub.models import Issue, IssueChange, IssueComment, IssueLink, IssueNote
from hub.services.pagination import listing, page

SUMMARY_FIELDS = (
    "key", "id", "issue_type", "summary", "status", "priority", "assignee", "reporter",
    "duedate", "planned_start", "planned_end", "epic_key", "labels", "sprint", "created",
    "jira_updated", "fetched_at", "neighbor",
)


def serialize_issue(issue: Issue, *, description: bool = False) -> dict:
    data = {name: getattr(issue, name) for name in SUMMARY_FIELDS}
    data["neighbor"] = bool(issue.neighbor)
    if description:
        data["description"] = issue.description
    return data


def serialize_note(note: IssueNote) -> dict:
    return {"id": note.id, "key": note.key, "author": note.author, "body": note.body,
            "created_at": note.created_at, "updated_at": note.updated_at}


class IssueService:
    def __init__(self, clock: Clock | None = None):
        self._clock = clock or Clock()

    def list(self, *, status: str | None = None, assignee: str | None = None,
             epic_key: str | None = None, label: str | None = None, neighbor: int | None = None,
             fetched_since: str | None = None, cursor: int | None = None, limit: int = 50) -> dict:
        """Issues, most recently added to the mirror first; ``next_cursor`` pages on."""
        query = Issue.select()
        for column, value in ((Issue.status, status), (Issue.assignee, assignee),
                              (Issue.epic_key, epic_key), (Issue.neighbor, neighbor)):
            if value is not None:
                query = query.where(column == value)
        if label is not None:
            query = query.where(SQL("EXISTS (SELECT 1 FROM json_each(labels) WHERE value = ?)",
                                    [label]))
        if fetched_since is not None:
            query = query.where(Issue.fetched_at >= fetched_since)
        # The rowid grows as issues are added, so it orders the mirror by
        # arrival, as an integer cursor can follow; ``key`` (TEXT) could not.
        return page(query, SQL("rowid"), cursor, limit, serialize_issue)

    def get(self, key: str) -> dict:
        """One issue with its description and its links both ways."""
        issue = self._issue(key)
        data = serialize_issue(issue, description=True)
        links = IssueLink.select().where((IssueLink.source_key == key) | (IssueLink.target_key == key))
        data["links"] = {
            "outward": [{"type": link.link_type, "key": link.target_key}
                        for link in sorted(links, key=lambda link: (link.link_type, link.target_key))
                        if link.source_key == key],
            "inward": [{"type": link.link_type, "key": link.source_key}
                       for link in sorted(links, key=lambda link: (link.link_type, link.source_key))
                       if link.target_key == key and link.source_key != key],
        }
        return data

    def comments(self, key: str) -> dict:
        self._issue(key)
        rows = (IssueComment.select().where(IssueComment.key == key)
                .order_by(IssueComment.created_at.asc(nulls="LAST"), IssueComment.comment_id))
        return listing({"id": c.comment_id, "author": c.author, "created": c.created,
                        "updated": c.updated, "created_at": c.created_at, "body": c.body}
                       for c in rows)

    def changes(self, key: str) -> dict:
        """The changelog, oldest first: one item per changed field."""
        self._issue(key)
        rows = (IssueChange.select().where(IssueChange.key == key)
                .order_by(IssueChange.created_at.asc(nulls="LAST"), IssueChange.history_id,
                          IssueChange.item_no))
        return listing({"history_id": c.history_id, "item_no": c.item_no, "author": c.author,
                        "created": c.created, "created_at": c.created_at, "field": c.field,
                        "field_type": c.field_type, "from": c.from_value,
                        "from_string": c.from_string, "to": c.to_value,
                        "to_string": c.to_string} for c in rows)

    # -- notes -----------------------------------------------------------------

    def notes(self, key: str) -> dict:
        self._issue(key)
        rows = IssueNote.select().where(IssueNote.key == key).order_by(IssueNote.id)
        return listing(map(serialize_note, rows))

    def add_note(self, key: str, author: str, body: str) -> dict:
        now = iso(self._clock.now())
        with database.atomic():
            self._issue(key)
            note = IssueNote.create(key=key, author=author, body=body, created_at=now, updated_at=now)
        return serialize_note(note)

    def edit_note(self, note_id: int, body: str) -> dict:
        with database.atomic():
            note = self._note(note_id)
            note.body, note.updated_at = body, iso(self._clock.now())
            note.save()
        return serialize_note(note)

    def delete_note(self, note_id: int) -> None:
        with database.atomic():
            self._note(note_id).delete_instance()

    @staticmethod
    def _issue(key: str) -> Issue:
        issue = Issue.get_or_none(Issue.key == key)
        if issue is None:
            raise NotFound(f"no issue {key!r} in the mirror")
        return issue

    @staticmethod
    def _note(note_id: int) -> IssueNote:
        note = IssueNote.get_or_none(IssueNote.id == note_id)
        if note is None:
            raise NotFound(f"no note {note_id}")
        return note
