"""The local file store: ``files/`` in the data dir (the default ``HUB_STORE_URL``).

An upload is written to ``files/.tmp/<pid>-<uuid>.part`` while its sha256 is computed
beside the writes, fsynced, and only then renamed to ``files/<sha256>`` (mode 0600).
"""

from __future__ import annotations

import hashlib
import os
import queue
import threading
import uuid
from pathlib import Path
from typing import BinaryIO

from hub.datadir import ensure_private_dir, fsync, new_private_file
from hub.errors import BadRequest, ContractError, TooLarge
from hub.services.files.store import FileStore, StoredFile, is_sha256, remove_dead_parts

CHUNK = 4 * 1024 * 1024  # large reads and writes: fewer hand-offs to the hashing thread


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


def _entries(directory: Path) -> list[Path]:
    try:
        return [p for p in directory.iterdir() if p.is_file()]
    except FileNotFoundError:
        return []


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
