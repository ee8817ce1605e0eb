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
from functools import cache
from zoneinfo import ZoneInfo

from hub import dialect
from hub.clock import iso
from hub.db import database
from hub.services.search.jql import dates
from hub.services.search.jql.tree import Clause, Empty, Function, JqlError, Operand, Predicate, Value, ValueList

HISTORY_OPERATORS = ("was", "was in", "was not", "was not in", "changed")
# The predicates each operator takes, as Jira has them.
_TAKES = {"was": {"after", "before", "by", "during", "on"},
          "changed": {"from", "to", "by", "after", "before", "during", "on"}}


@dataclass(frozen=True)
class _Field:
    """A field history answers: its name in the changelog, the kind of its values, the catalogue
    kind that holds its names' spellings and ids, and how its current value is read from ``issue``."""

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

# Each segment of a field's history is one of three (see the module's docstring), found from the
# changes whose value matches, never by ordering all of a field's changes: a change ``c`` began
# one, ended by the field's next change ``n`` (on the same version, for fixVersion); a first
# change (none before it) ended the one its ``from`` held; an issue that no change of the field
# names held its value throughout. Changes are in order of time, then Jira's history id, then
# item. ``+field`` keeps SQLite off the (field, created_at) index, which would read a field's
# changes in time order, one page per row: a scan of the table in its own order is many times
# faster, and the correlated look-ups go by (key, created_at). The statements are spelled for the
# engine (hub/dialect/jql.py) when a query is compiled, once per engine.
@dataclass(frozen=True)
class _Statements:
    """That a change's segment is still open after an instant (``open_after``: no next change of
    its field at or before it), whether it is the field's first (``first``), and the issue's field
    never changed (``unchanged``), in one engine's spelling."""

    open_after: str
    first: str
    same_version: str
    unchanged: str
    held_version: str
    field: str  # ``+field`` on SQLite
    c_field: str
    versions: str  # the FROM item of an issue's fix versions, each ``v.value``
    version_id: str  # the id of ``v.value``
    version_name: str
    false: str
    true: str


@cache
def _statements(pieces: dialect.jql.JqlSql) -> _Statements:
    place = "(CAST({t}.history_id AS " + pieces.integer + "), {t}.item_no)"
    n_field = pieces.unindexed("n.field")
    vid = pieces.element("v.value", "id")
    return _Statements(
        # Not "(the next change's time) > ?": asked as NOT EXISTS, PostgreSQL joins the field's
        # changes once (a hash anti-join) where the next change's time was a look-up per change.
        open_after=(f"NOT EXISTS (SELECT 1 FROM issue_change n WHERE n.key = c.key AND {n_field} = c.field "
                    "AND n.created_at >= c.created_at AND (n.created_at > c.created_at OR "
                    f"{place.format(t='n')} > {place.format(t='c')}){{version}} AND n.created_at <= ?)"),
        first=(f"NOT EXISTS (SELECT 1 FROM issue_change n WHERE n.key = c.key AND {n_field} = c.field "
               "AND n.created_at <= c.created_at AND (n.created_at < c.created_at OR "
               f"{place.format(t='n')} < {place.format(t='c')}){{version}})"),
        same_version=" AND coalesce(n.to_value, n.from_value) = coalesce(c.to_value, c.from_value)",
        unchanged=f"NOT EXISTS (SELECT 1 FROM issue_change n WHERE n.key = issue.key AND {n_field} = ?{{version}})",
        held_version=f" AND coalesce(n.to_value, n.from_value) = {vid}",
        field=pieces.unindexed("field"),
        c_field=pieces.unindexed("c.field"),
        versions=pieces.objects("issue.fix_versions", "v"),
        version_id=vid,
        version_name=pieces.element("v.value", "name"),
        false=pieces.false,
        true=pieces.true,
    )


_CATALOGUE = "SELECT jira_id, name FROM jira_catalogue WHERE kind = ?"
_USERS = "SELECT name, user_key, display_name FROM jira_user"


def is_history(clause: Clause) -> bool:
    """Whether ``clause`` is one of the history operators, which :func:`compile_history` answers."""
    return clause.operator in HISTORY_OPERATORS


