"""Full-text search on PostgreSQL: the query language of ``q`` over ``issue_fts``.

The index (hub/migrations/postgres/schema.sql, "Full-text search") holds two tsvectors
per issue, folded by the SQL function ``search_words`` as FTS5's tokenizer folds
(case in every script, Latin diacritics, ``ё`` as ``е``; words are runs of letters
and digits): ``head`` (A the key, B the summary, C ``other``) and ``body`` (C the
description, D the comments). A term of ``q`` becomes ``head @@ t OR body @@ t``
(its words folded by the same function, in SQL, so the query and the index cannot
fold apart); a field is a weight of one of them; AND, OR and NOT are SQL's, which
PostgreSQL runs as BitmapAnd/BitmapOr over the two GIN indexes.

Cost, for a word in 80 of 100k issues as for one in 80,000:

- The matches ranked are the RANKED_MATCHES with the highest ``doc`` (Jira's id: the
  newest issues), as on SQLite. PostgreSQL reads them newest first along the index on
  ``doc`` and stops, when its statistics say the word is common; from the GIN index and a
  sort when it is rare.
- Ranking is ``ts_rank`` over ``head`` alone (a few words, where bm25 would read every
  text): a match in the key weighs 10, in the summary 5, in ``other`` 1, in the long text
  ranks by recency alone (the order of ties).
- ``total`` is counted on the same pass, exact up to RANKED_MATCHES; beyond, counting
  every match of a common word would cost more than the page (the GIN index has no
  count), so ``total`` is PostgreSQL's estimate from its statistics, at least
  RANKED_MATCHES, and the page says ``total_estimated``.
- The snippets are cut in Python from the page's rows (:mod:`hub.services.search.snippets`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from hub.db import database
from hub.services.mirror.aliases import current_keys
from hub.services.pagination import listing
from hub.services.search.conditions import Where
from hub.services.search.fulltext import RANKED_MATCHES, SUMMARY_FIELDS, WEIGHTS, Order
from hub.services.search.snippets import Phrase, Shape, page_snippet, plan, words_of
from hub.services.search.text_query import FIELDS, Node, Term, parse

# Each field as (tsvector, weight) of issue_fts.
_PLACES = {"key": ("head", "A"), "summary": ("head", "B"), "other": ("head", "C"),
           "description": ("body", "C"), "comments": ("body", "D")}
_WEIGHTS = dict(zip(FIELDS, WEIGHTS, strict=True))
# ts_rank's weights of head's D, C, B and A (D is not used), from WEIGHTS.
_RANK_WEIGHTS = "{" + ", ".join(str(_WEIGHTS[name] / max(WEIGHTS))
                                 for name in ("other", "other", "summary", "key")) + "}"
_TERM = "search_term(?, ?, ?)"
# What search reads: the index as it is now, the keys pages marked since computed from
# their text (the schema's issue_fts_now; hub.services.search.fulltext_backlog), under the
# index's name that the conditions use.
_INDEX = "issue_fts_now AS issue_fts"
_JOIN = "JOIN issue ON issue.key = issue_fts.key"
# The text of the page's rows for their snippets: the five fields as indexed, ``ё`` and all.
_TEXT = ("text.key, text.summary, text.description, text.comments, text.other")
_ROWS = ("SELECT " + ", ".join(f"issue.{name}" for name in SUMMARY_FIELDS) + ", " + _TEXT + " {extra} "
         "FROM ({hits}) AS hit JOIN issue ON issue.key = hit.key JOIN issue_search AS text ON text.key = hit.key "
         "ORDER BY {order}")
# The page by rank among the newest RANKED_MATCHES matches, each with the count of those.
# The newest of the rows kept and of the keys marked are taken apart and merged: the
# planner reads the kept ones newest first by the doc index (and stops at the limit)
# only when they are a query of their own, not a branch of issue_fts_now (the
# schema's "issue_fts_stale").
_NEWEST = ("(SELECT issue_fts.key, issue_fts.doc, issue_fts.head FROM <index> AS issue_fts {join} "
           f"WHERE {{match}} {{filters}} ORDER BY issue_fts.doc DESC LIMIT {RANKED_MATCHES})")
_RANKED = ("SELECT m.key, m.doc, {rank} AS score, count(*) OVER () AS matched FROM (SELECT * FROM ("
           + _NEWEST.replace("<index>", "issue_fts_kept") + " UNION ALL "
           + _NEWEST.replace("<index>", "issue_fts_marked") + ") AS newest "
           f"ORDER BY newest.doc DESC LIMIT {RANKED_MATCHES}) AS m "
           "ORDER BY score DESC, m.doc DESC, m.key DESC LIMIT ? OFFSET ?")
_SORTED = ("SELECT issue_fts.key, {keys} FROM " + _INDEX + " " + _JOIN + " WHERE {match} {filters} "
           "ORDER BY {inner} LIMIT ? OFFSET ?")
_MATCHES = "SELECT 1 FROM " + _INDEX + " {join} WHERE {match} {filters}"
_CAPPED_COUNT = f"SELECT count(*) FROM ({_MATCHES} LIMIT {RANKED_MATCHES + 1}) AS capped"


@dataclass
class _Query:
    """``q`` for PostgreSQL: a condition on issue_fts (None: no word, no match), the
    tsquery that ranks (None: nothing in ``head``), and the phrases for the snippets."""

    match: str | None = None
    params: list = field(default_factory=list)
    rank: str | None = None
    rank_params: list = field(default_factory=list)
    phrases: list[Phrase] = field(default_factory=list)
    shape: Shape | None = None


class PostgresFullText:
    """:class:`hub.services.search.fulltext.FullText` on PostgreSQL (see the module's doc)."""

    def search(self, q: str, where: Where, offset: int | None, limit: int, *, order: Order | None) -> dict:
        query = _literal(compile_q(parse(q, current_keys)))
        if query.match is None:
            # Only words of no letter or digit ("!!!"): FTS5 finds nothing for them either.
            return listing([], None, **({} if offset else {"total": 0}))
        join = _JOIN if where else ""
        filters = "".join(f" AND {sql}" for sql, _ in where)
        filter_params = [p for _, ps in where for p in ps]
        match_params = [*query.params, *filter_params]
        if order is None:
            rank = _rank(query, "m.head")
            hits = _RANKED.format(rank=rank, join=join, match=query.match, filters=filters)
            sql = _ROWS.format(extra=", hit.matched", hits=hits, order="hit.score DESC, hit.doc DESC, hit.key DESC")
            rows = database.execute_sql(sql, [*query.rank_params, *match_params, *match_params,  # kept, marked
                                              limit + 1, offset or 0]).fetchall()
            counted = rows[0][-1] if rows else 0
            rows = [row[:-1] for row in rows]
        else:
            terms = [term.rsplit(" ", 1) for term in order]
            hits = _SORTED.format(keys=", ".join(f"{expression} AS o{n}" for n, (expression, _) in enumerate(terms)),
                                  match=query.match, filters=filters,
                                  inner=", ".join(f"o{n} {way}" for n, (_, way) in enumerate(terms)))
            sql = _ROWS.format(extra="", hits=hits,
                               order=", ".join(f"hit.o{n} {way}" for n, (_, way) in enumerate(terms)))
            rows = database.execute_sql(sql, [*match_params, limit + 1, offset or 0]).fetchall()
            counted = None
        more = len(rows) > limit
        fields = len(SUMMARY_FIELDS)
        page = [(*row[:fields], page_snippet(row[fields:], query.phrases, query.shape)) for row in rows[:limit]]
        result = listing(page, (offset or 0) + limit if more else None)
        if not offset:
            result.update(_total(query.match, join, filters, match_params, counted))
        return result

    def matching(self, q: str, fields: tuple[str, ...] | None = None) -> tuple[str, list]:
        query = _literal(compile_q(parse(q), fields))
        if query.match is None:
            return "FALSE", []
        return f"issue.key IN (SELECT issue_fts.key FROM {_INDEX} WHERE {query.match})", query.params


def compile_q(tree: Node, fields: tuple[str, ...] | None = None) -> _Query:
    """The tree of ``q`` (:func:`hub.services.search.text_query.parse`) for PostgreSQL, its words
    searched in ``fields`` when given."""
    query = _Query()
    compiled = _node(tree, fields or FIELDS, query, wanted=True)
    if compiled is not None:
        query.match, query.params = compiled
    query.phrases, query.shape = plan(tree, fields)
    return query


def _literal(query: _Query) -> _Query:
    """``query`` with each term's tsquery computed first (one round trip) and written into its
    SQL as a constant. A term passed as parameters to ``search_term`` in the statement itself
    would be folded to a constant only while the statement is planned for its parameters: a
    generic plan (psycopg prepares a statement run five times on a connection; PostgreSQL may
    then plan it once for any parameters) would run ``search_term`` on every row it reads, and
    its estimates, which choose between the GIN index and the newest issues, would be blind."""
    terms = len(query.params) // 3
    ranks = len(query.rank_params) // 3
    if not terms:
        return query
    row = database.execute_sql("SELECT " + ", ".join(["CAST(" + _TERM + " AS text)"] * (terms + ranks)),
                               [*query.params, *query.rank_params]).fetchone()
    literals = iter("CAST('" + text.replace("'", "''") + "' AS tsquery)" for text in row)
    match = query.match.split(_TERM) if query.match else []
    rank = query.rank.split(_TERM) if query.rank else []
    return _Query(match="".join(part + (next(literals) if n < terms else "") for n, part in enumerate(match)) or None,
                  rank="".join(part + (next(literals) if n < ranks else "") for n, part in enumerate(rank)) or None,
                  phrases=query.phrases, shape=query.shape)


def _node(node: Node, fields: tuple[str, ...], query: _Query, *, wanted: bool) -> tuple[str, list] | None:
    """A node as a condition (SQL, params); None for one that holds no word, which FTS5
    leaves out of its query (``a ""`` is ``a``), as a tsquery does."""
    if isinstance(node, Term):
        return _term(node, fields, query, wanted=wanted)
    if node[0] == "not":
        kept = _node(node[1], fields, query, wanted=wanted)
        dropped = _node(node[2], fields, query, wanted=not wanted)
        if kept is None or dropped is None:
            return kept
        return f"({kept[0]} AND NOT {dropped[0]})", [*kept[1], *dropped[1]]
    parts = [part for part in (_node(child, fields, query, wanted=wanted) for child in node[1]) if part is not None]
    if not parts:
        return None
    joiner = " AND " if node[0] == "and" else " OR "
    return "(" + joiner.join(sql for sql, _ in parts) + ")", [p for _, ps in parts for p in ps]


def _term(term: Term, fields: tuple[str, ...], query: _Query, *, wanted: bool) -> tuple[str, list] | None:
    if not any(words_of(text) for text in _texts(term)):
        return None
    searched = [term.field] if term.field else list(fields)
    if term.field and term.field not in fields:
        return "FALSE", []
    parts: list[str] = []
    params: list = []
    for vector in ("head", "body"):
        weights = "".join(weight for name, (where, weight) in _PLACES.items() if where == vector and name in searched)
        if not weights:
            continue
        if len(weights) == sum(1 for where, _ in _PLACES.values() if where == vector):
            weights = ""  # every field of the vector: no weight to check
        inner = f":{weights}" if weights else ""
        last = f":*{weights}" if term.prefix else inner
        for text in _texts(term):
            parts.append(f"issue_fts.{vector} @@ {_TERM}")
            params += [text, inner, last]
            if vector == "head" and wanted:
                query.rank = f"{query.rank} || {_TERM}" if query.rank else _TERM
                query.rank_params += [text, inner, last]
    return "(" + " OR ".join(parts) + ")", params


def _texts(term: Term) -> tuple[str, ...]:
    return (term.text,) if term.also is None else (term.text, term.also)


def _rank(query: _Query, head: str) -> str:
    if query.rank is None:
        return "0"
    return f"ts_rank('{_RANK_WEIGHTS}', {head}, {query.rank})"


def _total(match: str, join: str, filters: str, params: list, counted: int | None) -> dict:
    """``total`` (and ``total_estimated``): ``counted`` when it is below RANKED_MATCHES (the
    ranked pass saw every match), else counted up to RANKED_MATCHES and estimated beyond."""
    if counted is None:
        counted = database.execute_sql(_CAPPED_COUNT.format(join=join, match=match, filters=filters),
                                       params).fetchone()[0]
    if counted < RANKED_MATCHES:
        return {"total": counted}
    plan = database.execute_sql("EXPLAIN (FORMAT JSON) " + _MATCHES.format(join=join, match=match, filters=filters),
                                params).fetchone()[0]
    plan = json.loads(plan) if isinstance(plan, str) else plan
    return {"total": max(RANKED_MATCHES, int(plan[0]["Plan"]["Plan Rows"])), "total_estimated": True}
