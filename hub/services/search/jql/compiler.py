"""A JQL query (:mod:`hub.services.search.jql.tree`) as SQL conditions and an order over ``issue``.

What a clause means is its field's kind (:mod:`hub.services.search.jql.fields`); the SQL is this
module's own text, chosen by kind and operator, and every value of the query travels as a
parameter. The semantics are Jira's:

- names compare case-insensitively in every script (the connection's ``casefold``);
- ``!=`` and ``NOT IN`` never match an issue whose field is empty; ``NOT`` matches every
  issue the clause does not (an empty field included), so each condition is written to be
  true or false for every issue, or NULL only where it is false;
- a multi-value field (labels, components, versions, sprints) matches when any value does;
- a value that no issue holds matches nothing (the mirror may not have it yet), while a
  value that cannot be one (a key of the wrong shape, a number that is none) is an error.

Dates are read by :mod:`hub.services.search.jql.dates` and history operators compiled by
:mod:`hub.services.search.jql.history`; functions the mirror cannot answer are errors naming them.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime
from zoneinfo import ZoneInfo

from hub import dialect
from hub.clock import iso
from hub.errors import ContractError
from hub.services.search import spellings
from hub.services.search.conditions import key_order
from hub.services.search.jql import dates, history, operands
from hub.services.search.jql.fields import Field, Kind, field
from hub.services.search.jql.shape import normal
from hub.services.search.jql.tree import And, Clause, Empty, Function, JqlError, Node, Not, Or, Query, Value, ValueList
from hub.services.search.text_query import fold, fts_query

Sql = tuple[str, list]
# The engine's full-text condition: (a ``q``'s text, the index's fields) -> SQL over ``issue``.
Words = Callable[[str, tuple[str, ...]], Sql]

# The most parameters a query's conditions may bind: below SQLite's own bound (32,766), with
# room for the list's other filters. The parser's bounds allow more (500 clauses of 1,000 values).
MAX_PARAMETERS = 30_000

HISTORY_OPERATORS = frozenset({"was", "was in", "was not", "was not in", "changed"})
_COMPARISONS = {">": ">", ">=": ">=", "<": "<", "<=": "<="}
# Kinds whose values have an order the mirror knows, and so take >, >=, <, <=.
_ORDERED = frozenset({Kind.KEY, Kind.ID, Kind.PRIORITY, Kind.DATETIME, Kind.DATE, Kind.NUMBER})
# Fields searched by words take only these; ``text`` not even IS.
_TEXT_OPERATORS = frozenset({"~", "!~", "is", "is not"})
_EQUALITY = frozenset({"=", "!=", "in", "not in"})
_UNKNOWN_LAST = "9223372036854775807"
_WORD = re.compile(r"\w+")
_OPERATOR_WORDS = re.compile(r"\b(OR|NOT)\b|(^|\s)-")


@dataclass(frozen=True)
class Compiled:
    """``where``: conditions, every one to hold (as :data:`hub.services.search.conditions.Where`);
    ``order``: ORDER BY terms, the compiler's own SQL text."""

    where: list[tuple[str, list]]
    order: list[str]


def compile_query(query: Query, *, now: datetime, zone: ZoneInfo, words: Words | None = None) -> Compiled:
    """The conditions and the order of ``query``, read at ``now`` in ``zone`` (the zone of the
    Jira user, whose dates a query writes); JqlError when the mirror cannot answer it.

    ``words`` is the engine's full-text search asked for ``~`` (``FullText.matching``: the
    condition that an issue's fields hold the words of a ``q``); without it ``~`` is SQLite's
    FTS5 condition (:func:`hub.dialect.jql.JqlSql.text_match`)."""
    compiler = _Compiler(now, zone, words)
    where = []
    if query.where is not None:
        sql, params = compiler.node(normal(query.where))
        if len(params) > MAX_PARAMETERS:
            raise JqlError(f"The query holds {len(params)} values to compare; the mirror answers queries "
                           f"of up to {MAX_PARAMETERS}.")
        where.append((f"({sql})", params))
    return Compiled(where, compiler.order(query))


