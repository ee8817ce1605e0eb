"""Full-text search on SQLite: FTS5 over the view ``issue_search`` (see
hub/migrations/steps/v8_search.py), bm25 ranking, and the snippets of
:mod:`hub.services.search.snippets`, cut from the page's rows.

Cost. A statement that reads the index reads a word's positions as it needs them, but a
prefix's all at once, before its first row: ``a*`` merges the positions of every word that
starts with ``a`` (much of a mirror's text), a fraction of a second to seconds over 100k
issues, once per statement. So a page reads the index once: the page is chosen on the
index and the filters alone, then only its rows are read whole by rowid, with the text of
their fields, and their snippets cut in Python. FTS5's own ``snippet()`` would run the
query again for each row of the page (an external-content table finds a row's match so):
the merge once per row. The first page's ``total`` is counted on the same pass (but the
matches older than the RANKED_MATCHES ranked, for a query without a prefix, whose second
pass is cheap). :meth:`SqliteFullText.matching` reads a prefix's matches once too, for
the several statements that use its condition. The caller bounds the whole in time
(:func:`hub.services.search.jql.bounded.bounded`): SQLite's progress handler runs while FTS5
merges too, and stops it there.
"""

from __future__ import annotations

import json

import peewee

from hub.db import database
from hub.errors import ContractError
from hub.services.mirror.aliases import current_keys
from hub.services.pagination import listing
from hub.services.search.conditions import Where
from hub.services.search.fulltext import RANKED_MATCHES, SUMMARY_FIELDS, WEIGHTS, Order
from hub.services.search.snippets import page_snippet, plan
from hub.services.search.text_query import Node, Term, fts5, parse

_BM25 = f"bm25(issue_fts, {', '.join(map(str, WEIGHTS))})"
# Ranking costs about a microsecond per match (bm25 reads each match's sizes), ten for a
# short prefix's: a word in most of 100k issues would take ~100 ms. So the matches ranked
# are the RANKED_MATCHES most recently mirrored ones, which FTS5 reads newest first and
# stops; a query that matches fewer (nearly every real one) is ranked whole. ``total``
# still counts every match: the ranked ones on the same pass (``ranked``, and ``oldest``,
# the rowid below which a second pass counts the rest when there may be more).
# CROSS JOIN keeps the index the outer loop: SQLite would otherwise scan
# ``issue`` and run the match once per row when a filter looks selective.
_RANKED = (
    "SELECT doc, score, count(*) OVER () AS ranked, min(doc) OVER () AS oldest FROM"
    " (SELECT issue_fts.rowid AS doc, " + _BM25 + " AS score FROM issue_fts {join}"
    "   WHERE issue_fts MATCH ? {filters} ORDER BY issue_fts.rowid DESC LIMIT " + str(RANKED_MATCHES) + ")"
    " ORDER BY score, doc DESC LIMIT ? OFFSET ?")
_COUNT_OLDER = "SELECT count(*) FROM issue_fts {join} WHERE issue_fts MATCH ? {filters} AND issue_fts.rowid < ?"
# A query with a prefix is read in one pass instead, which a second would double: every
# match newest first, bm25 computed while _RANKING says so (the RANKED_MATCHES newest),
# the rest only counted; the page is then chosen in Python.
_RANKING = "hub_ranking"
_EVERY_MATCH = ("SELECT issue_fts.rowid, CASE WHEN " + _RANKING + "() THEN " + _BM25 + " END FROM issue_fts "
                "{join} WHERE issue_fts MATCH ? {filters} ORDER BY issue_fts.rowid DESC")
