"""Bring a hub database to the current schema version.

The whole migration — every step from the database's version to the current
one — runs in one transaction taken with ``BEGIN IMMEDIATE``, so two processes
that open the same old database at once cannot both migrate it: the second
waits for the write lock, re-reads ``setting.schema_version`` inside its own
transaction, finds it current and does nothing. Inside the transaction, after
that re-check and before the first step, the database is copied to
``backups/<YYYYMMDD-HHMMSS>-schema-v<old>.sqlite``: one copy per migration.

A step that raises rolls the transaction back: the database stays at its old
version with its data untouched, the backup of the failed attempt is removed,
and the next start migrates again. A process killed midway leaves the same
state, since SQLite never commits half a transaction (at most a stray
``.partial`` backup file is left, which the next migration removes).
"""

from __future__ import annotations

import logging
import os
import shutil
import sqlite3
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path

from hub.datadir import create_private_file, ensure_private_dir, fsync, new_private_file
from hub.migrations.step import Step
from hub.migrations.steps import STEPS

log = logging.getLogger("hub.migrations")

CURRENT_VERSION: int = STEPS[-1].version

# How long a start waits for another process that holds the write lock (most
# likely migrating the same database) before giving up.
DEFAULT_LOCK_TIMEOUT = 600.0


class MigrationError(RuntimeError):
    """The database could not be brought to the current version; it is unchanged."""


@dataclass(frozen=True)
class MigrationResult:
    """What :func:`migrate` did.

    ``old_version`` is None when the database was created; ``backup`` is None
    when nothing was migrated.
    """

    old_version: int | None
    new_version: int
    backup: Path | None = None
    applied: tuple[str, ...] = ()

    @property
    def changed(self) -> bool:
        return self.old_version != self.new_version


def migrate(
    db_path: Path,
    backups_dir: Path,
    *,
    steps: Sequence[Step] = STEPS,
    lock_timeout: float = DEFAULT_LOCK_TIMEOUT,
) -> MigrationResult:
    """Create the database at the current version, or migrate it there.

    ``steps`` exists for tests that inject a failing step; the hub always runs
    the default :data:`STEPS`.
    """
    target = _check_steps(steps)
    create_private_file(db_path)
    for attempt in range(1, _ATTEMPTS + 1):
        try:
            result = _attempt(db_path, backups_dir, steps, target, lock_timeout)
            break
        except _LostRace as race:
            # SQLite answers "locking protocol" when a WAL connection keeps losing a
            # race for its locks; its documentation says the operation may be tried
            # again. The transaction was rolled back: the database is unchanged.
            if attempt == _ATTEMPTS:
                raise MigrationError(f"could not commit the migration of {db_path}: {race}") from race
            log.warning("database %s: the migration's commit lost a locking race (%s); trying again",
                        db_path, race)
            time.sleep(0.1 * attempt)
    if result.changed:
        log.info(
            "database %s: schema v%s -> v%d%s",
            db_path,
            result.old_version if result.old_version is not None else "(new)",
            result.new_version,
            f", backup {result.backup}" if result.backup else "",
        )
    return result


# How often a migration whose commit loses a locking race is tried in all.
_ATTEMPTS = 3


class _LostRace(Exception):
    """The migration's COMMIT answered SQLITE_PROTOCOL; nothing was written."""


def _attempt(db_path: Path, backups_dir: Path, steps: Sequence[Step], target: int,
             lock_timeout: float) -> MigrationResult:
    """One migration in one transaction; raises :class:`_LostRace` if its commit lost a race."""
    conn = sqlite3.connect(db_path, timeout=lock_timeout, isolation_level=None)
    try:
        _use_wal(conn, lock_timeout)
        if _read_version(conn) == target:
            return MigrationResult(target, target)
        conn.execute("BEGIN IMMEDIATE")
        try:
            result = _migrate_locked(conn, db_path, backups_dir, steps, target)
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        try:
            conn.execute("COMMIT")
        except sqlite3.Error as exc:
            # A COMMIT that fails may have rolled back already (SQLite does on some
            # errors): rolling back again would hide why it failed.
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            if result.backup is not None:
                result.backup.unlink(missing_ok=True)
            if getattr(exc, "sqlite_errorcode", None) == sqlite3.SQLITE_PROTOCOL:
                raise _LostRace(str(exc)) from exc
            raise MigrationError(f"could not commit the migration of {db_path}: {exc}") from exc
        return result
    finally:
        conn.close()


