"""The keys moved issues had: reading the mirror by an old key, and an issue's past keys.

The state loader keeps ``issue_alias`` (:mod:`hub.services.mirror.moves`): each key an
issue had before it moved, and the key it has now. A key that is no issue of the
mirror's is looked up there, so that the old key of a moved issue still finds it.
"""

from __future__ import annotations

from collections.abc import Iterable

from peewee import SQL

from hub import dialect
from hub.models import Issue, IssueAlias


def current_issue(key: str) -> Issue | None:
    """The issue under ``key``, or the one that had ``key`` before it moved; None if neither."""
    issue = Issue.get_or_none(Issue.key == key)
    if issue is not None:
        return issue
    alias = IssueAlias.get_or_none(IssueAlias.old_key == key)
    return None if alias is None else Issue.get_or_none(Issue.key == alias.key)


def moved_from(keys: Iterable[str]) -> dict[str, list[str]]:
    """Each of ``keys`` that moved, with the keys its issue had before, oldest first."""
    keys = list(dict.fromkeys(keys))
    if not keys:
        return {}
    found: dict[str, list[str]] = {}
    for alias in (IssueAlias.select(IssueAlias.old_key, IssueAlias.key)
                  .where(IssueAlias.key.in_(keys))
                  # then the order in which one page's moves were recorded
                  .order_by(IssueAlias.moved_at, SQL(dialect.mirror.insertion_order()))):
        found.setdefault(alias.key, []).append(alias.old_key)
    return found


def current_keys(keys: Iterable[str]) -> dict[str, str]:
    """Each of ``keys`` that is an old key of a moved issue, with the key the issue has now."""
    keys = list(dict.fromkeys(keys))
    if not keys:
        return {}
    return {alias.old_key: alias.key for alias in IssueAlias.select(IssueAlias.old_key, IssueAlias.key)
            .where(IssueAlias.old_key.in_(keys))}
