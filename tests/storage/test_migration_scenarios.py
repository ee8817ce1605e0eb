"""Requirement «Схема базы хаба»: one test per Scenario, on real database files."""

from __future__ import annotations

import json
import sqlite3
import threading
from pathlib import Path

import pytest

from hub import startup
from hub.config import Config
from hub.db import open_database
from hub.migrations import CURRENT_VERSION, migrate
from tests.support.dbfactory import (
    COMMENT_CREATED,
    COMMENT_CREATED_UTC,
    NEW_BASE_JQL,
    OLD_BASE_JQL,
    dump,
    make_db,
    schema_version,
    table_rows,
)
from tests.support.hubs import built_services

TABLES = {
    "issue", "issue_link", "issue_comment", "issue_change", "issue_attachment",
    "attachment_file", "issue_note", "batch", "command", "sync_run", "agent_status",
    "setting", "project", "token",
    # the whole issue (v10): sprints, worklogs, Jira's catalogues and users
    "sprint", "issue_sprint", "issue_worklog", "jira_catalogue", "jira_user",
    # moves (v11): the keys issues had before
    "issue_alias",
    # saved filters (v12): JQL kept under a name
    "saved_filter",
    # the web interface's sessions (v13)
    "web_session",
    # writes to Jira and each project's create screens (v15)
    "write", "create_meta",
    # the full-text index (v8) and its shadow tables
    "issue_fts", "issue_fts_data", "issue_fts_idx", "issue_fts_docsize", "issue_fts_config",
}
COMMAND_V6_COLUMNS = ("id, type, params, status, batch_id, agent_id, created_at, claimed_at,"
                      " lease_until, finished_at, result, error, deliveries")
SYNC_RUN_V6_COLUMNS = ("id, command_id, query, status, started_at, finished_at, issues_loaded,"
                       " error, history_at")
INDEXES = {
    "issue_epic_key", "issue_status", "issue_link_target", "issue_note_key", "command_status",
    "issue_change_key_created", "issue_change_field_created", "issue_attachment_key",
    "sync_run_neighbors_due", "sync_run_command", "command_attachment", "issue_jira_updated_at",
    "agent_status_token", "agent_status_last_seen",
    "issue_parent_key", "issue_resolution", "sprint_state", "issue_sprint_sprint", "jira_catalogue_name",
    "jira_user_key", "issue_jira_id", "issue_alias_key", "issue_gone",
    "saved_filter_owner_name", "issue_change_field_key", "issue_current_sprint",
    "issue_priority", "web_session_token", "web_session_expires",
    "command_serial", "write_idempotency", "write_key", "write_command", "write_status",
}


def deployed(config: Config, version: int, **kwargs) -> Path:
    config.data_dir.mkdir(mode=0o700)
    return make_db(config.db_path, version, **kwargs)


def names(path: Path, kind: str) -> set[str]:
    conn = sqlite3.connect(path)
    try:
        rows = conn.execute(
            "SELECT name FROM sqlite_master WHERE type = ? AND name NOT LIKE 'sqlite_%'", (kind,)
        ).fetchall()
    finally:
        conn.close()
    return {name for (name,) in rows}


def query(path: Path, sql: str, *args) -> list[tuple]:
    conn = sqlite3.connect(path)
    try:
        return conn.execute(sql, args).fetchall()
    finally:
        conn.close()


def backups(config: Config) -> list[Path]:
    return sorted(config.backups_dir.glob("*.sqlite"))


def assert_one_backup_of(config: Config, version: int, original: list[str]) -> None:
    [backup] = backups(config)
    assert backup.name.endswith(f"-schema-v{version}.sqlite")
    assert schema_version(backup) == version
    assert dump(backup) == original
    assert backup.stat().st_mode & 0o777 == 0o600


