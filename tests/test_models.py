"""The Peewee models describe the schema the migrations create."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from hub.migrations import migrate
from hub.models import MODELS


def test_every_table_has_a_model_with_its_columns(tmp_path: Path):
    db = tmp_path / "hub.sqlite"
    migrate(db, tmp_path / "backups")
    conn = sqlite3.connect(db)
    tables = {name for (name,) in conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
        # The full-text index and its shadow tables are SQLite's, read and written in SQL.
        " AND name != 'issue_fts' AND name NOT LIKE 'issue_fts_%'")}
    assert {model._meta.table_name for model in MODELS} == tables
    assert len(MODELS) == 22

    for model in MODELS:
        info = conn.execute(f"PRAGMA table_info({model._meta.table_name})").fetchall()
        columns = {name: (notnull, pk) for _, name, _, notnull, _, pk in info}
        fields = {f.column_name: f for f in model._meta.sorted_fields}
        assert list(fields) == [row[1] for row in info], model.__name__
        pk_columns = {name for name, (_, pk) in columns.items() if pk}
        model_pk = ({f.column_name for f in model._meta.get_primary_keys()})
        assert model_pk == pk_columns, model.__name__
        for name, field in fields.items():
            if name in pk_columns:
                continue
            notnull, _ = columns[name]
            assert field.null == (not notnull), f"{model.__name__}.{name}"
