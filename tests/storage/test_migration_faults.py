"""A migration that fails or is killed midway leaves the database as it was."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from hub.migrations import CURRENT_VERSION, MigrationError, migrate
from hub.migrations.step import Step
from hub.migrations.steps import STEPS
from tests.support.dbfactory import dump, make_db, schema_version

ROOT = Path(__file__).resolve().parents[2]


def failing_last_step() -> tuple[Step, ...]:
    last = STEPS[-1]

    def apply_then_fail(conn):
        last.apply(conn)
        raise RuntimeError("disk on fire")

    return (*STEPS[:-1], Step(last.version, "v6_broken", apply_then_fail))


@pytest.mark.parametrize("version", [1, 4, 5])
def test_failure_in_the_last_step_leaves_the_old_version_and_its_rows(tmp_path, version):
    db = make_db(tmp_path / "hub.sqlite", version)
    backups = tmp_path / "backups"
    original = dump(db)

    with pytest.raises(MigrationError, match=f"v6_broken: disk on fire.*unchanged at v{version}"):
        migrate(db, backups, steps=failing_last_step())

    assert schema_version(db) == version
    assert dump(db) == original
    assert list(backups.iterdir()) == []

    result = migrate(db, backups)
    assert (result.old_version, result.new_version) == (version, CURRENT_VERSION)
    assert [p.name for p in backups.iterdir()] == [result.backup.name]


def test_database_newer_than_the_hub_is_refused_and_left_alone(tmp_path):
    db = make_db(tmp_path / "hub.sqlite", 5)
    import sqlite3

    conn = sqlite3.connect(db)
    conn.execute("UPDATE setting SET value = ? WHERE key = 'schema_version'", (str(CURRENT_VERSION + 1),))
    conn.commit()
    conn.close()
    original = dump(db)
    with pytest.raises(MigrationError, match=f"version {CURRENT_VERSION + 1}, newer than this hub"):
        migrate(db, tmp_path / "backups")
    assert dump(db) == original


def test_a_file_that_is_not_a_hub_database_is_refused(tmp_path):
    import sqlite3

    db = tmp_path / "other.sqlite"
    conn = sqlite3.connect(db)
    conn.execute("CREATE TABLE notes (x)")
    conn.commit()
    conn.close()
    with pytest.raises(MigrationError, match="not a hub database"):
        migrate(db, tmp_path / "backups")


STALLING_MIGRATION = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from hub.migrations import migrate
    from hub.migrations.step import Step
    from hub.migrations.steps import STEPS

    db, backups, marker = map(Path, sys.argv[1:4])
    last = STEPS[-1]

    def stall(conn):
        last.apply(conn)
        marker.write_text("in the last step")
        time.sleep(120)

    migrate(db, backups, steps=STEPS[:-1] + (Step(last.version, "stalled", stall),))
    """
)


def test_process_killed_in_the_last_step_leaves_the_old_version(tmp_path):
    db = make_db(tmp_path / "hub.sqlite", 1)
    backups = tmp_path / "backups"
    marker = tmp_path / "marker"
    original = dump(db)

    proc = subprocess.Popen(
        [sys.executable, "-c", STALLING_MIGRATION, str(db), str(backups), str(marker)], cwd=ROOT
    )
    try:
        deadline = time.monotonic() + 60
        while not marker.exists():
            assert proc.poll() is None, "the migrating process ended early"
            assert time.monotonic() < deadline, "the migrating process never reached its last step"
            time.sleep(0.02)
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()

    assert schema_version(db) == 1
    assert dump(db) == original
    assert list(backups.glob("*.sqlite")) == []

    result = migrate(db, backups)
    assert (result.old_version, result.new_version) == (1, CURRENT_VERSION)
    assert sorted(p.name for p in backups.iterdir()) == [result.backup.name]