def compile_history(clause: Clause, *, now: datetime, zone: ZoneInfo) -> tuple[str, list]:
    """The SQL condition over ``issue`` and its parameters that holds for the issues ``clause``
    matches (a WAS … or CHANGED clause); dates are read at ``now`` in ``zone``
    (:mod:`hub.services.search.jql.dates`). Raises :class:`JqlError`, at its place, for a field history
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
    versions = field.kind == "versions"
    st = _statements(dialect.jql.current())
    branches: list[str] = []
    params: list = []
    # (the rows, the value's id and name, the segment's start, that it is open after ?, its
    # author, conditions)
    for rows, vid, vname, start, open_after, author, where in (
            ("issue_change c", "c.to_value", "c.to_string", "c.created_at",
             st.open_after.format(version=st.same_version if versions else ""), "c.author",
             f"{st.c_field} = ?" + (" AND c.to_value IS NOT NULL" if versions else "")),
            ("issue_change c", "c.from_value", "c.from_string", "NULL",
             f"coalesce(c.created_at > ?, {st.true})", "NULL",
             f"{st.c_field} = ?" + (" AND c.to_value IS NULL" if versions else "") + " AND "
             + st.first.format(version=st.same_version if versions else "")),
            (f"issue, {st.versions}" if versions else "issue",
             st.version_id if versions else _current_id(field),
             st.version_name if versions else ("NULL" if field.kind == "user" else field.current),
             "NULL", f"coalesce(NULL > ?, {st.true})", "NULL",
             st.unchanged.format(version=st.held_version if versions else ""))):
        match, values = _matches(field, operand, vid, vname, clause)
        conditions, more = [where, match], [field.changelog, *values]
        for predicate in clause.predicates:
            condition, given = _segment_time(predicate, start, open_after, author, now=now, zone=zone,
                                             clause=clause)
            conditions.append(condition)
            more.extend(given)
        key = "issue.key" if rows.startswith("issue,") or rows == "issue" else "c.key"
        branches.append(f"SELECT {key} FROM {rows} WHERE {' AND '.join(conditions)}")
        params.extend(more)
    sql = f"issue.key IN ({' UNION ALL '.join(branches)})"
    return _negated(clause, sql), params


def _ever(clause: Clause, field: _Field, operand: Operand) -> tuple[str, list]:
    """WAS without predicates: held now, or before or after any change. The same as the segments
    on a changelog that agrees with itself, without ordering the field's changes."""
    if field.kind == "versions":
        st = _statements(dialect.jql.current())
        held, params = _matches(field, operand, st.version_id, st.version_name, clause)
        now_sql = f"EXISTS (SELECT 1 FROM {st.versions} WHERE {held})"
    else:
        now_sql, params = _matches(field, operand, _current_id(field),
                                   "NULL" if field.kind == "user" else field.current, clause)
    before, before_params = _matches(field, operand, "h.from_value", "h.from_string", clause)
    after, after_params = _matches(field, operand, "h.to_value", "h.to_string", clause)
    # The keys whose changes of the field went from or to the value, read once from the covering
    # index issue_change_field_key (field, key, the values): the field's changes alone, and no
    # table row. (Asked per issue instead, it costs a seek for every issue the rest leaves.)
    sql = (f"({now_sql} OR issue.key IN (SELECT h.key FROM issue_change h WHERE h.field = ? "
           f"AND ({before} OR {after})))")
    return _negated(clause, sql), [*params, field.changelog, *before_params, *after_params]


def _current_id(field: _Field) -> str:
    """SQL over ``issue``: the id of the value held now: a user's login name; none for a name,
    which holds no id (an id written is matched by its name, see _catalogue_spellings)."""
    return field.current if field.kind == "user" else "NULL"


def _negated(clause: Clause, sql: str) -> str:
    return f"NOT {sql}" if clause.operator in ("was not", "was not in") else sql


def _changed(clause: Clause, field: _Field, *, now: datetime, zone: ZoneInfo) -> tuple[str, list]:
    # A time predicate reads a range of the (field, created_at) index; without one, the field's
    # changes are found by scanning the table in its own order (see _statements).
    timed = any(p.word in ("after", "before", "on", "during") for p in clause.predicates)
    conditions = ["field = ?" if timed else f"{_statements(dialect.jql.current()).field} = ?"]
    params = [field.changelog]
    for predicate in clause.predicates:
        if predicate.word in ("from", "to"):
            side = predicate.word
            condition, values = _matches(field, predicate.operand, f"{side}_value", f"{side}_string", clause,
                                         empty_versions=True, within=True)
        else:
            condition, values = _change_time(predicate, now=now, zone=zone, clause=clause)
        conditions.append(condition)
        params.extend(values)
    return f"issue.key IN (SELECT key FROM issue_change WHERE {' AND '.join(conditions)})", params


def _matches(field: _Field, operand: Operand, vid: str, vname: str, clause: Clause, *,
             empty_versions: bool = False, within: bool = False) -> tuple[str, list]:
    """SQL that a value (columns ``vid``, ``vname``) is ``operand`` or one of its list; ``within``
    a subquery's conditions, where NULL already fails the row, as it is written (see _author)."""
    items = operand.items if isinstance(operand, ValueList) else (operand,)
    parts: list[str] = []
    params: list = []
    texts: list[str] = []
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
            texts.append(item.text)
        else:  # a list inside a list: the parser makes none
            raise JqlError(f"A list is not a value for the field '{clause.field.name}'.", item.at)
    if texts:
        sql, values = _named(field, texts, vid, vname)
        parts.append(sql)
        params.extend(values)
        if field.changelog == "resolution" and "unresolved" in {text.casefold() for text in texts}:
            # Jira's "Unresolved" is no resolution, as in resolution = Unresolved.
            parts.append(f"({vid} IS NULL AND {vname} IS NULL)")
    if within:
        return f"({' OR '.join(parts)})", params
    # A NULL column makes a comparison NULL, not false, and NOT (… OR NULL) would drop the issue.
    return f"coalesce({' OR '.join(parts)}, {dialect.jql.current().false})", params


