"""How long a migration takes, beside the time of copying the same database file.

Builds a v1 database (100k issues, 300k links, 50k notes, 20k commands) and a
v4 database (300k comments), migrates each to the current version, and prints
the median migration time next to the median time of copying the same file
(``shutil.copyfile``, what ``cp`` does) and syncing the copy to disk, as the
migration's own result is synced (its backup, its commit), both measured in this
run; the copy left in the page cache is printed beside it.
Target: migration ≤ 3× the synced copy.

    python bench/migrate.py [--scale 1.0] [--repeat 3] [--dir DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path

from hub.migrations import CURRENT_VERSION, migrate

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures" / "schema-history"
T = "2026-10-22T10:00:00+00:00"
JIRA_T = "2026-10-22T13:05:11.000+0300"
BASE_JQL = "project = AURORA AND labels = AWPCA"


def build_v1(path: Path, scale: float) -> None:
    n_issues, n_links = int(100_000 * scale), int(300_000 * scale)
    n_notes, n_commands = int(50_000 * scale), int(20_000 * scale)
    conn = _schema(path, 1)
    conn.execute("INSERT INTO setting VALUES ('base_jql', ?), ('board_id', '4216')", (BASE_JQL,))
    conn.executemany(
        "INSERT INTO issue (key, id, issue_type, summary, description, status, priority, assignee,"
        " reporter, epic_key, labels, sprint, jira_updated, fetched_at, created)"
        " VALUES (?, ?, 'Story', ?, ?, 'In Progress', 'Major', 'ivanov', 'petrov', ?,"
        " '[\"AWPCA\"]', 'AURORA Sprint 14', ?, ?, ?)",
        ((f"AURORA-{i}", str(10000 + i), f"Summary of issue {i}", "h1. Goal\n" + "text " * 40,
          f"AURORA-{i // 50}", JIRA_T, T, JIRA_T) for i in range(n_issues)),
    )
    conn.executemany(
        "INSERT INTO issue_link VALUES (?, ?, ?)",
        ((f"AURORA-{i // 3}", f"AURORA-{(i * 7919) % n_issues}", ("Blocks", "Relates", "Cloners")[i % 3])
         for i in range(n_links)),
    )
    conn.executemany(
        "INSERT INTO issue_note (key, author, body, created_at, updated_at) VALUES (?, 'lead', ?, ?, ?)",
        ((f"AURORA-{i}", f"note {i} " * 10, T, T) for i in range(n_notes)),
    )
    statuses = ("done", "done", "done", "failed", "claimed", "queued")
    conn.executemany(
        "INSERT INTO command (type, params, status, created_at) VALUES ('refresh', ?, ?, ?)",
        ((json.dumps({"jql": BASE_JQL if i % 2 else f"key = AURORA-{i}"}), statuses[i % 6], T)
         for i in range(n_commands)),
    )
    conn.executemany(
        "INSERT INTO sync_run (command_id, query, status, started_at, issues_loaded)"
        " VALUES (?, ?, 'done', ?, 100)",
        ((i, BASE_JQL, T) for i in range(1, n_commands, 6)),
    )
    conn.commit()
    conn.close()


def build_v4(path: Path, scale: float) -> None:
    n_comments = int(300_000 * scale)
    conn = _schema(path, 4)
    rng = random.Random(4)
    start = datetime(2024, 1, 1)

    def jira_time() -> str:
        # Spread over two years, as a team's comments are; mostly one offset.
        moment = start + timedelta(seconds=rng.randrange(2 * 365 * 86400))
        offset = "+0300" if rng.random() < 0.9 else rng.choice(["+0000", "-0500", "+0530"])
        return f"{moment:%Y-%m-%dT%H:%M:%S}.{rng.randrange(1000):03d}{offset}"

    conn.executemany(
        "INSERT INTO issue_comment VALUES (?, ?, 'ivanov', ?, ?, ?)",
        ((f"AURORA-{i // 3}", str(100000 + i), created, created, "Looks good, see attached " * 8)
         for i, created in ((i, jira_time()) for i in range(n_comments))),
    )
    conn.commit()
    conn.close()


def _schema(path: Path, version: int) -> sqlite3.Connection:
    conn = sqlite3.connect(path)
    conn.executescript((FIXTURES / f"v{version}.sql").read_text("utf-8"))
    conn.execute("PRAGMA synchronous = OFF")
    return conn


def _checkpoint(path: Path) -> None:
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()


def rewrite_comments(db: Path) -> None:
    """The floor for v4 -> v5 in raw sqlite3: add the column and fill it by copying
    ``created`` as it is, with no conversion, in one transaction."""
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("BEGIN IMMEDIATE")
    conn.execute("ALTER TABLE issue_comment ADD COLUMN created_at TEXT")
    conn.execute("UPDATE issue_comment SET created_at = created WHERE created IS NOT NULL")
    conn.execute("COMMIT")
    conn.close()


def measure(name: str, template: Path, work: Path, repeat: int, floor=None) -> float:
    copies, synced, migrations, floors = [], [], [], []
    for i in range(repeat):
        target = work / f"copy-{i}.sqlite"
        started = time.perf_counter()
        shutil.copyfile(template, target)
        copies.append(time.perf_counter() - started)
        target.unlink()
        # The migration's result is durable (its backup is synced, its commit too): so is this copy.
        started = time.perf_counter()
        shutil.copyfile(template, target)
        with open(target, "rb") as copied:
            os.fsync(copied.fileno())
        synced.append(time.perf_counter() - started)
        target.unlink()

        db = work / f"{name}-{i}.sqlite"
        shutil.copyfile(template, db)
        started = time.perf_counter()
        result = migrate(db, work / f"backups-{name}-{i}")
        migrations.append(time.perf_counter() - started)
        assert result.new_version == CURRENT_VERSION and result.backup is not None

        if floor is not None:
            raw = work / f"raw-{i}.sqlite"
            shutil.copyfile(template, raw)
            started = time.perf_counter()
            floor(raw)
            floors.append(time.perf_counter() - started)
    copy, migration = statistics.median(copies), statistics.median(migrations)
    durable = statistics.median(synced)
    size = template.stat().st_size / 1024**2
    ratio = migration / durable
    print(f"{name:<26} {size:6.1f} MiB  migrate {migration:6.3f} s  synced copy {durable:6.3f} s"
          f"  ratio {ratio:5.2f}x  {'ok' if ratio <= 3 else 'OVER TARGET'} (target <= 3x);"
          f" copy left in the page cache {copy:6.3f} s ({migration / copy:5.2f}x)")
    if floors:
        raw = statistics.median(floors)
        print(f"{'':<26} {'':6}      raw sqlite3 rewrite of the rows, no conversion:"
              f" {raw:6.3f} s = {raw / copy:5.2f}x copy; migration = {migration / raw:4.2f}x that")
    return ratio


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every row count")
    parser.add_argument("--repeat", type=int, default=3, help="runs per figure (median)")
    parser.add_argument("--dir", type=Path, help="where to build the databases (default: a temp dir)")
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="hub-bench-", dir=args.dir))
    try:
        v1, v4 = work / "template-v1.sqlite", work / "template-v4.sqlite"
        build_v1(v1, args.scale)
        build_v4(v4, args.scale)
        for template in (v1, v4):
            _checkpoint(template)
        ratios = [
            measure(f"v1 -> v{CURRENT_VERSION} (100k issues)", v1, work, args.repeat),
            measure(f"v4 -> v{CURRENT_VERSION} (300k comments)", v4, work, args.repeat, floor=rewrite_comments),
        ]
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("all within target" if max(ratios) <= 3 else "some over target (see above)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
