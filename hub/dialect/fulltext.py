"""The statements that keep the full-text index in step with the mirror, per engine.

The mirror's loader (:mod:`hub.services.mirror`, :mod:`hub.services.mirror_moves`)
calls these around a page's writes: :func:`unindex` before it changes or removes
issues whose text the index holds, :func:`index` after. Each statement takes one
parameter, the keys as a JSON array. On SQLite the index is FTS5 with external
content (``issue_fts`` over the view ``issue_search``), which must be told the
old text to remove it. On PostgreSQL the index is a table of tsvectors computed
from the view ``issue_search`` (see :mod:`hub.services.fulltext_postgres`). A
statement that is None is not run.
"""

from __future__ import annotations

from hub.dialect import Dialect

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
_POSTGRES_INDEX: str | None = (
    "INSERT INTO issue_fts (key, doc, head, body) "
    "SELECT key, doc, search_vector(key, 'A') || search_vector(summary, 'B') || search_vector(other, 'C'), "
    "search_vector(description, 'C') || search_vector(comments, 'D') "
    f"FROM issue_search WHERE key IN {_POSTGRES_KEYS} ORDER BY key "
    "ON CONFLICT (key) DO UPDATE SET doc = excluded.doc, head = excluded.head, body = excluded.body")
_POSTGRES_UNINDEX: str | None = f"DELETE FROM issue_fts WHERE key IN {_POSTGRES_KEYS}"


def index(dialect: Dialect) -> str | None:
    """The statement that (re)indexes the issues of the bound keys, as they are now."""
    return _POSTGRES_INDEX if dialect.postgres else _SQLITE_INDEX


def unindex(dialect: Dialect) -> str | None:
    """The statement that removes the bound keys' issues from the index, before their text changes."""
    return _POSTGRES_UNINDEX if dialect.postgres else _SQLITE_UNINDEX