class _Compiler:
    def __init__(self, now: datetime, zone: ZoneInfo, words: Words | None = None):
        self.now, self.zone, self.words = now, zone, words

    # -- the tree --------------------------------------------------------------

    def node(self, node: Node) -> Sql:
        """The condition of ``node`` (best :func:`shape.normal`, whose SQL is shallowest)."""
        sql, params, _ = self._nested(node)
        return sql, params

    def _nested(self, node: Node) -> tuple[str, list, int]:
        """The condition of ``node``, its parameters, and how many ANDs, ORs and NOTs nest in it."""
        if isinstance(node, And | Or):
            # Compiled in the query's order, so that its first error is the one reported.
            parts = [self._nested(operand) for operand in node.operands]
            # Written deepest first: SQLite's parser shifts the opening parentheses of a first
            # operand together, one entry of its stack each, where an operand after another costs
            # three (the one before, AND or OR, and "("); the order changes no answer.
            parts.sort(key=lambda part: -part[2])
            joiner = " AND " if isinstance(node, And) else " OR "
            return (joiner.join(f"({sql})" for sql, _, _ in parts), [p for _, ps, _ in parts for p in ps],
                    parts[0][2] + 1)
        if isinstance(node, Not):
            sql, params, depth = self._nested(node.operand)
            # NULL is "does not match" everywhere below: NOT of it matches.
            return f"coalesce(NOT ({sql}), {dialect.jql.current().true})", params, depth + 1
        sql, params = self.clause(node)
        return sql, params, 0

    def clause(self, clause: Clause) -> Sql:
        f = field(clause.field)
        op = clause.operator
        if op in HISTORY_OPERATORS:
            return self._history(clause, f)
        if f.kind is Kind.TEXT:
            return self._text(clause, f)
        operand = clause.operand
        if op in ("is", "is not") or (op in ("=", "!=") and isinstance(operand, Empty)):
            if not isinstance(operand, Empty):
                raise JqlError(f"The operator '{op.upper()}' can only be used with the value 'EMPTY' or 'NULL'.",
                               _at(operand, clause))
            empty = self._empty(f)
            return empty if op in ("is", "=") else (f"NOT ({empty[0]})", empty[1])
        if op in _COMPARISONS:
            if f.kind not in _ORDERED:
                raise _unsupported(op, f, clause)
            if not isinstance(operand, Value | Function):
                raise JqlError(f"The operator '{op}' does not take a list of values.", _at(operand, clause))
            return self._compare(f, op, operand)
        if op not in _EQUALITY:
            raise _unsupported(op, f, clause)
        return self._equality(f, op, operand, clause)

    def _equality(self, f: Field, op: str, operand, clause: Clause) -> Sql:
        if op in ("in", "not in"):
            items = operand.items if isinstance(operand, ValueList) else (operand,)
        elif isinstance(operand, ValueList):
            raise JqlError(f"The operator '{op}' does not take a list of values; use IN.", operand.at)
        else:
            items = (operand,)
        values = [item for item in items if not isinstance(item, Empty)]
        with_empty = len(values) < len(items)
        matches = self._any(f, values, clause) if values else None
        empty_sql, empty_params = self._empty(f)
        if op in ("!=", "not in"):
            # Jira: a negation never matches an empty field.
            if matches is None:
                return f"NOT ({empty_sql})", empty_params
            return (f"NOT ({empty_sql}) AND coalesce(NOT ({matches[0]}), {dialect.jql.current().true})",
                    [*empty_params, *matches[1]])
        if matches is None:
            return empty_sql, empty_params
        if with_empty:
            return f"({matches[0]}) OR ({empty_sql})", [*matches[1], *empty_params]
        return matches

    # -- what a field holds ----------------------------------------------------

    def _empty(self, f: Field) -> Sql:
        """True when the field holds nothing."""
        kind, pieces = f.kind, dialect.jql.current()
        if kind in (Kind.MULTI, Kind.VERSION) or (f.custom_id and kind is Kind.NAME):
            return f"NOT EXISTS (SELECT 1 FROM {_each(f)})", []
        if kind is Kind.SPRINT:
            return ("issue.sprint IS NULL AND NOT EXISTS (SELECT 1 FROM issue_sprint "
                    "WHERE issue_sprint.key = issue.key)"), []
        if kind in (Kind.PROJECT, Kind.KEY, Kind.ID):
            return pieces.false, []
        if f.name == "comment":
            return "NOT EXISTS (SELECT 1 FROM issue_comment WHERE issue_comment.key = issue.key)", []
        if f.name == "text":
            return pieces.false, []
        # Not coalesce(…, '') = '': written as two comparisons, an indexed column is searched
        # on its index (resolution IS EMPTY), not read from every issue.
        return f"({f.sql} IS NULL OR {f.sql} = '')", []

    def _any(self, f: Field, items: list, clause: Clause) -> Sql:
        """True when the field holds any of ``items`` (values and functions)."""
        values = [item for item in items if isinstance(item, Value)]
        functions = [item for item in items if isinstance(item, Function)]
        parts: list[Sql] = [operands.function(f, function, self.date_equal) for function in functions]
        if values:
            parts.append(self._values(f, values))
        if len(parts) == 1:
            return parts[0]
        return " OR ".join(f"({sql})" for sql, _ in parts), [p for _, ps in parts for p in ps]

    def _values(self, f: Field, values: list[Value]) -> Sql:
        kind = f.kind
        texts = [value.text for value in values]
        if kind in (Kind.DATETIME, Kind.DATE):
            parts = [self.date_equal(f, value) for value in values]
            return " OR ".join(f"({sql})" for sql, _ in parts), [p for _, ps in parts for p in ps]
        if kind is Kind.NUMBER:
            numbers = [operands.number(f, value) for value in values]
            return f"CAST({f.sql} AS {dialect.jql.current().real}) IN ({_marks(numbers)})", numbers
        if kind in (Kind.KEY, Kind.KEY_REF):
            keys = [operands.issue_key(f, value) for value in values]
            if kind is Kind.KEY_REF:
                return f"{f.sql} IN ({_marks(keys)})", keys
            # An old key of a moved issue finds it, as Jira finds it.
            return (f"issue.key IN ({_marks(keys)}) OR issue.key IN (SELECT issue_alias.key FROM issue_alias "
                    f"WHERE issue_alias.old_key IN ({_marks(keys)}))"), [*keys, *keys]
        if kind is Kind.ID:
            ids = [operands.jira_id(f, value) for value in values]
            return f"issue.id IN ({_marks(ids)})", ids
        if kind is Kind.PROJECT:
            parts = [_project(text) for text in texts]
            return " OR ".join(f"({sql})" for sql, _ in parts), [p for _, ps in parts for p in ps]
        return _named(f, texts)

    # -- comparisons -----------------------------------------------------------

    def _compare(self, f: Field, op: str, operand: Value | Function) -> Sql:
        kind = f.kind
        if kind is Kind.DATE:
            return f"{f.sql} {op} ?", [self.day(f, operand).isoformat()]
        if kind is Kind.DATETIME:
            # As Jira: compared with the instant the operand names (a day is its midnight), to the second.
            return f"{f.sql} {op} ?", [iso(self.instant(f, operand))]
        if isinstance(operand, Function):
            raise operands.misplaced(operand, f)
        if kind is Kind.NUMBER:
            return f"CAST({f.sql} AS {dialect.jql.current().real}) {op} ?", [operands.number(f, operand)]
        if kind is Kind.ID:
            return f"CAST(issue.id AS {dialect.jql.current().integer}) {op} ?", [int(operands.jira_id(f, operand))]
        if kind is Kind.PRIORITY:
            # A higher priority is earlier in Jira's order: ``priority > Major`` is above Major.
            position = "(SELECT min(position) FROM jira_catalogue WHERE kind = 'priority' AND {})"
            flipped = {">": "<", ">=": "<=", "<": ">", "<=": ">="}[op]
            return (f"{position.format('name = issue.priority')} {flipped} "
                    f"{position.format('casefold(name) = ?')}"), [operand.text.casefold()]
        key = operands.issue_key(f, operand)
        project, _, number = key.rpartition("-")
        sql, params = _project(project)
        number_sql = f"CAST(substr(issue.key, ?) AS {dialect.jql.current().integer})"
        return f"{sql} AND {number_sql} {op} ?", [*params, len(project) + 2, int(number)]

    def instant(self, f: Field, operand: Value | Function) -> datetime:
        """The instant (UTC) a date operand names, as Jira's ``=``, ``<`` … read it: a day is its
        midnight in the zone, a minute its first second (:func:`dates.moment`)."""
        operands.date_function(operand)
        return dates.moment(operand, now=self.now, zone=self.zone, field=f.name)

    def day(self, f: Field, operand: Value | Function) -> date:
        """The day a date operand names in the zone, for a field of days (:func:`dates.day`)."""
        operands.date_function(operand)
        return dates.day(operand, now=self.now, zone=self.zone, field=f.name)

    def date_equal(self, f: Field, operand: Value | Function) -> Sql:
        """``=``: the field at the instant the operand names, to the second, as Jira's index compares
        it (``created = 2026/10/22`` is that midnight alone); a field of days, that day."""
        if f.kind is Kind.DATE:
            return f"{f.sql} = ?", [self.day(f, operand).isoformat()]
        return f"{f.sql} = ?", [iso(self.instant(f, operand))]

    # -- words and history -----------------------------------------------------

    def _text(self, clause: Clause, f: Field) -> Sql:
        op = clause.operator
        if op not in _TEXT_OPERATORS or (op.startswith("is") and f.name == "text"):
            raise _unsupported(op, f, clause)
        if op in ("is", "is not"):
            if not isinstance(clause.operand, Empty):
                raise JqlError(f"The operator '{op.upper()}' can only be used with the value 'EMPTY' or 'NULL'.",
                               _at(clause.operand, clause))
            sql, params = self._empty(f)
            return (sql, params) if op == "is" else (f"NOT ({sql})", params)
        operand = clause.operand
        if not isinstance(operand, Value):
            raise JqlError(f"The operator '{op}' takes one value of text for the field '{f.name}'.",
                           _at(operand, clause))
        try:
            if self.words is not None:
                match = self.words(operand.text, tuple(f.fts.strip("{}").split()))
            else:
                match = _words(f, operand, fts_query(operand.text))
        except ContractError as exc:
            reason = exc.description.removeprefix("q: ").split("; see")[0]
            raise JqlError(f"The text query '{operand.text}' for the field '{f.name}' is not valid: {reason}.",
                           operand.at) from None
        if f.fts == "other" and f.sql:
            # ``other`` also holds the environment and the other text fields: this one must hold
            # the words too (as text: the index has found the issues that hold them as words).
            plain = _plain_words(operand.text)
            folded = f"replace(casefold({f.sql}), 'ё', 'е')"
            held = "".join(f" AND {dialect.jql.current().position(folded, '?')} > 0" for _ in plain)
            match = (f"{f.sql} IS NOT NULL AND {match[0]}{held}", [*match[1], *plain])
        if op == "~":
            return match
        empty_sql, empty_params = self._empty(f)
        return (f"NOT ({empty_sql}) AND coalesce(NOT ({match[0]}), {dialect.jql.current().true})",
                [*empty_params, *match[1]])

    def _history(self, clause: Clause, f: Field) -> Sql:
        if not f.history:
            raise JqlError(f"History searches do not support the '{f.name}' field.", clause.field.at)
        return history.compile_history(clause, now=self.now, zone=self.zone)

    # -- ORDER BY --------------------------------------------------------------

    def order(self, query: Query) -> list[str]:
        """ORDER BY terms: each key's field in its direction (or the field's own default),
        empty values last going up; ties, and a query with no ORDER BY, by key descending."""
        terms: list[str] = []
        for key in query.order:
            f = field(key.field)
            if not f.sortable:
                raise JqlError(f"Not able to sort using field '{f.name}'.", key.field.at)
            descending = key.descending if key.descending is not None else f.kind in (Kind.DATETIME,
                                                                                      Kind.PRIORITY)
            direction = " DESC" if descending else " ASC"
            terms += [term + direction for term in _order_terms(f)]
        terms += [term + " DESC" for term in key_order("issue.key")]
        return terms


