"""How long ``hub backup`` and ``hub restore`` take, beside copying the same data.

Builds a hub (100k issues with a 1 KB description and 3 comments each, and a file
store of 200 files of 1 MiB, all named by attachment_file rows), then times:
backup with hard links, backup with copies (``--copy``), and restore; next to the
baseline of copying the same database file and files (``shutil.copyfile``, what
``cp`` does) and syncing each to disk, as a backup must, measured in this run (the
copy without sync is printed too). Backup and restore do more than a copy: they
hash every byte and run SQLite's integrity check. Target: each ≤ 3× the baseline.

    python bench/backup.py [--scale 1.0] [--repeat 3] [--dir DIR]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

from hub import startup
from hub.assembly import backups
from hub.config import Config

T = "2026-11-30T03:00:00+00:00"
TARGET = 3.0


def build(data_dir: Path, scale: float) -> int:
    """A hub in ``data_dir``; its size in bytes (database and files)."""
    startup.prepare(Config(data_dir=data_dir))
    n_issues, n_files = int(100_000 * scale), max(1, int(200 * scale))
    conn = sqlite3.connect(data_dir / "hub.sqlite")
    with conn:
        conn.executemany(
            "INSERT INTO issue (key, id, summary, description, fetched_at) VALUES (?, ?, ?, ?, ?)",
            ((f"A-{i}", str(i), f"Summary {i}", "d" * 1024, T) for i in range(n_issues)))
        conn.executemany(
            "INSERT INTO issue_comment (key, comment_id, body, created_at) VALUES (?, ?, ?, ?)",
            ((f"A-{i // 3}", str(i), "comment " * 20, T) for i in range(3 * n_issues)))
        for n in range(n_files):
            content = hashlib.shake_256(n.to_bytes(4, "big")).digest(1024 * 1024)
            sha = hashlib.sha256(content).hexdigest()
            path = data_dir / "files" / sha
            path.write_bytes(content)
            os.chmod(path, 0o600)
            conn.execute("INSERT INTO attachment_file VALUES (?, ?, ?, ?)", (str(n), sha, len(content), T))
    conn.close()
    return sum(p.stat().st_size for p in [data_dir / "hub.sqlite", *(data_dir / "files").iterdir()])


def copy_all(data_dir: Path, dest: Path, sync: bool) -> None:
    (dest / "files").mkdir(parents=True)
    sources = [data_dir / "hub.sqlite", *(p for p in (data_dir / "files").iterdir() if p.is_file())]
    for source in sources:
        target = dest / source.relative_to(data_dir)
        shutil.copyfile(source, target)
        if sync:
            fd = os.open(target, os.O_RDONLY)
            os.fsync(fd)
            os.close(fd)


def timed(work, repeat: int, place: Path) -> float:
    times = []
    for n in range(repeat):
        target = place / f"run-{n}"
        started = time.perf_counter()
        work(target)
        times.append(time.perf_counter() - started)
        shutil.rmtree(target)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--dir", type=Path, help="where to build (default: a temp dir)")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="hub-bench-backup-", dir=args.dir))
    try:
        data_dir = work / "data"
        size = build(data_dir, args.scale)
        kept = work / "kept"
        # As 'hub backup' and 'hub restore' have them built, on a hub's data dir.
        hub = backups(Config(data_dir=data_dir))
        hub.backup(kept, copy=True)
        unsynced = timed(lambda dest: copy_all(data_dir, dest, sync=False), args.repeat, work)
        copy = timed(lambda dest: copy_all(data_dir, dest, sync=True), args.repeat, work)
        figures = {
            "backup (hard links)": timed(lambda dest: hub.backup(dest), args.repeat, work),
            "backup --copy": timed(lambda dest: hub.backup(dest, copy=True), args.repeat, work),
            "restore": timed(lambda dest: backups(Config(data_dir=dest)).restore(kept), args.repeat, work),
        }
        print(f"hub of {size / 1024**2:.0f} MiB (database and files); median of {args.repeat}")
        print(f"{'copy of the same files (no sync)':<34} {unsynced:7.2f} s")
        print(f"{'baseline: the copy, each synced':<34} {copy:7.2f} s")
        worst = 0.0
        for name, seconds in figures.items():
            worst = max(worst, seconds / copy)
            print(f"{name:<34} {seconds:7.2f} s  ratio {seconds / copy:5.2f}  (target <= {TARGET})")
        return 0 if worst <= TARGET else 1
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
