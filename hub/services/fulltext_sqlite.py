"""Full-text search on SQLite: FTS5 over the view ``issue_search`` (see
hub/migrations/steps/v8_search.py), bm25 ranking and FTS5's snippets."""

from __future__ import annotations

import peewee

from hub.db import database
from hub.errors import ContractError
from hub.services.aliases import current_keys
from hub.services.fulltext import (
    RANKED_MATCHES,
    SNIPPET_ELLIPSIS,
    SNIPPET_END,
    SNIPPET_START,
    SNIPPET_TOKENS,
    SUMMARY_FIELDS,
    WEIGHTS,
    Order,
)
from hub.services.issue_filters import Where
from hub.services.markup import snippet_text
from hub.services.pagination import listing
from hub.services.search import fts_query

_BM25 = f"bm25(issue_fts, {', '.join(map(str, WEIGHTS))})"
_SNIPPET = (f"snippet(issue_fts, -1, '{SNIPPET_START}', '{SNIPPET_END}', '{SNIPPET_ELLIPSIS}', "
            f"{SNIPPET_TOKENS})")
# Ranking costs about a microsecond per match (bm25 reads each match's sizes):
# a word in most of 100k issues would take ~100 ms. So the matches ranked are
# the RANKED_MATCHES most recently mirrored ones, which FTS5 reads newest first
# and stops; a query that matches fewer (nearly every real one) is ranked whole.
# ``total`` still counts every match.
# The page of matches is chosen on the index and the filters alone; only its
# rows are then read whole and get a snippet, which costs reading their text.
# CROSS JOIN keeps the index the outer loop: SQLite would otherwise scan
# ``issue`` and run the match once per row when a filter looks selective.
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
# A search in one of the list's orders (``sort``): the page of matches chosen on the index, the
# filters and the order alone, as above; then only its rows read whole, with their snippets.
_SEARCH_SORTED = (
    "SELECT " + ", ".join(f"issue.{name}" for name in SUMMARY_FIELDS) + ", " + _SNIPPET + " AS snippet "
    "FROM (SELECT issue_fts.rowid AS doc, {keys} FROM issue_fts "
    "CROSS JOIN issue ON issue.rowid = issue_fts.rowid"
    "      WHERE issue_fts MATCH ? {filters} ORDER BY {inner} LIMIT ? OFFSET ?) AS hit "
    "CROSS JOIN issue_fts CROSS JOIN issue "
    "WHERE issue_fts MATCH ? AND issue_fts.rowid = hit.doc AND issue.rowid = hit.doc "
    "ORDER BY {outer}"
)
_COUNT = "SELECT count(*) FROM issue_fts {join} WHERE issue_fts MATCH ? {filters}"
_JOIN = "CROSS JOIN issue ON issue.rowid = issue_fts.rowid"
_MATCHING = "issue.rowid IN (SELECT issue_fts.rowid FROM issue_fts WHERE issue_fts MATCH ?)"
# What FTS5 says of a query it cannot read. fts_query writes only queries it
# can; this is the last guard that keeps a user's text from becoming a 500.
FTS_SYNTAX = ("fts5:", "unterminated string", "unknown special query")


class SqliteFullText:
    """:class:`hub.services.fulltext.FullText` on FTS5."""

    def search(self, q: str, where: Where, offset: int | None, limit: int, *, order: Order | None) -> dict:
        match = fts_query(q, current_keys)
        join = _JOIN if where else ""
        filters = "".join(f" AND {sql}" for sql, _ in where)
        params = [p for _, ps in where for p in ps]
        search = _SEARCH.format(join=join, filters=filters) if order is None else _sorted_search(filters, order)
        try:
            # Plain rows, not models: shaped straight into dicts at the edge, a page of 50
            # costs a third less than building its models would.
            rows = database.execute_sql(search,
                                        [match, *params, limit + 1, offset or 0, match]).fetchall()
            total = None if offset else database.execute_sql(
                _COUNT.format(join=join, filters=filters), [match, *params]).fetchone()[0]
        except peewee.OperationalError as exc:
            if not str(exc).startswith(FTS_SYNTAX):
                raise
            raise ContractError(f"q: the search could not be run ({exc})", "q") from None
        more = len(rows) > limit
        # A snippet is a cut of wiki text: it is answered as plain text, its match markers kept.
        rows = [(*row[:-1], snippet_text(row[-1], SNIPPET_START, SNIPPET_END)) for row in rows[:limit]]
        result = listing(rows, (offset or 0) + limit if more else None)
        if total is not None:
            result["total"] = total
        return result

    def matching(self, q: str, fields: tuple[str, ...] | None = None) -> tuple[str, list]:
        words = fts_query(q)
        if fields:
            columns = "{" + " ".join(fields) + "}" if len(fields) > 1 else fields[0]
            words = f"{columns} : ({words})"
        return _MATCHING, [words]


def _sorted_search(filters: str, order: list[str]) -> str:
    """A search's SQL in ``order`` (ORDER BY terms "<expression> ASC|DESC"): the page chosen on
    the matches' order keys, then its rows read whole in the same order."""
    terms = [term.rsplit(" ", 1) for term in order]
    return _SEARCH_SORTED.format(
        keys=", ".join(f"{expression} AS o{n}" for n, (expression, _) in enumerate(terms)), filters=filters,
        inner=", ".join(f"o{n} {way}" for n, (_, way) in enumerate(terms)),
        outer=", ".join(f"hit.o{n} {way}" for n, (_, way) in enumerate(terms)))
