"""The spellings the mirror holds of the names a query writes (JQL, or the list's filters),
found in Jira's catalogues.

Names compare case-insensitively in every script; folding each issue's value in SQL
(``casefold(issue.status)``) costs a call into Python per issue and keeps SQLite off its
indexes. The catalogues the agent reports (statuses, priorities, resolutions, issue types,
users, sprints) are small: the spellings whose fold is the query's are found there once, and
the query compares the issue's own column with them (and with the value as written), on the
index where there is one. A catalogue the mirror has not been given yet answers None, and the
query then folds each issue's value.
"""

from __future__ import annotations

from hub.db import database

_NAMES = "SELECT DISTINCT name FROM jira_catalogue WHERE kind = ?"
_USERS = "SELECT name, display_name FROM jira_user"
_SPRINTS = "SELECT sprint_id, name FROM sprint"


def catalogue(kind: str, folded: list[str]) -> list[str] | None:
    """The names of catalogue ``kind`` that fold to one of ``folded``; None without a catalogue."""
    names = [name for (name,) in database.execute_sql(_NAMES, [kind]).fetchall()]
    if not names:
        return None
    wanted = set(folded)
    return [name for name in names if name.casefold() in wanted]


def users(folded: list[str]) -> list[str] | None:
    """The login names of the users whose login or display name folds to one of ``folded``;
    None while the mirror knows no users."""
    rows = database.execute_sql(_USERS).fetchall()
    if not rows:
        return None
    wanted = set(folded)
    return [name for name, display in rows if name.casefold() in wanted or (display or "").casefold() in wanted]


def sprints(folded: list[str], ids: list[int]) -> tuple[list[int], list[str]]:
    """The ids and names of the sprints named (by a name that folds to one of ``folded``, or
    by id)."""
    wanted, numbers = set(folded), set(ids)
    found = [(sprint_id, name) for sprint_id, name in database.execute_sql(_SPRINTS).fetchall()
             if sprint_id in numbers or name.casefold() in wanted]
    return [sprint_id for sprint_id, _ in found], [name for _, name in found]
