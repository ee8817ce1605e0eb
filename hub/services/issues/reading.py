"""Reading the mirror, and the notes interfaces keep on issues.

Interfaces read ``issue``, ``issue_link``, ``issue_comment`` and
``issue_change`` but never write them; only state loaded from agents does
(:mod:`hub.services.mirror.loading`). Notes (``issue_note``) are the hub's own data.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, NamedTuple
from zoneinfo import ZoneInfo

import peewee
from peewee import JOIN, SQL, Case, fn

from hub import dialect
from hub.clock import Clock, iso
from hub.db import database
from hub.errors import ContractError, Forbidden, InvalidQuery, NotFound
from hub.models import Issue, IssueChange, IssueComment, IssueLink, IssueNote, IssueWorklog
from hub.services.issues.sprints import IssueSprint, SprintService
from hub.services.mirror.aliases import current_issue, moved_from
from hub.services.mirror.catalogues import CatalogueService
from hub.services.pagination import listing, page
from hub.services.search.conditions import Where, conditions, sort_order
from hub.services.search.fulltext import JSON_SUMMARY_FIELDS, SUMMARY_FIELDS, FullText, Order  # noqa: F401 (the list's row shape)
from hub.services.search.fulltext_sqlite import FTS_SYNTAX
from hub.services.search.jql.bounded import bounded
from hub.services.search.jql.compiler import compile_query
from hub.services.search.jql.parser import parse
from hub.services.search.jql.tree import JqlError
from hub.vocabulary import ADMIN

# Fields whose changelog items hold user keys in ``from`` and ``to``.
USER_FIELDS = frozenset({"assignee", "reporter"})
# ``issue`` under its own name, so that the filters' ``issue.<column>`` hold in the plain list too.
ISSUES = Issue.alias("issue")

# (sum of a BIGINT is NUMERIC on PostgreSQL: cast back, so that it answers an integer.)
_WORKLOG_TOTALS = "SELECT count(*), CAST(coalesce(sum(time_spent), 0) AS BIGINT) FROM issue_worklog WHERE key = ?"
# What FTS5 says of a query it cannot read (a '~' of JQL).
_FTS_SYNTAX = FTS_SYNTAX



class Link(NamedTuple):
    """One link of an issue, seen from it: the link's type, the other issue's key,
    its ``summary`` and ``status``, whether the mirror holds it, and the link's
    ``phrase`` from this side ("blocks", "is blocked by"; the type's name when the
    link types catalogue does not name it), and whether the other issue is gone."""

    type: str
    key: str
    summary: str | None
    status: str | None
    in_mirror: bool
    phrase: str
    gone: bool = False


class Subtask(NamedTuple):
    """A sub-task of an issue (an issue whose ``parent_key`` it is), with its assignee's
    login; a gone one is listed, marked."""

    key: str
    summary: str | None
    status: str | None
    gone: bool = False
    assignee: str | None = None


class Names(NamedTuple):
    """What the mirror knows of the people a list names: display names by login, and
    login names by Jira's user key (which changelogs write for user fields)."""

    displays: dict[str, str | None]
    logins: dict[str, str]


class Listed(NamedTuple):
    """An item of the mirror's list: the issue's row (an ``Issue``, or a search's plain
    row: the SUMMARY_FIELDS, then the snippet), the sprints it was ever in, and the keys
    it had before it moved (oldest first)."""

    row: Any  # an Issue, or a search's tuple: the shape that reads it knows which
    sprints: list[IssueSprint]
    moved_from: tuple[str, ...] | list[str] = ()


@dataclass(frozen=True)
class IssueDetail:
    """One issue's row with its links both ways (each side ordered by type, then key), its
    sprints, its sub-tasks, and the display names of the logins it names (``people``)."""

    issue: Issue
    outward: list[Link]
    inward: list[Link]
    sprints: list[IssueSprint] = field(default_factory=list)
    subtasks: list[Subtask] = field(default_factory=list)
    people: dict[str, str | None] = field(default_factory=dict)
    moved_from: list[str] = field(default_factory=list)


def _is_user_field(custom: dict) -> bool:
    """Whether a custom field holds Jira users: its schema type is ``user``, or its
    custom type a user picker (single or multi)."""
    return custom.get("type") == "user" or "userpicker" in str(custom.get("custom") or "").lower()


