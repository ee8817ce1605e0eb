"""``hub`` as an operator runs it: ``main(argv)`` in-process, and the installed console
script in a subprocess where the process is the point (exit status, usage errors)."""

from __future__ import annotations

import sqlite3

import pytest

from tests.dbfactory import make_db, schema_version
from tests.support import run_hub, run_script


@pytest.mark.parametrize("version", [1, 2, 3, 4, 5])
def test_migrate_prints_old_and_new_version_and_the_backup(tmp_path, version):
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    make_db(data_dir / "hub.sqlite", version)

    first = run_hub("migrate", data_dir=data_dir)

    assert first.returncode == 0, first.stderr
    [backup] = (data_dir / "backups").glob("*.sqlite")
    assert f"schema v{version} → v8; backup {backup}" in first.stdout
    assert schema_version(data_dir / "hub.sqlite") == 8

    again = run_hub("migrate", data_dir=data_dir)
    assert again.returncode == 0
    assert "is at schema v8; nothing to migrate" in again.stdout


def test_migrate_creates_a_new_database(tmp_path):
    result = run_hub("migrate", data_dir=tmp_path / "data")
    assert result.returncode == 0, result.stderr
    assert "at schema v8" in result.stdout
    assert schema_version(tmp_path / "data" / "hub.sqlite") == 8


def test_migrate_refuses_a_newer_database_and_says_why(tmp_path):
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    db = make_db(data_dir / "hub.sqlite", 5)
    conn = sqlite3.connect(db)
    conn.execute("UPDATE setting SET value = '99' WHERE key = 'schema_version'")
    conn.commit()
    conn.close()

    result = run_hub("migrate", data_dir=data_dir)

    assert result.returncode == 1
    assert "newer than this hub" in result.stderr
    assert "Traceback" not in result.stderr


def test_bad_configuration_names_the_variable(tmp_path):
    result = run_script("migrate", data_dir=tmp_path / "data", HUB_PORT="eighty")
    assert result.returncode == 2
    assert "HUB_PORT must be an integer" in result.stderr
    assert not (tmp_path / "data").exists()


def test_unknown_command_is_a_usage_error(tmp_path):
    result = run_script("frobnicate", data_dir=tmp_path / "data")
    assert result.returncode == 2
    assert "invalid choice" in result.stderr


def test_projects_and_scope_make_the_base_jql(tmp_path):
    data_dir = tmp_path / "data"
    assert "base JQL: (none: add a project)" in run_hub("project", "list", data_dir=data_dir).stdout
    added = run_hub("project", "add", "AWPCA", "--name", "АРМ КА", "--board-id", "4216",
                    "--board-type", "scrum", data_dir=data_dir)
    assert added.returncode == 0, added.stderr
    assert 'base JQL: labels in ("AWPCA")' in added.stdout
    assert run_hub("scope", "set", "project = AURORA", data_dir=data_dir).returncode == 0
    run_hub("project", "add", "KPI", "--name", "KPI", data_dir=data_dir)
    listed = run_hub("project", "list", data_dir=data_dir).stdout.splitlines()
    assert listed == ["AWPCA\tАРМ КА\tscrum board 4216", "KPI\tKPI\tno board",
                      'base JQL: project = AURORA AND labels in ("AWPCA", "KPI")']
    duplicate = run_hub("project", "add", "KPI", "--name", "again", data_dir=data_dir)
    assert duplicate.returncode == 1 and "exists" in duplicate.stderr
    half = run_hub("project", "add", "X", "--name", "X", "--board-id", "1", data_dir=data_dir)
    assert half.returncode == 1 and "go together" in half.stderr
    removed = run_hub("project", "remove", "KPI", data_dir=data_dir)
    assert 'base JQL: project = AURORA AND labels in ("AWPCA")' in removed.stdout
    assert run_hub("project", "remove", "KPI", data_dir=data_dir).returncode == 1


@pytest.mark.parametrize("cron", ["*/0 * * * *", "99 99 * * *"])
def test_a_bad_cleanup_cron_stops_serve_before_anything_is_created(tmp_path, cron):
    result = run_hub("serve", "--no-worker", data_dir=tmp_path / "data", HUB_CLEANUP_CRON=cron,
                     HUB_PORT="0")
    assert result.returncode == 2
    assert result.stderr.startswith("hub: configuration: HUB_CLEANUP_CRON")
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr
    assert not (tmp_path / "data").exists()


@pytest.mark.parametrize("command", [("serve", "--no-worker"), ("migrate",)])
def test_a_data_dir_naming_a_file_is_a_configuration_error(tmp_path, command):
    (tmp_path / "data").write_text("a file")
    result = run_hub(*command, data_dir=tmp_path / "data", HUB_PORT="0")
    assert result.returncode == 2
    assert result.stderr.strip() == ("hub: configuration: HUB_DATA_DIR names a file, not a directory: "
                                     f"{str(tmp_path / 'data')!r}")
    under = run_hub(*command, data_dir=tmp_path / "data" / "hub", HUB_PORT="0")
    assert under.returncode == 2 and "HUB_DATA_DIR is under" in under.stderr
    assert "Traceback" not in under.stderr
    assert (tmp_path / "data").read_text() == "a file"