def _migrate_locked(
    conn: sqlite3.Connection,
    db_path: Path,
    backups_dir: Path,
    steps: Sequence[Step],
    target: int,
) -> MigrationResult:
    version = _read_version(conn)
    if version is None:
        _create(conn, target)
        return MigrationResult(None, target)
    if version == target:
        return MigrationResult(target, target)
    if version > target:
        raise MigrationError(
            f"{db_path} is at schema version {version}, newer than this hub knows "
            f"({target}); run a hub of that version or newer"
        )
    if version < 1:
        raise MigrationError(f"{db_path} has schema version {version}, which no hub wrote")

    try:
        partial, backup = _backup(conn, db_path, backups_dir, version)
    except (OSError, sqlite3.Error) as exc:
        raise MigrationError(
            f"could not back up {db_path} into {backups_dir} before migrating: {exc}; "
            f"the database is unchanged at v{version}"
        ) from exc
    applied = []
    try:
        for step in steps:
            if step.version <= version:
                continue
            log.info("applying schema step %s", step.name)
            step.apply(conn)
            conn.execute(
                "UPDATE setting SET value = ? WHERE key = 'schema_version'", (str(step.version),)
            )
            applied.append(step.name)
    except Exception as exc:
        partial.unlink(missing_ok=True)
        raise MigrationError(
            f"migrating {db_path} from schema v{version} failed in step "
            f"{step.name}: {exc}; the database is unchanged at v{version}"
        ) from exc
    # The backup gets its name only now, just before COMMIT: a process killed
    # during the steps leaves a .partial file (removed by the next migration),
    # never a backup of a migration that did not happen.
    os.replace(partial, backup)
    fsync(backups_dir)
    return MigrationResult(version, target, backup, tuple(applied))


def _check_steps(steps: Sequence[Step]) -> int:
    versions = [step.version for step in steps]
    if versions != list(range(2, 2 + len(versions))):
        raise ValueError(f"schema steps must go 2, 3, ... without gaps, got {versions}")
    return versions[-1]


def _use_wal(conn: sqlite3.Connection, timeout: float) -> None:
    # Turning a new file to WAL needs a brief exclusive lock, and SQLite answers
    # "locked" at once when two processes try together; retry until the timeout.
    deadline = time.monotonic() + timeout
    while True:
        try:
            conn.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() >= deadline:
                raise
            time.sleep(0.01)


def _read_version(conn: sqlite3.Connection) -> int | None:
    """The schema version, or None for a database that holds no tables yet."""
    has_setting = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'setting'"
    ).fetchone()
    if not has_setting:
        if conn.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchone():
            raise MigrationError("the database has tables but no 'setting' table: not a hub database")
        return None
    row = conn.execute("SELECT value FROM setting WHERE key = 'schema_version'").fetchone()
    if row is None:
        raise MigrationError("setting 'schema_version' is missing: not a hub database")
    try:
        return int(row[0])
    except (TypeError, ValueError):
        raise MigrationError(f"setting 'schema_version' is {row[0]!r}, not a number") from None


def _create(conn: sqlite3.Connection, version: int) -> None:
    script = resources.files("hub.migrations").joinpath("schema.sql").read_text("utf-8")
    for statement in _statements(script):
        conn.execute(statement)
    conn.execute("INSERT INTO setting (key, value) VALUES ('schema_version', ?)", (str(version),))


def _statements(script: str) -> list[str]:
    statements, pending = [], ""
    for line in script.splitlines(keepends=True):
        if not pending and (not line.strip() or line.lstrip().startswith("--")):
            continue
        pending += line
        if sqlite3.complete_statement(pending):
            statements.append(pending.strip())
            pending = ""
    if pending.strip():
        raise ValueError(f"unterminated statement in schema.sql: {pending.strip()[:60]}")
    return statements


def _backup(
    conn: sqlite3.Connection, db_path: Path, backups_dir: Path, version: int
) -> tuple[Path, Path]:
    """Copy the database, as this locked transaction sees it, into ``backups_dir``.

    Returns the copy (a hidden ``.partial`` file) and the name it takes once
    the migration is ready to commit.

    Runs while ``conn`` holds the write lock, so no other process can change the
    database during the copy. The copy is read through a second connection:
    SQLite will not run a backup from a connection that holds a write
    transaction.
    """
    ensure_private_dir(backups_dir)
    # Only the holder of the write lock writes a backup, so any partial file
    # here was left by a process that died while migrating.
    for stale in backups_dir.glob(".*.partial"):
        stale.unlink(missing_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    final = _free_name(backups_dir, f"{stamp}-schema-v{version}")
    partial = backups_dir / f".{final.name}.partial"
    new_private_file(partial).close()
    reader = sqlite3.connect(db_path, isolation_level=None)
    try:
        _copy_database(reader, db_path, partial)
        fsync(partial)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    finally:
        reader.close()
    return partial, final


def _copy_database(reader: sqlite3.Connection, db_path: Path, dest: Path) -> None:
    # In WAL mode the newest pages may live in the -wal file. A passive
    # checkpoint moves them into the main file unless a reader still needs an
    # older snapshot; when it moved them all, the main file alone is the whole
    # database and a plain file copy (the fastest way) is exact. Otherwise the
    # SQLite backup API reads the pages through the WAL.
    busy, wal_frames, moved = reader.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
    if busy == 0 and wal_frames == moved:
        shutil.copyfile(db_path, dest)
        return
    log.info("database %s: WAL not fully checkpointed, backing up page by page", db_path)
    target = sqlite3.connect(dest)
    try:
        reader.backup(target)
    finally:
        target.close()


def _free_name(directory: Path, stem: str) -> Path:
    candidate = directory / f"{stem}.sqlite"
    n = 2
    while candidate.exists():
        candidate = directory / f"{stem}-{n}.sqlite"
        n += 1
    return candidate
