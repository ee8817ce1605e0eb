"""Lists as the API answers them, built here and nowhere else.

Every list is ``{"items": [...], "next_cursor": ...}``. A paged list goes newest
first by an integer key that is unique per row (a table's ``id``, or the
``rowid`` of ``issue`` and ``agent_status``); its ``next_cursor`` is the key of
the last item shown, and a client passes it back as ``cursor`` for the next
page. Because the next page starts below that key rather than at an offset, rows
added meanwhile never shift a page or show an item twice. A list that is shown
whole (projects, tokens, what one issue holds) has ``next_cursor`` null.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

# The alias the pager selects its key under, to read the cursor off the last row.
_KEY = "page_key"


def listing(items: Iterable, next_cursor: int | None = None, **extra: Any) -> dict:
    """``{"items": [...], "next_cursor": ...}``, then any ``extra`` members.

    ``next_cursor`` None (null) says there is nothing more to fetch.
    """
    return {"items": list(items), "next_cursor": next_cursor, **extra}


def page(query, key, cursor: int | None, limit: int, serialize: Callable) -> dict:
    """One page of a Peewee ``query``, newest first by ``key``, as a :func:`listing`.

    ``key`` is an integer column or expression unique per row (``Command.id``,
    ``SQL("rowid")``); ``cursor`` is a ``next_cursor`` this gave before, or None
    for the first page. ``serialize`` turns each row into its item. One row more
    than ``limit`` is read to learn whether another page follows.
    """
    if cursor is not None:
        query = query.where(key < cursor)
    rows = list(query.select_extend(key.alias(_KEY)).order_by(key.desc()).limit(limit + 1))
    more = len(rows) > limit
    rows = rows[:limit]
    return listing(map(serialize, rows), getattr(rows[-1], _KEY) if more else None)
