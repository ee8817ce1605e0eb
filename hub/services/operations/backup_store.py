"""What a backup, a restore and a move ask of the hub's file store, whichever it is.

``files/`` in the data dir (the local store of :mod:`hub.services.files.store`) is read
as a directory: its files are hard-linked or copied. An object store (``HUB_STORE_URL``)
is asked through the store's own interface (``size``, ``receive``): a backup lists
its files, a restore checks it has them (uploading those a backup holds).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from hub.errors import HubError
from hub.services.files.store import is_sha256

FILES = "files"


class BackupError(HubError):
    """A backup could not be made or restored; the message says what was left."""

    title = "Backup failed"


@dataclass
class BackupReport:
    """What a backup holds (``hub backup`` prints it) or what was restored."""

    path: Path | str  # a directory, or the database restored into (PostgreSQL)
    schema_version: int
    database_bytes: int
    files: int = 0
    files_bytes: int = 0
    linked: int = 0
    missing: list[str] = field(default_factory=list)
    corrupt: list[str] = field(default_factory=list)
    # The files stay in the object store (HUB_STORE_URL): listed in the manifest, not copied.
    in_store: bool = False


class Store(Protocol):
    """What backups, restores and moves ask of a file store (:mod:`hub.services.files.store`)."""

    def size(self, sha256: str) -> int | None: ...

    def receive(self, stream, *, length: int | None, max_bytes: int,
                expected_sha256: str | None = None) -> tuple[str, int]: ...


def local_root(store: Store) -> Path | None:
    """The directory of a store kept in the data dir's ``files/`` (its files are
    linked and copied as files), or None for an object store."""
    root = getattr(store, "root", None)
    return root if isinstance(root, Path) else None


def list_in_store(store: Store, names: list[str], report: BackupReport) -> list[dict]:
    """The object store's files among ``names``, as manifest entries; the rest go to
    ``report.missing``. The files stay in the store (its own versions keep them)."""
    report.in_store = True
    entries = []
    for name in names:
        size = store.size(name) if is_sha256(name) else None
        if size is None:
            report.missing.append(name)
            continue
        entries.append({"sha256": name, "size": size})
        report.files += 1
        report.files_bytes += size
    return entries


def files_into_store(src: Path, store: Store, entries: list[dict], report: BackupReport,
                     in_backup: bool) -> None:
    """Check that the object store holds the manifest's files; upload those the backup
    holds and it lacks (checked against their sha256 as they go). A file neither
    has goes to ``report.missing``; a file of the backup that is gone or damaged
    raises BackupError."""
    report.in_store = True
    for entry in entries:
        name, size = entry["sha256"], entry["size"]
        if store.size(name) != size:
            if not in_backup:
                report.missing.append(name)
                continue
            path = src / FILES / name
            try:
                with open(path, "rb") as stream:
                    store.receive(stream, length=size, max_bytes=size, expected_sha256=name)
            except FileNotFoundError:
                raise BackupError(f"{path} is missing; nothing was restored") from None
            except HubError as exc:
                raise BackupError(f"{path} is damaged ({exc}); nothing was restored") from exc
        report.files += 1
        report.files_bytes += size