def assert_rows_kept(db: Path, original: Path, tables: list[str]) -> None:
    """Every old row is still there; added columns come after the old ones."""
    for table in tables:
        before = table_rows(original, table)
        after = table_rows(db, table)
        assert [row[: len(before[0])] for row in after] == before, table


def test_first_start(config: Config):
    """Scenario: Первый запуск."""
    assert not config.data_dir.exists()

    result = startup.prepare(config)

    assert result.old_version is None and result.backup is None
    assert config.db_path.is_file()
    assert names(config.db_path, "table") == TABLES
    assert names(config.db_path, "index") == INDEXES
    assert schema_version(config.db_path) == CURRENT_VERSION == 15
    assert query(config.db_path, "PRAGMA journal_mode") == [("wal",)]
    assert config.data_dir.stat().st_mode & 0o777 == 0o700
    assert config.backups_dir.stat().st_mode & 0o777 == 0o700
    assert config.db_path.stat().st_mode & 0o777 == 0o600
    assert backups(config) == []


def test_migrating_a_v1_database(config: Config, tmp_path: Path):
    """Scenario: Миграция базы v1."""
    db = deployed(config, 1)
    original = dump(db)
    copy = make_db(tmp_path / "v1-copy.sqlite", 1)

    result = startup.prepare(config)

    assert (result.old_version, result.new_version) == (1, CURRENT_VERSION)
    assert_one_backup_of(config, 1, original)
    deliveries = dict(query(db, "SELECT status, deliveries FROM command WHERE status IN ('claimed', 'queued')"))
    assert deliveries == {"claimed": 1, "queued": 0}
    assert dict(query(db, "SELECT status, deliveries FROM command WHERE status IN ('done', 'failed')")) == {
        "done": 0, "failed": 0}
    assert query(db, "SELECT count(*) FROM issue_comment") == [(0,)]
    assert_rows_kept(db, copy, ["issue", "issue_link", "issue_note", "batch", "agent_status"])
    # Commands and runs stay, their base JQL rewritten by the v3 -> v4 step.
    assert len(table_rows(db, "command")) == 5 and len(table_rows(db, "sync_run")) == 2
    assert schema_version(db) == CURRENT_VERSION


def test_migrating_a_v2_database(config: Config, tmp_path: Path):
    """Scenario: Миграция базы v2."""
    db = deployed(config, 2)
    original = dump(db)
    copy = make_db(tmp_path / "v2-copy.sqlite", 2)

    result = startup.prepare(config)

    assert (result.old_version, result.new_version) == (2, CURRENT_VERSION)
    assert_one_backup_of(config, 2, original)
    assert query(db, "SELECT count(*) FROM issue_comment") == [(0,)]
    assert_rows_kept(db, copy, ["issue", "issue_link", "issue_note", "batch", "agent_status"])
    assert len(table_rows(db, "command")) == 5 and len(table_rows(db, "sync_run")) == 2
    assert schema_version(db) == CURRENT_VERSION


def test_migrating_a_v3_database(config: Config, tmp_path: Path):
    """Scenario: Миграция базы v3."""
    db = deployed(config, 3)
    original = dump(db)
    copy = make_db(tmp_path / "v3-copy.sqlite", 3)

    startup.prepare(config)

    assert_one_backup_of(config, 3, original)
    assert query(db, "SELECT label, name, board_id, board_type FROM project") == [
        ("AWPCA", "АРМ КА", 4216, None)]
    settings = dict(query(db, "SELECT key, value FROM setting"))
    assert settings["base_jql"] == OLD_BASE_JQL
    assert settings["board_id"] == "4216"
    assert settings["jql_scope"] == "project = AURORA"
    assert {q for (q,) in query(db, "SELECT query FROM sync_run")} == {NEW_BASE_JQL}
    assert_rows_kept(db, copy, ["issue", "issue_note", "batch", "issue_link", "issue_comment"])
    assert query(db, "SELECT DISTINCT project FROM batch") == [(None,)]
    assert schema_version(db) == CURRENT_VERSION


