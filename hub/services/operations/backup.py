"""Backups of a serving hub (``hub backup``) and restoring one (``hub restore``).

A backup is a directory::

    manifest.json   what the backup holds, with checksums
    hub.sqlite      the database as of one committed moment
    files/<sha256>  the attachment files that database names

Why it is consistent while the hub serves:

- ``hub.sqlite`` is copied with SQLite's online backup API in one step, i.e.
  inside one read transaction: in WAL mode writers go on meanwhile, and the copy
  is the database as of the moment that transaction began.
- The file store is content-addressed and a file in it never changes: an upload
  is renamed in whole, under the sha256 of its content. So a file that the
  snapshot names and that is still there afterwards holds exactly what the
  snapshot meant. The files are taken *after* the snapshot, by the names its
  ``attachment_file`` rows hold; files that arrived later are not named by it
  and are left out, as they belong to a later moment.
- Cleanup may remove a named file between the snapshot and its copy. Cleanup
  never deletes ``attachment_file`` rows: a row whose file is gone reads as
  state ``none`` (fetch it again). Such a file is listed under ``missing`` in the
  manifest, and the restored hub shows that attachment as ``none``: the same as
  the live hub shows from the cleanup on. A file is hard-linked (the same
  filesystem) or copied; once linked or opened, its removal from the store does
  not affect the backup.

Every file's sha256 is checked against its name while it is taken (a file that
does not match is left out and reported, like a missing one), and again by
``restore`` before anything is put into place.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
from pathlib import Path

from hub import __version__
from hub.clock import Clock, iso
from hub.datadir import PRIVATE_DIR_MODE, PRIVATE_FILE_MODE, ensure_private_dir, fsync, new_private_file
from hub.errors import HubError
from hub.migrations import CURRENT_VERSION
from hub.services.files.store import is_sha256
from hub.services.operations.backup_store import (
    FILES,
    BackupError,
    BackupReport,
    Store,
    files_into_store,
    list_in_store,
    local_root,
)

MANIFEST = "manifest.json"
DATABASE = "hub.sqlite"
# What holds the tables in a backup, by the engine of the hub it was taken of.
DATABASES = {"sqlite": DATABASE, "postgresql": "hub.dump"}
FORMAT = 1
CHUNK = 4 * 1024 * 1024
# Where restore stages what it verifies, inside the (empty) data dir.
STAGING = ".restoring"


class NotEmpty(HubError):
    """The directory to write into holds something already: nothing is overwritten."""

    title = "Not empty"


class UnsafePath(HubError):
    """A path that backup or restore will not write through: a symbolic link where
    it makes its own directory, or a backup inside the data dir it is of (or the
    other way round). Nothing was touched."""

    title = "Unsafe path"


class WrongEngine(HubError):
    """A backup of one engine's hub given to the other engine's restore."""

    title = "Wrong engine"


def _within(path: Path, other: Path) -> bool:
    """Whether ``path`` is ``other`` or lies inside it, symbolic links resolved
    (a path that does not exist yet resolves as far as it exists)."""
    inner, outer = Path(os.path.realpath(path)), Path(os.path.realpath(other))
    return inner == outer or outer in inner.parents


def _refuse_symlink(path: Path, what: str) -> None:
    if path.is_symlink():
        raise UnsafePath(f"{what} {path} is a symbolic link (to {os.readlink(path)}); "
                         "nothing was written through it: name a real directory")


def backup(data_dir: Path, dest: Path, *, copy: bool = False, clock: Clock | None = None,
           store: Store | None = None, store_url: str | None = None) -> BackupReport:
    """Back up the hub in ``data_dir`` into ``dest``, which must be missing or empty.

    Files are hard-linked into the backup when ``dest`` is on the data dir's
    filesystem (unless ``copy``), copied otherwise. On failure, what was written
    into ``dest`` is removed. A ``dest`` that is a symbolic link, or that lies
    inside the data dir (its ``files/`` included), is refused before anything is
    written. Raises UnsafePath, NotEmpty, BackupError.
    """
    what = "the backup's destination"
    _refuse_symlink(dest, what)
    if _within(dest, data_dir):
        raise UnsafePath(f"{what} {dest} is inside the data dir {data_dir}: a backup there would be "
                         "lost with the hub and mixed with its files; nothing was written. "
                         "Back up to another directory, better another disk")
    created = _claim_empty_dir(dest, what)
    try:
        return _backup(data_dir, dest, copy, clock or Clock(), store, store_url)
    except OSError as exc:  # a full disk, a file the user may not read, ...
        _discard(dest, created)
        raise BackupError(f"could not back up {data_dir} into {dest}: {exc}; nothing was kept there") from exc
    except BaseException:
        _discard(dest, created)
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
    _write_private(dest / MANIFEST, json.dumps(manifest, indent=1).encode() + b"\n")
    fsync(dest)
    return report


def take_files(store: Path, names: list[str], files_dest: Path, copy: bool,
               report: BackupReport) -> list[dict]:
    """Link or copy the store's files ``names`` into ``files_dest``, each checked
    against its name; their manifest entries. A file gone from the store goes to
    ``report.missing``, one that does not match its name to ``report.corrupt``."""
    ensure_private_dir(files_dest)
    entries = []
    for name in names:
        if not is_sha256(name):
            report.corrupt.append(name)
            continue
        try:
            size, linked = _take(store / name, files_dest / name, name, copy)
        except FileNotFoundError:
            report.missing.append(name)
            continue
        except _Mismatch:
            report.corrupt.append(name)
            continue
        entries.append({"sha256": name, "size": size})
        report.files += 1
        report.files_bytes += size
        report.linked += linked
    fsync(files_dest)
    return entries


def _snapshot(source: Path, target: Path) -> list[str]:
    """Copy ``source`` to ``target`` as of one moment; the file names that moment holds."""
    if not source.is_file():
        raise BackupError(f"no hub database at {source}")
    src = sqlite3.connect(f"{source.resolve().as_uri()}?mode=ro", uri=True, timeout=60)
    _create_private(target)
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
        names = [row[0] for row in dst.execute(
            "SELECT DISTINCT file FROM attachment_file ORDER BY file")] if has_files else []
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


class _Mismatch(Exception):
    pass


def _take(source: Path, target: Path, sha256: str, copy: bool) -> tuple[int, bool]:
    """Link or copy one store file into the backup, checking its content; (size, linked)."""
    if not copy:
        try:
            os.link(source, target)
        except FileNotFoundError:
            raise
        except OSError:
            pass  # another filesystem, or links not allowed: copy instead
        else:
            if (target.stat().st_mode & 0o777) != PRIVATE_FILE_MODE:
                os.chmod(target, PRIVATE_FILE_MODE)  # the store's file too: it should be 0600 as well
            size, actual = _digest(target)
            if actual != sha256:
                target.unlink()
                raise _Mismatch(sha256)
            return size, True
    size, actual = _copy(source, target)
    if actual != sha256:
        target.unlink()
        raise _Mismatch(sha256)
    return size, False


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
    if _within(src, data_dir) or _within(data_dir, src):
        raise UnsafePath(f"the backup {src} and {what} {data_dir} overlap (one is inside the other); "
                         "nothing was touched. Restore from a backup kept outside the data dir")
    leftover = data_dir / STAGING
    # Restore removes a leftover staging dir and writes into a new one: through
    # a link either would reach whatever the link names.
    _refuse_symlink(leftover, "restore's staging directory")
    if leftover.is_dir() and [p.name for p in data_dir.iterdir()] == [STAGING]:
        shutil.rmtree(leftover)  # a restore killed midway: it had put nothing in place
    _check_empty(data_dir, what)
    manifest = read_manifest(src)
    if manifest.get("engine", "sqlite") != "sqlite":
        raise WrongEngine(f"{src} is a backup of a PostgreSQL hub: restore it with HUB_DATABASE_URL "
                          "naming an empty database; nothing was touched")
    created = _claim_empty_dir(data_dir, what)
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
        _discard(data_dir, created)
        raise BackupError(f"could not restore {src} into {data_dir}: {exc}; nothing was restored") from exc
    except BaseException:
        _discard(data_dir, created)
        raise
    report.path = data_dir
    return report


def read_manifest(src: Path) -> dict:
    """The manifest of the backup in ``src``, checked for shape; raises BackupError."""
    path = src / MANIFEST
    try:
        manifest = json.loads(path.read_bytes())
    except FileNotFoundError:
        raise BackupError(f"{src} is not a backup: it has no {MANIFEST}") from None
    except (OSError, ValueError) as exc:
        raise BackupError(f"cannot read {path}: {exc}") from None
    problem = _manifest_problem(manifest)
    if problem:
        raise BackupError(f"{path} is damaged: {problem}")
    if manifest["schema_version"] > CURRENT_VERSION:
        raise BackupError(
            f"the backup in {src} is at schema v{manifest['schema_version']}, newer than this hub "
            f"knows (v{CURRENT_VERSION}); restore it with a hub of version {manifest['hub_version']} "
            "or newer")
    return manifest


def _manifest_problem(manifest: object) -> str | None:
    if not isinstance(manifest, dict):
        return "not a JSON object"
    if manifest.get("format") != FORMAT:
        return f"format {manifest.get('format')!r}, this hub reads format {FORMAT}"
    version = manifest.get("schema_version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        return "no schema_version"
    engine = manifest.get("engine", "sqlite")  # backups before PostgreSQL hubs name none
    if engine not in DATABASES:
        return f"engine {engine!r}, this hub knows {' and '.join(DATABASES)}"
    database = manifest.get("database")
    if not isinstance(database, dict) or database.get("path") != DATABASES[engine] or not is_sha256(
            database.get("sha256")):
        return "no database entry with a sha256"
    files = manifest.get("files")
    if not isinstance(files, list) or not all(
            isinstance(f, dict) and is_sha256(f.get("sha256")) and isinstance(f.get("size"), int)
            for f in files):
        return "its file list is not a list of {sha256, size}"
    return None


def _stage(src: Path, staging: Path, manifest: dict, store: Store | None) -> BackupReport:
    database = manifest["database"]
    size, actual = _copy(src / DATABASE, staging / DATABASE, missing=f"{src / DATABASE} is missing")
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


def stage_files(src: Path, files: Path, entries: list[dict], report: BackupReport) -> None:
    """Copy the backup's files ``entries`` into ``files``, each checked against the
    manifest; raises BackupError at the first that is missing or damaged."""
    ensure_private_dir(files)
    for entry in entries:
        name = entry["sha256"]
        source = src / FILES / name
        size, actual = _copy(source, files / name, missing=f"{source} is missing")
        if actual != name or size != entry["size"]:
            raise BackupError(f"{source} is damaged: its content's sha256 is {actual} and its size "
                              f"{size} (the manifest says {entry['size']}); nothing was restored")
        report.files += 1
        report.files_bytes += size
    fsync(files)


def _check_empty(path: Path, what: str) -> bool:
    """Whether ``path`` exists; raises NotEmpty unless it is missing or an empty directory."""
    if not (path.exists() or path.is_symlink()):
        return False
    if not path.is_dir():
        raise NotEmpty(f"{what} {path} exists and is not a directory")
    if any(path.iterdir()):
        raise NotEmpty(f"{what} {path} is not empty; nothing was written into it")
    return True


def _claim_empty_dir(path: Path, what: str) -> bool:
    """Make sure ``path`` is an empty private dir; whether it was created here."""
    try:
        if _check_empty(path, what):
            os.chmod(path, PRIVATE_DIR_MODE)
            return False
        path.parent.mkdir(parents=True, exist_ok=True)
        path.mkdir(mode=PRIVATE_DIR_MODE)
    except OSError as exc:
        raise BackupError(f"cannot use {path} as {what}: {exc}") from exc
    return True


def _discard(path: Path, created: bool) -> None:
    """Undo a failed backup or restore: remove what it wrote (and ``path`` if it made it)."""
    if created:
        shutil.rmtree(path, ignore_errors=True)
        return
    for child in path.iterdir():
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child, ignore_errors=True)
        else:
            child.unlink(missing_ok=True)


def _create_private(path: Path) -> None:
    new_private_file(path).close()


def _write_private(path: Path, data: bytes) -> None:
    with new_private_file(path) as out:
        out.write(data)
        out.flush()
        os.fsync(out.fileno())


def _copy(source: Path, target: Path, missing: str | None = None) -> tuple[int, str]:
    """Copy ``source`` to a new private ``target`` and fsync it; (size, sha256 of the copy).

    The kernel copies (``copy_file_range``, which may share blocks, else
    ``sendfile``); the copy is then read back and hashed, so the sha256 is that of
    what landed in ``target``, not of what was meant to.
    """
    try:
        reader = open(source, "rb")  # noqa: SIM115 -- closed by the `with` below; this try is the open's alone
    except FileNotFoundError:
        if missing is None:
            raise
        raise BackupError(f"{missing}; nothing was restored") from None
    with reader, new_private_file(target) as out:
        _kernel_copy(reader.fileno(), out.fileno())
        os.fsync(out.fileno())
    return _digest(target)


def _kernel_copy(src: int, dst: int) -> None:
    copy = getattr(os, "copy_file_range", None)
    while True:
        try:
            done = copy(src, dst, CHUNK) if copy else os.sendfile(dst, src, None, CHUNK)
        except OSError:
            if copy is None:
                raise
            copy = None  # e.g. across filesystems on older kernels: sendfile does it
            continue
        if not done:
            return


def _digest(path: Path) -> tuple[int, str]:
    digest, size = hashlib.sha256(), 0
    with open(path, "rb") as reader:
        while chunk := reader.read(CHUNK):
            digest.update(chunk)
            size += len(chunk)
    return size, digest.hexdigest()


def _sha256(path: Path) -> str:
    return _digest(path)[1]


class SqliteBackups:
    """``hub backup`` / ``hub restore`` of a SQLite hub: its data dir, as above."""

    def __init__(self, data_dir: Path, clock: Clock | None = None, store: Store | None = None,
                 store_url: str | None = None):
        self.data_dir, self.clock, self.store_url = data_dir, clock, store_url
        # files/ is the default the functions above read; only an object store is passed on.
        self.store = store if store is not None and local_root(store) is None else None

    def backup(self, dest: Path, *, copy: bool = False) -> BackupReport:
        return backup(self.data_dir, dest, copy=copy, clock=self.clock, store=self.store,
                      store_url=self.store_url)

    def restore(self, src: Path) -> BackupReport:
        return restore(src, self.data_dir, self.store)