# Rows handed over in a batch while the rest are counted.
_BATCH = 10_000
# The rowids of a page chosen in Python, in its order.
_CHOSEN = "SELECT CAST(value AS INTEGER) AS doc, CAST(key AS INTEGER) AS n FROM json_each(?)"
# A search in one of the list's orders (``sort``): the page of matches chosen on the index, the
# filters and the order alone, the first page's count of every match on the same pass.
_SORTED = ("SELECT issue_fts.rowid AS doc, {keys}{counted} FROM issue_fts "
           "CROSS JOIN issue ON issue.rowid = issue_fts.rowid "
           "WHERE issue_fts MATCH ? {filters} ORDER BY {inner} LIMIT ? OFFSET ?")
# The page's rows (``hits``: ``doc`` and what orders them), read whole by rowid with the
# text of their five fields as indexed (the view issue_search: ``ё`` as ``е``), no MATCH.
_ROWS = ("SELECT " + ", ".join(f"issue.{name}" for name in SUMMARY_FIELDS) + ", text.key, text.summary, "
         "text.description, text.comments, text.other{extra} FROM ({hits}) AS hit "
         "CROSS JOIN issue CROSS JOIN issue_search AS text "
         "WHERE issue.rowid = hit.doc AND text.doc = hit.doc ORDER BY {order}")
_JOIN = "CROSS JOIN issue ON issue.rowid = issue_fts.rowid"
_MATCHING = "issue.rowid IN (SELECT issue_fts.rowid FROM issue_fts WHERE issue_fts MATCH ?)"
# The same for a query with a prefix: its matches read once, then given as a JSON array of rowids.
_MATCHED = "SELECT issue_fts.rowid FROM issue_fts WHERE issue_fts MATCH ?"
_MATCHED_DOCS = "issue.rowid IN (SELECT value FROM json_each(?))"
# What FTS5 says of a query it cannot read. fts_query writes only queries it
# can; this is the last guard that keeps a user's text from becoming a 500.
FTS_SYNTAX = ("fts5:", "unterminated string", "unknown special query")
# The text columns _ROWS reads after the SUMMARY_FIELDS.
_TEXTS = 5


class SqliteFullText:
    """:class:`hub.services.search.fulltext.FullText` on FTS5."""

    def search(self, q: str, where: Where, offset: int | None, limit: int, *, order: Order | None) -> dict:
        tree = parse(q, current_keys)
        search = _Search(fts5(tree), where, offset or 0, limit)
        try:
            # Plain rows, not models: shaped straight into dicts at the edge, a page of 50
            # costs a third less than building its models would.
            if order is not None:
                rows, total = search.sorted(order)
            elif _has_prefix(tree):
                rows, total = search.in_one_pass()
            else:
                rows, total = search.ranked()
        except peewee.OperationalError as exc:
            if not str(exc).startswith(FTS_SYNTAX):
                raise
            raise ContractError(f"q: the search could not be run ({exc})", "q") from None
        more = len(rows) > limit
        phrases, shape = plan(tree)
        fields = len(SUMMARY_FIELDS)
        page = [(*row[:fields], page_snippet(row[fields:fields + _TEXTS], phrases, shape)) for row in rows[:limit]]
        result = listing(page, (offset or 0) + limit if more else None)
        if total is not None:
            result["total"] = total
        return result

    def matching(self, q: str, fields: tuple[str, ...] | None = None) -> tuple[str, list]:
        tree = parse(q)
        words = fts5(tree)
        if fields:
            columns = "{" + " ".join(fields) + "}" if len(fields) > 1 else fields[0]
            words = f"{columns} : ({words})"
        if not _has_prefix(tree):
            return _MATCHING, [words]
        # The condition goes into several statements (the facets' counts, a JQL page and its
        # total), and each would merge a prefix's words anew: the matches are read once, here.
        try:
            docs = [doc for (doc,) in database.execute_sql(_MATCHED, [words]).fetchall()]
        except peewee.OperationalError as exc:
            if not str(exc).startswith(FTS_SYNTAX):
                raise
            return _MATCHING, [words]  # each statement that runs it says so, as its caller reports
        return _MATCHED_DOCS, [json.dumps(docs)]


