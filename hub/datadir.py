"""The hub's data directory: created private and kept private.

The database holds token hashes and the file store holds the team's attachments,
so the data dir, ``backups/`` and ``files/`` are ``0700``. The mode is set at
creation and again at every start, since an operator may have copied the data
dir with a looser umask. A failure to set it (a read-only mount, a directory
owned by someone else) is logged as a warning and the hub goes on: refusing to
start would lose more than it protects.
"""

from __future__ import annotations

import contextlib
import logging
import os
from pathlib import Path
from typing import BinaryIO

from hub.config import Config

log = logging.getLogger(__name__)

PRIVATE_DIR_MODE = 0o700
PRIVATE_FILE_MODE = 0o600


def private_dirs(config: Config) -> tuple[Path, ...]:
    """The directories that hold secrets or the team's data, parents first."""
    return (config.data_dir, config.backups_dir, config.files_dir)


def prepare(config: Config) -> None:
    """Create the data dir and its private subdirectories, and set them to ``0700``."""
    for path in private_dirs(config):
        ensure_private_dir(path)


def ensure_private_dir(path: Path) -> None:
    """Create ``path`` as ``0700`` if missing, else tighten its mode; warn on failure.

    Raises ``OSError`` only when the directory is missing and cannot be created,
    since nothing can run without it.
    """
    try:
        path.mkdir(mode=PRIVATE_DIR_MODE, parents=True, exist_ok=True)
    except FileExistsError:
        raise NotADirectoryError(f"{path} exists and is not a directory") from None
    try:
        if (path.stat().st_mode & 0o777) != PRIVATE_DIR_MODE:
            os.chmod(path, PRIVATE_DIR_MODE)
    except OSError as exc:
        log.warning("could not set %s to mode 0700: %s; the hub goes on", path, exc)


def new_private_file(path: Path, buffering: int = -1) -> BinaryIO:
    """Create ``path`` with mode ``0600`` and open it for writing (binary).

    Raises ``FileExistsError`` if ``path`` exists (a symlink included): the file
    is always a new one of ours, never someone else's that a name pointed at, and
    it is private from its first byte rather than after a ``chmod``.
    """
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE_MODE)
    return open(fd, "wb", buffering=buffering)


def create_private_file(path: Path) -> None:
    """Create ``path`` empty with mode ``0600`` unless it exists.

    SQLite gives a database's ``-wal`` and ``-shm`` files the mode of the
    database file, so creating it ``0600`` keeps all three private.
    """
    with contextlib.suppress(FileExistsError):
        new_private_file(path).close()


def fsync(path: Path) -> None:
    """Flush a file's or a directory's data to disk (a directory: its entries)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
