"""Backups of a serving hub (``hub backup``) and restoring one (``hub restore``): the
interface, one per engine, and what both engines' backups share.

A backup is a directory::

    manifest.json   what the backup holds, with checksums, and the engine it is of
    hub.sqlite      the database as of one committed moment (a SQLite hub), or
    hub.dump        pg_dump's archive of it (a PostgreSQL hub)
    files/<sha256>  the attachment files that database names (a local store only)

How each engine takes its database as of one moment while the hub serves is its
own (:mod:`hub.services.operations.backup_sqlite`,
:mod:`hub.services.operations.backup_postgres`); the builder (:mod:`hub.assembly`)
picks one :class:`Backups`. The files are taken alike:

- The file store is content-addressed and a file in it never changes: an upload
  is renamed in whole, under the sha256 of its content. So a file that the
  snapshot names and that is still there afterwards holds exactly what the
  snapshot meant. The files are taken *after* the snapshot, by the names its
  ``attachment_file`` rows and its pending writes' uploads hold (:data:`NAMED_FILES`);
  files that arrived later are not named by it and are left out, as they belong to a
  later moment.
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
from pathlib import Path
from typing import Protocol

from hub.datadir import PRIVATE_DIR_MODE, PRIVATE_FILE_MODE, ensure_private_dir, fsync, new_private_file
from hub.errors import HubError
from hub.migrations import CURRENT_VERSION
from hub.services.files.store import is_sha256
from hub.services.operations.backup_store import FILES, BackupError, BackupReport

MANIFEST = "manifest.json"
# The store's files a snapshot names: attachments' contents, and the uploads of writes still to be
# sent to Jira (an attachment an interface asked to add), which the hub must keep to send them.
NAMED_FILES = ("SELECT file FROM attachment_file UNION "
               "SELECT file FROM write WHERE file IS NOT NULL AND status = 'pending' ORDER BY file")
# What holds the tables in a backup, by the engine of the hub it was taken of.
DATABASES = {"sqlite": "hub.sqlite", "postgresql": "hub.dump"}
FORMAT = 1
CHUNK = 4 * 1024 * 1024
# Where restore stages what it verifies, inside the (empty) data dir.
STAGING = ".restoring"


class Backups(Protocol):
    """``hub backup`` / ``hub restore`` of one engine's hub, as the builder made it."""

    def backup(self, dest: Path, *, copy: bool = False) -> BackupReport:
        """Back up the hub into ``dest``, which must be missing or empty: its files are
        hard-linked when ``dest`` is on their filesystem (unless ``copy``), else copied.
        On failure, what was written into ``dest`` is removed. Raises UnsafePath,
        NotEmpty, BackupError (and ToolMissing on PostgreSQL)."""
        ...  # pragma: no cover

    def restore(self, src: Path) -> BackupReport:
        """Restore the backup in ``src`` into the hub's empty data dir or database, each
        file and the database checked against the manifest first; on any failure the
        place restored into is left as it was found. Raises UnsafePath, NotEmpty,
        WrongEngine, BackupError (and ToolMissing on PostgreSQL)."""
        ...  # pragma: no cover


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


def within(path: Path, other: Path) -> bool:
    """Whether ``path`` is ``other`` or lies inside it, symbolic links resolved
    (a path that does not exist yet resolves as far as it exists)."""
    inner, outer = Path(os.path.realpath(path)), Path(os.path.realpath(other))
    return inner == outer or outer in inner.parents


def refuse_symlink(path: Path, what: str) -> None:
    """Raise UnsafePath when ``path`` is a symbolic link: nothing is written through one."""
    if path.is_symlink():
        raise UnsafePath(f"{what} {path} is a symbolic link (to {os.readlink(path)}); "
                         "nothing was written through it: name a real directory")


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
            size, actual = digest(target)
            if actual != sha256:
                target.unlink()
                raise _Mismatch(sha256)
            return size, True
    size, actual = copy_private(source, target)
    if actual != sha256:
        target.unlink()
        raise _Mismatch(sha256)
    return size, False


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


def stage_files(src: Path, files: Path, entries: list[dict], report: BackupReport) -> None:
    """Copy the backup's files ``entries`` into ``files``, each checked against the
    manifest; raises BackupError at the first that is missing or damaged."""
    ensure_private_dir(files)
    for entry in entries:
        name = entry["sha256"]
        source = src / FILES / name
        size, actual = copy_private(source, files / name, missing=f"{source} is missing")
        if actual != name or size != entry["size"]:
            raise BackupError(f"{source} is damaged: its content's sha256 is {actual} and its size "
                              f"{size} (the manifest says {entry['size']}); nothing was restored")
        report.files += 1
        report.files_bytes += size
    fsync(files)


def check_empty(path: Path, what: str) -> bool:
    """Whether ``path`` exists; raises NotEmpty unless it is missing or an empty directory."""
    if not (path.exists() or path.is_symlink()):
        return False
    if not path.is_dir():
        raise NotEmpty(f"{what} {path} exists and is not a directory")
    if any(path.iterdir()):
        raise NotEmpty(f"{what} {path} is not empty; nothing was written into it")
    return True


def claim_empty_dir(path: Path, what: str) -> bool:
    """Make sure ``path`` is an empty private dir; whether it was created here."""
    try:
        if check_empty(path, what):
            os.chmod(path, PRIVATE_DIR_MODE)
            return False
        path.parent.mkdir(parents=True, exist_ok=True)
        path.mkdir(mode=PRIVATE_DIR_MODE)
    except OSError as exc:
        raise BackupError(f"cannot use {path} as {what}: {exc}") from exc
    return True


def discard(path: Path, created: bool) -> None:
    """Undo a failed backup or restore: remove what it wrote (and ``path`` if it made it)."""
    if created:
        shutil.rmtree(path, ignore_errors=True)
        return
    for child in path.iterdir():
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child, ignore_errors=True)
        else:
            child.unlink(missing_ok=True)


def create_private(path: Path) -> None:
    """Create ``path`` as a new, empty file only its owner may read."""
    new_private_file(path).close()


def write_private(path: Path, data: bytes) -> None:
    """Write ``data`` into a new private file at ``path``, on disk when this returns."""
    with new_private_file(path) as out:
        out.write(data)
        out.flush()
        os.fsync(out.fileno())


def copy_private(source: Path, target: Path, missing: str | None = None) -> tuple[int, str]:
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
    return digest(target)


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


def digest(path: Path) -> tuple[int, str]:
    """(size, sha256) of the file at ``path``."""
    hashed, size = hashlib.sha256(), 0
    with open(path, "rb") as reader:
        while chunk := reader.read(CHUNK):
            hashed.update(chunk)
            size += len(chunk)
    return size, hashed.hexdigest()