def user_field_logins(custom_fields: Any) -> list[str]:
    """The logins the user custom fields of an issue name (the agent flattens a user to its login)."""
    logins: list[str] = []
    for custom in (custom_fields or {}).values():
        if not isinstance(custom, dict) or not _is_user_field(custom):
            continue
        value = custom.get("value")
        logins += [one for one in (value if isinstance(value, list) else [value]) if isinstance(one, str) and one]
    return logins


def _link_order(link: Link) -> tuple[str, str]:
    return link.type, link.key


# Where a search's plain row (the SUMMARY_FIELDS, then the snippet) holds the people it names.
_ROW_PEOPLE = tuple(SUMMARY_FIELDS.index(name) for name in ("assignee", "reporter"))


def _row_people(row: Any) -> tuple[str | None, ...]:
    """The logins a row of the list names: its assignee and reporter (an ``Issue``, or a search's tuple)."""
    if isinstance(row, Issue):
        return row.assignee, row.reporter
    return tuple(row[at] for at in _ROW_PEOPLE)


def key_order(key: str) -> tuple[str, int]:
    """A key as people order them: by project, then by number (AURORA-9 before AURORA-10)."""
    project, _, number = key.rpartition("-")
    return project, int(number) if number.isdigit() else 0


class IssueService:
    def __init__(self, clock: Clock, catalogues: CatalogueService, sprints: SprintService, *,
                 jql_zone: Callable[[], ZoneInfo], fulltext: FullText, jql_timeout_seconds: float = 5):
        self._clock = clock
        # The engine's full-text search (``q``), chosen by the builder.
        self._fulltext = fulltext
        self._catalogues = catalogues
        self._sprints = sprints
        self._jql_timeout = jql_timeout_seconds
        # The zone JQL's dates are read in (the Jira user's).
        self._jql_zone = jql_zone

    def list(self, *, q: str | None = None, jql: str | None = None, cursor: int | None = None,
             limit: int = 50, sort: str | None = None, **filters) -> dict:
        """Issues matching ``filters`` (see :func:`hub.services.search.conditions.conditions`),
        and ``q`` when given, as :class:`Listed` items.

        Without ``q``, the rows are ``Issue`` rows, most recently added to the
        mirror first, and ``next_cursor`` is the last item's rowid. With ``q``, they
        are plain tuples (the SUMMARY_FIELDS, then the ``snippet``), best match
        first (bm25), and ``next_cursor`` counts the matches already shown; TooSlow (503)
        when the search takes longer than the JQL bound.
        ``sort`` orders either by a column (:func:`hub.services.search.conditions.sort_order`:
        ``priority`` by Jira's priorities, unknown last, then key; ``-name`` going down),
        and ``next_cursor`` counts the issues already shown. The first page
        (no ``cursor``) also tells the ``total`` of matching issues.

        With ``jql``, the rows are ``Issue`` rows matching the JQL query and the other
        filters (all of them: a query's own words are ``text ~``, so ``q`` is refused
        beside it, and so is ``sort``, which is ORDER BY), in the query's order, and
        ``next_cursor`` counts the issues already shown. See :meth:`_jql`.
        """
        if jql is not None:
            if q is not None:
                raise ContractError('jql: cannot be combined with q; search words in the query (text ~ "…")', "jql")
            if sort is not None:
                raise ContractError("sort: cannot be combined with jql; order the query with ORDER BY", "sort")
            return self._with_sprints(self._jql(jql, conditions(**filters), cursor, limit), lambda row: row.key)
        where = conditions(**filters)
        if q is not None:
            # A search is bounded as a JQL query is: a short prefix (``a*``) reads most of the index.
            with bounded(self._jql_timeout, what="The search"):
                result = self._fulltext.search(q, where, cursor, limit, order=sort_order(sort) if sort else None)
            return self._with_sprints(result, lambda row: row[0])
        query = ISSUES.select()
        for sql, params in where:
            query = query.where(SQL(sql, params))
        if sort is not None:
            # No integer key follows these orders: the cursor is an offset, as a search's is
            # (every order ends with the key, so the same offset is the same place).
            offset = cursor or 0
            order = [SQL(dialect.jql.current().sqlite_nulls(term)) for term in sort_order(sort)]
            rows = list(query.order_by(*order).limit(limit + 1).offset(offset))
            more = len(rows) > limit
            result = listing(rows[:limit], offset + limit if more else None)
        else:
            # The rowid grows as issues are added, so it orders the mirror by
            # arrival, as an integer cursor can follow; ``key`` (TEXT) could not.
            # (On PostgreSQL, issue.rowid is a column of its own: see its schema.sql.)
            result = page(query, SQL("rowid"), cursor, limit, _row)
        if cursor is None:
            result["total"] = query.count()
        return self._with_sprints(result, lambda row: row.key)

    def _jql(self, jql: str, where: Where, offset: int | None, limit: int) -> dict:
        """A page of the issues ``jql`` matches (with ``where``), in its order; InvalidQuery (422,
        with the position) when it does not parse or the mirror cannot answer it, TooSlow
        (503) when compiling and running it take longer than the bound."""
        offset = offset or 0
        with bounded(self._jql_timeout, what="The JQL query"):
            try:
                compiled = compile_query(parse(jql), now=self._clock.now(), zone=self._jql_zone(),
                                         words=self._fulltext.matching)
            except JqlError as exc:
                raise InvalidQuery(exc.message, exc.at) from None
            conditions_ = [*where, *compiled.where]
            filters = " AND ".join(f"({sql})" for sql, _ in conditions_) or dialect.jql.current().true
            params = [p for _, ps in conditions_ for p in ps]
            try:
                counted = offset == 0 and dialect.jql.current().sorts_every_match(
                    f"SELECT issue.key FROM issue WHERE {filters} ORDER BY {', '.join(compiled.order)}", params)
                rows = list(Issue.raw(_jql_page(filters, compiled.order, total=counted), *params,
                                      limit + 1, offset))
                if counted:
                    # The first page carries the total on its rows; none means no match at all.
                    total = rows[0].total if rows else 0
                elif offset == 0:
                    total = database.execute_sql(f"SELECT count(*) FROM issue WHERE {filters}", params).fetchone()[0]
                else:
                    total = None
            except peewee.OperationalError as exc:
                # The words of a ``~`` are written for FTS5 by fts_query; this is the last guard.
                if not str(exc).startswith(_FTS_SYNTAX):
                    raise
                raise InvalidQuery(f"The text of a '~' could not be searched ({exc}).") from None
        more = len(rows) > limit
        result = listing(rows[:limit], offset + limit if more else None)
        if total is not None:
            result["total"] = total
        return result

    def _with_sprints(self, result: dict, key_of) -> dict:
        """The page's rows as :class:`Listed` items, their sprints and past keys read in a query each;
        ``people``: the display names of the logins the page's rows name (assignee, reporter)."""
        rows = result["items"]
        sprints = self._sprints.of_issues(key_of(row) for row in rows)
        past = moved_from(key_of(row) for row in rows)
        result["items"] = [Listed(row, sprints.get(key_of(row), []), past.get(key_of(row), [])) for row in rows]
        result["people"] = self.people(login for row in rows for login in _row_people(row))
        return result

    def people(self, logins: Iterable[str | None]) -> dict[str, str | None]:
        """The display names of those of ``logins`` the mirror knows as Jira's users, by login."""
        users = self._catalogues.users([login for login in logins if login])
        return {name: user.display_name for name, user in users.items()}

    def get(self, key: str) -> IssueDetail:
        """One issue with its links both ways, each link with the other issue's
        ``summary`` and ``status``, whether the mirror holds it (``in_mirror``) and
        its ``phrase``; its sprints, its sub-tasks (by key, each with its assignee), its ``people`` (the
        display names of its assignee, reporter, sub-tasks' assignees and the users its
        user custom fields name) and the keys it
        had before it moved (``moved_from``). An old key of a moved issue finds the issue
        (its row says the key it has now)."""
        issue = self._issue(key)
        key = issue.key
        link_types = self._catalogues.link_types()
        outward: list[Link] = []
        inward: list[Link] = []
        for link_type, source, target, held, summary, status, gone_at in self._links(key):
            other = target if source == key else source
            words = link_types.get(link_type, {})
            if source == key:
                outward.append(Link(link_type, other, summary, status, held is not None,
                                    words.get("outward") or link_type, gone_at is not None))
            elif target == key:  # a link of the issue to itself is outward only
                inward.append(Link(link_type, other, summary, status, held is not None,
                                   words.get("inward") or link_type, gone_at is not None))
        subtasks = [Subtask(row.key, row.summary, row.status, row.gone_at is not None, row.assignee) for row in
                    Issue.select(Issue.key, Issue.summary, Issue.status, Issue.gone_at, Issue.assignee)
                    .where(Issue.parent_key == key)]
        named = [issue.assignee, issue.reporter, *(task.assignee for task in subtasks),
                 *user_field_logins(issue.custom_fields)]
        users = self._catalogues.users([name for name in named if name])
        return IssueDetail(issue, sorted(outward, key=_link_order), sorted(inward, key=_link_order),
                           sprints=self._sprints.of_issues([key]).get(key, []),
                           subtasks=sorted(subtasks, key=lambda task: key_order(task.key)),
                           people={name: user.display_name for name, user in users.items()},
                           moved_from=moved_from([key]).get(key, []))

    @staticmethod
    def _links(key: str):
        """The issue's links both ways, each joined to the other issue in one query: an issue
        with 10,000 links is read at once, not one issue per link."""
        other = Issue.alias()
        other_key = Case(None, [(IssueLink.source_key == key, IssueLink.target_key)], IssueLink.source_key)
        return (IssueLink
                .select(IssueLink.link_type, IssueLink.source_key, IssueLink.target_key,
                        other.key, other.summary, other.status, other.gone_at)
                .join(other, JOIN.LEFT_OUTER, on=(other.key == other_key))
                .where((IssueLink.source_key == key) | (IssueLink.target_key == key))
                .tuples())

    def comments(self, key: str, *, cursor: int | None = None, limit: int | None = None) -> dict:
        """The comments (the rows), oldest first, with the :class:`Names` of their authors: all of
        them, or with ``limit`` a page of them after the ``cursor`` first (``next_cursor`` counts
        the comments already shown). Every answer tells the issue's ``total`` of comments."""
        key = self._issue(key).key
        comments = IssueComment.select().where(IssueComment.key == key)
        total = comments.count()
        query = comments.order_by(IssueComment.created_at.asc(nulls="LAST"), IssueComment.comment_id)
        offset = cursor or 0
        if offset or limit is not None:
            query = query.limit(total if limit is None else limit).offset(offset)
        rows = list(query)
        shown = offset + len(rows)
        return listing(rows, shown if limit is not None and shown < total else None, total=total,
                       names=self._names(row.author for row in rows))

    def changes(self, key: str) -> dict:
        """The changelog (the rows), oldest first: one per changed field; with the
        :class:`Names` of the authors and of the user keys of user fields (USER_FIELDS)."""
        key = self._issue(key).key
        rows = list(IssueChange.select().where(IssueChange.key == key)
                    .order_by(IssueChange.created_at.asc(nulls="LAST"), IssueChange.history_id,
                              IssueChange.item_no))
        user_keys = [value for row in rows if row.field in USER_FIELDS
                     for value in (row.from_value, row.to_value) if value]
        return listing(rows, names=self._names((row.author for row in rows), user_keys))

    def worklogs(self, key: str, *, cursor: int | None = None, limit: int = 50) -> dict:
        """The worklogs (the rows), earliest start first, then by id; ``next_cursor`` counts
        the worklogs already shown. Every page tells the issue's ``total`` of worklogs and
        their ``time_spent`` (seconds), with the :class:`Names` of the page's authors."""
        key = self._issue(key).key
        offset = cursor or 0
        rows = list(IssueWorklog.select().where(IssueWorklog.key == key)
                    .order_by(IssueWorklog.started_at.asc(nulls="LAST"), fn.length(IssueWorklog.worklog_id),
                              IssueWorklog.worklog_id)
                    .limit(limit + 1).offset(offset))
        totals = database.execute_sql(_WORKLOG_TOTALS, [key]).fetchone()
        more = len(rows) > limit
        rows = rows[:limit]
        return listing(rows, offset + limit if more else None, total=totals[0], time_spent=totals[1],
                       names=self._names(row.author for row in rows))

    def _names(self, logins, user_keys=()) -> Names:
        users = self._catalogues.users([login for login in logins if login])
        return Names({name: user.display_name for name, user in users.items()},
                     self._catalogues.logins(list(user_keys)))

    # -- notes -----------------------------------------------------------------

    def notes(self, key: str) -> dict:
        """The notes on an issue (the rows), oldest first."""
        key = self._issue(key).key
        return listing(IssueNote.select().where(IssueNote.key == key).order_by(IssueNote.id))

    def add_note(self, key: str, author: str, body: str) -> IssueNote:
        """A new note on the issue; one written to an old key of a moved issue goes to its key."""
        now = iso(self._clock.now())
        with database.atomic():
            key = self._locked_issue_key(key)
            note = IssueNote.create(key=key, author=author, body=body, created_at=now, updated_at=now)
        return note

    def edit_note(self, note_id: int, body: str, *, by: str, role: str) -> IssueNote:
        """Change a note's text: only its author's token (``by``, the token's name) or an
        admin token (``role``) may; any other is Forbidden, and nothing changes."""
        with database.atomic():
            note = self._own_note(note_id, by, role)
            note.body, note.updated_at = body, iso(self._clock.now())
            note.save()
        return note

    def delete_note(self, note_id: int, *, by: str, role: str) -> None:
        """Delete a note: only its author's token or an admin token may, as :meth:`edit_note`."""
        with database.atomic():
            self._own_note(note_id, by, role).delete_instance()

    def _own_note(self, note_id: int, by: str, role: str) -> IssueNote:
        # A note names its author by the token's name, which no two tokens share: as a
        # saved filter's owner (hub.services.issues.saved_filters), that token or an admin one.
        note = self._note(note_id, lock=True)
        if role != ADMIN and note.author != by:
            raise Forbidden(f"note {note_id} was written by another token; only its author's "
                            "token or an admin token may change or delete it")
        return note

    def _locked_issue_key(self, key: str) -> str:
        """The issue's key now, its row locked to the end of the transaction: a move that
        re-keys the issue (and its notes) waits, or has already happened and is followed."""
        for _ in range(3):
            current = self._issue(key).key
            if database.execute_sql(f"SELECT 1 FROM issue WHERE key = ?{dialect.current().for_update}",
                                    (current,)).fetchone():
                return current
        raise NotFound(f"no issue {key!r} in the mirror")

    @staticmethod
    def _issue(key: str) -> Issue:
        issue = current_issue(key)
        if issue is None:
            raise NotFound(f"no issue {key!r} in the mirror")
        return issue

    @staticmethod
    def _note(note_id: int, *, lock: bool = False) -> IssueNote:
        # Locked for an edit or a delete: another's delete in between is seen, not overwritten.
        if lock and not database.execute_sql(f"SELECT 1 FROM issue_note WHERE id = ?{dialect.current().for_update}",
                                             (note_id,)).fetchone():
            raise NotFound(f"no note {note_id}")
        note = IssueNote.get_or_none(IssueNote.id == note_id)
        if note is None:
            raise NotFound(f"no note {note_id}")
        return note