def _named(f: Field, texts: list[str]) -> Sql:
    """The field holds one of the names ``texts`` (folded): versions, sprints, several names,
    users and single names, compared with the spellings the catalogues hold where they can be."""
    kind, pieces = f.kind, dialect.jql.current()
    folded = [text.casefold() for text in texts]
    marks = _marks(folded)
    if kind is Kind.VERSION:
        name, vid = pieces.element("v.value", "name"), pieces.element("v.value", "id")
        return (f"EXISTS (SELECT 1 FROM {pieces.objects(f.sql, 'v')} WHERE casefold({name}) "
                f"IN ({marks}) OR {vid} IN ({marks}))"), [*folded, *texts]
    if kind is Kind.SPRINT:
        ids = [int(text) for text in texts if text.isascii() and text.isdigit() and len(text) <= 18]
        sprint_ids, names = spellings.sprints(folded, ids)
        # Or, for an issue loaded before the mirror kept sprints, its current sprint's name.
        names = _unique([*names, *texts])
        if not sprint_ids:  # no sprint of the mirror's is named (and PostgreSQL takes no empty IN)
            return f"issue.sprint IN ({_marks(names)})", names
        return (f"issue.sprint IN ({_marks(names)}) OR issue.key IN (SELECT issue_sprint.key FROM "
                f"issue_sprint WHERE issue_sprint.sprint_id IN ({_marks(sprint_ids)}))"), [*names, *sprint_ids]
    if kind is Kind.MULTI or (f.custom_id and kind is Kind.NAME):
        return f"EXISTS (SELECT 1 FROM {_each(f)} WHERE casefold(value) IN ({marks}))", folded
    if kind is Kind.USER:
        # A login name, or a display name as Jira resolves it to the user's login.
        logins = spellings.users(folded)
        if logins is not None:
            logins = _unique([*logins, *texts])
            return f"{f.sql} IN ({_marks(logins)})", logins
        return (f"casefold({f.sql}) IN ({marks}) OR {f.sql} IN (SELECT jira_user.name FROM jira_user "
                f"WHERE casefold(jira_user.display_name) IN ({marks}))"), [*folded, *folded]
    spelled = spellings.catalogue(f.catalogue, folded) if f.catalogue else None
    if spelled is not None:
        spelled = _unique([*spelled, *texts])
        sql, params = f"{f.sql} IN ({_marks(spelled)})", spelled
    else:
        sql, params = f"casefold({f.sql}) IN ({marks})", folded
    if f.unresolved and "unresolved" in folded:
        # Jira's "Unresolved" is no resolution (unless a resolution has that name).
        sql = f"{sql} OR {f.sql} IS NULL"
    return sql, params


