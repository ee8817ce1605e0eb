"""Reading the mirror's sprints (``sprint``) and the sprints its issues were in (``issue_sprint``).

Only state loaded from agents writes them (:mod:`hub.services.mirror.loading`): a sprint is
upserted from every issue that names it, and an issue's ``issue_sprint`` rows are every
sprint it was ever in, the current one included.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import NamedTuple

from hub import dialect
from hub.db import database
from hub.services.pagination import listing


class IssueSprint(NamedTuple):
    """A sprint as an issue lists it."""

    id: int
    name: str
    state: str | None


class ListedSprint(NamedTuple):
    """A sprint with the number of mirrored issues that were ever in it."""

    id: int
    name: str
    state: str | None
    start_date: str | None
    end_date: str | None
    complete_date: str | None
    board_id: int | None
    goal: str | None
    issues: int


# An issue's sprints by start date (one not started yet last), then id; ``?`` is a list of keys.
_OF_ISSUES = ("SELECT issue_sprint.key, sprint.sprint_id, sprint.name, sprint.state "
              "FROM issue_sprint JOIN sprint ON sprint.sprint_id = issue_sprint.sprint_id "
              "WHERE issue_sprint.key IN {keys} "
              "ORDER BY sprint.start_date IS NULL, sprint.start_date, sprint.sprint_id")
# Active sprints first, then future ones, then closed ones; the latest start first in each.
_LIST = ("SELECT sprint_id, name, state, start_date, end_date, complete_date, board_id, goal, "
         "(SELECT count(*) FROM issue_sprint JOIN issue ON issue.key = issue_sprint.key "
         " WHERE issue_sprint.sprint_id = sprint.sprint_id) "
         "FROM sprint {where} "
         "ORDER BY CASE state WHEN 'active' THEN 0 WHEN 'future' THEN 1 WHEN 'closed' THEN 2 ELSE 3 END, "
         "start_date IS NULL, start_date DESC, sprint_id DESC LIMIT ? OFFSET ?")


class SprintService:
    """Reads sprints: one issue's or a page's (:meth:`of_issues`), and the list of them."""

    def of_issues(self, keys: Iterable[str]) -> dict[str, list[IssueSprint]]:
        """The sprints of each of ``keys`` that was in any, in one query (a page's issues at once)."""
        keys = list(keys)
        by_key: dict[str, list[IssueSprint]] = {}
        if not keys:
            return by_key
        rows = database.execute_sql(_OF_ISSUES.format(keys=dialect.mirror.values_of()), [json.dumps(keys)])
        for key, sprint_id, name, state in rows:
            by_key.setdefault(key, []).append(IssueSprint(sprint_id, name, state))
        return by_key

    def list(self, *, state: str | None = None, board: int | None = None, cursor: int | None = None,
             limit: int = 50) -> dict:
        """Sprints (:class:`ListedSprint`), active first, then future, then closed, latest start
        first; ``next_cursor`` counts the sprints already shown (an offset: the order is no key)."""
        conditions: list[str] = []
        params: list[object] = []
        if state is not None:
            conditions.append("state = ?")
            params.append(state)
        if board is not None:
            conditions.append("board_id = ?")
            params.append(board)
        where = ("WHERE " + " AND ".join(conditions)) if conditions else ""
        offset = cursor or 0
        rows = database.execute_sql(_LIST.format(where=where), [*params, limit + 1, offset]).fetchall()
        more = len(rows) > limit
        return listing([ListedSprint(*row) for row in rows[:limit]], offset + limit if more else None)
