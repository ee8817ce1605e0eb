"""Moving a SQLite hub onto PostgreSQL (``hub migrate-to``), and its files into another store.

The move copies what the data dir's ``hub.sqlite`` holds into an empty
PostgreSQL database at the same schema version, every table whole, and leaves
``hub.sqlite`` as it was (the way back is to unset ``HUB_DATABASE_URL``):

1. Everything is checked before anything is written (that is all ``--dry-run``
   does): the source is a hub at this hub's schema version, with no row whose
   foreign key names a row that is gone (SQLite does not enforce them,
   PostgreSQL does); the target answers, is empty — no tables, or the empty
   schema a ``hub migrate`` left — and has the same tables and columns.
2. The files the database names go into the store named (``HUB_STORE_URL``)
   first, through the store's ``receive`` (checked against their sha256 as they
   arrive); a file the store has already is skipped, so a move run again after a
   failure copies only what is left. Without a store named the files stay in
   ``files/``, where a hub on PostgreSQL with a local store reads them.
3. The schema is created (``migrate_postgres``) if the database has none; then
   every table is copied in one transaction, under the migrations' advisory lock
   (a node that starts meanwhile waits for it), in the order of the foreign keys,
   streamed from one SQLite read transaction (one moment of the source) into
   ``COPY … FROM STDIN`` in batches. Each identity is set past the highest id
   SQLite ever gave (``sqlite_sequence``: ids of deleted rows are not given
   again, so an agent's late report for a deleted command cannot reach a new
   one), the full-text index is built if the PostgreSQL search keeps one of its
   own, and every table's count is compared with the source's before the commit;
   so is ``PRAGMA data_version``: a hub that still runs and wrote meanwhile makes
   the move fail, rather than lose what it wrote. Any failure rolls the copy back:
   the database is left as the checks found it.

SQLite's full-text tables (``issue_fts``) are not copied: PostgreSQL's search
has its own index, built from the copied rows.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from hub.errors import HubError
from hub.migrations import CURRENT_VERSION
from hub.services.files.store import is_sha256
from hub.services.operations.backup import NAMED_FILES
from hub.services.operations.backup_store import Store, local_root
from hub.services.operations.pg_tools import where

BATCH_ROWS = 5000
ROWID = "rowid"
# SQLite's own tables and its full-text index (FTS5's table and shadow tables): not copied.
DERIVED_PREFIXES = ("sqlite_", "issue_fts")
PROGRESS_SECONDS = 5


class MoveRefused(HubError):
    """The move cannot start: the source or the target is not as it must be. Nothing was written."""

    title = "Cannot move"


class MoveFailed(HubError):
    """The move failed midway; the message says what was left (the copy is rolled back)."""

    title = "Move failed"


@dataclass
class Table:
    """One table to copy: its columns (the source's order), rows, and identity columns."""

    name: str
    columns: tuple[str, ...]
    rows: int
    identities: tuple[str, ...] = ()
    # The highest id SQLite ever gave (AUTOINCREMENT's sqlite_sequence), deleted rows' included.
    last_id: int = 0


@dataclass
class Plan:
    """What a move does, found by its checks."""

    source: Path
    target: str
    schema_version: int
    create_schema: bool
    tables: list[Table]
    files: list[tuple[str, int]] = field(default_factory=list)
    missing_files: list[str] = field(default_factory=list)
    # Tables of the target that SQLite has not (the PostgreSQL search's own): left to the hub.
    target_only: list[str] = field(default_factory=list)

    @property
    def rows(self) -> int:
        return sum(t.rows for t in self.tables)


class HubMove:
    """Moves the SQLite hub at ``db_path`` onto the PostgreSQL database at ``url``.

    ``files`` is the source's file store (``files/``); ``store`` the store to copy
    its files into, or None to leave them there. ``say`` gets the progress lines.
    """

    def __init__(self, db_path: Path, url: str, files: Store, *, store: Store | None = None,
                 store_name: str | None = None, batch_rows: int = BATCH_ROWS,
                 say: Callable[[str], None] = print):
        root = local_root(files)
        if root is None:
            raise ValueError("a move copies from files/ in the data dir")
        self.db_path, self.url, self.files, self.root = db_path, url, files, root
        self.store, self.store_name = store, store_name
        self.batch_rows, self.say = batch_rows, say

    def dry_run(self) -> Plan:
        """Every check of a move, and what it would copy; writes nothing anywhere."""
        with self._source() as source:
            return self._checked_plan(source)

    def _checked_plan(self, source: sqlite3.Connection) -> Plan:
        try:
            return self._plan(source)
        except sqlite3.Error as exc:  # not a database, damaged, locked for longer than the timeout
            raise MoveRefused(f"cannot read {self.db_path}: {exc}; nothing was written") from exc

    def files_only(self) -> Plan:
        """Check as a move does, then copy the files alone: run while the hub still serves,
        it leaves the move itself (with the hub stopped) only the files that came since."""
        with self._source() as source:
            plan = self._checked_plan(source)
            self._copy_files(plan)
        return plan

    def run(self) -> Plan:
        """Check, copy the files, then the tables in one transaction; raises MoveRefused
        before anything is written, MoveFailed once something was."""
        from hub.migrations.postgres import migrate_postgres

        with self._source() as source:
            plan = self._checked_plan(source)
            self._copy_files(plan)
            if plan.create_schema:
                import psycopg

                try:
                    migrate_postgres(self.url)
                except psycopg.Error as exc:  # one transaction: the database is as it was
                    raise MoveFailed(f"creating the schema in {plan.target} failed: {str(exc).strip()}; "
                                     "the database was not written") from exc
                self.say(f"schema: created at v{plan.schema_version}")
            # Changes only when another connection commits (read once the snapshot is taken).
            [(seen,)] = source.execute("PRAGMA data_version").fetchall()
            self._copy_tables(source, plan, seen)
        return plan

    # -- the checks -----------------------------------------------------------------

    @contextmanager
    def _source(self) -> Iterator[sqlite3.Connection]:
        if not self.db_path.is_file():
            raise MoveRefused(f"no hub at {self.db_path} (HUB_DATA_DIR): nothing to move")
        conn = sqlite3.connect(f"{self.db_path.resolve().as_uri()}?mode=ro", uri=True, timeout=60,
                               isolation_level=None)
        try:
            # One read transaction for the checks and the copy: one moment of the source.
            conn.execute("BEGIN")
            yield conn
        finally:
            conn.close()

    def _plan(self, source: sqlite3.Connection) -> Plan:
        version = _source_version(source, self.db_path)
        _check_foreign_keys(source, self.db_path)
        names = [r[0] for r in source.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        kept = [n for n in names if not n.startswith(DERIVED_PREFIXES)]
        sequences = dict(source.execute("SELECT name, seq FROM sqlite_sequence")) \
            if "sqlite_sequence" in names else {}
        import psycopg

        try:
            with psycopg.connect(self.url, connect_timeout=30) as conn:
                create = _check_target(conn, self.url)
                columns, identities, order = _target_schema(conn, create)
        except psycopg.Error as exc:
            raise MoveRefused(f"cannot use the database at {where(self.url)}: {str(exc).strip()}; "
                              "nothing was written") from exc
        tables = []
        for name in _in_order(kept, order):
            mine = tuple(r[1] for r in source.execute(f'PRAGMA table_info("{name}")'))
            if ROWID in columns.get(name, ()) and ROWID not in mine:
                # Where the hub reads SQLite's rowid, PostgreSQL keeps it as a column of
                # its own (an identity): SQLite's values are copied into it.
                mine = (*mine, ROWID)
            if name not in columns or set(mine) != set(columns[name]):
                raise MoveRefused(f"table {name} differs between {self.db_path} ({', '.join(mine)}) and "
                                  f"PostgreSQL's schema ({', '.join(columns.get(name, ())) or 'no such table'}): "
                                  "this hub cannot move it; nothing was written")
            [(rows,)] = source.execute(f'SELECT count(*) FROM "{name}"').fetchall()
            tables.append(Table(name, mine, rows, tuple(identities.get(name, ())),
                                int(sequences.get(name) or 0)))
        plan = Plan(self.db_path, where(self.url), version, create, tables,
                    target_only=sorted(set(columns) - set(kept)))
        for (name,) in source.execute(NAMED_FILES):
            size = self.files.size(name) if is_sha256(name) else None
            if size is None:
                plan.missing_files.append(name)
            else:
                plan.files.append((name, size))
        return plan

    # -- the copy -------------------------------------------------------------------

    def _copy_files(self, plan: Plan) -> None:
        total = sum(size for _, size in plan.files)
        if self.store is None:
            self.say(f"files: {len(plan.files)} files, {total} bytes, stay in {self.root} "
                     "(no store named: HUB_STORE_URL is unset)")
            return
        copied = present = 0
        last = time.monotonic()
        for n, (name, size) in enumerate(plan.files, 1):
            if self.store.size(name) == size:
                present += 1
            else:
                try:
                    with open(self.root / name, "rb") as stream:
                        self.store.receive(stream, length=size, max_bytes=size, expected_sha256=name)
                except (OSError, HubError) as exc:
                    raise MoveFailed(f"copying file {name} into {self.store_name} failed: {exc}; the database "
                                     f"was not written; {copied} files were copied (run it again: files "
                                     "already there are skipped)") from exc
                copied += 1
            if time.monotonic() - last >= PROGRESS_SECONDS:
                self.say(f"files: {n} of {len(plan.files)}")
                last = time.monotonic()
        self.say(f"files: {len(plan.files)} files, {total} bytes, in {self.store_name} "
                 f"({copied} copied, {present} there already)")

    def _copy_tables(self, source: sqlite3.Connection, plan: Plan, seen: int) -> None:
        import psycopg

        from hub.migrations.postgres import ADVISORY_LOCK

        started = time.monotonic()
        try:
            with psycopg.connect(self.url) as conn, conn.cursor() as cur:
                # A node that starts meanwhile runs its migration under this lock: it waits for the copy.
                cur.execute("SELECT pg_advisory_xact_lock(%s)", (ADVISORY_LOCK,))
                _check_target(conn, self.url)
                cur.execute("DELETE FROM setting")  # the empty schema's version row: the source's comes along
                for table in plan.tables:
                    self._copy_table(source, cur, table)
                _set_identities(cur, plan, self.say)
                _build_search_index(cur, source)
                _check_counts(cur, plan)
                _check_unchanged(source, seen, self.db_path)
        except psycopg.Error as exc:
            raise MoveFailed(f"copying into {plan.target} failed: {str(exc).strip()}; the copy was rolled "
                             "back and the database holds no rows of it") from exc
        except sqlite3.Error as exc:  # e.g. a text SQLite kept that is not UTF-8
            raise MoveFailed(f"reading {self.db_path} failed: {exc}; the copy was rolled back and the "
                             "database holds no rows of it") from exc
        self.say(f"tables: {len(plan.tables)} tables, {plan.rows} rows copied and counted on both sides "
                 f"in {time.monotonic() - started:.1f} s")

    def _copy_table(self, source: sqlite3.Connection, cur, table: Table) -> None:
        columns = ", ".join(f'"{c}"' for c in table.columns)
        # SQLite's own rowid is named bare: quoted, it would name a column called rowid.
        read = ", ".join(c if c == ROWID else f'"{c}"' for c in table.columns)
        rows = source.execute(f'SELECT {read} FROM "{table.name}" ORDER BY rowid')
        done, last = 0, time.monotonic()
        with cur.copy(f'COPY "{table.name}" ({columns}) FROM STDIN') as copy:
            while batch := rows.fetchmany(self.batch_rows):
                for row in batch:
                    copy.write_row(row)
                done += len(batch)
                if done < table.rows and time.monotonic() - last >= PROGRESS_SECONDS:
                    self.say(f"{table.name}: {done} of {table.rows} rows")
                    last = time.monotonic()
        self.say(f"{table.name}: {done} rows")


def _source_version(source: sqlite3.Connection, db_path: Path) -> int:
    from hub.migrations.postgres import CURRENT_VERSION as POSTGRES_VERSION

    try:
        row = source.execute("SELECT value FROM setting WHERE key = 'schema_version'").fetchone()
    except sqlite3.Error as exc:
        raise MoveRefused(f"{db_path} is not a hub database ({exc}); nothing was written") from None
    if row is None or not str(row[0]).isdigit():
        raise MoveRefused(f"{db_path} holds no schema version: not a hub database; nothing was written")
    version = int(row[0])
    if version != CURRENT_VERSION or version != POSTGRES_VERSION:
        how = ("migrate it first with this hub ('hub migrate' with HUB_DATABASE_URL unset), then move it"
               if version < CURRENT_VERSION else "move it with a hub of its version")
        raise MoveRefused(f"{db_path} is at schema v{version}; this hub moves v{CURRENT_VERSION} "
                          f"onto PostgreSQL's v{POSTGRES_VERSION}: {how}; nothing was written")
    return version


def _check_foreign_keys(source: sqlite3.Connection, db_path: Path) -> None:
    broken = source.execute("PRAGMA foreign_key_check").fetchall()
    if broken:
        shown = "; ".join(f"{table} row {rowid} names a {parent} that is gone"
                          for table, rowid, parent, _ in broken[:5])
        more = f" (and {len(broken) - 5} more)" if len(broken) > 5 else ""
        raise MoveRefused(f"{db_path} has rows whose foreign key names a row that is gone, which PostgreSQL "
                          f"refuses: {shown}{more}; nothing was written")


def _check_target(conn, url: str) -> bool:
    """Whether the target needs its schema created; raises MoveRefused unless it is empty."""
    from hub.migrations.postgres import CURRENT_VERSION as POSTGRES_VERSION

    tables = [r[0] for r in conn.execute(
        "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() ORDER BY tablename")]
    if not tables:
        return True
    if "setting" not in tables:
        raise MoveRefused(f"the database {where(url)} holds tables but no hub ({', '.join(tables[:5])}): "
                          "move into a new, empty database (createdb); nothing was written")
    settings = dict(conn.execute("SELECT key, value FROM setting").fetchall())
    if settings.get("schema_version") != str(POSTGRES_VERSION):
        raise MoveRefused(f"the database {where(url)} holds a hub at schema v{settings.get('schema_version')}, "
                          f"not v{POSTGRES_VERSION}: move into a new, empty database (createdb); nothing was written")
    full = [f"setting {len(settings)} rows"] if len(settings) > 1 else []
    for table in tables:
        if table != "setting" and conn.execute(f'SELECT EXISTS (SELECT 1 FROM "{table}")').fetchone()[0]:
            [(count,)] = conn.execute(f'SELECT count(*) FROM "{table}"').fetchall()
            full.append(f"{table} {count} rows")
    if full:
        raise MoveRefused(f"the database {where(url)} is not empty ({', '.join(full)}): a hub already "
                          "wrote there (did one start on it?); move into a new, empty database (createdb), "
                          "or drop and create this one; nothing was written")
    return False


def _target_schema(conn, create: bool) -> tuple[dict[str, tuple[str, ...]], dict[str, list[str]],
                                                list[tuple[str, str]]]:
    """The target's columns, identity columns and foreign keys (table, the table it names).

    A database with no schema yet is read with the schema created in a
    transaction that is rolled back (PostgreSQL's DDL is transactional).
    """
    from hub.migrations.postgres import STEPS

    with conn.transaction(force_rollback=True), conn.cursor() as cur:
        if create:
            cur.execute(resources.files("hub.migrations.postgres").joinpath("schema.sql").read_text("utf-8"))
            for step in STEPS:
                step.apply(cur)
        columns: dict[str, list[str]] = {}
        identities: dict[str, list[str]] = {}
        for table, column, identity in cur.execute(
                "SELECT table_name, column_name, is_identity FROM information_schema.columns"
                " WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position"):
            columns.setdefault(table, []).append(column)
            if identity == "YES":
                identities.setdefault(table, []).append(column)
        keys = cur.execute(
            "SELECT t.relname, r.relname FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid"
            " JOIN pg_class r ON r.oid = c.confrelid JOIN pg_namespace n ON n.oid = t.relnamespace"
            " WHERE c.contype = 'f' AND n.nspname = current_schema()").fetchall()
    views = set()  # information_schema.columns lists views too: only tables are copied into
    for (name,) in conn.execute("SELECT viewname FROM pg_views WHERE schemaname = current_schema()"):
        views.add(name)
    return ({t: tuple(c) for t, c in columns.items() if t not in views}, identities,
            [(a, b) for a, b in keys])


def _in_order(tables: list[str], keys: list[tuple[str, str]]) -> list[str]:
    """``tables`` (sorted) with each after the tables its foreign keys name."""
    after = {t: {parent for child, parent in keys if child == t and parent != t and parent in tables}
             for t in tables}
    ordered: list[str] = []
    while len(ordered) < len(tables):
        ready = [t for t in sorted(tables) if t not in ordered and after[t] <= set(ordered)]
        if not ready:
            raise MoveRefused(f"the foreign keys among {', '.join(sorted(set(tables) - set(ordered)))} "
                              "form a cycle: this hub cannot order the copy; nothing was written")
        ordered.append(ready[0])
    return ordered


def _set_identities(cur, plan: Plan, say: Callable[[str], None]) -> None:
    """Each identity's next value past the highest id the source ever gave."""
    set_to = []
    for table in plan.tables:
        for column in table.identities:
            [(highest,)] = cur.execute(f'SELECT max("{column}") FROM "{table.name}"').fetchall()
            last = max(highest or 0, table.last_id)
            if last:
                cur.execute("SELECT setval(pg_get_serial_sequence(%s, %s), %s)",
                            (f'"{table.name}"', column, last))
                set_to.append(f"{table.name} {last + 1}" if column != ROWID else f"{table.name}.rowid {last + 1}")
    if set_to:
        say(f"identities: next ids {', '.join(set_to)}")


def _build_search_index(cur, source: sqlite3.Connection) -> None:
    """Index the copied issues if PostgreSQL's search keeps an index the loader writes."""
    from hub import dialect
    from hub.db import qmark_to_format

    statement = dialect.fulltext.index(dialect.POSTGRES)
    if statement is None:
        return  # the search reads the tables themselves
    keys = [r[0] for r in source.execute("SELECT key FROM issue ORDER BY key")]
    for start in range(0, len(keys), BATCH_ROWS):
        cur.execute(qmark_to_format(statement), (json.dumps(keys[start:start + BATCH_ROWS]),))


def _check_unchanged(source: sqlite3.Connection, seen: int, db_path: Path) -> None:
    """Refuse to commit a copy of a hub that wrote meanwhile: what it wrote would be lost."""
    source.execute("COMMIT")  # the read transaction's end: data_version then sees other commits
    [(now,)] = source.execute("PRAGMA data_version").fetchall()
    if now != seen:
        raise MoveFailed(f"{db_path} changed while it was copied: the hub (or its worker) still runs. "
                         "Stop it, then move again; the copy was rolled back and the database holds "
                         "no rows of it")


def _check_counts(cur, plan: Plan) -> None:
    for table in plan.tables:
        [(count,)] = cur.execute(f'SELECT count(*) FROM "{table.name}"').fetchall()
        if count != table.rows:
            raise MoveFailed(f"{table.name} holds {count} rows after the copy, the source {table.rows}; "
                             "the copy was rolled back and the database holds no rows of it")
