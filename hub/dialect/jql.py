"""The pieces of JQL's, the issue list's and the facets' SQL that differ by engine.

The compiler (:mod:`hub.services.search.jql`), the list's filters and orders
(:mod:`hub.services.search.conditions`) and the list itself (:mod:`hub.services.issues.reading`)
write their SQL once; where SQLite and PostgreSQL spell a thing differently they ask
:func:`current` for the piece, at the time they build a query (never at import: the
engine is known once the database is opened). SQLite's pieces are the text these
modules wrote before there was a second engine, so that its plans do not change.

What differs:

- JSON: SQLite's ``json_each`` / ``json_extract`` over the TEXT columns; PostgreSQL's
  ``jsonb_array_elements`` / ``->>`` over the same TEXT cast to ``jsonb``;
- truth values: SQLite's conditions are integers (``1``, ``0``), PostgreSQL's booleans;
- numbers: PostgreSQL's ``INTEGER`` is 32-bit and its ``REAL`` single precision, so
  what SQLite casts to ``INTEGER`` / ``REAL`` is ``BIGINT`` / ``DOUBLE PRECISION`` there; a number
  custom field's value is read by ``jira_number`` as SQLite's ``CAST`` reads it (text: its leading
  number, else 0), where PostgreSQL's cast raises;
- ``instr`` is ``strpos``; a unary ``+``, which keeps SQLite's planner off an index,
  is nothing; a page of matches is joined back to ``issue`` on its key, not its rowid
  (PostgreSQL's ``issue.rowid`` is a column of its own, an identity: the order issues came in,
  which the list pages by);
- NULLs sort first going up on SQLite and last on PostgreSQL: :func:`sqlite_nulls`
  gives an ORDER BY term SQLite's place for them on both.
- a page that counts every match: PostgreSQL plans a query with a LIMIT to stop early, even
  where a window count needs every row, so :func:`counted` fences the matches off from the
  page's LIMIT there (``OFFSET 0``), and they are planned for all of them.
"""

from __future__ import annotations

from dataclasses import dataclass

from hub.db import database
from hub.dialect import engines

_WAYS = ("ASC", "DESC")
# The pieces each engine writes as one template, SQLite's beside PostgreSQL's: what
# :meth:`JqlSql._form` fills in with the piece's holes.
_FORMS = {
    "objects": ("json_each({json}) AS {alias}", "jsonb_array_elements(CAST({json} AS jsonb)) AS {alias}(value)"),
    "element": ("json_extract({value}, '$.{key}')", "({value} ->> '{key}')"),
    "flag": ("coalesce(json_extract({value}, '$.{key}'), 0)",
             "(CASE WHEN ({value} ->> '{key}') IN ('true', '1') THEN 1 ELSE 0 END)"),
    "position": ("instr({text}, {part})", "strpos({text}, {part})"),
    "unindexed": ("+{column}", "{column}"),
}
# EXPLAIN QUERY PLAN's words for a sort of every row (not "… RIGHT PART OF ORDER BY", which an
# index ordered by the first terms leaves, nor "… LAST TERM OF ORDER BY").
_FULL_SORT = "USE TEMP B-TREE FOR ORDER BY"


