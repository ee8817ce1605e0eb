"""JQL's history operators over the mirrored changelog: ``WAS``, ``WAS IN``, ``WAS NOT``,
``WAS NOT IN`` and ``CHANGED``, with ``FROM``, ``TO``, ``BY``, ``AFTER``, ``BEFORE``, ``ON`` and
``DURING``, for status, assignee, priority, resolution, fixVersion and reporter.

A clause becomes one SQL condition over ``issue`` (written ``issue.key``) with ``?`` parameters;
the query's text reaches SQL only as parameters. The changelog (``issue_change``) is read as
Jira's history index reads it: a field's value is a run of *segments*, each a value held from
one change (``created_at``) up to the next change of the field: the first change's ``from``
before it, each change's ``to`` after it; an issue whose field never changed has held its
current value throughout. A multi-value field (fixVersion) has segments per version: from the
change that added it to the one that removed it.

- ``WAS v``: some segment holds ``v`` (at some time, within the time predicates if any);
  ``WAS IN (…)`` any of them; ``WAS NOT`` / ``WAS NOT IN`` the negation (never held it then).
- ``BY u``: the segment began with a change ``u`` made (the first value, set at creation, has no
  change to be made by).
- ``CHANGED``: some change item of the field, ``FROM`` its old value, ``TO`` its new one, ``BY``
  its author, at a time within ``AFTER`` / ``BEFORE`` / ``ON`` / ``DURING``.

Names compare case-insensitively through the SQL function ``casefold`` (:func:`hub.db.casefold`);
a status, priority, resolution or version also matches by its Jira id. Users are written by login
name: the changelog holds user keys (``JIRAUSER10100``) for assignee and reporter, mapped through
the users catalogue (``jira_user``); a key itself, and an older instance's key that is the login
name, match too.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from zoneinfo import ZoneInfo

from hub.clock import iso
from hub.services.jql import dates
from hub.services.jql.tree import Clause, Empty, Function, JqlError, Operand, Predicate, Value, ValueList

HISTORY_OPERATORS = ("was", "was in", "was not", "was not in", "changed")
# The predicates each operator takes, as Jira has them.
_TAKES = {"was": {"after", "before", "by", "during", "on"},
          "changed": {"from", "to", "by", "after", "before", "during", "on"}}


@dataclass(frozen=True)
class _Field:
    """A field history answers: its name in the changelog, the kind of its values, the catalogue
    kind that gives a current name's id, and how its current value is read from ``issue``."""

    changelog: str
    kind: str  # "named" (a name or an id), "user" (a login name), "versions" (a JSON list)
    current: str  # SQL over ``issue``: the name held now, or the JSON list for versions
    catalogue: str | None = None


_FIELDS = {
    "status": _Field("status", "named", "issue.status", "status"),
    "priority": _Field("priority", "named", "issue.priority", "priority"),
    "resolution": _Field("resolution", "named", "issue.resolution", "resolution"),
    "assignee": _Field("assignee", "user", "issue.assignee"),
    "reporter": _Field("reporter", "user", "issue.reporter"),
    "fixversion": _Field("Fix Version", "versions", "issue.fix_versions"),
}
HISTORY_FIELDS = ("status", "priority", "resolution", "assignee", "reporter", "fixVersion")

# One change's place in its field's order: by time, then Jira's history id, then the item.
_ORDER = "ORDER BY created_at, CAST(history_id AS INTEGER), item_no"
# The segments of a single-value field (parameters: the changelog's field name, three times).
# vid/vname: the value's id (a user's key or login name for users) and its name.
_SINGLE_SEGMENTS = (
    "SELECT key, to_value AS vid, to_string AS vname, created_at AS s, "
    f"lead(created_at) OVER (PARTITION BY key {_ORDER}) AS e, author "
    "FROM issue_change WHERE field = ? "
    "UNION ALL SELECT key, from_value, from_string, NULL, created_at, NULL FROM ("
    f"SELECT key, from_value, from_string, created_at, row_number() OVER (PARTITION BY key {_ORDER}) AS n "
    "FROM issue_change WHERE field = ?) WHERE n = 1 "
    "UNION ALL SELECT issue.key, {current_id}, {current_name}, NULL, NULL, NULL FROM issue "
    "WHERE NOT EXISTS (SELECT 1 FROM issue_change c WHERE c.key = issue.key AND +c.field = ?)")
