"""A new database and a migrated one have the same schema, whatever version it came from."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from hub.migrations import migrate
from tests.support.dbfactory import make_db


def describe(path: Path) -> dict:
    """Tables with their columns, indexes with their columns (and the SQL of partial
    and expression indexes), foreign keys; names sorted."""
    conn = sqlite3.connect(path)
    try:
        # Views and virtual tables (the full-text index) by their SQL, which names their
        # columns, content and tokenizer.
        schema = {f"{kind}:{name}": " ".join(sql.split()) for kind, name, sql in conn.execute(
            "SELECT type, name, sql FROM sqlite_master WHERE type = 'view'"
            " OR sql LIKE 'CREATE VIRTUAL TABLE%' ORDER BY name")}
        tables = [name for (name,) in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        for table in tables:
            # (name, type, notnull, default, pk) in column order
            columns = [row[1:] for row in conn.execute(f"PRAGMA table_info({table})")]
            indexes = {}
            for _, name, unique, origin, partial in conn.execute(f"PRAGMA index_list({table})"):
                cols = [row[2] for row in conn.execute(f"PRAGMA index_info({name})")]
                key = name if origin == "c" else f"{origin}:{cols}"
                indexes[key] = (unique, cols)
                if partial or None in cols:
                    # index_info names no expression and no WHERE: compare the SQL,
                    # which a query must match exactly to use the index.
                    sql = conn.execute("SELECT sql FROM sqlite_master WHERE name = ?", (name,)).fetchone()[0]
                    indexes[key] += (" ".join(sql.split()),)
            fks = sorted(row[2:5] for row in conn.execute(f"PRAGMA foreign_key_list({table})"))
            autoincrement = "AUTOINCREMENT" in conn.execute(
                "SELECT sql FROM sqlite_master WHERE name = ?", (table,)).fetchone()[0].upper()
            schema[table] = {"columns": columns, "indexes": indexes, "foreign_keys": fks,
                             "autoincrement": autoincrement}
        return schema
    finally:
        conn.close()


# What v8 adds for full-text search: the view, the FTS5 table and its shadow tables.
SEARCH = {"view:issue_search", "table:issue_fts", "issue_fts", "issue_fts_config", "issue_fts_data",
          "issue_fts_docsize", "issue_fts_idx"}
# What v10 adds: five tables, columns at the end of ``issue`` and two of its indexes (and it makes
# the full-text view and table again with a column ``other``).
V10_TABLES = {"sprint", "issue_sprint", "issue_worklog", "jira_catalogue", "jira_user"}
V10_ISSUE_COLUMNS = [
    ("resolution", "TEXT", 0, None, 0), ("resolved", "TEXT", 0, None, 0), ("resolved_at", "TEXT", 0, None, 0),
    ("components", "TEXT", 1, "'[]'", 0), ("fix_versions", "TEXT", 1, "'[]'", 0),
    ("affects_versions", "TEXT", 1, "'[]'", 0), ("environment", "TEXT", 0, None, 0),
    ("parent_key", "TEXT", 0, None, 0), ("time_original_estimate", "INTEGER", 0, None, 0),
    ("time_estimate", "INTEGER", 0, None, 0), ("time_spent", "INTEGER", 0, None, 0),
    ("custom_fields", "TEXT", 1, "'{}'", 0), ("custom_text", "TEXT", 0, None, 0)]
V10_ISSUE_INDEXES = {"issue_parent_key": (0, ["parent_key"]), "issue_resolution": (0, ["resolution"])}
V10_SEARCH = {"view:issue_search", "table:issue_fts", "issue_fts"}
# What v11 adds: the alias table, two columns at the end of ``issue``, its unique index of ids and
# its partial index of gone issues, and two columns at the end of ``sync_run``.
V11_TABLES = {"issue_alias"}
V11_ISSUE_COLUMNS = [("gone_at", "TEXT", 0, None, 0), ("gone_reason", "TEXT", 0, None, 0)]
V11_ISSUE_INDEXES = {"issue_jira_id": (1, ["id"]), "issue_gone": (
    0, ["gone_at"], "CREATE INDEX issue_gone ON issue (gone_at) WHERE gone_at IS NOT NULL")}
# What v12 adds: the saved filters' table (with its unique index of names per owner), and two
# indexes for JQL: a field's changes with their values, the current sprint's name, the priority.
V12_TABLES = {"saved_filter"}
V12_INDEXES = {"issue_change": {"issue_change_field_key"}, "issue": {"issue_current_sprint", "issue_priority"}}
# What v13 adds: the web interface's sessions.
V13_TABLES = {"web_session"}
V11_RUN_COLUMNS = [("agent_version", "INTEGER", 0, None, 0), ("checks_enqueued", "INTEGER", 0, None, 0)]
# What v15 adds: the writes' and the create screens' tables, columns at the end of ``issue``,
# ``command`` and ``token``, and the partial index of the commands' serial keys.
V15_TABLES = {"write", "create_meta"}
V15_COLUMNS = {"issue": [("transitions", "TEXT", 0, None, 0), ("edit_fields", "TEXT", 0, None, 0)],
               "command": [("serial_key", "TEXT", 0, None, 0)],
               "token": [("may_write", "INTEGER", 1, "0", 0)]}
V15_INDEXES = {"command": {"command_serial": (
    0, ["serial_key", "id"],
    "CREATE INDEX command_serial ON command (serial_key, id) WHERE serial_key IS NOT NULL")}}


def _with_v11_run(shape: dict) -> dict:
    """A ``sync_run`` as v10 had it, with the columns v11 adds."""
    return {**shape, "columns": [*shape["columns"], *V11_RUN_COLUMNS]}


@pytest.fixture
def fresh(tmp_path: Path) -> dict:
    db = tmp_path / "fresh.sqlite"
    migrate(db, tmp_path / "backups")
    return describe(db)


def _without_v15(table: str, shape: dict) -> dict:
    """A table as v14 had it: without the columns and indexes v15 adds to it."""
    added = len(V15_COLUMNS.get(table, ()))
    return {**shape, "columns": shape["columns"][:len(shape["columns"]) - added],
            "indexes": {name: index for name, index in shape["indexes"].items()
                        if name not in V15_INDEXES.get(table, {})}}


@pytest.fixture
def before_v15(fresh: dict) -> dict:
    """A new database's schema without what v15 adds: the v14 schema the tests of each older
    version compare with."""
    return {table: _without_v15(table, shape) if isinstance(shape, dict) and "indexes" in shape else shape
            for table, shape in fresh.items() if table not in V15_TABLES}


@pytest.fixture
def kept(before_v15: dict) -> dict:
    """The v14 schema without the indexes v12 adds to older tables: what the tests of each
    version before v12 compare with."""
    return {table: {**shape, "indexes": {name: index for name, index in shape["indexes"].items()
                                         if name not in V12_INDEXES.get(table, ())}}
            if isinstance(shape, dict) and "indexes" in shape else shape
            for table, shape in before_v15.items()}


@pytest.mark.parametrize("version", [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14])
def test_new_and_migrated_databases_have_the_same_schema(tmp_path: Path, fresh: dict, version: int):
    db = make_db(tmp_path / f"v{version}.sqlite", version)
    migrate(db, tmp_path / "backups")
    assert describe(db) == fresh


def test_schema_of_v5_is_kept_exactly(tmp_path: Path, kept: dict):
    """v6 is v5 plus two tables: every v5 table, column and index is as v5.sql has it
    (save the two columns v7 adds)."""
    v5 = describe(make_db(tmp_path / "v5.sqlite", 5, rows=False))
    assert set(kept) - set(v5) == {"issue_attachment", "attachment_file", "token", *SEARCH, *V10_TABLES,
                                    *V11_TABLES, *V12_TABLES, *V13_TABLES}
    for table, shape in v5.items():
        if table in ("command", "sync_run", "issue", "agent_status"):
            assert kept[table]["columns"][:len(shape["columns"])] == shape["columns"], table
        else:
            assert kept[table] == shape, table


def test_schema_of_v6_is_kept_exactly(tmp_path: Path, kept: dict):
    """v7 is v6 plus the token table and two columns: the rest is as v6.sql has it
    (save what v8 and v9 add)."""
    v6 = describe(make_db(tmp_path / "v6.sqlite", 6, rows=False))
    assert set(kept) - set(v6) == {"token", *SEARCH, *V10_TABLES, *V11_TABLES, *V12_TABLES, *V13_TABLES}
    widened = {"command": ["token_id"], "sync_run": ["neighbors_due", *(c[0] for c in V11_RUN_COLUMNS)],
               "issue": ["jira_updated_at", *(c[0] for c in V10_ISSUE_COLUMNS + V11_ISSUE_COLUMNS)],
               "agent_status": ["token_id"]}
    for table, shape in v6.items():
        if table in widened:
            assert kept[table]["columns"][:len(shape["columns"])] == shape["columns"], table
            assert [c[0] for c in kept[table]["columns"][len(shape["columns"]):]] == widened[table]
        else:
            assert kept[table] == shape, table


def test_schema_of_v7_is_kept_exactly(tmp_path: Path, kept: dict):
    """v8 is v7 plus the full-text index and ``issue.jira_updated_at`` (indexed)
    (save what v9 adds to ``agent_status`` and v10 to ``issue``)."""
    v7 = describe(make_db(tmp_path / "v7.sqlite", 7, rows=False))
    assert set(kept) - set(v7) == {*SEARCH, *V10_TABLES, *V11_TABLES, *V12_TABLES, *V13_TABLES}
    for table, shape in v7.items():
        if table == "agent_status":
            assert kept[table]["columns"][:len(shape["columns"])] == shape["columns"]
        elif table == "issue":
            assert kept[table]["columns"] == [*shape["columns"], ("jira_updated_at", "TEXT", 0, None, 0),
                                               *V10_ISSUE_COLUMNS, *V11_ISSUE_COLUMNS]
            assert kept[table]["indexes"] == {**shape["indexes"],
                                               "issue_jira_updated_at": (0, ["jira_updated_at"]),
                                               **V10_ISSUE_INDEXES, **V11_ISSUE_INDEXES}
        elif table == "sync_run":
            assert kept[table] == _with_v11_run(shape), table
        else:
            assert kept[table] == shape, table


def test_schema_of_v8_is_kept_exactly(tmp_path: Path, kept: dict):
    """v9 is v8 plus ``agent_status.token_id`` and two indexes of ``agent_status``
    (save what v10 adds)."""
    v8 = describe(make_db(tmp_path / "v8.sqlite", 8, rows=False))
    assert set(kept) - set(v8) == V10_TABLES | V11_TABLES | V12_TABLES | V13_TABLES
    for table, shape in v8.items():
        if table in V10_SEARCH:
            continue
        if table == "issue":
            assert kept[table]["columns"] == [*shape["columns"], *V10_ISSUE_COLUMNS, *V11_ISSUE_COLUMNS]
            assert kept[table]["indexes"] == {**shape["indexes"], **V10_ISSUE_INDEXES, **V11_ISSUE_INDEXES}
        elif table == "agent_status":
            assert kept[table]["columns"] == [*shape["columns"], ("token_id", "INTEGER", 0, None, 0)]
            assert kept[table]["indexes"] == {
                **shape["indexes"], "agent_status_token": (0, ["token_id", "last_seen_at"]),
                "agent_status_last_seen": (0, ["last_seen_at"])}
        elif table == "sync_run":
            assert kept[table] == _with_v11_run(shape), table
        else:
            assert kept[table] == shape, table


def test_schema_of_v9_is_kept_exactly(tmp_path: Path, kept: dict):
    """v10 is v9 plus five tables, columns and indexes of ``issue``, and a fifth column of the
    full-text view and table (``other``) (save what v11 adds)."""
    v9 = describe(make_db(tmp_path / "v9.sqlite", 9, rows=False))
    assert set(kept) - set(v9) == V10_TABLES | V11_TABLES | V12_TABLES | V13_TABLES
    for table, shape in v9.items():
        if table == "issue":
            assert kept[table]["columns"] == [*shape["columns"], *V10_ISSUE_COLUMNS, *V11_ISSUE_COLUMNS]
            assert kept[table]["indexes"] == {**shape["indexes"], **V10_ISSUE_INDEXES, **V11_ISSUE_INDEXES}
        elif table in V10_SEARCH:
            assert "other" in str(kept[table]) and "other" not in str(shape), table
        elif table == "sync_run":
            assert kept[table] == _with_v11_run(shape), table
        else:
            assert kept[table] == shape, table


def test_schema_of_v10_is_kept_exactly(tmp_path: Path, kept: dict):
    """v11 is v10 plus the alias table, ``issue.gone_at`` and ``gone_reason``, and a unique index
    of ``issue.id``."""
    v10 = describe(make_db(tmp_path / "v10.sqlite", 10, rows=False))
    assert set(kept) - set(v10) == V11_TABLES | V12_TABLES | V13_TABLES
    for table, shape in v10.items():
        if table == "issue":
            assert kept[table]["columns"] == [*shape["columns"], *V11_ISSUE_COLUMNS]
            assert kept[table]["indexes"] == {**shape["indexes"], **V11_ISSUE_INDEXES}
        elif table == "sync_run":
            assert kept[table] == _with_v11_run(shape), table
        else:
            assert kept[table] == shape, table


def test_schema_of_v11_is_kept_exactly(tmp_path: Path, kept: dict):
    """v12 is v11 plus the saved filters' table: every v11 table, column and index is as
    v11.sql has it."""
    v11 = describe(make_db(tmp_path / "v11.sqlite", 11, rows=False))
    assert set(kept) - set(v11) == V12_TABLES | V13_TABLES
    for table, shape in v11.items():
        assert kept[table] == shape, table


def test_schema_of_v12_is_kept_exactly(tmp_path: Path, before_v15: dict):
    """v13 is v12 plus the web interface's sessions: every v12 table, column and index is as
    v12.sql has it (save what v15 adds)."""
    v12 = describe(make_db(tmp_path / "v12.sqlite", 12, rows=False))
    assert set(before_v15) - set(v12) == V13_TABLES
    for table, shape in v12.items():
        assert before_v15[table] == shape, table


def test_schema_of_v13_is_kept_exactly(tmp_path: Path, before_v15: dict):
    """v14 changes only PostgreSQL's functions: a SQLite hub's v13 schema is v14's."""
    v13 = describe(make_db(tmp_path / "v13.sqlite", 13, rows=False))
    assert v13 == before_v15


def test_schema_of_v14_is_kept_exactly(tmp_path: Path, fresh: dict):
    """v15 is v14 plus the tables ``write`` and ``create_meta``, columns at the end of ``issue``,
    ``command`` and ``token``, and the index ``command_serial``: the rest is as v14.sql has it."""
    v14 = describe(make_db(tmp_path / "v14.sqlite", 14, rows=False))
    assert set(fresh) - set(v14) == V15_TABLES
    for table, shape in v14.items():
        if table in V15_COLUMNS:
            assert fresh[table]["columns"] == [*shape["columns"], *V15_COLUMNS[table]], table
            assert fresh[table]["indexes"] == {**shape["indexes"], **V15_INDEXES.get(table, {})}, table
            assert _without_v15(table, fresh[table]) == shape, table
        else:
            assert fresh[table] == shape, table
