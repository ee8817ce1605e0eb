"""The values the issues of a query hold, with their counts (``GET /api/v1/issues/facets``).

The query is the list's own (``q``, ``jql`` and every filter of
:func:`hub.services.search.conditions.conditions`): its matching issues are read once for the
facets of their own columns, counted here, while those with an index (status, priority,
resolution) are counted by SQLite on it and sprints through ``issue_sprint``; each facet most
first, at most :data:`FACET_VALUES` values (``more`` says when there are others). The whole
answer is bounded in time as a JQL query is (:func:`hub.services.search.jql.bounded.bounded`): a slow
one is a TooSlow (503).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from zoneinfo import ZoneInfo

import peewee

from hub import dialect
from hub.clock import Clock
from hub.db import database
from hub.errors import ContractError, InvalidQuery
from hub.services.mirror.catalogues import CatalogueService
from hub.services.search.conditions import Where, conditions
from hub.services.search.jql.bounded import bounded
from hub.services.search.jql.compiler import compile_query
from hub.services.search.jql.parser import parse
from hub.services.search.jql.tree import JqlError

# The most values a facet lists; ``more`` tells that it holds others.
FACET_VALUES = 50
# The facets read from the issue's own columns, by name: the column, and whether it holds a
# JSON array (of names; of versions for fix_version). Each matching issue is read once for all
# of them: the cost of a facet is then counting, not another pass over the mirror, whose rows
# (with their descriptions) are what takes the time.
_COLUMNS = {"status": ("status", False), "assignee": ("assignee", False), "reporter": ("reporter", False),
            "issue_type": ("issue_type", False), "priority": ("priority", False),
            "resolution": ("resolution", False), "label": ("labels", True), "component": ("components", True),
            "fix_version": ("fix_versions", True), "project": ("labels", True)}
# The columns with an index of their own: counted by SQLite on the index, which holds far less
# than the rows.
_INDEXED = frozenset({"status", "priority", "resolution"})
# Every sprint the matching issues were ever in (issue_sprint), by id: (name, id, count).
_SPRINTS = ("SELECT sprint.name, sprint.sprint_id, count(*) AS n FROM issue_sprint "
            "JOIN sprint ON sprint.sprint_id = issue_sprint.sprint_id "
            "WHERE issue_sprint.key IN (SELECT issue.key {matching}) GROUP BY sprint.sprint_id ORDER BY n DESC, 1")
_PROJECTS = "SELECT label FROM project"
FACET_NAMES = ("status", "assignee", "reporter", "issue_type", "priority", "resolution", "sprint", "label",
               "component", "fix_version", "project")
# The facets that name people: their values are logins, shown with the users' display names.
PEOPLE = ("assignee", "reporter")
_FTS_SYNTAX = ("fts5:", "unterminated string", "unknown special query")


@dataclass(frozen=True)
class FacetValue:
    """One value of a facet: as the list's filter takes it (``value``; None for the issues that
    hold none), the sprint's ``id``, a person's display ``name``, and how many issues hold it."""

    value: str | None
    count: int
    id: int | None = None
    name: str | None = None


@dataclass(frozen=True)
class Facet:
    values: list[FacetValue]
    more: bool


@dataclass(frozen=True)
class Facets:
    """The facets asked, by name, and the ``total`` of matching issues."""

    total: int
    facets: dict[str, Facet]


class FacetService:
    def __init__(self, clock: Clock, catalogues: CatalogueService, *, jql_zone: Callable[[], ZoneInfo],
                 matching: Callable[..., tuple[str, list]], jql_timeout_seconds: float = 5):
        self._clock = clock
        # The engine's full-text condition (``FullText.matching(q, fields)``), for ``q`` and JQL's ``~``.
        self._fulltext_matching = matching
        self._catalogues = catalogues
        self._jql_timeout = jql_timeout_seconds
        # The zone JQL's dates are read in (the Jira user's).
        self._jql_zone = jql_zone

    def facets(self, *, q: str | None = None, jql: str | None = None, fields: list[str] | None = None,
               **filters) -> Facets:
        """The facets ``fields`` (by default every one of FACET_NAMES) of the issues the list
        would answer for the same ``q``, ``jql`` and filters."""
        if jql is not None and q is not None:
            raise ContractError('jql: cannot be combined with q; search words in the query (text ~ "…")', "jql")
        asked = [name for name in FACET_NAMES if fields is None or name in fields]
        with bounded(self._jql_timeout, what="The facets' query"):
            matching, params = self._matching(q, jql, conditions(**filters))
            try:
                total, counted = self._count(matching, params, asked)
            except peewee.OperationalError as exc:
                if not str(exc).startswith(_FTS_SYNTAX):
                    raise
                raise ContractError(f"q: the search could not be run ({exc})", "q") from None
        logins = [value for name in PEOPLE if name in counted for value, _, _ in counted[name][:FACET_VALUES] if value]
        users = self._catalogues.users(logins) if logins else {}
        facets = {}
        for name in asked:
            rows = counted[name]
            values = [FacetValue(value, count, ident,
                                 users[value].display_name if name in PEOPLE and value in users else None)
                      for value, ident, count in rows[:FACET_VALUES]]
            facets[name] = Facet(values, len(rows) > FACET_VALUES)
        return Facets(total, facets)

    @staticmethod
    def _count(matching: str, params: list, asked: list[str]) -> tuple[int, dict[str, list[tuple]]]:
        """The total and, for each facet asked, its (value, id, count) rows, most first, then by value."""
        columns = list(dict.fromkeys(_COLUMNS[name][0] for name in asked
                                     if name in _COLUMNS and name not in _INDEXED))
        rows = database.execute_sql(f"SELECT {', '.join(f'issue.{c}' for c in columns) or '1'} {matching}",
                                    params).fetchall()
        by_column = dict(zip(columns, zip(*rows, strict=True), strict=True)) if rows and columns else {
            column: () for column in columns}
        counted: dict[str, list[tuple]] = {}
        for name in asked:
            if name == "sprint":
                counted[name] = database.execute_sql(_SPRINTS.format(matching=matching), params).fetchall()
                continue
            column, many = _COLUMNS[name]
            if name in _INDEXED:
                counts = Counter(dict(database.execute_sql(
                    f"SELECT issue.{column}, count(*) {matching} GROUP BY 1", params).fetchall()))
            else:
                counts = _each(by_column[column], versions=name == "fix_version") if many else Counter(
                    by_column[column])
            if name == "project":
                projects = {label for (label,) in database.execute_sql(_PROJECTS).fetchall()}
                counts = Counter({label: n for label, n in counts.items() if label in projects})
            counted[name] = [(value, None, n) for value, n in
                             sorted(counts.items(), key=lambda item: (-item[1], item[0] is None, str(item[0])))]
        return len(rows), counted

    def _matching(self, q: str | None, jql: str | None, where: Where) -> tuple[str, list]:
        """The FROM and WHERE of the issues matching (``issue`` under its name), with its parameters."""
        if jql is not None:
            try:
                compiled = compile_query(parse(jql), now=self._clock.now(), zone=self._jql_zone(),
                                         words=self._fulltext_matching)
            except JqlError as exc:
                raise InvalidQuery(exc.message, exc.at) from None
            where = [*where, *compiled.where]
        filters = " AND ".join(f"({sql})" for sql, _ in where)
        params = [p for _, ps in where for p in ps]
        if q is not None:
            match, match_params = self._fulltext_matching(q)
            return f"FROM issue WHERE ({match})" + (f" AND {filters}" if filters else ""), [*match_params, *params]
        return f"FROM issue WHERE {filters or dialect.jql.current().true}", params


def _each(texts, *, versions: bool) -> Counter:
    """How many issues hold each name of the JSON arrays ``texts`` (one per issue; versions by
    name): each distinct array is read once, a name an issue lists twice counted once."""
    counts: Counter = Counter()
    for text, issues in Counter(texts).items():
        if not text:
            continue
        try:
            items = json.loads(text) if isinstance(text, str) else text
        except ValueError:
            continue
        names = {item.get("name") if isinstance(item, dict) else None for item in items} if versions else {
            item for item in items if isinstance(item, str)}
        for name in names:
            if isinstance(name, str):
                counts[name] += issues
    return counts
