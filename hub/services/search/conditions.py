"""The filters of the mirror's list (``GET /api/v1/issues``) as SQL conditions, and its orders.

Each condition names the columns of ``issue`` qualified (``issue.key``): a search joins
``issue_fts``, which has columns of the same names, and the plain list selects ``issue``
under its own name (:data:`hub.services.issues.reading.ISSUES`).
"""

from __future__ import annotations

from hub import dialect
from hub.clock import iso, parse_utc
from hub.db import database
from hub.errors import ContractError
from hub.models import Project
from hub.services.search import spellings

# Filters as (SQL condition, params), every one of them to hold.
Where = list[tuple[str, list]]

# ``gone``: only the issues Jira still returns (the default), only the gone ones, or both.
GONE_FILTERS = ("false", "true", "any")
# Whether any issue is gone, on the partial index issue_gone: while none is, the default
# filter adds no condition, so a search needs no join with ``issue`` for it.
_ANY_GONE = "SELECT EXISTS (SELECT 1 FROM issue WHERE gone_at IS NOT NULL)"
# ``gone_at IS NULL`` is written on SQLite as the rowids not among the few gone issues (read once
# from issue_gone): every index holds the rowid, so a count on an index needs no table row for it
# (hub/dialect/jql.py's ``not_gone``).

# ``resolution=none``: the issues without a resolution (unresolved).
UNRESOLVED = "none"
# Values compare case-insensitively in every script ("done", "petrov", "апи"). Where a
# catalogue names the values (statuses, resolutions, priorities, issue types, users, sprints),
# the spellings it holds whose fold is the filter's are found there once and the column is
# compared with them (on its index where it has one), as JQL does (hub/services/search/spellings.py);
# without a catalogue, and for the names in JSON arrays (labels, components, versions), which no
# index holds, each value is folded.
_IN_LIST = "EXISTS (SELECT 1 FROM {each} WHERE value = ? OR casefold(value) = ?)"
_IN_VERSIONS = "EXISTS (SELECT 1 FROM {each} WHERE casefold({name}) = ? OR {id} = ?)"
_IN_LABELS = "EXISTS (SELECT 1 FROM {each} WHERE value = ?)"
# Any sprint the issue was ever in, by name or id; or, for an issue loaded before the
# mirror kept sprints, its current sprint's name.
_IN_SPRINT = ("(issue.sprint IN ({names}) OR issue.key IN (SELECT issue_sprint.key FROM issue_sprint "
              "WHERE issue_sprint.sprint_id IN ({ids})))")
# The filters that name one of a catalogue's names, by column: the catalogue's kind.
_NAMED = (("status", "status"), ("issue_type", "issue_type"), ("priority", "priority"))


def conditions(*, status: str | None = None, assignee: str | None = None, epic_key: str | None = None,
               label: str | None = None, neighbor: int | None = None, fetched_since: str | None = None,
               issue_type: str | None = None, sprint: str | None = None, project: str | None = None,
               updated_since: str | None = None, resolution: str | None = None,
               component: str | None = None, fix_version: str | None = None,
               affects_version: str | None = None, parent: str | None = None,
               reporter: str | None = None, priority: str | None = None,
               gone: str = "false") -> Where:
    """The filters as ``(SQL condition, params)``; a filter not given is no condition,
    but for ``gone``, which leaves gone issues out unless it is ``true`` or ``any``.
    Names (status, type, priority, resolution, people, sprints, labels, components,
    versions, projects) match in any case."""
    where: Where = [(f"issue.{column} = ?", [value]) for column, value in (
        ("epic_key", epic_key), ("neighbor", neighbor), ("parent_key", parent)) if value is not None]
    where += _names({"status": status, "issue_type": issue_type, "priority": priority},
                    {"assignee": assignee, "reporter": reporter},
                    {"labels": label, "components": component},
                    {"fix_versions": fix_version, "affects_versions": affects_version})
    if project is not None:
        # A project is its label: its issues are those that carry it.
        where.append((_IN_LABELS.format(each=dialect.jql.current().texts("issue.labels")), [_project_label(project)]))
    if resolution is not None:
        where.append(("issue.resolution IS NULL", []) if resolution.casefold() == UNRESOLVED
                     else _one_of("issue.resolution", "resolution", resolution))
    if sprint is not None:
        where.append(_in_sprint(sprint))
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


def _names(catalogued: dict, people: dict, lists: dict, versions: dict) -> Where:
    """The conditions of the filters that name names, by column, in any case."""
    where: Where = []
    pieces = dialect.jql.current()
    for column, kind in _NAMED:
        if catalogued[column] is not None:
            where.append(_one_of(f"issue.{column}", kind, catalogued[column]))
    for column, value in people.items():
        if value is not None:
            where.append(_person(f"issue.{column}", value))
    for column, value in lists.items():
        if value is not None:
            where.append((_IN_LIST.format(each=pieces.texts(f"issue.{column}")), [value, value.casefold()]))
    for column, value in versions.items():
        if value is not None:
            condition = _IN_VERSIONS.format(each=pieces.objects(f"issue.{column}", "v"),
                                            name=pieces.element("v.value", "name"), id=pieces.element("v.value", "id"))
            where.append((condition, [value.casefold(), value]))
    return where


