"""The statements that keep the full-text index in step with the mirror, per engine.

The mirror's loader (:mod:`hub.services.mirror.loading`, :mod:`hub.services.mirror.moves`)
calls these around a page's writes: :func:`page_unindex` before it changes or removes
issues whose text the index holds, :func:`page_index` after. Each statement takes one
parameter, the keys as a JSON array. On SQLite the index is FTS5 with external
content (``issue_fts`` over the view ``issue_search``), which must be told the
old text to remove it. On PostgreSQL the index is a table of tsvectors computed
from the view ``issue_search`` (see :mod:`hub.services.search.fulltext_postgres`); a page
there only marks its keys stale, and :mod:`hub.services.search.fulltext_backlog` indexes them
with :func:`index` once the page has committed. A statement that is None is not run.
"""

from __future__ import annotations

from hub.dialect.engines import Dialect

# An issue's keys, from one bound JSON array (SQLite's spelling).
_KEYS = "(SELECT value FROM json_each(?))"

_SQLITE_INDEX = ("INSERT INTO issue_fts (rowid, key, summary, description, comments, other) "
                 f"SELECT doc, key, summary, description, comments, other FROM issue_search WHERE key IN {_KEYS}")
_SQLITE_UNINDEX = ("INSERT INTO issue_fts (issue_fts, rowid, key, summary, description, comments, other) "
                   "SELECT 'delete', doc, key, summary, description, comments, other FROM issue_search "
                   f"WHERE key IN {_KEYS}")
# PostgreSQL's (hub/migrations/postgres/schema.sql, "Full-text search"): each issue's row
# of issue_fts computed anew from issue_search, upserted in key order (two pages writing
# the same issues take their row locks in the same order); the old row goes by key.
# The loader sends them on psycopg's own connection: the placeholder is psycopg's.
_POSTGRES_KEYS = "(SELECT jsonb_array_elements_text(CAST(%s AS jsonb)))"


def index_vector(column: str, weight: str) -> str:
    """The words of ``column`` as a tsvector of ``weight``: equal to the schema's
    ``search_vector(column, weight)``, which folds by ``search_words``, but cheaper.

    ``search_words`` makes every run of what is not a letter or a digit one space,
    for a query's words and for snippets. The index need not: the 'simple' parser
    splits words at ASCII white space itself, so only what is neither a letter, a
    digit nor ASCII white space has to become a space (punctuation, and the symbols
    the parser would read as letters or as parts of an e-mail, a URL or a number).
    The regular expression then matches once per punctuation mark, not once per
    word: it was most of the index's cost. tests/search/test_index_vector.py holds
    the two equal over random text.
    """
    folded = (f"regexp_replace(unaccent('unaccent'::regdictionary, "
              f"replace(lower(left({column}, 200000) COLLATE \"und-x-icu\"), 'ё', 'е')) COLLATE \"und-x-icu\", "
              "'[^[:alnum:] \\t\\n\\r]+', ' ', 'g') COLLATE \"C\"")
    return f"setweight(to_tsvector('simple', coalesce({folded}, '')), '{weight}')"


_POSTGRES_INDEX: str | None = (
    "INSERT INTO issue_fts (key, doc, head, body) "
    f"SELECT key, doc, {index_vector('key', 'A')} || {index_vector('summary', 'B')} || {index_vector('other', 'C')}, "
    f"{index_vector('description', 'C')} || {index_vector('comments', 'D')} "
    f"FROM issue_search WHERE key IN {_POSTGRES_KEYS} ORDER BY key "
    "ON CONFLICT (key) DO UPDATE SET doc = excluded.doc, head = excluded.head, body = excluded.body")
_POSTGRES_UNINDEX: str | None = f"DELETE FROM issue_fts WHERE key IN {_POSTGRES_KEYS}"
# What a state page runs instead of those on PostgreSQL: the bound keys marked stale
# (issue_fts_stale), for hub.services.search.fulltext_backlog to index once the page commits.
# A page holds its keys' locks, so no other transaction marks or unmarks them meanwhile.
_POSTGRES_MARK = (f"INSERT INTO issue_fts_stale (key) SELECT key FROM {_POSTGRES_KEYS} AS k(key) ORDER BY key "
                  "ON CONFLICT (key) DO NOTHING")


def index(dialect: Dialect) -> str | None:
    """The statement that (re)indexes the issues of the bound keys, as they are now."""
    return _POSTGRES_INDEX if dialect.postgres else _SQLITE_INDEX


def unindex(dialect: Dialect) -> str | None:
    """The statement that removes the bound keys' issues from the index, before their text changes."""
    return _POSTGRES_UNINDEX if dialect.postgres else _SQLITE_UNINDEX


def page_index(dialect: Dialect) -> str | None:
    """What a state page runs after its writes for the bound keys: on SQLite :func:`index`;
    on PostgreSQL the keys marked stale, indexed after the page commits."""
    return _POSTGRES_MARK if dialect.postgres else _SQLITE_INDEX


def page_unindex(dialect: Dialect) -> str | None:
    """What a state page runs before its writes for the bound keys: on SQLite
    :func:`unindex`; on PostgreSQL the keys marked stale too (a moved issue's old key)."""
    return _POSTGRES_MARK if dialect.postgres else _SQLITE_UNINDEX
