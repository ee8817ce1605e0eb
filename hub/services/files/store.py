"""The file store: attachment contents named by their sha256.

:class:`FileStore` is what the services call; two stores implement it, chosen
once by the builder (``hub/assembly.py``) from ``HUB_STORE_URL``:

- :class:`hub.services.files.store_local.LocalFileStore` (the default): ``files/`` in the data dir. An upload
  is written to ``files/.tmp/`` while its sha256 is computed, fsynced, and only
  then renamed to ``files/<sha256>`` (mode 0600).
- :class:`hub.services.files.store_s3.S3FileStore`: objects ``<prefix>/<sha256>`` in an
  S3 bucket (``s3://bucket/prefix``), see that module.

Either way a file in the store under its name is always whole and verified, two
attachments with the same content share a file, and nothing reads a file whole
into memory.
"""

from __future__ import annotations

import abc
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

SHA256 = re.compile(r"[0-9a-f]{64}\Z")
# An upload in progress: files/.tmp/<pid of the process writing it>-<uuid>.part
PART = re.compile(r"(\d{1,10})-[0-9a-f]{32}\.part\Z")


def is_sha256(value: object) -> bool:
    return isinstance(value, str) and SHA256.match(value) is not None


@dataclass(frozen=True)
class StoredFile:
    """One entry of a store: a file under its name, or an upload in progress.

    ``mtime`` is when it was written (seconds since the epoch); ``ref`` is what
    the store needs to remove it (a path, an object key, an upload id).
    """

    name: str
    size: int
    mtime: float
    ref: object = None


class FileStore(abc.ABC):
    """Where attachment contents live, each named by its sha256."""

    #: Where the store is, as messages and logs name it.
    where: str

    @abc.abstractmethod
    def size(self, sha256: str) -> int | None:
        """The stored file's size, or None when the store does not have it."""

    def present(self, names: Iterable[str]) -> set[str]:
        """Those of ``names`` the store has."""
        return {name for name in names if self.size(name) is not None}

    @abc.abstractmethod
    def receive(self, stream: BinaryIO, *, length: int | None, max_bytes: int,
                expected_sha256: str | None = None) -> tuple[str, int]:
        """Store what ``stream`` holds; returns ``(sha256, size)``.

        Raises TooLarge past ``max_bytes``, BadRequest when fewer bytes than
        ``length`` arrive, ContractError when the content's sha256 is not
        ``expected_sha256``. On any failure nothing appears under a name.
        """

    @abc.abstractmethod
    def open(self, sha256: str) -> BinaryIO:
        """The stored file, open for reading from a local file (seekable, with a
        ``fileno``: what a server's ``wsgi.file_wrapper`` sends without a thread).
        Raises FileNotFoundError when the store does not have it."""

    def reader(self, sha256: str) -> BinaryIO:
        """The stored file as a stream to read once from its start, past any cache:
        for copying the store (backups, moving a hub). FileNotFoundError when missing."""
        return self.open(sha256)

    @abc.abstractmethod
    def files(self) -> list[StoredFile]:
        """Every file stored under its name."""

    @abc.abstractmethod
    def uploads(self) -> list[StoredFile]:
        """Uploads in progress or left behind by a process that died."""

    @abc.abstractmethod
    def remove(self, entry: StoredFile) -> None:
        """Remove a file or an upload that :meth:`files` or :meth:`uploads` listed;
        one already gone is no error."""

    @abc.abstractmethod
    def remove_leftovers(self) -> list[str]:
        """Remove what uploads of this machine's dead processes left; what was removed.

        Called at start, before serving."""

    def usage(self) -> dict:
        """``{files, bytes}``: what the store holds under names."""
        entries = self.files()
        return {"files": len(entries), "bytes": sum(entry.size for entry in entries)}

    @abc.abstractmethod
    def check(self) -> None:
        """Raise :class:`hub.errors.Unavailable` (naming why) when the store cannot be used."""

    @abc.abstractmethod
    def close(self) -> None:
        """Close the connections the store keeps open; a call after this connects anew."""


def remove_dead_parts(tmp: Path) -> list[Path]:
    """Remove the ``<pid>-<uuid>.part`` files in ``tmp`` that no live process writes
    (this process's own pid counts as dead: it is just starting); the paths removed."""
    removed: list[Path] = []
    try:
        entries = list(tmp.iterdir())
    except FileNotFoundError:
        return removed
    for path in entries:
        match = PART.match(path.name)
        if match and int(match.group(1)) != os.getpid() and _alive(int(match.group(1))):
            continue
        try:
            if path.is_file() and not path.is_symlink():
                path.unlink()
                removed.append(path)
        except FileNotFoundError:
            pass
    return removed


def _alive(pid: int) -> bool:
    """Whether a process with this pid exists (perhaps another user's)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OverflowError:
        return False
    return True