def _named(field: _Field, texts: list[str], vid: str, vname: str) -> tuple[str, list]:
    """SQL that a value is one of ``texts``, in any case: compared with the spellings the
    catalogues hold (and as written) where the mirror has them, so that SQLite compares the
    changelog's own text rather than calling into Python for each of its rows; folded where not."""
    folded = _unique([text.casefold() for text in texts])
    if field.kind == "user":
        users = _user_spellings(folded)
        if users is not None:
            terms = _unique([*users, *texts])
            return f"{vid} IN ({_marks(terms)})", terms
        return f"casefold({vid}) IN ({_marks(folded)})", folded
    spelt = _catalogue_spellings(field.catalogue, folded, texts) if field.catalogue else None
    if spelt is not None:
        names, ids = _unique([*spelt[0], *texts]), _unique([*spelt[1], *texts])
        return f"({vname} IN ({_marks(names)}) OR {vid} IN ({_marks(ids)}))", [*names, *ids]
    return f"(casefold({vname}) IN ({_marks(folded)}) OR {vid} IN ({_marks(texts)}))", [*folded, *texts]


def _author(operand: Operand, clause: Clause, column: str = "author") -> tuple[str, list]:
    """SQL that a change's ``author`` (a login name) is the user(s) of ``BY``."""
    items = operand.items if isinstance(operand, ValueList) else (operand,)
    for item in items:
        if not isinstance(item, Value):
            what = f"the function '{item.name}'" if isinstance(item, Function) else "EMPTY"
            raise JqlError(f"BY takes a user's login name, not {what}.", item.at)
    texts = [item.text for item in items if isinstance(item, Value)]
    folded = _unique([text.casefold() for text in texts])
    users = _user_spellings(folded)
    # Always among a subquery's conditions, never negated alone: a NULL author fails the row as
    # false would. Not wrapped in coalesce(…, false), which hid from PostgreSQL's planner how few
    # changes one author made (it sorted every issue for status CHANGED BY … AFTER …).
    if users is not None:
        terms = _unique([*users, *texts])
        return f"{column} IN ({_marks(terms)})", terms
    return f"casefold({column}) IN ({_marks(folded)})", folded


def _catalogue_spellings(kind: str, folded: list[str], texts: list[str]) -> tuple[list[str], list[str]] | None:
    """The names and Jira ids in catalogue ``kind`` whose name folds to one of ``folded`` or
    whose id is one of ``texts``; None while the mirror holds no such catalogue. A status renamed
    in Jira keeps its id, so its changes under the old name match by id, as in Jira; a value
    held now is a name, so an id written is matched through its name."""
    rows = database.execute_sql(_CATALOGUE, [kind]).fetchall()
    if not rows:
        return None
    wanted, ids = set(folded), set(texts)
    found = [(jira_id, name) for jira_id, name in rows if name.casefold() in wanted or jira_id in ids]
    return [name for _, name in found], [jira_id for jira_id, _ in found]


def _user_spellings(folded: list[str]) -> list[str] | None:
    """The login names and user keys of the users whose login or display name folds to one of
    ``folded`` (as Jira resolves a user's name); None while the mirror knows no users."""
    rows = database.execute_sql(_USERS).fetchall()
    if not rows:
        return None
    wanted = set(folded)
    found: list[str] = []
    for name, key, display in rows:
        if name.casefold() in wanted or (display or "").casefold() in wanted:
            found.extend([name, key] if key else [name])
    return found


def _unique(values: list[str]) -> list[str]:
    return list(dict.fromkeys(values))


def _marks(values: list) -> str:
    return ", ".join("?" * len(values)) if values else "NULL"


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


def _segment_time(predicate: Predicate, s: str, open_after: str, author: str, *, now: datetime, zone: ZoneInfo,
                  clause: Clause) -> tuple[str, list]:
    """SQL that a segment [s, e) meets the predicate (BY: was begun by ``author``): ``s`` is SQL for
    its start (NULL: unbounded), ``open_after`` SQL with one ``?`` that the segment has not ended
    at or before that instant (e is NULL or later)."""
    if predicate.word == "by":
        return _author(predicate.operand, clause, author)
    first, last = _bounds(predicate, now=now, zone=zone, clause=clause)
    if predicate.word == "before":
        return f"({s} IS NULL OR {s} < ?)", [first]
    if predicate.word == "after":
        return open_after, [last]
    return f"(({s} IS NULL OR {s} <= ?) AND {open_after})", [last, first]  # on, during


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
