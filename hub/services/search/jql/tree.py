"""A JQL query as a tree: what the parser (:mod:`hub.services.search.jql.parser`) makes and the
compiler (:mod:`hub.services.search.jql.compiler`) reads.

Every node carries ``at``, the character (1-based, on line 1 as Jira counts: the query's
line breaks are read as spaces) where its text begins, so that an error about it can say
where it is, as Jira does ("… at line 1, character 23").

The parser decides only the syntax: field names, operator words and values are kept as
written (unquoted or quoted, escapes resolved), and meaning — which fields exist, which
operators a field's type allows, what a value or function means — is the compiler's.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Value:
    """A literal: ``open``, ``"In Progress"``, ``'a b'``, ``42``, ``-7d``, ``2026/10/22``.

    ``quoted`` tells a quoted ``"EMPTY"`` (a value) from the keyword EMPTY, and a
    quoted ``"-7d"`` (text) from a relative date (Jira reads both as dates; the
    compiler decides).
    """

    text: str
    quoted: bool
    at: int


@dataclass(frozen=True)
class Empty:
    """``EMPTY`` or ``NULL`` (unquoted), as an operand of IS, IS NOT, =, !=, IN, WAS …"""

    at: int


@dataclass(frozen=True)
class Function:
    """``now()``, ``startOfDay(-1)``, ``linkedIssues(AURORA-12, "blocks")``: the name as
    written, and the arguments (Jira's are plain values, never nested calls)."""

    name: str
    args: tuple[Value, ...]
    at: int


@dataclass(frozen=True)
class ValueList:
    """``(a, "b", c)``: the operand of IN, NOT IN, WAS IN, WAS NOT IN. Its items are
    values, EMPTY or functions (``status in (Open, EMPTY)`` is valid JQL)."""

    items: tuple[Value | Empty | Function, ...]
    at: int


Operand = Value | Empty | Function | ValueList


@dataclass(frozen=True)
class FieldRef:
    """A field as written: ``status``, ``"Epic Link"``, ``cf[10012]`` (``custom_id`` is
    10012, ``name`` the text as written)."""

    name: str
    at: int
    custom_id: int | None = None


@dataclass(frozen=True)
class Predicate:
    """A history predicate after WAS / CHANGED: ``FROM x``, ``TO x``, ``BY x``, ``AFTER x``,
    ``BEFORE x``, ``ON x``, ``DURING (x, y)`` (``operand`` a ValueList of two)."""

    word: str  # "from", "to", "by", "after", "before", "on", "during" (lower case)
    operand: Operand
    at: int


@dataclass(frozen=True)
class Clause:
    """``field operator operand``, or ``field CHANGED`` (operand None).

    ``operator`` is normalised to lower case with single spaces: ``=``, ``!=``, ``>``,
    ``>=``, ``<``, ``<=``, ``~``, ``!~``, ``in``, ``not in``, ``is``, ``is not``, ``was``,
    ``was in``, ``was not``, ``was not in``, ``changed``. ``predicates`` only follow the
    history operators (the parser refuses them elsewhere).
    """

    field: FieldRef
    operator: str
    operand: Operand | None
    at: int
    predicates: tuple[Predicate, ...] = ()


@dataclass(frozen=True)
class Not:
    """``NOT x`` (or ``!x``)."""

    operand: Node
    at: int


@dataclass(frozen=True)
class And:
    operands: tuple[Node, ...]  # two or more, flattened: a AND b AND c is one And
    at: int


@dataclass(frozen=True)
class Or:
    operands: tuple[Node, ...]  # two or more, flattened
    at: int


Node = Clause | Not | And | Or


@dataclass(frozen=True)
class OrderKey:
    """One key of ORDER BY; ``descending`` None when the query gives no direction (each
    field then has its own default, the compiler's)."""

    field: FieldRef
    descending: bool | None
    at: int


@dataclass(frozen=True)
class Query:
    """A whole query: its condition (None for an empty query or ``ORDER BY …`` alone) and its
    order (empty: Jira's default)."""

    where: Node | None
    order: tuple[OrderKey, ...] = field(default=())


class JqlError(ValueError):
    """A query that does not parse, or that the mirror cannot answer; ``at`` is the
    character (1-based, line 1) it concerns, or None when it concerns the whole query.
    The message is worded as Jira words its errors, without the position, which
    :meth:`__str__` adds."""

    def __init__(self, message: str, at: int | None = None):
        super().__init__(message)
        self.message = message
        self.at = at

    def __str__(self) -> str:
        return self.message if self.at is None else f"{self.message} (line 1, character {self.at})"
