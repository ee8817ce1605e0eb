"""Backups of a PostgreSQL hub (``hub backup``) and restoring one (``hub restore``)
(:class:`hub.services.operations.backup.Backups`).

A backup is a directory, as a SQLite hub's is::

    manifest.json   what the backup holds, with checksums ("engine": "postgresql")
    hub.dump        pg_dump's custom-format archive of the hub's database
    files/<sha256>  the attachment files the dump names (a local store only)

Why it is consistent while the hub serves: the backup opens a REPEATABLE READ
transaction, exports its snapshot (``pg_export_snapshot``) and runs ``pg_dump
--snapshot`` on it while that transaction stays open, so the dump and the file
names read in the same transaction are the database as of one moment. The file
store's rules are those of every backup (:mod:`hub.services.operations.backup`): files
never change under their name, so they are taken after the snapshot by the
names it holds; one that cleanup removed meanwhile is listed under ``missing``.

With an object store (``HUB_STORE_URL``) the files stay where they are: the
object store keeps its own copies (versioning, replication), and a backup of a
hub of terabytes of attachments should not be terabytes. The manifest lists each
file the snapshot names that the store holds (sha256 and size) and what it was
missing; ``restore`` checks that the store it restores against has them.

Restore goes into an empty database only: ``pg_restore --single-transaction
--exit-on-error``, so a failed restore leaves it empty. The archive's sha256 and
every file are checked first.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from pathlib import Path

from hub import __version__
from hub.clock import Clock, iso
from hub.datadir import ensure_private_dir, fsync
from hub.services.operations.backup import (
    DATABASES,
    FORMAT,
    MANIFEST,
    NAMED_FILES,
    STAGING,
    Backups,
    NotEmpty,
    UnsafePath,
    WrongEngine,
    check_empty,
    claim_empty_dir,
    create_private,
    digest,
    discard,
    read_manifest,
    refuse_symlink,
    stage_files,
    take_files,
    within,
    write_private,
)
from hub.services.operations.backup_store import (
    FILES,
    BackupError,
    BackupReport,
    Store,
    files_into_store,
    list_in_store,
    local_root,
)
from hub.services.operations.pg_tools import PgTool, find_tool, run_tool, server_version, where

DUMP = DATABASES["postgresql"]
# A line of pg_restore --list for an extension's comment: "3375; 0 0 COMMENT - EXTENSION pg_trgm ".
_EXTENSION_COMMENT = re.compile(r"\d+; \d+ \d+ COMMENT - EXTENSION ")


class PostgresBackups(Backups):
    """``hub backup`` / ``hub restore`` of the hub whose tables are at ``url``.

    ``store`` is the hub's file store: ``files/`` (its files are linked or
    copied into the backup) or an object store (listed only); ``store_url``
    names the latter in the manifest. ``data_dir`` is refused as a destination.
    """

    def __init__(self, url: str, store: Store, data_dir: Path, *, clock: Clock,
                 store_url: str | None = None, bindir: Path | None = None):
        self.url, self.store, self.data_dir = url, store, data_dir
        self.store_url, self.bindir, self.clock = store_url, bindir, clock

    @property
    def local(self) -> bool:
        return local_root(self.store) is not None

    def backup(self, dest: Path, *, copy: bool = False) -> BackupReport:
        """Back up into ``dest`` (missing or empty). Raises UnsafePath, NotEmpty,
        ToolMissing (before anything is written), BackupError."""
        what = "the backup's destination"
        refuse_symlink(dest, what)
        if within(dest, self.data_dir):
            raise UnsafePath(f"{what} {dest} is inside the data dir {self.data_dir}: a backup there would "
                             "be lost with the hub and mixed with its files; nothing was written. "
                             "Back up to another directory, better another disk")
        major, version = self._server()
        tool = find_tool("pg_dump", major, server=f"the server at {where(self.url)} ({version})",
                         bindir=self.bindir)
        import psycopg

        created = claim_empty_dir(dest, what)
        try:
            return self._backup(dest, copy, tool, version)
        except (OSError, psycopg.Error) as exc:  # a full disk; the database gone midway
            discard(dest, created)
            raise BackupError(f"could not back up {where(self.url)} into {dest}: {str(exc).strip()}; "
                              "nothing was kept there") from exc
        except BaseException:
            discard(dest, created)
            raise

    def _server(self) -> tuple[int, str]:
        import psycopg

        try:
            return server_version(self.url)
        except psycopg.Error as exc:
            raise BackupError(f"cannot reach the database at {where(self.url)} (HUB_DATABASE_URL): "
                              f"{str(exc).strip()}; nothing was written") from exc

    def _backup(self, dest: Path, copy: bool, tool: PgTool, server: str) -> BackupReport:
        import psycopg

        created_at = iso(self.clock.now())
        target = dest / DUMP
        create_private(target)  # pg_dump truncates it and keeps its 0600
        with psycopg.connect(self.url) as conn:
            conn.isolation_level = psycopg.IsolationLevel.REPEATABLE_READ
            conn.read_only = True
            cur = conn.cursor()
            # The snapshot stays the dump's while this transaction is open: the
            # file names below are read in it too.
            [snapshot] = cur.execute("SELECT pg_export_snapshot()").fetchall()[0]
            schema_version = _schema_version(cur, where(self.url))
            names = [row[0] for row in cur.execute(NAMED_FILES)]
            run_tool(tool, ["--format=custom", f"--snapshot={snapshot}", f"--file={target}"], self.url,
                     f"pg_dump of {where(self.url)}")
            conn.rollback()
        fsync(target)
        size, sha256 = digest(target)
        report = BackupReport(dest, schema_version, size)
        root = local_root(self.store)
        if root is not None:
            entries = take_files(root, names, dest / FILES, copy, report)
        else:
            entries = list_in_store(self.store, names, report)
        manifest = {
            "format": FORMAT,
            "engine": "postgresql",
            "hub_version": __version__,
            "schema_version": schema_version,
            "created_at": created_at,
            "source": where(self.url),
            "database": {"path": DUMP, "sha256": sha256, "size": size, "format": "pg_dump custom",
                         "pg_dump": tool.version_text, "server": server},
            # "backup": under files/ here; "store": left in the object store named.
            "files_in": "backup" if self.local else "store",
            "store": None if self.local else self.store_url,
            "files": entries,
            "missing": sorted(report.missing + report.corrupt),
        }
        write_private(dest / MANIFEST, json.dumps(manifest, indent=1).encode() + b"\n")
        fsync(dest)
        return report

    def restore(self, src: Path) -> BackupReport:
        """Restore the backup in ``src`` into the empty database at ``url`` (and its
        files into the store). Raises NotEmpty, WrongEngine, ToolMissing, BackupError;
        on any failure the database is left empty and the store's directory as it was."""
        from hub.migrations.postgres import CURRENT_VERSION

        manifest = read_manifest(src)
        if manifest.get("engine", "sqlite") != "postgresql":
            raise WrongEngine(f"{src} is a backup of a SQLite hub: restore it with HUB_DATABASE_URL unset, "
                              "then move it onto PostgreSQL with 'hub migrate-to'; nothing was touched")
        if manifest["schema_version"] > CURRENT_VERSION:
            raise BackupError(f"the backup in {src} is at schema v{manifest['schema_version']}, newer than "
                              f"this hub knows (v{CURRENT_VERSION}); restore it with a hub of version "
                              f"{manifest['hub_version']} or newer")
        major, version = self._server()
        dumped = str(manifest["database"].get("pg_dump") or "0").split(".")[0]
        tool = find_tool("pg_restore", max(major, int(dumped) if dumped.isdigit() else 0),
                         server=f"the server at {where(self.url)} ({version}) and the archive "
                                f"(pg_dump {manifest['database'].get('pg_dump')})",
                         bindir=self.bindir)
        self._check_empty_database()
        dump = src / DUMP
        size, actual = _digest_or_missing(dump)
        if actual != manifest["database"]["sha256"]:
            raise BackupError(f"{dump} does not match the manifest (sha256 {actual}, the manifest says "
                              f"{manifest['database']['sha256']}); nothing was restored")
        listing = run_tool(tool, ["--list", str(dump)], None, f"reading {dump}").stdout
        report = BackupReport(self.url, manifest["schema_version"], size,
                              missing=list(manifest.get("missing") or []))
        in_backup = manifest.get("files_in", "backup") == "backup"
        if self.local:
            return self._restore_local(src, dump, tool, listing, manifest, report, in_backup)
        files_into_store(src, self.store, manifest["files"], report, in_backup)
        self._pg_restore(tool, dump, listing)
        return report

    def _check_empty_database(self) -> None:
        import psycopg

        try:
            with psycopg.connect(self.url) as conn:
                [(tables,)] = conn.execute(
                    "SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
                    " WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p', 'v', 'm')").fetchall()
        except psycopg.Error as exc:
            raise BackupError(f"cannot reach the database at {where(self.url)} (HUB_DATABASE_URL): "
                              f"{str(exc).strip()}; nothing was restored") from exc
        if tables:
            raise NotEmpty(f"the database {where(self.url)} (HUB_DATABASE_URL) is not empty: it has {tables} "
                           "tables; restore into a new, empty database (createdb); nothing was touched")

    def _pg_restore(self, tool: PgTool, dump: Path, listing: str) -> None:
        """Restore ``dump`` in one transaction, stopped at the first error: a failed restore
        leaves the database empty.

        An extension's comment is left out: where the extensions were made beforehand
        by another role (as managed services and DBAs do), only their owner may comment
        on them, and the restore would fail on a comment; the extension itself is
        ``CREATE EXTENSION IF NOT EXISTS``.
        """
        kept = [line for line in listing.splitlines() if not _EXTENSION_COMMENT.match(line)]
        with tempfile.TemporaryDirectory(prefix="hub-restore-") as scratch:
            entries = Path(scratch) / "toc.list"
            entries.write_text("\n".join(kept) + "\n")
            run_tool(tool, ["--single-transaction", "--exit-on-error", "--no-owner", "--no-privileges",
                            f"--use-list={entries}", str(dump)], self.url,
                     f"pg_restore into {where(self.url)} (nothing was restored)")

    def _restore_local(self, src: Path, dump: Path, tool: PgTool, listing: str, manifest: dict,
                       report: BackupReport, in_backup: bool) -> BackupReport:
        files = local_root(self.store)
        assert files is not None
        check_empty(files, "the file store (files/ in HUB_DATA_DIR)")
        ensure_private_dir(self.data_dir)
        staging = self.data_dir / STAGING
        refuse_symlink(staging, "restore's staging directory")
        if staging.is_dir():
            shutil.rmtree(staging)  # a restore killed midway: it had put nothing in place
        try:
            ensure_private_dir(staging)
            if in_backup:
                stage_files(src, staging / FILES, manifest["files"], report)
            else:
                # The files were left in an object store: this hub's local store cannot have them.
                report.missing += [entry["sha256"] for entry in manifest["files"]]
                ensure_private_dir(staging / FILES)
            self._pg_restore(tool, dump, listing)
            if files.exists():
                files.rmdir()  # empty, checked above
            os.replace(staging / FILES, files)
            staging.rmdir()
            fsync(self.data_dir)
        except OSError as exc:
            shutil.rmtree(staging, ignore_errors=True)
            raise BackupError(f"could not restore {src}: {exc}") from exc
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        return report


def _schema_version(cur, name: str) -> int:
    cur.execute("SELECT to_regclass('setting') IS NOT NULL")
    row = cur.execute("SELECT value FROM setting WHERE key = 'schema_version'").fetchone() \
        if cur.fetchone()[0] else None
    if row is None or not str(row[0]).isdigit():
        raise BackupError(f"the database at {name} holds no schema version: not a hub database "
                          "(HUB_DATABASE_URL); nothing was written")
    return int(row[0])


def _digest_or_missing(path: Path) -> tuple[int, str]:
    try:
        return digest(path)
    except FileNotFoundError:
        raise BackupError(f"{path} is missing; nothing was restored") from None