class _Search:
    """One page of a search: the FTS5 query ``match``, the filters, where the page starts and
    its size. Each way of reading it answers the page's rows (one more than ``limit`` when
    there are more), then the text of their fields, and the total on the first page."""

    def __init__(self, match: str, where: Where, offset: int, limit: int):
        self.match, self.offset, self.limit = match, offset, limit
        self.join = _JOIN if where else ""
        self.filters = "".join(f" AND {sql}" for sql, _ in where)
        self.params = [match, *(p for _, ps in where for p in ps)]

    def ranked(self) -> tuple[list[tuple], int | None]:
        """Best match first, the page and the count of the ranked matches in one statement."""
        hits = _RANKED.format(join=self.join, filters=self.filters)
        rows = database.execute_sql(_ROWS.format(extra=", hit.ranked, hit.oldest", hits=hits,
                                                 order="hit.score, hit.doc DESC"),
                                    [*self.params, self.limit + 1, self.offset]).fetchall()
        if self.offset:
            return rows, None
        if not rows:
            return rows, 0
        ranked, oldest = rows[0][-2], rows[0][-1]
        if ranked == RANKED_MATCHES:
            ranked += database.execute_sql(_COUNT_OLDER.format(join=self.join, filters=self.filters),
                                           [*self.params, oldest]).fetchone()[0]
        return rows, ranked

    def in_one_pass(self) -> tuple[list[tuple], int | None]:
        """Best match first, as :meth:`ranked`, the index read once (see _EVERY_MATCH)."""
        ranking = True
        connection = database.connection()
        connection.create_function(_RANKING, 0, lambda: ranking)
        cursor = database.execute_sql(_EVERY_MATCH.format(join=self.join, filters=self.filters), self.params)
        scored = cursor.fetchmany(RANKED_MATCHES)
        ranking = False
        total = len(scored)
        while batch := cursor.fetchmany(_BATCH):
            total += len(batch)
        scored.sort(key=lambda hit: (hit[1], -hit[0]))
        chosen = [doc for doc, _ in scored[self.offset:self.offset + self.limit + 1]]
        rows = database.execute_sql(_ROWS.format(extra="", hits=_CHOSEN, order="hit.n"),
                                    [json.dumps(chosen)]).fetchall() if chosen else []
        return rows, None if self.offset else total

    def sorted(self, order: Order) -> tuple[list[tuple], int | None]:
        """In ``order``, the first page carrying the count of every match."""
        counted = not self.offset
        rows = database.execute_sql(_sorted_search(self.filters, order, counted=counted),
                                    [*self.params, self.limit + 1, self.offset]).fetchall()
        if not counted:
            return rows, None
        return [row[:-1] for row in rows], rows[0][-1] if rows else 0


def _has_prefix(node: Node) -> bool:
    """Whether a query's tree holds a prefix (``word*``): FTS5 reads all its words at once."""
    if isinstance(node, Term):
        return node.prefix
    return any(map(_has_prefix, node[1:] if node[0] == "not" else node[1]))


def _sorted_search(filters: str, order: list[str], *, counted: bool) -> str:
    """A search's SQL in ``order`` (ORDER BY terms "<expression> ASC|DESC"): the page chosen on
    the matches' order keys, then its rows read whole in the same order; with ``counted``, each
    row also carries the count of every match (``total``)."""
    terms = [term.rsplit(" ", 1) for term in order]
    hits = _SORTED.format(
        keys=", ".join(f"{expression} AS o{n}" for n, (expression, _) in enumerate(terms)), filters=filters,
        counted=", count(*) OVER () AS total" if counted else "",
        inner=", ".join(f"o{n} {way}" for n, (_, way) in enumerate(terms)))
    return _ROWS.format(extra=", hit.total" if counted else "", hits=hits,
                        order=", ".join(f"hit.o{n} {way}" for n, (_, way) in enumerate(terms)))
