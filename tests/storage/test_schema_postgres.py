"""The PostgreSQL baseline (hub/migrations/postgres/schema.sql) taken on by its steps is SQLite's
schema at the same version: the same tables, the same columns in the same order with the same types,
nullability and defaults, the same keys, foreign keys and indexes.

What differs is by design (see the baseline's header) and named here: integers are
BIGINT, text is COLLATE "C", AUTOINCREMENT ids are identities, the three tables whose
SQLite rowid the hub reads carry it as a column ``rowid`` with a unique index, and the
full-text objects (``issue_fts*``, ``issue_search*``) are each engine's own.
"""

from __future__ import annotations

import re
import sqlite3

import pytest

from hub.migrations import migrate
from hub.migrations.postgres import BASELINE_VERSION, CURRENT_VERSION
from hub.migrations.runner import CURRENT_VERSION as SQLITE_VERSION

FULL_TEXT = re.compile(r"^issue_(fts|search)")
ROWID_TABLES = {"issue", "agent_status", "issue_alias"}
TYPES = {"INTEGER": "bigint", "TEXT": "text", "REAL": "double precision", "BLOB": "bytea"}
# Where ``rowid`` stands in a table a later step widened: after the baseline's columns (v15 adds
# ``issue.transitions`` and ``issue.edit_fields`` after it).
BASELINE_ROWID_AT = {"issue": -3}


def normal_default(value: str | None) -> str | None:
    """A column default as both engines would agree on it: ``'[]'::text`` is ``'[]'``."""
    if value is None:
        return None
    return re.sub(r"::(text|bigint|integer)\b", "", value).strip()


def normal_predicate(sql: str | None) -> str | None:
    """A partial index's WHERE without the casts and parentheses PostgreSQL adds."""
    if sql is None:
        return None
    sql = re.sub(r"::(text|bigint|integer)\b", "", sql)
    return re.sub(r"[()\s]+", " ", sql).strip().lower()


def sqlite_schema(path) -> dict:
    conn = sqlite3.connect(path)
    try:
        tables = [name for (name,) in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
            if not FULL_TEXT.match(name)]
        schema = {}
        for table in tables:
            info = conn.execute(f"PRAGMA table_info({table})").fetchall()
            pk = [name for _, name, *_, pos in sorted(info, key=lambda row: row[5]) if pos]
            columns = [(name, TYPES[kind.upper()], bool(notnull) or name in pk, normal_default(default))
                       for _, name, kind, notnull, default, _ in info]
            indexes, uniques = {}, set()
            for _, name, unique, origin, partial in conn.execute(f"PRAGMA index_list({table})"):
                cols = tuple(row[2] for row in conn.execute(f"PRAGMA index_info({name})"))
                if origin == "c":
                    sql = conn.execute("SELECT sql FROM sqlite_master WHERE name = ?", (name,)).fetchone()[0]
                    where = sql.split(" WHERE ", 1)[1] if partial else None
                    indexes[name] = (bool(unique), cols, normal_predicate(where))
                elif origin == "u":
                    uniques.add(cols)
            fks = sorted((row[3], row[2], row[4]) for row in conn.execute(f"PRAGMA foreign_key_list({table})"))
            autoincrement = "AUTOINCREMENT" in conn.execute(
                "SELECT sql FROM sqlite_master WHERE name = ?", (table,)).fetchone()[0].upper()
            schema[table] = {"columns": columns, "primary_key": pk, "indexes": indexes, "uniques": uniques,
                             "foreign_keys": fks, "identity": pk if autoincrement else []}
        return schema
    finally:
        conn.close()


