"""The filters of the mirror's list (``GET /api/v1/issues``) as SQL conditions, and its orders.

Each condition names the columns of ``issue`` qualified (``issue.key``): a search joins
``issue_fts``, which has columns of the same names, and the plain list selects ``issue``
under its own name (:data:`hub.services.issues.ISSUES`).
"""

from __future__ import annotations

from hub.clock import iso, parse_utc
from hub.db import database
from hub.errors import ContractError
from hub.models import Project

# Filters as (SQL condition, params), every one of them to hold.
Where = list[tuple[str, list]]

# ``gone``: only the issues Jira still returns (the default), only the gone ones, or both.
GONE_FILTERS = ("false", "true", "any")
# Whether any issue is gone, on the partial index issue_gone: while none is, the default
# filter adds no condition, so a search needs no join with ``issue`` for it.
_ANY_GONE = "SELECT EXISTS (SELECT 1 FROM issue WHERE gone_at IS NOT NULL)"
# ``gone_at IS NULL``, written as the rowids not among the few gone issues (read once from
# issue_gone): every index holds the rowid, so a count on an index needs no table row for it.
_NOT_GONE = "issue.rowid NOT IN (SELECT gone.rowid FROM issue AS gone WHERE gone.gone_at IS NOT NULL)"

# ``resolution=none``: the issues without a resolution (unresolved).
UNRESOLVED = "none"
# A key as people order them, of the column ``{c}``: by project, then by number (AURORA-9
# before AURORA-10).
KEY_ORDER = ("substr({c}, 1, instr({c}, '-'))", "CAST(substr({c}, instr({c}, '-') + 1) AS INTEGER)")
# Jira's configured order of priorities (the agent's catalogue), an unknown one last; then the key.
PRIORITY_ORDER = (
    "coalesce((SELECT position FROM jira_catalogue WHERE kind = 'priority' AND name = issue.priority),"
    " 9223372036854775807)",
    *(term.format(c="issue.key") for term in KEY_ORDER),
)
_IN_LIST = "EXISTS (SELECT 1 FROM json_each(issue.{column}) WHERE value = ?)"
_IN_VERSIONS = ("EXISTS (SELECT 1 FROM json_each(issue.{column}) "
                "WHERE json_extract(value, '$.name') = ? OR json_extract(value, '$.id') = ?)")
# Any sprint the issue was ever in, by name or id; or, for an issue loaded before the
# mirror kept sprints, its current sprint's name.
_IN_SPRINT = ("(issue.sprint = ? OR issue.key IN (SELECT issue_sprint.key FROM issue_sprint "
              "JOIN sprint ON sprint.sprint_id = issue_sprint.sprint_id "
              "WHERE sprint.name = ? OR sprint.sprint_id = ?))")


def conditions(*, status: str | None = None, assignee: str | None = None, epic_key: str | None = None,
               label: str | None = None, neighbor: int | None = None, fetched_since: str | None = None,
               issue_type: str | None = None, sprint: str | None = None, project: str | None = None,
               updated_since: str | None = None, resolution: str | None = None,
               component: str | None = None, fix_version: str | None = None,
               affects_version: str | None = None, parent: str | None = None,
               gone: str = "false") -> Where:
    """The filters as ``(SQL condition, params)``; a filter not given is no condition,
    but for ``gone``, which leaves gone issues out unless it is ``true`` or ``any``."""
    where: Where = [(f"issue.{column} = ?", [value]) for column, value in (
        ("status", status), ("assignee", assignee), ("epic_key", epic_key), ("neighbor", neighbor),
        ("issue_type", issue_type), ("parent_key", parent)) if value is not None]
    if project is not None and Project.get_or_none(Project.label == project) is None:
        raise ContractError(f"project: no project {project!r}; see GET /api/v1/projects", "project")
    # A project is its label: its issues are those that carry it.
    for value in (label, project):
        if value is not None:
            where.append((_IN_LIST.format(column="labels"), [value]))
    if component is not None:
        where.append((_IN_LIST.format(column="components"), [component]))
    for column, value in (("fix_versions", fix_version), ("affects_versions", affects_version)):
        if value is not None:
            where.append((_IN_VERSIONS.format(column=column), [value, value]))
    if resolution is not None:
        where.append(("issue.resolution IS NULL", []) if resolution == UNRESOLVED
                     else ("issue.resolution = ?", [resolution]))
    if sprint is not None:
        # A name of digits is also read as an id (one that fits a sprint id: up to 18 digits).
        sprint_id = int(sprint) if sprint.isascii() and sprint.isdigit() and len(sprint) <= 18 else None
        where.append((_IN_SPRINT, [sprint, sprint, sprint_id]))
    if fetched_since is not None:
        where.append(("issue.fetched_at >= ?", [fetched_since]))
    where.extend(_gone(gone))
    if updated_since is not None:
        moment = parse_utc(updated_since)
        if moment is None:
            raise ContractError(f"updated_since: {updated_since!r} names no time", "updated_since")
        # Both sides in the hub's format (``+00:00``), which compares as time does.
        where.append(("issue.jira_updated_at >= ?", [iso(moment)]))
    return where


def _gone(gone: str) -> Where:
    """The condition of ``gone``: none for ``any``, and none for the default while no issue is gone."""
    if gone == "true":
        return [("issue.gone_at IS NOT NULL", [])]
    if gone != "any" and database.execute_sql(_ANY_GONE).fetchone()[0]:
        return [(_NOT_GONE, [])]
    return []
