"""The Peewee models describe the schema the migrations create, on either engine."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from hub.migrations import migrate
from hub.models import MODELS
from tests.support.engine_rows import rows

pytestmark = pytest.mark.backends("sqlite", "postgresql")

# Each engine's full-text objects are read and written in SQL, without a model.
FULL_TEXT = ("issue_fts", "issue_search")


def sqlite_tables(db: Path) -> dict[str, list[tuple[str, bool, bool]]]:
    """Each table's columns in order, as (name, NOT NULL, in the primary key)."""
    conn = sqlite3.connect(db)
    try:
        names = [name for (name,) in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
            if not name.startswith(FULL_TEXT)]
        return {name: [(column, bool(notnull), bool(pk)) for _, column, _, notnull, _, pk in
                       conn.execute(f"PRAGMA table_info({name})")] for name in names}
    finally:
        conn.close()


def postgres_tables(config) -> dict[str, list[tuple[str, bool, bool]]]:
    """The same on PostgreSQL, without the ``rowid`` column that stands for SQLite's own rowid
    where the hub reads it (the models leave it out on both engines)."""
    tables: dict[str, list[tuple[str, bool, bool]]] = {}
    for table, column, notnull, pk in rows(
            config,
            "SELECT c.table_name, c.column_name, c.is_nullable = 'NO', EXISTS ("
            "  SELECT 1 FROM information_schema.table_constraints t"
            "  JOIN information_schema.key_column_usage k ON k.constraint_name = t.constraint_name"
            "   AND k.table_schema = t.table_schema AND k.table_name = t.table_name"
            "  WHERE t.constraint_type = 'PRIMARY KEY' AND t.table_schema = c.table_schema"
            "   AND t.table_name = c.table_name AND k.column_name = c.column_name) "
            "FROM information_schema.columns c JOIN pg_tables p"
            " ON p.schemaname = c.table_schema AND p.tablename = c.table_name "
            "WHERE c.table_schema = current_schema() ORDER BY c.table_name, c.ordinal_position"):
        if not table.startswith(FULL_TEXT) and column != "rowid":
            tables.setdefault(table, []).append((column, notnull, pk))
    return tables


def test_every_table_has_a_model_with_its_columns(tmp_path: Path, config):
    if config.database_url:
        tables = postgres_tables(config)  # the template every test database is copied from
    else:
        db = tmp_path / "hub.sqlite"
        migrate(db, tmp_path / "backups")
        tables = sqlite_tables(db)
    assert {model._meta.table_name for model in MODELS} == set(tables)
    assert len(MODELS) == 24

    for model in MODELS:
        columns = {name: (notnull, pk) for name, notnull, pk in tables[model._meta.table_name]}
        fields = {f.column_name: f for f in model._meta.sorted_fields}
        assert list(fields) == list(columns), model.__name__
        pk_columns = {name for name, (_, pk) in columns.items() if pk}
        model_pk = ({f.column_name for f in model._meta.get_primary_keys()})
        assert model_pk == pk_columns, model.__name__
        for name, field in fields.items():
            if name in pk_columns:
                continue
            notnull, _ = columns[name]
            assert field.null == (not notnull), f"{model.__name__}.{name}"