def _order_terms(f: Field) -> list[str]:
    """SQL that orders by ``f`` going up, empty values last (greatest)."""
    kind, sql = f.kind, f.sql
    if kind in (Kind.KEY, Kind.PROJECT):
        return list(key_order("issue.key"))[: 1 if kind is Kind.PROJECT else 2]
    if kind is Kind.KEY_REF:
        return [f"({sql} IS NULL)", *key_order(sql)]
    if kind is Kind.ID:
        return [f"CAST(issue.id AS {dialect.jql.current().integer})"]
    if kind is Kind.PRIORITY:
        # Going up is from the lowest priority (last in Jira's order) to the highest; unknown lowest.
        return [f"({sql} IS NULL)", f"-coalesce((SELECT min(position) FROM jira_catalogue WHERE kind = 'priority' "
                f"AND name = {sql}), {_UNKNOWN_LAST})"]
    if f.catalogue:
        return [f"({sql} IS NULL)", f"coalesce((SELECT min(position) FROM jira_catalogue WHERE kind = "
                f"'{f.catalogue}' AND name = {sql}), {_UNKNOWN_LAST})", f"casefold({sql})"]
    if kind is Kind.USER:
        return [f"({sql} IS NULL)",
                f"casefold(coalesce((SELECT display_name FROM jira_user WHERE name = {sql}), {sql}))"]
    if kind is Kind.MULTI:
        each = dialect.jql.current().texts(sql)
        return [f"NOT EXISTS (SELECT 1 FROM {each})", f"(SELECT min(casefold(value)) FROM {each})"]
    if kind is Kind.NUMBER:
        return [f"({sql} IS NULL)", f"CAST({sql} AS {dialect.jql.current().real})"]
    if kind in (Kind.DATETIME, Kind.DATE):
        return [sql] if f.always else [f"({sql} IS NULL)", sql]
    return [f"({sql} IS NULL)", f"casefold({sql})"]


