"""Full-text search of the mirror (``q``), one interface over two engines.

The query language is :mod:`hub.services.search.text_query`'s; what runs it differs: FTS5 on
SQLite (:class:`hub.services.search.fulltext_sqlite.SqliteFullText`) and tsvectors under GIN
on PostgreSQL (:class:`hub.services.search.fulltext_postgres.PostgresFullText`). The builder
(:mod:`hub.assembly`) picks one for the hub's engine and hands it to the issue list.
Both answer the same page: plain rows (the SUMMARY_FIELDS, then the snippet), best
match first, the snippet's matches between SNIPPET_START and SNIPPET_END.
"""

from __future__ import annotations

from typing import Protocol

from hub.services.search.conditions import Where

# How a match shows in ``snippet``: between the markers, with an ellipsis where
# the text was cut; at most SNIPPET_TOKENS words.
SNIPPET_START, SNIPPET_END, SNIPPET_ELLIPSIS, SNIPPET_TOKENS = "[[", "]]", "…", 12
# Weights of a word in the key, summary, description, comments and other (the environment
# and the text of custom fields): a word in the key or the summary says more about what an
# issue is than one in a long text.
WEIGHTS = (10.0, 5.0, 1.0, 1.0, 1.0)
# Ranking reads each match: the matches ranked are the RANKED_MATCHES most recent ones
# (a query that matches fewer, nearly every real one, is ranked whole).
RANKED_MATCHES = 10_000
# The columns of a search's plain rows, before the snippet.
SUMMARY_FIELDS = (
    "key", "id", "issue_type", "summary", "status", "priority", "assignee", "reporter",
    "duedate", "planned_start", "planned_end", "epic_key", "labels", "sprint", "created",
    "jira_updated", "jira_updated_at", "fetched_at", "neighbor", "resolution", "resolved",
    "resolved_at", "components", "fix_versions", "affects_versions", "parent_key",
    "time_original_estimate", "time_estimate", "time_spent", "custom_fields", "gone_at", "gone_reason",
)
# The SUMMARY_FIELDS held as JSON text, which a search's plain rows carry as text.
JSON_SUMMARY_FIELDS = ("labels", "components", "fix_versions", "affects_versions", "custom_fields")
# ORDER BY terms ("<expression> ASC|DESC") of the list's ``sort``.
Order = list[str]


class FullText(Protocol):
    """What the issue list asks of the engine's full-text search."""

    def search(self, q: str, where: Where, offset: int | None, limit: int, *, order: Order | None) -> dict:
        """A page of the issues ``q`` matches (with the filters ``where``) as a listing of
        plain rows, the SUMMARY_FIELDS then the snippet: best match first, or in ``order``
        (ORDER BY terms) when given. ``offset`` counts the matches already shown; the first
        page (no offset) also has ``total`` (and ``total_estimated`` when it is an estimate).
        ContractError(field="q") when ``q`` is not a query."""
        ...  # pragma: no cover

    def matching(self, q: str, fields: tuple[str, ...] | None = None) -> tuple[str, list]:
        """A condition on ``issue`` (SQL, params): the issues ``q`` matches, its words
        searched in ``fields`` only when given (as JQL's ``summary ~`` and ``text ~`` search)."""
        ...  # pragma: no cover
