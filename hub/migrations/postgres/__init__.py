"""The hub's schema on PostgreSQL: created at its baseline, migrated by its own steps.

A PostgreSQL hub is born at the version of ``schema.sql`` here (13), never from
SQLite's steps; :data:`STEPS` takes it on from there. Every node of a hub runs
:func:`migrate_postgres` at start: the whole migration runs in one transaction
under a transaction-level advisory lock, so when several nodes start at once,
one creates or migrates and the others wait, re-read the version and find it
current. A step that raises rolls everything back: PostgreSQL's DDL is
transactional, so the database stays at its old version.

Backups before a migration are the operator's (``hub backup`` runs
``pg_dump``), as they are for any PostgreSQL database; see docs/migrations.md.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import resources

from hub.migrations.runner import MigrationError, MigrationResult

log = logging.getLogger("hub.migrations")

BASELINE_VERSION = 13
# One number for "the hub's schema" among advisory locks: the ASCII of "sdlchub\0".
ADVISORY_LOCK = 0x7364_6C63_6875_6200


@dataclass(frozen=True)
class PostgresStep:
    """Takes a PostgreSQL hub from ``version - 1`` to ``version``; ``apply(cursor)`` must not commit."""

    version: int
    name: str
    apply: Callable


# Imported here, below PostgresStep: a step module names no part of this package.
from hub.migrations.postgres import v14_parallel_safe, v15_writes  # noqa: E402 (the steps follow the class they fill)

STEPS: tuple[PostgresStep, ...] = (
    PostgresStep(v14_parallel_safe.VERSION, "v14_parallel_safe", v14_parallel_safe.apply),
    PostgresStep(v15_writes.VERSION, "v15_writes", v15_writes.apply),
)
CURRENT_VERSION = STEPS[-1].version if STEPS else BASELINE_VERSION


def migrate_postgres(url: str, *, steps: Sequence[PostgresStep] = STEPS,
                     lock_timeout_seconds: float = 600) -> MigrationResult:
    """Create the hub's tables at ``url`` at the current version, or migrate them there."""
    import psycopg

    target = steps[-1].version if steps else BASELINE_VERSION
    with psycopg.connect(url) as conn, conn.cursor() as cur:
        cur.execute(f"SET LOCAL lock_timeout = '{int(lock_timeout_seconds * 1000)}ms'")
        cur.execute("SELECT pg_advisory_xact_lock(%s)", (ADVISORY_LOCK,))
        version = _read_version(cur)
        if version is None:
            cur.execute(resources.files(__name__).joinpath("schema.sql").read_text("utf-8"))
            cur.execute("INSERT INTO setting (key, value) VALUES ('schema_version', %s)", (str(target),))
            _apply(cur, steps, BASELINE_VERSION)
            return MigrationResult(None, target)
        if version > target:
            raise MigrationError(f"the database is at schema version {version}, newer than this hub knows "
                                 f"({target}); run a hub of that version or newer")
        if version < BASELINE_VERSION:
            raise MigrationError(f"the database has schema version {version}, which no PostgreSQL hub wrote")
        applied = _apply(cur, steps, version)
        return MigrationResult(version, target, None, applied)


def _apply(cur, steps: Sequence[PostgresStep], version: int) -> tuple[str, ...]:
    applied = []
    for step in steps:
        if step.version <= version:
            continue
        log.info("applying schema step %s", step.name)
        try:
            step.apply(cur)
        except Exception as exc:
            raise MigrationError(f"migrating from schema v{version} failed in step {step.name}: {exc}; "
                                 f"the database is unchanged at v{version}") from exc
        cur.execute("UPDATE setting SET value = %s WHERE key = 'schema_version'", (str(step.version),))
        applied.append(step.name)
    return tuple(applied)


def _read_version(cur) -> int | None:
    cur.execute("SELECT to_regclass('setting') IS NOT NULL")
    if not cur.fetchone()[0]:
        cur.execute("SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()")
        if cur.fetchone()[0]:
            raise MigrationError("the database has tables but no 'setting' table: not a hub database")
        return None
    cur.execute("SELECT value FROM setting WHERE key = 'schema_version'")
    row = cur.fetchone()
    if row is None:
        raise MigrationError("setting 'schema_version' is missing: not a hub database")
    try:
        return int(row[0])
    except (TypeError, ValueError):
        raise MigrationError(f"setting 'schema_version' is {row[0]!r}, not a number") from None
