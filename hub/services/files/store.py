"""The file store: attachment contents named by their sha256.

:class:`FileStore` is what the services call; two stores implement it, chosen
once by the builder (``hub/assembly.py``) from ``HUB_STORE_URL``:

- :class:`LocalFileStore` (the default): ``files/`` in the data dir. An upload
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
import hashlib
import os
import queue
import re
import threading
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from hub.datadir import ensure_private_dir, fsync, new_private_file
from hub.errors import BadRequest, ContractError, TooLarge

CHUNK = 4 * 1024 * 1024  # large reads and writes: fewer hand-offs to the hashing thread
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


class LocalFileStore(FileStore):
    """``files/`` in the data dir: ``files/<sha256>``, uploads in ``files/.tmp/``."""

    def __init__(self, root: Path):
        self.root = root
        self.tmp = root / ".tmp"
        self.where = str(root)

    def path(self, sha256: str) -> Path:
        """Where a file lives; only a well-formed sha256 names one."""
        if not is_sha256(sha256):
            raise ValueError(f"not a sha256: {sha256!r}")
        return self.root / sha256

    def size(self, sha256: str) -> int | None:
        try:
            return self.path(sha256).stat().st_size
        except (FileNotFoundError, ValueError):
            return None

    def open(self, sha256: str) -> BinaryIO:
        try:
            return open(self.path(sha256), "rb")
        except ValueError:
            raise FileNotFoundError(sha256) from None

    def receive(self, stream: BinaryIO, *, length: int | None, max_bytes: int,
                expected_sha256: str | None = None) -> tuple[str, int]:
        """Store what ``stream`` holds; returns ``(sha256, size)``.

        Raises TooLarge past ``max_bytes``, BadRequest when fewer bytes than
        ``length`` arrive, ContractError when the content's sha256 is not
        ``expected_sha256``. On any failure nothing is left behind.
        """
        if length is not None and length > max_bytes:
            raise TooLarge(f"the file is {length} bytes; this hub takes at most {max_bytes} "
                           "(HUB_MAX_UPLOAD_BYTES)")
        ensure_private_dir(self.root)
        ensure_private_dir(self.tmp)
        # The writer's pid in the name lets a later start tell a leftover from
        # an upload that another live process (a second `hub serve`) still writes.
        partial = self.tmp / f"{os.getpid()}-{uuid.uuid4().hex}.part"
        hasher, size = Hasher(), 0
        try:
            with new_private_file(partial, buffering=0) as out:
                while True:
                    chunk = stream.read(CHUNK)
                    if not chunk:
                        break
                    size += len(chunk)
                    if size > max_bytes:
                        raise TooLarge(f"the file is over {max_bytes} bytes (HUB_MAX_UPLOAD_BYTES)")
                    hasher.update(chunk)
                    out.write(chunk)
                sha256 = hasher.hexdigest()
                if length is not None and size != length:
                    raise BadRequest(f"the upload ended after {size} of {length} bytes")
                if expected_sha256 is not None and expected_sha256.lower() != sha256:
                    raise ContractError(
                        f"the content's sha256 is {sha256}, not {expected_sha256} as "
                        "X-Content-SHA256 says; nothing was stored", "X-Content-SHA256")
                os.fsync(out.fileno())
            final = self.root / sha256
            if final.exists():
                # Same content stored already: keep that file, and mark it fresh
                # so that cleanup does not take it before the done names it.
                os.utime(final)
                partial.unlink()
            else:
                os.replace(partial, final)
                fsync(self.root)
        except BaseException:
            hasher.close()
            partial.unlink(missing_ok=True)
            raise
        return sha256, size

    def check(self) -> None:
        """Nothing to reach: the data dir was prepared before the store was opened."""

    def close(self) -> None:
        """Nothing to close: files on a disk are opened by each call."""

    def files(self) -> list[StoredFile]:
        return [StoredFile(path.name, st.st_size, st.st_mtime, path)
                for path in _entries(self.root) if is_sha256(path.name) for st in [path.stat()]]

    def uploads(self) -> list[StoredFile]:
        return [StoredFile(path.name, st.st_size, st.st_mtime, path)
                for path in _entries(self.tmp) for st in [path.stat()]]

    def remove(self, entry: StoredFile) -> None:
        # A download in flight keeps reading: the open file outlives its name.
        path = entry.ref if isinstance(entry.ref, Path) else self.root / entry.name
        path.unlink(missing_ok=True)

    def usage(self) -> dict:
        """Files in the store and their bytes (leftover uploads not counted)."""
        files = size = 0
        try:
            entries = os.scandir(self.root)
        except FileNotFoundError:
            return {"files": 0, "bytes": 0}
        with entries:
            for entry in entries:
                if entry.is_file(follow_symlinks=False) and not entry.name.startswith("."):
                    files += 1
                    size += entry.stat(follow_symlinks=False).st_size
        return {"files": files, "bytes": size}

    def remove_leftovers(self) -> list[str]:
        """Remove upload parts that no live process writes; the paths removed.

        Call at start, before serving: a part named with this process's own pid
        is a leftover too (a restarted container's hub often gets the same pid).
        Names without a pid (older hubs) are leftovers as well. A part of a live
        process is kept; the periodic cleanup takes it after an hour if it stays.
        """
        return [str(path) for path in remove_dead_parts(self.tmp)]


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


def _entries(directory: Path) -> list[Path]:
    try:
        return [p for p in directory.iterdir() if p.is_file()]
    except FileNotFoundError:
        return []


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


class Hasher:
    """sha256 computed on a thread of its own, beside the writes.

    hashlib and file writes both release the GIL on large buffers, so hashing
    a chunk while the next one is written takes the hash off the upload's
    critical path. At most a few chunks wait in between.
    """

    def __init__(self) -> None:
        self._digest = hashlib.sha256()
        self._chunks: queue.Queue[bytes | None] = queue.Queue(maxsize=2)
        self._thread = threading.Thread(target=self._run, name="sha256", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while (chunk := self._chunks.get()) is not None:
            self._digest.update(chunk)

    def update(self, chunk: bytes) -> None:
        self._chunks.put(chunk)

    def hexdigest(self) -> str:
        self.close()
        return self._digest.hexdigest()

    def close(self) -> None:
        if self._thread.is_alive():
            self._chunks.put(None)
            self._thread.join()
