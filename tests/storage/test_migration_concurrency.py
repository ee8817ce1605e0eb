"""Several processes opening one database at once: one migration, one backup."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from hub.migrations import CURRENT_VERSION
from tests.support import wait_until
from tests.support.dbfactory import make_db, schema_version

ROOT = Path(__file__).resolve().parents[2]
PROCESSES = 6

# Each process waits for the same go signal, then starts the hub's start-up
# path against the same data dir, and reports what it did.
OPEN_HUB = textwrap.dedent(
    """
    import json, os, sys, time
    from pathlib import Path
    from hub import startup
    from hub.config import Config

    data_dir, go = Path(sys.argv[1]), Path(sys.argv[2])
    (go.parent / f"ready-{os.getpid()}").touch()
    while not go.exists():
        time.sleep(0.001)
    result = startup.prepare(Config(data_dir=data_dir))
    print(json.dumps({"old": result.old_version, "new": result.new_version,
                      "backup": str(result.backup) if result.backup else None}))
    """
)


def open_at_once(data_dir: Path, go: Path) -> list[dict]:
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", OPEN_HUB, str(data_dir), str(go)],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        for _ in range(PROCESSES)
    ]
    wait_until(lambda: len(list(go.parent.glob("ready-*"))) == PROCESSES, timeout=60,
               message="every process imported and waiting")
    go.touch()
    outputs = []
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        outputs.append(json.loads(out))
    return outputs


def test_processes_opening_one_v1_database_migrate_it_once(tmp_path):
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    db = make_db(data_dir / "hub.sqlite", 1)
    import sqlite3

    # Enough claimed commands that the migration takes a while under contention.
    conn = sqlite3.connect(db)
    conn.executemany(
        "INSERT INTO command (type, params, status, created_at) VALUES ('refresh', '{}', ?, 'x')",
        [("claimed" if i % 2 else "done",) for i in range(20000)],
    )
    conn.commit()
    conn.close()

    results = open_at_once(data_dir, tmp_path / "go")

    migrated = [r for r in results if r["old"] == 1]
    assert len(migrated) == 1, results
    assert all(r == {"old": CURRENT_VERSION, "new": CURRENT_VERSION, "backup": None} for r in results if r["old"] != 1)
    backups = list((data_dir / "backups").iterdir())
    assert [str(b) for b in backups] == [migrated[0]["backup"]]
    conn = sqlite3.connect(db)
    assert conn.execute(
        "SELECT status, min(deliveries), max(deliveries) FROM command GROUP BY status ORDER BY status"
    ).fetchall() == [("claimed", 1, 1), ("done", 0, 0), ("failed", 0, 0), ("queued", 0, 0)]
    assert schema_version(db) == CURRENT_VERSION


def test_processes_opening_a_new_database_create_it_once(tmp_path):
    data_dir = tmp_path / "data"

    results = open_at_once(data_dir, tmp_path / "go")

    assert sorted(r["old"] for r in results if r["old"] is not None) == [CURRENT_VERSION] * (PROCESSES - 1)
    assert schema_version(data_dir / "hub.sqlite") == CURRENT_VERSION
    assert list((data_dir / "backups").iterdir()) == []
    assert os.stat(data_dir).st_mode & 0o777 == 0o700
