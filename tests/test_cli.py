"""``hub`` as an operator runs it: the installed console script in a subprocess."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.dbfactory import make_db, schema_version

HUB = shutil.which("hub", path=os.path.dirname(sys.executable)) or "hub"


def run_hub(*args: str, data_dir: Path, **env: str) -> subprocess.CompletedProcess:
    environ = {**os.environ, "HUB_DATA_DIR": str(data_dir), **env}
    return subprocess.run([HUB, *args], env=environ, capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("version", [1, 2, 3, 4, 5])
def test_migrate_prints_old_and_new_version_and_the_backup(tmp_path, version):
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    make_db(data_dir / "hub.sqlite", version)

    first = run_hub("migrate", data_dir=data_dir)

    assert first.returncode == 0, first.stderr
    [backup] = (data_dir / "backups").glob("*.sqlite")
    assert f"schema v{version} → v6; backup {backup}" in first.stdout
    assert schema_version(data_dir / "hub.sqlite") == 6

    again = run_hub("migrate", data_dir=data_dir)
    assert again.returncode == 0
    assert "is at schema v6; nothing to migrate" in again.stdout


def test_migrate_creates_a_new_database(tmp_path):
    result = run_hub("migrate", data_dir=tmp_path / "data")
    assert result.returncode == 0, result.stderr
    assert "at schema v6" in result.stdout
    assert schema_version(tmp_path / "data" / "hub.sqlite") == 6


def test_migrate_refuses_a_newer_database_and_says_why(tmp_path):
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    db = make_db(data_dir / "hub.sqlite", 5)
    conn = sqlite3.connect(db)
    conn.execute("UPDATE setting SET value = '7' WHERE key = 'schema_version'")
    conn.commit()
    conn.close()

    result = run_hub("migrate", data_dir=data_dir)

    assert result.returncode == 1
    assert "newer than this hub" in result.stderr
    assert "Traceback" not in result.stderr


def test_bad_configuration_names_the_variable(tmp_path):
    result = run_hub("migrate", data_dir=tmp_path / "data", HUB_PORT="eighty")
    assert result.returncode == 2
    assert "HUB_PORT must be an integer" in result.stderr
    assert not (tmp_path / "data").exists()


def test_unknown_command_is_a_usage_error(tmp_path):
    result = run_hub("frobnicate", data_dir=tmp_path / "data")
    assert result.returncode == 2
    assert "invalid choice" in result.stderr