def _plain_words(text: str) -> list[str]:
    """The words of a ``~`` value, folded as the index folds them; none when it has operators
    (OR, NOT, -word), which a check word by word could not follow."""
    if _OPERATOR_WORDS.search(text):
        return []
    return [fold(word.casefold()) for word in _WORD.findall(text)]


def _each(f: Field) -> str:
    """The FROM item of the field's values, each as ``value`` (a custom field's are at its path)."""
    if f.custom_id:
        return dialect.jql.current().texts("issue.custom_fields", f.custom_id, "value")
    return dialect.jql.current().texts(f.sql)


def _words(f: Field, operand: Value, words: str) -> Sql:
    """The issues whose text fields ``f.fts`` hold the words of ``operand`` (``words``: them as
    :func:`hub.services.search.text_query.fts_query` writes them for the index)."""
    sql = dialect.jql.current().text_match(f.fts)
    if sql is None:
        raise JqlError(f"The operator '~' for the field '{f.name}' needs the full-text index, which this "
                       "hub's database does not hold yet.", operand.at)
    return sql, [f"{f.fts} : ({words})"]


def _project(text: str) -> Sql:
    """The issues of the project whose key is ``text``: a range of the key's index."""
    key = text.strip().upper()
    return "issue.key >= ? AND issue.key < ?", [key + "-", key + "."]


def _unique(values: list) -> list:
    return list(dict.fromkeys(values))


def _marks(values: list) -> str:
    return ", ".join("?" for _ in values)


def _at(operand, clause: Clause) -> int:
    return getattr(operand, "at", None) or clause.at


def _unsupported(op: str, f: Field, clause: Clause) -> JqlError:
    return JqlError(f"The operator '{op.upper()}' is not supported by the '{f.name}' field.", clause.at)