# The segments of fixVersion: per version (its id), from the item that added it to the next item
# on it; a version whose first item removed it held it before; one held now that no item names
# held it throughout (parameters: the changelog's field name, three times).
_VERSION = "coalesce(to_value, from_value)"
_VERSION_SEGMENTS = (
    "SELECT key, vid, vname, s, e, author FROM ("
    "SELECT key, to_value AS vid, to_string AS vname, created_at AS s, "
    f"lead(created_at) OVER (PARTITION BY key, {_VERSION} {_ORDER}) AS e, author "
    "FROM issue_change WHERE field = ?) WHERE vid IS NOT NULL "
    "UNION ALL SELECT key, from_value, from_string, NULL, created_at, NULL FROM ("
    f"SELECT key, from_value, from_string, to_value, created_at, "
    f"row_number() OVER (PARTITION BY key, {_VERSION} {_ORDER}) AS n "
    "FROM issue_change WHERE field = ?) WHERE n = 1 AND to_value IS NULL "
    "UNION ALL SELECT issue.key, json_extract(v.value, '$.id'), json_extract(v.value, '$.name'), "
    "NULL, NULL, NULL FROM issue, json_each(issue.fix_versions) AS v "
    "WHERE NOT EXISTS (SELECT 1 FROM issue_change c WHERE c.key = issue.key AND +c.field = ? "
    "AND coalesce(c.to_value, c.from_value) = json_extract(v.value, '$.id'))")
# In the NOT EXISTS above, ``+c.field`` keeps SQLite to the (key, created_at) index: without
# statistics it would pick (field, created_at) and read every change of the field per issue.
# The user keys of a login name (any case), from the users catalogue.
_KEYS_OF = "(SELECT casefold(user_key) FROM jira_user WHERE casefold(name) = ? AND user_key IS NOT NULL)"


def is_history(clause: Clause) -> bool:
    """Whether ``clause`` is one of the history operators, which :func:`compile_history` answers."""
    return clause.operator in HISTORY_OPERATORS


def compile_history(clause: Clause, *, now: datetime, zone: ZoneInfo) -> tuple[str, list]:
    """The SQL condition over ``issue`` and its parameters that holds for the issues ``clause``
    matches (a WAS … or CHANGED clause); dates are read at ``now`` in ``zone``
    (:mod:`hub.services.jql.dates`). Raises :class:`JqlError`, at its place, for a field history
    cannot answer, a predicate the operator does not take, or a value that is not one."""
    name = clause.field.name
    field = _FIELDS.get(name.casefold()) if clause.field.custom_id is None else None
    if field is None:
        raise JqlError(f"History searches do not support the '{name}' field.", clause.field.at)
    operator = "changed" if clause.operator == "changed" else "was"
    for predicate in clause.predicates:
        if predicate.word not in _TAKES[operator]:
            raise JqlError(f"The operator '{clause.operator.upper()}' does not support the predicate "
                           f"'{predicate.word.upper()}'.", predicate.at)
    if operator == "changed":
        if clause.operand is not None:
            raise JqlError("The operator 'CHANGED' takes no value, only predicates.", clause.operand.at)
        return _changed(clause, field, now=now, zone=zone)
    return _was(clause, field, now=now, zone=zone)