def _jql_page(filters: str, order: list[str], *, total: bool = False) -> str:
    """A JQL page's SQL: the page chosen on the conditions and the order's keys alone (the
    sorter holds those, not whole rows), then only its rows read whole, in the same order.
    With ``total``, each row also carries the count of every match (``total``): counted on the
    same pass that finds the matches for the sorter, rather than by finding them all again."""
    pieces = dialect.jql.current()
    terms = [term.rsplit(" ", 1) for term in order]  # the compiler's "<expression> ASC|DESC"
    keys = ", ".join(f"{expression} AS o{n}" for n, (expression, _) in enumerate(terms))
    columns, matches = f"{pieces.row} AS doc, {keys}", f"issue WHERE {filters}"
    chosen = pieces.counted(columns, matches) if total else f"SELECT {columns} FROM {matches}"
    inner = ", ".join(pieces.sqlite_nulls(f"o{n} {way}") for n, (_, way) in enumerate(terms))
    outer = ", ".join(pieces.sqlite_nulls(f"hit.o{n} {way}") for n, (_, way) in enumerate(terms))
    return (f"SELECT issue.*{', hit.total' if total else ''} FROM ({chosen} ORDER BY {inner} LIMIT ? OFFSET ?) AS hit "
            f"{pieces.join} issue ON {pieces.row} = hit.doc ORDER BY {outer}")




def _row(issue: Issue) -> Issue:
    return issue