@dataclass(frozen=True)
class JqlSql:
    """The pieces of one engine (SQLite's here; :class:`PostgresJql` overrides, and the
    pieces that are one template on each engine read theirs from :data:`_FORMS`)."""

    postgres: bool = False
    true: str = "1"
    false: str = "0"
    integer: str = "INTEGER"
    real: str = "REAL"
    # The rowid of ``issue``: what a page of matches is chosen by, then joined back on.
    row: str = "issue.rowid"
    # The join of a chosen page back to ``issue`` (CROSS JOIN keeps SQLite's loop order).
    join: str = "CROSS JOIN"
    # The issues not gone: SQLite's rowids (held by every index) not among the few gone ones.
    not_gone: str = "issue.rowid NOT IN (SELECT gone.rowid FROM issue AS gone WHERE gone.gone_at IS NOT NULL)"

    def texts(self, json: str, *keys: str, alias: str = "") -> str:
        """A FROM item: the values of the JSON array ``json`` (an SQL expression of JSON
        text), or of the value at ``keys`` in it, each as the column ``value`` (a string as
        its text). A value that is no array is one row, a missing one none (as json_each)."""
        path = f", '{_path(keys)}'" if keys else ""
        return f"json_each({json}{path})" + (f" AS {alias}" if alias else "")

    def objects(self, json: str, alias: str) -> str:
        """A FROM item: the objects of the JSON array ``json``, each as ``{alias}.value``;
        read one's members with :meth:`element`."""
        return self._form("objects", json=json, alias=alias)

    def element(self, value: str, key: str) -> str:
        """The member ``key`` of an object of :meth:`objects` (``value``), as text."""
        return self._form("element", value=value, key=key)

    def extract(self, json: str, *keys: str) -> str:
        """The value at ``keys`` in the JSON text ``json`` (a string as its text)."""
        return f"json_extract({json}, '{_path(keys)}')"

    def number(self, json: str, *keys: str) -> str:
        """The value at ``keys`` in the JSON text ``json`` as a number custom field is compared:
        what ``CAST(… AS REAL)`` makes of it on SQLite (a text by its leading number, else 0)."""
        return self.extract(json, *keys)

    def flag(self, value: str, key: str) -> str:
        """1 when the member ``key`` of the object ``value`` is true, else 0."""
        return self._form("flag", value=value, key=key)

    def position(self, text: str, part: str) -> str:
        """Where ``part`` starts in ``text`` (from 1; 0 when it is not in it)."""
        return self._form("position", text=text, part=part)

    def unindexed(self, column: str) -> str:
        """``column`` in a condition that must not be searched on its index."""
        return self._form("unindexed", column=column)

    def _form(self, piece: str, **holes: str) -> str:
        """``piece`` as this engine writes it (:data:`_FORMS`), its holes filled."""
        sqlite, postgres = _FORMS[piece]
        return (postgres if self.postgres else sqlite).format(**holes)

    def key_order(self, column: str) -> tuple[str, str]:
        """A key as people order them, of the column ``column``: by project, then by number
        (AURORA-9 before AURORA-10)."""
        dash = self.position(column, "'-'")
        return f"substr({column}, 1, {dash})", f"CAST(substr({column}, {dash} + 1) AS {self.integer})"

    def sqlite_nulls(self, term: str) -> str:
        """An ORDER BY term ``<expression> ASC|DESC`` with NULLs where SQLite puts them."""
        return term

    def counted(self, columns: str, matches: str) -> str:
        """A SELECT of ``columns`` (named, not ``total``) of ``matches`` (``<table> WHERE …``),
        each row also carrying the count of every row (``total``), for a page's ORDER BY and
        LIMIT to follow: the count taken on the same pass that finds the rows for the sorter."""
        return f"SELECT {columns}, count(*) OVER () AS total FROM {matches}"

    def sorts_every_match(self, sql: str, params: list) -> bool:
        """Whether the engine's plan for ``sql`` (a query with ORDER BY) sorts every row it
        finds, no index giving the order: then a page of it visits every match anyway, and
        counts them on the way more cheaply than a count of its own would."""
        plan = database.execute_sql(f"EXPLAIN QUERY PLAN {sql}", params).fetchall()
        return any(row[-1] == _FULL_SORT for row in plan)

    def text_match(self, columns: str) -> str | None:
        """The condition that the issue's text in the index's ``columns`` holds the words of
        the one parameter (the index's query); None where the engine has no such index yet."""
        return "issue.rowid IN (SELECT issue_fts.rowid FROM issue_fts WHERE issue_fts MATCH ?)"

    def custom_by_name(self) -> str:
        """The first issue that holds a custom field named (folded) ``?``: the field's id,
        schema type, custom type and name."""
        return ("SELECT f.key, json_extract(f.value, '$.type'), json_extract(f.value, '$.custom'), "
                "json_extract(f.value, '$.name') FROM issue, json_each(issue.custom_fields) AS f "
                "WHERE casefold(json_extract(f.value, '$.name')) = ? LIMIT 1")

    def custom_by_id(self, fid: str) -> tuple[str, list]:
        """The first issue that holds the custom field ``fid``: its id, schema type, custom
        type and name, and the statement's parameters."""
        path = f'$."{fid}"'
        return ("SELECT ?, json_extract(issue.custom_fields, ?), json_extract(issue.custom_fields, ?), "
                "json_extract(issue.custom_fields, ?) FROM issue "
                "WHERE json_type(issue.custom_fields, ?) IS NOT NULL LIMIT 1",
                [fid, path + ".type", path + ".custom", path + ".name", path])