def _was(clause: Clause, field: _Field, *, now: datetime, zone: ZoneInfo) -> tuple[str, list]:
    operand = clause.operand
    listed = clause.operator in ("was in", "was not in")
    if operand is None:
        raise JqlError(f"The operator '{clause.operator.upper()}' needs a value for the field "
                       f"'{clause.field.name}'.", clause.at)
    if listed != isinstance(operand, ValueList):
        which = "non-list" if listed else "list"
        raise JqlError(f"The operator '{clause.operator}' does not support the {which} value for field "
                       f"'{clause.field.name}'.", operand.at)
    if not clause.predicates:
        return _ever(clause, field, operand)
    match, params = _matches(field, operand, "vid", "vname", clause)
    conditions, more = [match], list(params)
    for predicate in clause.predicates:
        condition, values = _segment_time(predicate, now=now, zone=zone, clause=clause)
        conditions.append(condition)
        more.extend(values)
    if field.kind == "versions":
        segments = _VERSION_SEGMENTS
    else:
        segments = _SINGLE_SEGMENTS.format(current_id=_current_id(field),
                                           current_name="NULL" if field.kind == "user" else field.current)
    sql = f"issue.key IN (SELECT key FROM ({segments}) WHERE {' AND '.join(conditions)})"
    return _negated(clause, sql), [field.changelog] * 3 + more


def _ever(clause: Clause, field: _Field, operand: Operand) -> tuple[str, list]:
    """WAS without predicates: held now, or before or after any change. The same as the segments
    on a changelog that agrees with itself, without ordering the field's changes."""
    if field.kind == "versions":
        held, params = _matches(field, operand, "json_extract(v.value, '$.id')", "json_extract(v.value, '$.name')",
                                clause)
        now_sql = f"EXISTS (SELECT 1 FROM json_each({field.current}) AS v WHERE {held})"
    else:
        now_sql, params = _matches(field, operand, _current_id(field),
                                   "NULL" if field.kind == "user" else field.current, clause)
    before, before_params = _matches(field, operand, "from_value", "from_string", clause)
    after, after_params = _matches(field, operand, "to_value", "to_string", clause)
    sql = (f"({now_sql} OR issue.key IN (SELECT key FROM issue_change WHERE field = ? "
           f"AND ({before} OR {after})))")
    return _negated(clause, sql), [*params, field.changelog, *before_params, *after_params]


def _current_id(field: _Field) -> str:
    """SQL over ``issue``: the id of the value held now (a user's login name; a name's Jira id
    from the catalogue, NULL when it has none)."""
    if field.kind == "user":
        return field.current
    if field.catalogue is None:
        return "NULL"
    return (f"(SELECT jira_id FROM jira_catalogue WHERE kind = '{field.catalogue}' "
            f"AND name = {field.current} LIMIT 1)")


def _negated(clause: Clause, sql: str) -> str:
    return f"NOT {sql}" if clause.operator in ("was not", "was not in") else sql


def _changed(clause: Clause, field: _Field, *, now: datetime, zone: ZoneInfo) -> tuple[str, list]:
    conditions, params = ["field = ?"], [field.changelog]
    for predicate in clause.predicates:
        if predicate.word in ("from", "to"):
            side = predicate.word
            condition, values = _matches(field, predicate.operand, f"{side}_value", f"{side}_string", clause,
                                         empty_versions=True)
        else:
            condition, values = _change_time(predicate, now=now, zone=zone, clause=clause)
        conditions.append(condition)
        params.extend(values)
    return f"issue.key IN (SELECT key FROM issue_change WHERE {' AND '.join(conditions)})", params


