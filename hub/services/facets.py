"""The values the issues of a query hold, with their counts (``GET /api/v1/issues/facets``).

The query is the list's own (``q``, ``jql`` and every filter of
:func:`hub.services.issue_filters.conditions`): its matching issues are one subquery of rowids,
and each facet is one grouped count over them, most first, at most :data:`FACET_VALUES` values
(``more`` says when there are others). The whole answer is bounded in time as a JQL query is
(:func:`hub.services.jql.bounded.bounded`): a slow one is a TooSlow (503).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from zoneinfo import ZoneInfo

import peewee

from hub.clock import Clock
from hub.db import database
from hub.errors import ContractError, InvalidQuery
from hub.services.aliases import current_keys
from hub.services.catalogues import CatalogueService
from hub.services.issue_filters import Where, conditions
from hub.services.jql.bounded import bounded
from hub.services.jql.compiler import compile_query
from hub.services.jql.parser import parse
from hub.services.jql.tree import JqlError
from hub.services.search import fts_query

# The most values a facet lists; ``more`` tells that it holds others.
FACET_VALUES = 50
_UTC = ZoneInfo("UTC")
# Each facet's count, over ``{matching}`` (the rowids of the matching issues), as rows of
# (value, id or None, count), most first, then by value. A value the issue does not hold
# (no assignee, unresolved) is counted as NULL, for the fields of one value.
_SCALAR = ("SELECT issue.{column}, NULL, count(*) AS n FROM issue WHERE issue.rowid IN ({matching}) "
           "GROUP BY 1 ORDER BY n DESC, 1 LIMIT ?")
_EACH = ("SELECT {value}, NULL, count(DISTINCT issue.rowid) AS n FROM issue, json_each(issue.{column}) AS one "
         "WHERE issue.rowid IN ({matching}) {only} GROUP BY 1 ORDER BY n DESC, 1 LIMIT ?")
# Every sprint the issues were ever in (issue_sprint), by id.
_SPRINTS = ("SELECT sprint.name, sprint.sprint_id, count(*) AS n FROM issue "
            "JOIN issue_sprint ON issue_sprint.key = issue.key "
            "JOIN sprint ON sprint.sprint_id = issue_sprint.sprint_id "
            "WHERE issue.rowid IN ({matching}) GROUP BY sprint.sprint_id ORDER BY n DESC, 1 LIMIT ?")
_FACETS: dict[str, str] = {
    "status": _SCALAR.format(column="status", matching="{matching}"),
    "assignee": _SCALAR.format(column="assignee", matching="{matching}"),
    "reporter": _SCALAR.format(column="reporter", matching="{matching}"),
    "issue_type": _SCALAR.format(column="issue_type", matching="{matching}"),
    "priority": _SCALAR.format(column="priority", matching="{matching}"),
    "resolution": _SCALAR.format(column="resolution", matching="{matching}"),
    "sprint": _SPRINTS,
    "label": _EACH.format(value="one.value", column="labels", only="", matching="{matching}"),
    "component": _EACH.format(value="one.value", column="components", only="", matching="{matching}"),
    "fix_version": _EACH.format(value="json_extract(one.value, '$.name')", column="fix_versions", only="",
                                matching="{matching}"),
    # A project is a label of GET /api/v1/projects.
    "project": _EACH.format(value="one.value", column="labels", matching="{matching}",
                            only="AND one.value IN (SELECT label FROM project)"),
}
FACET_NAMES = tuple(_FACETS)
# The facets that name people: their values are logins, shown with the users' display names.
PEOPLE = ("assignee", "reporter")
_JOIN = "CROSS JOIN issue ON issue.rowid = issue_fts.rowid"


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
    def __init__(self, clock: Clock | None = None, catalogues: CatalogueService | None = None, *,
                 jql_timeout_seconds: float = 5, jql_zone: Callable[[], ZoneInfo] | None = None):
        self._clock = clock or Clock()
        self._catalogues = catalogues or CatalogueService()
        self._jql_timeout = jql_timeout_seconds
        self._jql_zone = jql_zone or (lambda: _UTC)

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
                total = database.execute_sql(f"SELECT count(*) FROM ({matching})", params).fetchone()[0]
                found = {name: database.execute_sql(_FACETS[name].format(matching=matching),
                                                    [*params, FACET_VALUES + 1]).fetchall() for name in asked}
            except peewee.OperationalError as exc:
                if not str(exc).startswith(("fts5:", "unterminated string", "unknown special query")):
                    raise
                raise ContractError(f"q: the search could not be run ({exc})", "q") from None
        logins = [row[0] for name in PEOPLE if name in found for row in found[name] if row[0]]
        users = self._catalogues.users(logins) if logins else {}
        facets = {}
        for name, rows in found.items():
            values = [FacetValue(value, count, ident,
                                 users[value].display_name if name in PEOPLE and value in users else None)
                      for value, ident, count in rows[:FACET_VALUES]]
            facets[name] = Facet(values, len(rows) > FACET_VALUES)
        return Facets(total, facets)

    def _matching(self, q: str | None, jql: str | None, where: Where) -> tuple[str, list]:
        """SQL of the rowids of the issues matching, with its parameters."""
        if jql is not None:
            try:
                compiled = compile_query(parse(jql), now=self._clock.now(), zone=self._jql_zone())
            except JqlError as exc:
                raise InvalidQuery(exc.message, exc.at) from None
            where = [*where, *compiled.where]
        filters = " AND ".join(f"({sql})" for sql, _ in where)
        params = [p for _, ps in where for p in ps]
        if q is not None:
            join = _JOIN if where else ""
            return (f"SELECT issue_fts.rowid FROM issue_fts {join} WHERE issue_fts MATCH ?"
                    + (f" AND {filters}" if filters else "")), [fts_query(q, current_keys), *params]
        return f"SELECT issue.rowid FROM issue WHERE {filters or '1'}", params
