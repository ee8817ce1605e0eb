"""The file store: attachment contents named by their sha256, under ``files/``.

An upload is written to ``files/.tmp/`` while its sha256 is computed, fsynced,
and only then renamed to ``files/<sha256>`` (mode 0600): a file in the store is
always whole and verified. Two attachments with the same content share a file.
Nothing here reads a file whole into memory.
"""

from __future__ import annotations

import hashlib
import os
import queue
import re
import threading
import uuid
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


class FileStore:
    def __init__(self, root: Path):
        self.root = root
        self.tmp = root / ".tmp"

    def path(self, sha256: str) -> Path:
        """Where a file lives; only a well-formed sha256 names one."""
        if not is_sha256(sha256):
            raise ValueError(f"not a sha256: {sha256!r}")
        return self.root / sha256

    def size(self, sha256: str) -> int | None:
        """The stored file's size, or None when the store does not have it."""
        try:
            return self.path(sha256).stat().st_size
        except (FileNotFoundError, ValueError):
            return None

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
        hasher, size = _Hasher(), 0
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


    def remove_leftovers(self) -> list[Path]:
        """Remove upload parts that no live process writes; the paths removed.

        Call at start, before serving: a part named with this process's own pid
        is a leftover too (a restarted container's hub often gets the same pid).
        Names without a pid (older hubs) are leftovers as well. A part of a live
        process is kept; the periodic cleanup takes it after an hour if it stays.
        """
        removed: list[Path] = []
        try:
            entries = list(self.tmp.iterdir())
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


class _Hasher:
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