def _matches(field: _Field, operand: Operand, vid: str, vname: str, clause: Clause, *,
             empty_versions: bool = False) -> tuple[str, list]:
    """SQL that a value (columns ``vid``, ``vname``) is ``operand`` or one of its list."""
    items = operand.items if isinstance(operand, ValueList) else (operand,)
    parts: list[str] = []
    params: list = []
    for item in items:
        if isinstance(item, Empty):
            if field.kind == "versions" and not empty_versions:
                raise JqlError(f"History searches for an empty '{clause.field.name}' are not supported "
                               "by the mirror.", item.at)
            parts.append(f"({vid} IS NULL AND {vname} IS NULL)")
        elif isinstance(item, Function):
            raise JqlError(f"The function '{item.name}' is not supported by the mirror in a history "
                           "search.", item.at)
        elif isinstance(item, Value):
            if field.kind == "user":
                parts.append(f"(casefold({vid}) = ? OR casefold({vid}) IN {_KEYS_OF})")
                params.extend([item.text.casefold(), item.text.casefold()])
            else:
                parts.append(f"(casefold({vname}) = ? OR {vid} = ?)")
                params.extend([item.text.casefold(), item.text])
        else:  # a list inside a list: the parser makes none
            raise JqlError(f"A list is not a value for the field '{clause.field.name}'.", item.at)
    # A NULL column makes a comparison NULL, not false, and NOT (… OR NULL) would drop the issue.
    return f"coalesce({' OR '.join(parts)}, 0)", params


def _author(operand: Operand, clause: Clause) -> tuple[str, list]:
    """SQL that a change's ``author`` (a login name, or a key) is the user(s) of ``BY``."""
    items = operand.items if isinstance(operand, ValueList) else (operand,)
    parts: list[str] = []
    params: list = []
    for item in items:
        if not isinstance(item, Value):
            what = f"the function '{item.name}'" if isinstance(item, Function) else "EMPTY"
            raise JqlError(f"BY takes a user's login name, not {what}.", item.at)
        parts.append(f"(casefold(author) = ? OR casefold(author) IN {_KEYS_OF})")
        params.extend([item.text.casefold(), item.text.casefold()])
    # A NULL column makes a comparison NULL, not false, and NOT (… OR NULL) would drop the issue.
    return f"coalesce({' OR '.join(parts)}, 0)", params


def _bounds(predicate: Predicate, *, now: datetime, zone: ZoneInfo, clause: Clause) -> tuple[str, str]:
    """The first and last instant (hub-format UTC) of a time predicate's operand; DURING's are
    its first operand's first and its second's last."""
    operand = predicate.operand
    if predicate.word == "during":
        if not isinstance(operand, ValueList) or len(operand.items) != 2:
            raise JqlError("DURING takes two dates: DURING (start, end).", operand.at)
        first, _ = dates.span(operand.items[0], now=now, zone=zone, field=clause.field.name)
        _, last = dates.span(operand.items[1], now=now, zone=zone, field=clause.field.name)
    else:
        first, last = dates.span(operand, now=now, zone=zone, field=clause.field.name)
    # The mirror's times are whole seconds: a last instant of 23:59:59.999999 is 23:59:59.
    return iso(first), iso(last)


def _segment_time(predicate: Predicate, *, now: datetime, zone: ZoneInfo, clause: Clause) -> tuple[str, list]:
    """SQL that a segment [s, e) (None: unbounded) meets the predicate (BY: was begun by)."""
    if predicate.word == "by":
        return _author(predicate.operand, clause)
    first, last = _bounds(predicate, now=now, zone=zone, clause=clause)
    if predicate.word == "before":
        return "(s IS NULL OR s < ?)", [first]
    if predicate.word == "after":
        return "(e IS NULL OR e > ?)", [last]
    return "((s IS NULL OR s <= ?) AND (e IS NULL OR e > ?))", [last, first]  # on, during


def _change_time(predicate: Predicate, *, now: datetime, zone: ZoneInfo, clause: Clause) -> tuple[str, list]:
    """SQL that a change item meets the predicate: made by, or made at a time within."""
    if predicate.word == "by":
        return _author(predicate.operand, clause)
    first, last = _bounds(predicate, now=now, zone=zone, clause=clause)
    if predicate.word == "before":
        return "created_at < ?", [first]
    if predicate.word == "after":
        return "created_at > ?", [last]
    return "created_at BETWEEN ? AND ?", [first, last]  # on, during