@dataclass(frozen=True)
class PostgresJql(JqlSql):
    """PostgreSQL's pieces."""

    postgres: bool = True
    true: str = "TRUE"
    false: str = "FALSE"
    integer: str = "BIGINT"
    real: str = "DOUBLE PRECISION"
    row: str = "issue.key"
    join: str = "JOIN"
    not_gone: str = "issue.gone_at IS NULL"

    def texts(self, json: str, *keys: str, alias: str = "") -> str:
        value = _jsonb(json, keys)
        if not keys:  # a column of the mirror's that holds an array
            return f"jsonb_array_elements_text({value}) AS {alias or 'each'}(value)"
        # A custom field's value read as json_each reads it: an array's items, an object's
        # members' values (an option with its child), one row for any other (JSON null: NULL),
        # none when there is no value.
        return (f"(SELECT e.value FROM jsonb_array_elements_text(CASE WHEN jsonb_typeof({value}) = 'array' "
                f"THEN {value} ELSE '[]' END) AS e(value) "
                f"UNION ALL SELECT e.value FROM jsonb_each_text(CASE WHEN jsonb_typeof({value}) = 'object' "
                f"THEN {value} ELSE '{{}}' END) AS e(key, value) "
                f"UNION ALL SELECT {value} #>> '{{}}' WHERE jsonb_typeof({value}) NOT IN ('array', 'object')) "
                f"AS {alias or 'each'}(value)")

    def extract(self, json: str, *keys: str) -> str:
        *within, last = keys
        return f"({_jsonb(json, tuple(within))} ->> '{last}')"

    def number(self, json: str, *keys: str) -> str:
        # jira_number (schema v14) reads the jsonb value as SQLite's CAST of json_extract reads it
        # (a plain CAST of the text raised for any that is not a number), given as text, the type
        # of the other fields' values: the compiler casts it, and compares it with '' for EMPTY.
        return f"CAST(jira_number({_jsonb(json, keys)}) AS TEXT)"

    def sqlite_nulls(self, term: str) -> str:
        expression, _, way = term.rpartition(" ")
        if way.upper() not in _WAYS:
            expression, way = term, "ASC"
        return f"{expression} {way} NULLS {'FIRST' if way.upper() == 'ASC' else 'LAST'}"

    def counted(self, columns: str, matches: str) -> str:
        # The page's LIMIT would have the matches planned to stop early (walking every issue in
        # the order's sort and testing each against a history subquery) though the count needs
        # them all: behind OFFSET 0 they are planned on their own, for every row (a CHANGED
        # FROM … TO … on 100,000 issues: 0.4 s, then 0.1 s; a plan that stops early is still
        # chosen where no count is asked, for the later pages).
        return f"SELECT *, count(*) OVER () AS total FROM (SELECT {columns} FROM {matches} OFFSET 0) AS matched"

    def sorts_every_match(self, sql: str, params: list) -> bool:
        # A count over the window of the page's matches, on the pass that finds them: one
        # statement, and PostgreSQL visits every match for its sort or its count either way
        # (a plan it only estimates is no ground to choose one over the other).
        return True

    def text_match(self, columns: str) -> str | None:
        # PostgreSQL's full-text index is hub/migrations/postgres' issue_fts, searched by the
        # full-text part of the hub: ``~`` reaches it once that names its condition here.
        return None

    def custom_by_name(self) -> str:
        return ("SELECT f.key, f.value ->> 'type', f.value ->> 'custom', f.value ->> 'name' "
                "FROM issue, jsonb_each(CAST(issue.custom_fields AS jsonb)) AS f(key, value) "
                "WHERE jsonb_typeof(f.value) = 'object' AND casefold(f.value ->> 'name') = ? LIMIT 1")

    def custom_by_id(self, fid: str) -> tuple[str, list]:
        field = "(CAST(issue.custom_fields AS jsonb) -> CAST(? AS TEXT))"
        return (f"SELECT CAST(? AS TEXT), {field} ->> 'type', {field} ->> 'custom', {field} ->> 'name' "
                f"FROM issue WHERE {field} IS NOT NULL LIMIT 1", [fid, fid, fid, fid, fid])


SQLITE = JqlSql()
POSTGRES = PostgresJql()


def current() -> JqlSql:
    """The pieces of the engine the models are bound to now."""
    return POSTGRES if engines.current().postgres else SQLITE


def _path(keys: tuple[str, ...]) -> str:
    """SQLite's JSON path of ``keys`` (each quoted: a custom field's id may hold ``.`` or ``-``)."""
    return "$" + "".join(f'."{key}"' if not key.isidentifier() or key.startswith("customfield") else f".{key}"
                         for key in keys)


def _jsonb(json: str, keys: tuple[str, ...]) -> str:
    """PostgreSQL: the JSON text ``json`` as jsonb, and the value at ``keys`` in it."""
    return "(CAST(" + json + " AS jsonb)" + "".join(f" -> '{key}'" for key in keys) + ")"
