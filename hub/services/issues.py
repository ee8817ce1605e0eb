"""Reading the mirror, and the notes interfaces keep on issues.

Interfaces read ``issue``, ``issue_link``, ``issue_comment`` and
``issue_change`` but never write them; only state loaded from agents does
(:mod:`hub.services.mirror`). Notes (``issue_note``) are the hub's own data.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import peewee
from peewee import JOIN, SQL, Case

from hub.clock import Clock, iso, parse_utc
from hub.db import database
from hub.errors import ContractError, NotFound
from hub.models import Issue, IssueChange, IssueComment, IssueLink, IssueNote, Project
from hub.services.pagination import listing, page
from hub.services.search import fts_query

# How a match shows in ``snippet``: between the markers, with an ellipsis where
# the text was cut; at most SNIPPET_TOKENS words.
SNIPPET_START, SNIPPET_END, SNIPPET_ELLIPSIS, SNIPPET_TOKENS = "[[", "]]", "…", 12
# bm25 weights of key, summary, description and comments: a word in the key or
# the summary says more about what an issue is than one in a long text.
WEIGHTS = (10.0, 5.0, 1.0, 1.0)
_BM25 = f"bm25(issue_fts, {', '.join(map(str, WEIGHTS))})"
_SNIPPET = (f"snippet(issue_fts, -1, '{SNIPPET_START}', '{SNIPPET_END}', '{SNIPPET_ELLIPSIS}', "
            f"{SNIPPET_TOKENS})")
# Ranking costs about a microsecond per match (bm25 reads each match's sizes):
# a word in most of 100k issues would take ~100 ms. So the matches ranked are
# the RANKED_MATCHES most recently mirrored ones, which FTS5 reads newest first
# and stops; a query that matches fewer (nearly every real one) is ranked whole.
# ``total`` still counts every match.
RANKED_MATCHES = 10_000
# The page of matches is chosen on the index and the filters alone; only its
# rows are then read whole and get a snippet, which costs reading their text.
# CROSS JOIN keeps the index the outer loop: SQLite would otherwise scan
# ``issue`` and run the match once per row when a filter looks selective.
SUMMARY_FIELDS = (
    "key", "id", "issue_type", "summary", "status", "priority", "assignee", "reporter",
    "duedate", "planned_start", "planned_end", "epic_key", "labels", "sprint", "created",
    "jira_updated", "jira_updated_at", "fetched_at", "neighbor",
)
# Filters as (SQL condition, params); named here, since in IssueService ``list`` is a method.
_Where = list[tuple[str, list]]

_SEARCH = (
    "SELECT " + ", ".join(f"issue.{name}" for name in SUMMARY_FIELDS) + ", " + _SNIPPET + " AS snippet "
    "FROM (SELECT doc, score FROM"
    "       (SELECT issue_fts.rowid AS doc, " + _BM25 + " AS score FROM issue_fts {join}"
    "         WHERE issue_fts MATCH ? {filters} ORDER BY issue_fts.rowid DESC LIMIT "
    + str(RANKED_MATCHES) + ")"
    "      ORDER BY score, doc DESC LIMIT ? OFFSET ?) AS hit "
    "CROSS JOIN issue_fts CROSS JOIN issue "
    "WHERE issue_fts MATCH ? AND issue_fts.rowid = hit.doc AND issue.rowid = hit.doc "
    "ORDER BY hit.score, hit.doc DESC"
)
_COUNT = "SELECT count(*) FROM issue_fts {join} WHERE issue_fts MATCH ? {filters}"
_JOIN = "CROSS JOIN issue ON issue.rowid = issue_fts.rowid"
# What FTS5 says of a query it cannot read. fts_query writes only queries it
# can; this is the last guard that keeps a user's text from becoming a 500.
_FTS_SYNTAX = ("fts5:", "unterminated string", "unknown special query")



class Link(NamedTuple):
    """One link of an issue, seen from it: the link's type, the other issue's key,
    its ``summary`` and ``status``, and whether the mirror holds it."""

    type: str
    key: str
    summary: str | None
    status: str | None
    in_mirror: bool


@dataclass(frozen=True)
class IssueDetail:
    """One issue's row with its links both ways, each side ordered by type, then key."""

    issue: Issue
    outward: list[Link]
    inward: list[Link]


def _link_order(link: Link) -> tuple[str, str]:
    return link.type, link.key