def test_migrating_a_v4_database(config: Config, tmp_path: Path):
    """Scenario: Миграция базы v4."""
    db = deployed(config, 4)
    original = dump(db)

    result = startup.prepare(config)

    assert result.applied == ("v5_changelog", "v6_attachments", "v7_tokens", "v8_search", "v9_agent_tokens",
                              "v10_whole_issue", "v11_moves", "v12_saved_filters",
                              "v13_web_sessions", "v14_parallel_safe", "v15_writes")
    assert_one_backup_of(config, 4, original)
    assert "issue_change" in names(db, "table")
    assert query(db, "SELECT count(*) FROM issue_change") == [(0,)]
    assert query(db, "SELECT created, created_at FROM issue_comment WHERE comment_id = '101'") == [
        (COMMENT_CREATED, COMMENT_CREATED_UTC)]
    assert query(db, "SELECT created_at FROM issue_comment WHERE comment_id IN ('102', '103')") == [
        (None,), (None,)]
    assert query(db, "SELECT DISTINCT history_at FROM sync_run") == [(None,)]
    assert {"issue_attachment", "attachment_file"} <= names(db, "table")
    assert schema_version(db) == CURRENT_VERSION


def test_migrating_a_v5_database(config: Config, tmp_path: Path):
    """Scenario: Миграция базы v5."""
    db = deployed(config, 5)
    original = dump(db)
    untouched = [line for line in original if "schema_version" not in line]
    before = {"command": query(db, f"SELECT {COMMAND_V6_COLUMNS} FROM command ORDER BY id"),
              "sync_run": query(db, f"SELECT {SYNC_RUN_V6_COLUMNS} FROM sync_run ORDER BY id")}

    startup.prepare(config)

    assert_one_backup_of(config, 5, original)
    assert query(db, "SELECT count(*) FROM issue_attachment") == [(0,)]
    assert query(db, "SELECT count(*) FROM attachment_file") == [(0,)]
    # The other tables are untouched, but for what v7 adds: a column of command
    # and of sync_run (their rows keep every old value) and the token table; and
    # what v8 adds: a column of issue and the full-text index; and what v9
    # adds: a column of agent_status and its indexes; and what v10 adds: tables
    # of sprints, worklogs and Jira's catalogues; and what v15 adds: columns of
    # command and issue, and the tables of writes and create screens.
    widened = ("command", "sync_run", "issue", "agent_status")
    untouched = [line for line in untouched if not any(f'"{t}"' in line or f"TABLE {t} " in line
                                                       for t in widened)]
    after = dump(db)
    assert [line for line in after if line in untouched] == untouched
    added = [line for line in after if line not in original]
    assert all(any(name in line for name in ("issue_attachment", "attachment_file", "schema_version",
                                              "token", "neighbors_due", "issue_fts", "issue_search",
                                              # how iterdump writes a virtual table
                                              "writable_schema", "sprint", "issue_worklog",
                                              "jira_catalogue", "jira_user", "issue_alias", "saved_filter",
                                              "web_session", "write", "create_meta",
                                              *widened))
               for line in added), added
    for table, columns in (("command", COMMAND_V6_COLUMNS), ("sync_run", SYNC_RUN_V6_COLUMNS)):
        assert query(db, f"SELECT {columns} FROM {table} ORDER BY id") == before[table]
    assert schema_version(db) == CURRENT_VERSION


def test_refresh_queued_during_migration(config: Config):
    """Scenario: refresh в очереди при миграции."""
    db = deployed(config, 3)
    startup.prepare(config)

    params = {
        status: json.loads(p)
        for status, p in query(db, "SELECT status, params FROM command WHERE id IN (2, 3)")
    }
    assert params["queued"] == {"jql": NEW_BASE_JQL, "note": "nightly"}
    assert params["claimed"] == {"jql": NEW_BASE_JQL}
    # Finished commands and other queries keep their JQL.
    assert [json.loads(p)["jql"] for (p,) in query(db, "SELECT params FROM command WHERE id IN (1, 4, 5)")] == [
        OLD_BASE_JQL, "key = AURORA-12", OLD_BASE_JQL]
    # It counts as a full run: its JQL is the base JQL the hub computes now.
    open_database(db)
    assert built_services(config).projects.base_jql() == params["queued"]["jql"]