def postgres_schema(url: str) -> dict:
    import psycopg

    with psycopg.connect(url) as conn:
        tables = [name for (name,) in conn.execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() ORDER BY 1")
            if not FULL_TEXT.match(name)]
        schema = {}
        for table in tables:
            info = conn.execute(
                "SELECT column_name, data_type, is_nullable = 'NO', column_default, is_identity = 'YES', "
                "collation_name FROM information_schema.columns WHERE table_schema = current_schema() "
                "AND table_name = %s ORDER BY ordinal_position", (table,)).fetchall()
            columns = [(name, kind, notnull, normal_default(default)) for name, kind, notnull, default, *_ in info]
            collations = {name: collation for name, kind, *_, collation in info if kind == "text"}
            identity = [name for name, *_, is_identity, _ in info if is_identity]
            indexes, uniques, pk = {}, set(), []
            for name, unique, primary, cols, where in conn.execute(
                    "SELECT c.relname, i.indisunique, i.indisprimary, "
                    "  ARRAY(SELECT coalesce(a.attname, '') FROM unnest(i.indkey) WITH ORDINALITY AS k(n, o) "
                    "        LEFT JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.n ORDER BY k.o), "
                    "  pg_get_expr(i.indpred, i.indrelid) "
                    "FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid "
                    "WHERE i.indrelid = %s::regclass", (table,)):
                cols = tuple(col or None for col in cols)
                if primary:
                    pk = list(cols)
                elif name.endswith("_key") and unique and where is None:
                    uniques.add(cols)  # a UNIQUE constraint's index
                else:
                    indexes[name] = (unique, cols, normal_predicate(where))
            fks = sorted(conn.execute(
                "SELECT a.attname, cf.relname, af.attname FROM pg_constraint k "
                "JOIN pg_class cf ON cf.oid = k.confrelid "
                "JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = k.conkey[1] "
                "JOIN pg_attribute af ON af.attrelid = k.confrelid AND af.attnum = k.confkey[1] "
                "WHERE k.contype = 'f' AND k.conrelid = %s::regclass", (table,)).fetchall())
            schema[table] = {"columns": columns, "primary_key": pk, "indexes": indexes, "uniques": uniques,
                             "foreign_keys": fks, "identity": identity, "collations": collations}
        return schema


@pytest.fixture(scope="module")
def schemas(tmp_path_factory, postgres_template):
    path = tmp_path_factory.mktemp("sqlite") / "hub.sqlite"
    migrate(path, path.parent / "backups")
    server, template = postgres_template
    return sqlite_schema(path), postgres_schema(server.url(template))


def test_the_baseline_is_v13_and_its_steps_keep_it_at_sqlites_version():
    """Born at v13 (schema.sql, frozen as deployed hubs hold it), taken on by its own steps to
    SQLite's version: v14 changes only PostgreSQL's functions, v15 adds what SQLite's v15 adds."""
    assert BASELINE_VERSION == 13
    assert CURRENT_VERSION == SQLITE_VERSION == 15


def test_the_same_tables(schemas):
    sqlite, postgres = schemas
    assert sorted(postgres) == sorted(sqlite)


def test_the_same_columns_in_the_same_order_with_types_nullability_and_defaults(schemas):
    sqlite, postgres = schemas
    for table, described in sqlite.items():
        theirs = postgres[table]["columns"]
        if table in ROWID_TABLES:
            # SQLite's rowid, as a column of its own: last in the baseline, so before the columns
            # a later step adds (PostgreSQL appends them; nothing reads a row by position).
            at = BASELINE_ROWID_AT.get(table, len(theirs) - 1)
            assert theirs[at] == ("rowid", "bigint", True, None), table
            theirs = theirs[:at] + theirs[at + 1:]
        assert theirs == described["columns"], table


def test_every_text_column_compares_by_bytes(schemas):
    _, postgres = schemas
    for table, described in postgres.items():
        assert set(described["collations"].values()) == {"C"}, (table, described["collations"])


def test_the_same_keys_and_identities(schemas):
    sqlite, postgres = schemas
    for table, described in sqlite.items():
        assert postgres[table]["primary_key"] == described["primary_key"], table
        rowid = ["rowid"] if table in ROWID_TABLES else []
        assert postgres[table]["identity"] == described["identity"] + rowid, table
        assert postgres[table]["uniques"] == described["uniques"], table
        assert postgres[table]["foreign_keys"] == described["foreign_keys"], table


def test_the_same_indexes(schemas):
    sqlite, postgres = schemas
    for table, described in sqlite.items():
        theirs = dict(postgres[table]["indexes"])
        if table in ROWID_TABLES:
            assert theirs.pop(f"{table}_rowid") == (True, ("rowid",), None), table
        theirs = {name: index for name, index in theirs.items() if not FULL_TEXT.match(name)}
        assert sorted(theirs) == sorted(described["indexes"]), table
        for name, (unique, cols, where) in described["indexes"].items():
            their_unique, their_cols, their_where = theirs[name]
            assert their_unique == unique, name
            assert their_where == where, name
            # An expression (SQLite's json_extract, PostgreSQL's ->>) names no column on either side.
            assert their_cols == cols, name
