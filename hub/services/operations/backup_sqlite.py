"""Backups of a SQLite hub (``hub backup``) and restoring one (``hub restore``):
the data dir's ``hub.sqlite`` and its files (:class:`hub.services.operations.backup.Backups`).

Why the database is consistent while the hub serves: ``hub.sqlite`` is copied
with SQLite's online backup API in one step, i.e. inside one read transaction:
in WAL mode writers go on meanwhile, and the copy is the database as of the
moment that transaction began. The files are then taken by the names that copy
holds, as :mod:`hub.services.operations.backup` says.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from pathlib import Path

from hub import __version__
from hub.clock import Clock, iso
from hub.datadir import ensure_private_dir, fsync
from hub.services.operations.backup import (
    DATABASES,
    FORMAT,
    MANIFEST,
    NAMED_FILES,
    STAGING,
    Backups,
    UnsafePath,
    WrongEngine,
    check_empty,
    claim_empty_dir,
    copy_private,
    create_private,
    digest,
    discard,
    read_manifest,
    refuse_symlink,
    stage_files,
    take_files,
    within,
    write_private,
)
from hub.services.operations.backup_store import (
    FILES,
    BackupError,
    BackupReport,
    Store,
    files_into_store,
    list_in_store,
    local_root,
)

DATABASE = DATABASES["sqlite"]


def backup(data_dir: Path, dest: Path, *, clock: Clock, copy: bool = False,
           store: Store | None = None, store_url: str | None = None) -> BackupReport:
    """Back up the hub in ``data_dir`` into ``dest``, which must be missing or empty;
    ``clock`` dates the manifest. Its files are those of ``files/`` in ``data_dir``, or
    of the object store ``store`` (named ``store_url`` in the manifest), listed only.

    Files are hard-linked into the backup when ``dest`` is on the data dir's
    filesystem (unless ``copy``), copied otherwise. On failure, what was written
    into ``dest`` is removed. A ``dest`` that is a symbolic link, or that lies
    inside the data dir (its ``files/`` included), is refused before anything is
    written. Raises UnsafePath, NotEmpty, BackupError.
    """
    what = "the backup's destination"
    refuse_symlink(dest, what)
    if within(dest, data_dir):
        raise UnsafePath(f"{what} {dest} is inside the data dir {data_dir}: a backup there would be "
                         "lost with the hub and mixed with its files; nothing was written. "
                         "Back up to another directory, better another disk")
    created = claim_empty_dir(dest, what)
    try:
        return _backup(data_dir, dest, copy, clock, store, store_url)
    except OSError as exc:  # a full disk, a file the user may not read, ...
        discard(dest, created)
        raise BackupError(f"could not back up {data_dir} into {dest}: {exc}; nothing was kept there") from exc
    except BaseException:
        discard(dest, created)
        raise


def _backup(data_dir: Path, dest: Path, copy: bool, clock: Clock, store: Store | None,
            store_url: str | None) -> BackupReport:
    source = data_dir / DATABASE
    target = dest / DATABASE
    created_at = iso(clock.now())
    try:
        names = _snapshot(source, target)
        schema_version = _schema_version(target)
    except sqlite3.Error as exc:
        raise BackupError(f"could not copy {source}: {exc}; nothing was kept in {dest}") from exc
    report = BackupReport(dest, schema_version, target.stat().st_size)
    if store is None:
        entries = take_files(data_dir / FILES, names, dest / FILES, copy, report)
    else:
        entries = list_in_store(store, names, report)
    manifest = {
        "format": FORMAT,
        "engine": "sqlite",
        "hub_version": __version__,
        "schema_version": schema_version,
        "created_at": created_at,
        "source": str(data_dir.resolve()),
        "database": {"path": DATABASE, "sha256": _sha256(target), "size": report.database_bytes},
        "files": entries,
        # Named by the snapshot but gone from the store (cleanup) or not matching
        # their name: restored hubs show these attachments as state "none".
        "missing": sorted(report.missing + report.corrupt),
    }
    if store is not None:
        manifest.update(files_in="store", store=store_url)
    # The manifest is written last: a directory without one is not a backup.
    write_private(dest / MANIFEST, json.dumps(manifest, indent=1).encode() + b"\n")
    fsync(dest)
    return report


def _snapshot(source: Path, target: Path) -> list[str]:
    """Copy ``source`` to ``target`` as of one moment; the file names that moment holds."""
    if not source.is_file():
        raise BackupError(f"no hub database at {source}")
    src = sqlite3.connect(f"{source.resolve().as_uri()}?mode=ro", uri=True, timeout=60)
    create_private(target)
    dst = sqlite3.connect(target)
    try:
        # pages=-1: the whole database in one step, so in one read transaction of
        # the source; in steps, every write by the hub would restart the copy.
        src.backup(dst, pages=-1)
        # One self-contained file, whatever the source's journal mode; the hub
        # turns WAL on again when it opens the restored database.
        dst.execute("PRAGMA journal_mode = DELETE")
        check = dst.execute("PRAGMA integrity_check").fetchall()
        if check != [("ok",)]:
            raise BackupError(f"the copy of {source} fails SQLite's integrity check: "
                              f"{'; '.join(row[0] for row in check[:5])}")
        has_files = dst.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'attachment_file'").fetchone()
        has_writes = dst.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'write'").fetchone()
        names = [row[0] for row in dst.execute(
            NAMED_FILES if has_writes else "SELECT DISTINCT file FROM attachment_file ORDER BY file")
                 ] if has_files else []
    finally:
        dst.close()
        src.close()
    fsync(target)
    return names


def _schema_version(db: Path) -> int:
    conn = sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True)
    try:
        row = conn.execute("SELECT value FROM setting WHERE key = 'schema_version'").fetchone()
    except sqlite3.Error:
        row = None
    finally:
        conn.close()
    if row is None or not str(row[0]).isdigit():
        raise BackupError(f"{db} holds no schema version: not a hub database")
    return int(row[0])


def restore(src: Path, data_dir: Path, store: Store | None = None) -> BackupReport:
    """Restore the backup in ``src`` into ``data_dir``, which must be missing or empty.

    Everything is copied into a staging directory and checked against the
    manifest (sha256 of the database and of every file, SQLite's integrity
    check) before it is moved into place; on any failure the data dir is left
    as it was found. A staging directory (``.restoring``) that is a symbolic
    link, or a backup inside the data dir (or a data dir inside the backup), is
    refused before anything is touched. With an object store (``store``), the
    files go there (:func:`files_into_store`) instead of ``files/``.
    Raises UnsafePath, NotEmpty, BackupError.
    """
    what = "the data dir to restore into (HUB_DATA_DIR)"
    if within(src, data_dir) or within(data_dir, src):
        raise UnsafePath(f"the backup {src} and {what} {data_dir} overlap (one is inside the other); "
                         "nothing was touched. Restore from a backup kept outside the data dir")
    leftover = data_dir / STAGING
    # Restore removes a leftover staging dir and writes into a new one: through
    # a link either would reach whatever the link names.
    refuse_symlink(leftover, "restore's staging directory")
    if leftover.is_dir() and [p.name for p in data_dir.iterdir()] == [STAGING]:
        shutil.rmtree(leftover)  # a restore killed midway: it had put nothing in place
    check_empty(data_dir, what)
    manifest = read_manifest(src)
    if manifest.get("engine", "sqlite") != "sqlite":
        raise WrongEngine(f"{src} is a backup of a PostgreSQL hub: restore it with HUB_DATABASE_URL "
                          "naming an empty database; nothing was touched")
    created = claim_empty_dir(data_dir, what)
    staging = data_dir / STAGING
    try:
        ensure_private_dir(staging)
        report = _stage(src, staging, manifest, store)
        os.replace(staging / DATABASE, data_dir / DATABASE)
        os.replace(staging / FILES, data_dir / FILES)
        staging.rmdir()
        ensure_private_dir(data_dir / "backups")
        fsync(data_dir)
    except OSError as exc:
        discard(data_dir, created)
        raise BackupError(f"could not restore {src} into {data_dir}: {exc}; nothing was restored") from exc
    except BaseException:
        discard(data_dir, created)
        raise
    report.path = data_dir
    return report


def _stage(src: Path, staging: Path, manifest: dict, store: Store | None) -> BackupReport:
    database = manifest["database"]
    size, actual = copy_private(src / DATABASE, staging / DATABASE, missing=f"{src / DATABASE} is missing")
    if actual != database["sha256"]:
        raise BackupError(f"{src / DATABASE} does not match the manifest (sha256 {actual}, "
                          f"the manifest says {database['sha256']}); nothing was restored")
    conn = sqlite3.connect(staging / DATABASE)
    try:
        check = conn.execute("PRAGMA integrity_check").fetchall()
    except sqlite3.Error as exc:
        check = [(str(exc),)]
    finally:
        conn.close()
    if check != [("ok",)]:
        raise BackupError(f"{src / DATABASE} fails SQLite's integrity check; nothing was restored")
    report = BackupReport(staging, manifest["schema_version"], size,
                          missing=list(manifest.get("missing") or []))
    in_backup = manifest.get("files_in", "backup") == "backup"
    if store is not None:
        ensure_private_dir(staging / FILES)
        files_into_store(src, store, manifest["files"], report, in_backup)
    elif in_backup:
        stage_files(src, staging / FILES, manifest["files"], report)
    else:
        # The files were left in an object store: files/ here cannot have them.
        ensure_private_dir(staging / FILES)
        report.missing += [entry["sha256"] for entry in manifest["files"]]
    return report


def _sha256(path: Path) -> str:
    return digest(path)[1]


class SqliteBackups(Backups):
    """``hub backup`` / ``hub restore`` of a SQLite hub: its data dir, as above; ``store``
    is the hub's file store (an object store's files are listed, not copied), named
    ``store_url`` in the manifest."""

    def __init__(self, data_dir: Path, clock: Clock, store: Store, store_url: str | None = None):
        self.data_dir, self.clock, self.store_url = data_dir, clock, store_url
        # files/ is the default the functions above read; only an object store is passed on.
        self.store = store if store is not None and local_root(store) is None else None

    def backup(self, dest: Path, *, copy: bool = False) -> BackupReport:
        """Back up the data dir into ``dest`` (:func:`backup`)."""
        return backup(self.data_dir, dest, copy=copy, clock=self.clock, store=self.store,
                      store_url=self.store_url)

    def restore(self, src: Path) -> BackupReport:
        """Restore ``src`` into the (empty) data dir (:func:`restore`)."""
        return restore(src, self.data_dir, self.store)