def _one_of(column: str, kind: str, value: str) -> tuple[str, list]:
    """``column`` holds ``value`` in any case: one of the catalogue's spellings of it (or it as
    written), on the column's index; folded per issue while the catalogue is not reported."""
    spelt = spellings.catalogue(kind, [value.casefold()])
    if spelt is None:
        return f"casefold({column}) = ?", [value.casefold()]
    terms = _unique([*spelt, value])
    return f"{column} IN ({_marks(terms)})", terms


def _person(column: str, value: str) -> tuple[str, list]:
    """``column`` (a login) is the user ``value`` names by login or display name, in any case."""
    logins = spellings.users([value.casefold()])
    if logins is None:
        return f"casefold({column}) = ?", [value.casefold()]
    terms = _unique([*logins, value])
    return f"{column} IN ({_marks(terms)})", terms


def _in_sprint(sprint: str) -> tuple[str, list]:
    """Any sprint the issue was ever in, named in any case or by id (a name of digits is also
    read as an id, one that fits a sprint id: up to 18 digits)."""
    ids = [int(sprint)] if sprint.isascii() and sprint.isdigit() and len(sprint) <= 18 else []
    sprint_ids, names = spellings.sprints([sprint.casefold()], ids)
    # An older agent's issue by its current sprint's name: the names written, not those of an id.
    names = _unique([*(name for name in names if name.casefold() == sprint.casefold()), sprint])
    sprint_ids = _unique([*sprint_ids, *ids]) or [None]
    return _IN_SPRINT.format(names=_marks(names), ids=_marks(sprint_ids)), [*names, *sprint_ids]


def _project_label(project: str) -> str:
    """The label of the project ``project`` names in any case; a ContractError naming it if none."""
    if Project.get_or_none(Project.label == project) is not None:
        return project
    folded = project.casefold()
    for held in Project.select(Project.label):
        if held.label.casefold() == folded:
            return str(held.label)
    raise ContractError(f"project: no project {project!r}; see GET /api/v1/projects", "project")


def _unique(values: list) -> list:
    return list(dict.fromkeys(values))


def _marks(values: list) -> str:
    return ", ".join("?" for _ in values)


def _gone(gone: str) -> Where:
    """The condition of ``gone``: none for ``any``, and none for the default while no issue is gone."""
    if gone == "true":
        return [("issue.gone_at IS NOT NULL", [])]
    if gone != "any" and database.execute_sql(_ANY_GONE).fetchone()[0]:
        return [(dialect.jql.current().not_gone, [])]
    return []


# -- orders ---------------------------------------------------------------------

def key_order(column: str) -> tuple[str, str]:
    """The ORDER BY expressions of a key as people order them, of the column ``column``: by
    project, then by number (AURORA-9 before AURORA-10)."""
    return dialect.jql.current().key_order(column)


# The list's orders (``sort``), each as (SQL true for an issue without a value, the SQL of its
# value going up). Going up is as Jira lists the values: priorities, statuses, types and
# resolutions in Jira's configured order (an unknown name after the known ones, then by name),
# people by display name, text in any case, dates oldest first. Issues without a value come last
# in both directions, and ties go by key in the order's direction, so that every order is total
# and an offset names the same place on every read.
_POSITION = "(SELECT min(position) FROM jira_catalogue WHERE kind = '{kind}' AND name = issue.{column})"
_PERSON = "casefold(coalesce((SELECT display_name FROM jira_user WHERE name = issue.{c}), issue.{c}))"


def _catalogued(column: str, kind: str) -> tuple[str, list[str]]:
    position = _POSITION.format(kind=kind, column=column)
    return f"issue.{column} IS NULL", [f"coalesce({position}, 9223372036854775807)", f"casefold(issue.{column})"]


SORTS: dict[str, tuple[str | None, list[str]]] = {
    "key": (None, []),
    "summary": (None, ["casefold(issue.summary)"]),
    "type": _catalogued("issue_type", "issue_type"),
    "status": _catalogued("status", "status"),
    "resolution": _catalogued("resolution", "resolution"),
    # Jira's order: a name the catalogue does not hold goes with the empty ones.
    "priority": (f"{_POSITION.format(kind='priority', column='priority')} IS NULL",
                 [_POSITION.format(kind="priority", column="priority")]),
    "assignee": ("issue.assignee IS NULL", [_PERSON.format(c="assignee")]),
    "reporter": ("issue.reporter IS NULL", [_PERSON.format(c="reporter")]),
    # created is kept as Jira wrote it (with its offset): jira_utc reads it as UTC.
    "created": ("issue.created IS NULL", ["jira_utc(issue.created)"]),
    "updated": ("issue.jira_updated_at IS NULL", ["issue.jira_updated_at"]),
    "resolved": ("issue.resolved_at IS NULL", ["issue.resolved_at"]),
    "duedate": ("issue.duedate IS NULL", ["issue.duedate"]),
}
# What ``sort`` takes: an order's name going up, or ``-name`` going down (as Jira's REST API
# writes ``orderBy=-created``).
SORT_NAMES = (*SORTS, *(f"-{name}" for name in SORTS))


def sort_order(sort: str) -> list[str]:
    """The ORDER BY terms of ``sort`` (one of SORT_NAMES), ties by key in the same direction."""
    descending = sort.startswith("-")
    empty, values = SORTS[sort.removeprefix("-")]
    way = " DESC" if descending else " ASC"
    terms = [f"({empty}) ASC"] if empty else []
    terms += [term + way for term in values]
    return terms + [term + way for term in key_order("issue.key")]