class IssueService:
    def __init__(self, clock: Clock | None = None):
        self._clock = clock or Clock()

    def list(self, *, q: str | None = None, cursor: int | None = None, limit: int = 50,
             **filters) -> dict:
        """Issues matching ``filters`` (see :meth:`_filters`), and ``q`` when given.

        Without ``q``, the items are ``Issue`` rows, most recently added to the
        mirror first, and ``next_cursor`` is the last item's rowid. With ``q``, they
        are plain tuples (the SUMMARY_FIELDS, then the ``snippet``), best match
        first (bm25), and ``next_cursor`` counts the matches already shown. The
        first page (no ``cursor``) also tells the ``total`` of matching issues.
        """
        where = self._filters(**filters)
        if q is not None:
            return self._search(fts_query(q), where, cursor, limit)
        query = Issue.select()
        for sql, params in where:
            query = query.where(SQL(sql, params))
        # The rowid grows as issues are added, so it orders the mirror by
        # arrival, as an integer cursor can follow; ``key`` (TEXT) could not.
        result = page(query, SQL("rowid"), cursor, limit, _row)
        if cursor is None:
            result["total"] = query.count()
        return result

    @staticmethod
    def _filters(*, status: str | None = None, assignee: str | None = None, epic_key: str | None = None,
                 label: str | None = None, neighbor: int | None = None, fetched_since: str | None = None,
                 issue_type: str | None = None, sprint: str | None = None, project: str | None = None,
                 updated_since: str | None = None) -> _Where:
        """The filters as ``(SQL condition, params)``, every one of them to hold: the columns
        are named alone, which only ``issue`` has of the tables a search joins."""
        where = [(f"{column} = ?", [value]) for column, value in (
            ("status", status), ("assignee", assignee), ("epic_key", epic_key), ("neighbor", neighbor),
            ("issue_type", issue_type), ("sprint", sprint)) if value is not None]
        if project is not None and Project.get_or_none(Project.label == project) is None:
            raise ContractError(f"project: no project {project!r}; see GET /api/v1/projects", "project")
        # A project is its label: its issues are those that carry it.
        for value in (label, project):
            if value is not None:
                where.append(("EXISTS (SELECT 1 FROM json_each(labels) WHERE value = ?)", [value]))
        if fetched_since is not None:
            where.append(("fetched_at >= ?", [fetched_since]))
        if updated_since is not None:
            moment = parse_utc(updated_since)
            if moment is None:
                raise ContractError(f"updated_since: {updated_since!r} names no time", "updated_since")
            # Both sides in the hub's format (``+00:00``), which compares as time does.
            where.append(("jira_updated_at >= ?", [iso(moment)]))
        return where

    @staticmethod
    def _search(match: str, where: _Where, offset: int | None, limit: int) -> dict:
        join = _JOIN if where else ""
        filters = "".join(f" AND {sql}" for sql, _ in where)
        params = [p for _, ps in where for p in ps]
        try:
            # Plain rows, not models: shaped straight into dicts at the edge, a page of 50
            # costs a third less than building its models would.
            rows = database.execute_sql(_SEARCH.format(join=join, filters=filters),
                                        [match, *params, limit + 1, offset or 0, match]).fetchall()
            total = None if offset else database.execute_sql(
                _COUNT.format(join=join, filters=filters), [match, *params]).fetchone()[0]
        except peewee.OperationalError as exc:
            if not str(exc).startswith(_FTS_SYNTAX):
                raise
            raise ContractError(f"q: the search could not be run ({exc})", "q") from None
        more = len(rows) > limit
        result = listing(rows[:limit], (offset or 0) + limit if more else None)
        if total is not None:
            result["total"] = total
        return result

    def get(self, key: str) -> IssueDetail:
        """One issue with its links both ways, each link with the other issue's
        ``summary`` and ``status`` and whether the mirror holds it (``in_mirror``)."""
        issue = self._issue(key)
        outward: list[Link] = []
        inward: list[Link] = []
        for link_type, source, target, held, summary, status in self._links(key):
            other = target if source == key else source
            item = Link(link_type, other, summary, status, held is not None)
            if source == key:
                outward.append(item)
            elif target == key:  # a link of the issue to itself is outward only
                inward.append(item)
        return IssueDetail(issue, sorted(outward, key=_link_order), sorted(inward, key=_link_order))

    @staticmethod
    def _links(key: str):
        """The issue's links both ways, each joined to the other issue in one query: an issue
        with 10,000 links is read at once, not one issue per link."""
        other = Issue.alias()
        other_key = Case(None, [(IssueLink.source_key == key, IssueLink.target_key)], IssueLink.source_key)
        return (IssueLink
                .select(IssueLink.link_type, IssueLink.source_key, IssueLink.target_key,
                        other.key, other.summary, other.status)
                .join(other, JOIN.LEFT_OUTER, on=(other.key == other_key))
                .where((IssueLink.source_key == key) | (IssueLink.target_key == key))
                .tuples())

    def comments(self, key: str) -> dict:
        """The comments (the rows), oldest first."""
        self._issue(key)
        return listing(IssueComment.select().where(IssueComment.key == key)
                       .order_by(IssueComment.created_at.asc(nulls="LAST"), IssueComment.comment_id))

    def changes(self, key: str) -> dict:
        """The changelog (the rows), oldest first: one per changed field."""
        self._issue(key)
        return listing(IssueChange.select().where(IssueChange.key == key)
                       .order_by(IssueChange.created_at.asc(nulls="LAST"), IssueChange.history_id,
                                 IssueChange.item_no))

    # -- notes -----------------------------------------------------------------

    def notes(self, key: str) -> dict:
        """The notes on an issue (the rows), oldest first."""
        self._issue(key)
        return listing(IssueNote.select().where(IssueNote.key == key).order_by(IssueNote.id))

    def add_note(self, key: str, author: str, body: str) -> IssueNote:
        now = iso(self._clock.now())
        with database.atomic():
            self._issue(key)
            note = IssueNote.create(key=key, author=author, body=body, created_at=now, updated_at=now)
        return note

    def edit_note(self, note_id: int, body: str) -> IssueNote:
        with database.atomic():
            note = self._note(note_id)
            note.body, note.updated_at = body, iso(self._clock.now())
            note.save()
        return note

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


def _row(issue: Issue) -> Issue:
    return issue
