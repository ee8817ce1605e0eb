"""Cursor pagination over an integer id, newest first."""

from __future__ import annotations

from typing import Callable


def page(query, model, cursor: int | None, limit: int, serialize: Callable) -> dict:
    """``{items, next_cursor}``; pass ``next_cursor`` back as ``cursor`` for the next page.

    The cursor is the last id shown, so rows added meanwhile never shift a page.
    """
    if cursor is not None:
        query = query.where(model.id < cursor)
    rows = list(query.order_by(model.id.desc()).limit(limit + 1))
    more = len(rows) > limit
    rows = rows[:limit]
    return {"items": [serialize(row) for row in rows], "next_cursor": rows[-1].id if more else None}