def test_two_connections_to_a_v1_database(config: Config):
    """Scenario: Два соединения к базе v1."""
    db = deployed(config, 1)
    start = threading.Barrier(2)
    results, errors = [], []

    def open_hub():
        start.wait()
        try:
            results.append(migrate(db, config.backups_dir))
        except Exception as exc:  # collected, asserted below
            errors.append(exc)

    threads = [threading.Thread(target=open_hub) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert errors == []
    assert sorted(r.old_version for r in results) == [1, CURRENT_VERSION]
    assert [b.name.split("-schema-")[1] for b in backups(config)] == ["v1.sqlite"]
    assert query(db, "SELECT deliveries FROM command WHERE status = 'claimed'") == [(1,)]
    assert schema_version(db) == CURRENT_VERSION


def test_open_data_directory(config: Config):
    """Scenario: Открытый каталог данных."""
    config.data_dir.mkdir(mode=0o755)
    config.data_dir.chmod(0o755)
    config.backups_dir.mkdir(mode=0o755)
    config.backups_dir.chmod(0o755)

    startup.prepare(config)

    assert config.data_dir.stat().st_mode & 0o777 == 0o700
    assert config.backups_dir.stat().st_mode & 0o777 == 0o700


@pytest.mark.parametrize("version", [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14])
def test_each_version_migrates_once(config: Config, version: int):
    deployed(config, version)
    first = startup.prepare(config)
    second = startup.prepare(config)
    assert (first.old_version, first.new_version) == (version, CURRENT_VERSION)
    assert (second.old_version, second.backup) == (CURRENT_VERSION, None)
    assert len(backups(config)) == 1


def test_mode_that_cannot_be_set_is_a_warning_and_the_hub_goes_on(config, monkeypatch, caplog):
    config.data_dir.mkdir(mode=0o755)
    config.data_dir.chmod(0o755)

    def refuse(path, mode):
        raise PermissionError(1, "Operation not permitted", str(path))

    monkeypatch.setattr("hub.datadir.os.chmod", refuse)
    result = startup.prepare(config)

    assert result.new_version == CURRENT_VERSION
    assert f"could not set {config.data_dir} to mode 0700" in caplog.text
    assert config.data_dir.stat().st_mode & 0o777 == 0o755


def test_backup_is_whole_while_a_reader_holds_an_old_snapshot(config, caplog):
    """An open read transaction keeps the WAL from being checkpointed: the backup
    then goes page by page and still holds the last committed rows."""
    db = deployed(config, 4)
    reader = sqlite3.connect(db, isolation_level=None)
    reader.execute("PRAGMA journal_mode = WAL")
    writer = sqlite3.connect(db, isolation_level=None)
    reader.execute("BEGIN")
    reader.execute("SELECT count(*) FROM issue").fetchone()  # snapshot taken here
    writer.execute(
        "INSERT INTO issue (key, id, fetched_at) VALUES ('AURORA-99', '10099', '2026-11-01T00:00:00+00:00')")
    writer.close()
    caplog.set_level("INFO", "hub.migrations")
    try:
        startup.prepare(config)
    finally:
        reader.execute("COMMIT")
        reader.close()
    assert "backing up page by page" in caplog.text
    [backup] = backups(config)
    assert schema_version(backup) == 4
    assert query(backup, "SELECT key FROM issue WHERE key = 'AURORA-99'") == [("AURORA-99",)]
    assert query(backup, "PRAGMA integrity_check") == [("ok",)]
