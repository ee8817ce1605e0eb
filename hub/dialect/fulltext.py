"""The statements that keep the full-text index in step with the mirror, per engine.

The mirror's loader (:mod:`hub.services.mirror`, :mod:`hub.services.mirror_moves`)
calls these around a page's writes: :func:`unindex` before it changes or removes
issues whose text the index holds, :func:`index` after. Each statement takes one
parameter, the keys as a JSON array. On SQLite the index is FTS5 with external
content (``issue_fts`` over the view ``issue_search``), which must be told the
old text to remove it. On PostgreSQL the index is the search's own (see
:mod:`hub.services.search`); a statement that is None is not run.
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
_POSTGRES_INDEX: str | None = None
_POSTGRES_UNINDEX: str | None = None


def index(dialect: Dialect) -> str | None:
    """The statement that (re)indexes the issues of the bound keys, as they are now."""
    return _POSTGRES_INDEX if dialect.postgres else _SQLITE_INDEX


def unindex(dialect: Dialect) -> str | None:
    """The statement that removes the bound keys' issues from the index, before their text changes."""
    return _POSTGRES_UNINDEX if dialect.postgres else _SQLITE_UNINDEX
