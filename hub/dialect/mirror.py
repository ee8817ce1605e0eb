"""The mirror loader's SQL, per engine: what :mod:`hub.services.mirror.loading`,
:mod:`hub.services.mirror.moves`, :mod:`hub.services.mirror.catalogues`,
:mod:`hub.services.issues.sprints` and :mod:`hub.services.mirror.aliases` send.

The loader writes a page in a few statements on the raw DB-API connection
(:func:`connection`): on SQLite the ``sqlite3`` connection itself, as before;
on PostgreSQL a thin wrapper of psycopg's, whose statements here are written in
psycopg's own spelling (``%s``), so nothing is converted per page. A page's keys
travel as one bound JSON array on both (:meth:`MirrorSql.keys`).

What the engines do differently beyond spelling:

- SQLite's ``INSERT OR REPLACE`` / ``OR IGNORE`` and ``UPDATE OR IGNORE`` are
  ``ON CONFLICT`` upserts and guarded updates on PostgreSQL.
- SQLite has one writer at a time: a page is the whole database's for its
  transaction. On PostgreSQL two pages load at once, under READ COMMITTED, so
  :meth:`MirrorSql.lock` first takes a transaction-level advisory lock on each
  issue key the page writes (its states' keys, and the issues its inward links
  add rows for), and a shared one on each key its states point at (epics,
  parents, outward links), all in one statement, in one fixed order (by the
  lock's number): two pages that share a key take turns, and each reads the
  mirror only once it holds its keys, so it ends where loading them one after
  the other would; pages that share none, or only point at the same keys, run
  side by side. A move writes rows of keys the page does not name (the old key
  found by the state's Jira id, the issues pointing at it): the page then starts
  again holding those too, never waiting for a key out of that order
  (:class:`hub.services.mirror.moves.KeysToHold`). Rows that are no issue's
  (sprints, users) are written in key order, so that two pages naming the same
  ones lock them in the same order and cannot deadlock. A catalogue a page
  replaces is locked by its kind.
- Rows of a table the page has just emptied of its keys (comments, worklogs, an
  issue's sprints, and the changes of issues new to the mirror) are new by then:
  SQLite inserts them with ``INSERT OR REPLACE``, PostgreSQL copies them in
  (``COPY``, a :class:`Fresh` statement), which writes them in a fraction of the
  time of one ``INSERT`` each. A row the page sends twice is written once, the last
  sending's, as the upsert would leave it.
- The issue upsert keeps what a state did not send with a bit mask that SQLite
  binds once per row (``?N`` repeated); on PostgreSQL the rows of issues new to the
  mirror are copied in, and each mask the known ones hold has its statement, naming
  the columns it sets (:meth:`MirrorSql.issue_upserts`).
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from operator import itemgetter

import orjson

from hub.db import database
from hub.dialect import fulltext
from hub.dialect.engines import POSTGRES, Dialect, current

# The advisory locks' first number (their class) for an issue key and for a
# catalogue's kind: "mirror" and "catalog" in ASCII, below 2**31.
_KEY_LOCKS = 0x6D697272
_KIND_LOCKS = 0x63617461


@dataclass(frozen=True)
class Fresh:
    """Rows new to ``table`` (its rows of their keys were deleted in the same transaction),
    each of ``columns``; ``key`` is the positions of the table's primary key in a row,
    ``first`` whether the first of a key's rows stays (an upsert that does nothing on
    conflict), not the last."""

    table: str
    columns: tuple[str, ...]
    key: tuple[int, ...]
    first: bool = False  # of rows of one key, the first stays (DO NOTHING), not the last

    def copy(self) -> str:
        return f"COPY {self.table} ({', '.join(self.columns)}) FROM STDIN"


class PostgresConnection:
    """psycopg's connection as the loader uses ``sqlite3``'s: ``execute`` answers a cursor,
    ``executemany`` sends the rows in order (psycopg pipelines them), or copies them in
    for a :class:`Fresh` statement."""

    def __init__(self, raw) -> None:
        self._raw = raw

    def execute(self, sql: str, params: Sequence | dict = ()):
        return self._raw.execute(sql, params)

    def executemany(self, sql: str | Fresh, rows: Iterable[Sequence]) -> None:
        rows = list(rows)
        if not rows:
            return
        with self._raw.cursor() as cursor:
            if isinstance(sql, str):
                cursor.executemany(sql, rows)
                return
            # COPY refuses a second row of one key, which an upsert would let replace the first.
            kept: dict[tuple, Sequence] = {}
            for row in rows:  # in the rows' order, as the upserts wrote them
                key = tuple(row[n] for n in sql.key)
                if not (sql.first and key in kept):
                    kept[key] = row
            with cursor.copy(sql.copy()) as copy:
                for row in kept.values():
                    copy.write_row(row)


def connection():
    """The raw connection the loader writes a page on, inside the caller's transaction."""
    raw = database.connection()
    return PostgresConnection(raw) if current().postgres else raw


@dataclass(frozen=True)
class MirrorSql:
    """The statements of one engine; each takes its parameters as the SQLite one does."""

    dialect: Dialect
    keys: str  # the values of one bound JSON array, as a subquery
    known: str
    delete_links: str
    insert_link: str
    delete_comments: str
    insert_comment: str | Fresh
    upsert_change: str
    # The changes of issues new to the mirror: their key's rows deleted (there are none but
    # stray ones, which would refuse a copy), then inserted (copied in on PostgreSQL).
    delete_changes: str
    insert_change: str | Fresh
    delete_worklogs: str
    insert_worklog: str | Fresh
    delete_issue_sprints: str
    insert_issue_sprint: str | Fresh
    upsert_sprint: str
    delete_attachments: str
    delete_attachment_ids: str
    held_attachments: str
    upsert_attachment: str
    moves_page: str  # see hub.services.mirror.moves
    # The parameters of moves_page from the page's (key, id) pairs and the old keys its
    # changelogs name, each a JSON array.
    moves_page_params: Callable[[str, str], tuple]
    moved_map: str
    moved_old: str
    # The keys of issues whose epic, parent or outward links name one of the bound old keys
    # (three times), and the old keys of aliases leading to one of the fourth's.
    rewritten: str
    upsert_alias: str
    delete_kind: str
    insert_entry: str
    upsert_user: str
    # (table, column) -> the statement that re-keys the table's rows under a moved key,
    # leaving a row the new key already holds as it is.
    rekey_children: dict[tuple[str, str], str] = field(default_factory=dict)

    @property
    def index(self) -> str | None:
        """The full-text index's statement for the bound keys (None: not run)."""
        return fulltext.page_index(self.dialect)

    @property
    def unindex(self) -> str | None:
        """The statement that takes the bound keys out of the full-text index (None: not run)."""
        return fulltext.page_unindex(self.dialect)

    def issue_upserts(self, columns: tuple[str, ...], rows: list[tuple],
                      known: Collection[str] = ()) -> list[tuple[str | Fresh, list[tuple]]]:
        """The statements that upsert ``rows`` (``key, *columns, fetched_at, neighbor, mask``)
        into ``issue``, each with its rows, in the order they are to be sent.

        A new row takes the sent values, a known one changes only the columns whose bit is
        set in the row's mask (bit n: ``columns[n]``), so what an agent did not send is
        kept; a gone issue whose state a page loads is back: Jira returned it. SQLite binds
        the mask in one statement for the page. On PostgreSQL the rows of issues new to the
        mirror are copied in (:class:`Fresh`: the values sent, what the upsert would insert),
        unless the page sends one of them twice; then, for each run of rows of one mask (a
        page's states usually send the same fields: one run), the statement naming those
        columns, the rows without their mask.

        New rows go in the page's order, as on SQLite, so that new issues get their rowids
        (the order of arrival) in it; on PostgreSQL the rows of issues the mirror holds
        already (``known``) go after them, in key order (the page has locked those rows in
        that order already, :meth:`lock`). A new row no other transaction sees until the
        page commits: the order of those is the page's alone.
        """
        if not self.dialect.postgres:
            return [(_sqlite_issue_upsert(columns), rows)]
        runs: list[tuple[str | Fresh, list[tuple]]] = []
        new = [row for row in rows if row[0] not in known]
        rows = sorted((row for row in rows if row[0] in known), key=itemgetter(0))
        if len({row[0] for row in new}) == len(new):
            # Each new issue sent once: its row is the values sent (what the upsert would
            # insert), copied in, in the page's order.
            if new:
                runs.append((_postgres_issue_copy(columns), [row[:-1] for row in new]))
        else:
            rows = new + rows  # one sent twice: the later sending updates what the first inserted
        last = None
        for row in rows:
            mask = row[-1]
            if mask != last:
                runs.append((_postgres_issue_upsert(columns, mask), []))
                last = mask
            runs[-1][1].append(row[:-1])
        return runs

    def ordered(self, rows: list[tuple], width: int) -> list[tuple]:
        """``rows`` in the order of their first ``width`` columns (their key) on PostgreSQL,
        where two writers must lock shared rows in one order; as they are on SQLite. The
        sort is stable: rows of one key keep their order, the last still winning."""
        if not self.dialect.postgres or len(rows) < 2:
            return rows
        return sorted(rows, key=itemgetter(*range(width)))

    def lock(self, conn, keys: Callable[[], Iterable[str]], *, kinds: bool = False,
             shared: Callable[[], Iterable[str]] | None = None) -> None:
        """On PostgreSQL, wait for and take the transaction's locks on ``keys()`` (issue keys,
        or with ``kinds`` catalogue kinds), and shared locks on the issue keys of ``shared()``
        that are not among them, all in one statement, in the one order every writer takes
        them in; nothing on SQLite, whose write lock the transaction already holds (neither
        is called).

        Then, for issue keys, the rows of those issues: every one the page will write, in key
        order, before it writes any. Writers that hold no key locks (the markings of many
        issues at once, hub.services.commands.sync_runs and reports) lock rows in key order too, so
        neither waits for a row while holding one past it; a page that locked its rows as it
        wrote them (a move re-keys the epics and parents pointing at the old key, in the
        order a scan finds them, then the page writes its own issues) could.
        """
        if not self.dialect.postgres:
            return
        held = list(keys())
        exclusive = {_lock_number(key): True for key in held}
        if shared is not None:
            for key in shared():
                exclusive.setdefault(_lock_number(key), False)
        if exclusive:
            numbers = sorted(exclusive)
            # One statement, the locks taken in the arrays' order (a function scan's).
            conn.execute("SELECT count(CASE WHEN x THEN pg_advisory_xact_lock(CAST(%s AS integer), n) "
                         "ELSE pg_advisory_xact_lock_shared(CAST(%s AS integer), n) END) "
                         "FROM unnest(CAST(%s AS integer[]), CAST(%s AS boolean[])) AS l(n, x)",
                         (_KIND_LOCKS if kinds else _KEY_LOCKS, _KIND_LOCKS if kinds else _KEY_LOCKS,
                          numbers, [exclusive[n] for n in numbers]))
        if held and not kinds:
            conn.execute(f"SELECT key FROM issue WHERE key IN {self.keys} ORDER BY key FOR UPDATE",
                         (orjson.dumps(held).decode(),))


def _lock_number(text: str) -> int:
    """A stable signed 32-bit number of ``text`` (two texts may share one: they then take turns)."""
    number = zlib.crc32(text.encode())
    return number - (1 << 32) if number >= 1 << 31 else number


def values_of(placeholder: str = "?") -> str:
    """The values of the JSON array bound at ``placeholder``, as a subquery, for SQL sent through
    ``database.execute_sql`` (``?`` on both engines)."""
    if current().postgres:
        return f"(SELECT jsonb_array_elements_text(CAST({placeholder} AS jsonb)))"
    return f"(SELECT value FROM json_each({placeholder}))"


def insertion_order() -> str:
    """An expression ordering ``issue_alias`` rows of one move time as they were written:
    ``rowid`` on both engines (the PostgreSQL baseline gives the table an identity of that
    name, which an upsert keeps, as SQLite's rowid is kept)."""
    return "rowid"


@lru_cache(maxsize=4)
def _sqlite_issue_upsert(columns: tuple[str, ...]) -> str:
    # The mask is the row's last value, after key, the columns, fetched_at and neighbor.
    mask = f"?{len(columns) + 4}"
    return (
        "INSERT INTO issue (key, {columns}, fetched_at, neighbor) VALUES ({values}) "
        "ON CONFLICT (key) DO UPDATE SET {updates}, fetched_at = excluded.fetched_at, "
        "neighbor = excluded.neighbor, gone_at = NULL, gone_reason = NULL"
    ).format(
        columns=", ".join(columns),
        values=", ".join(f"?{n}" for n in range(1, len(columns) + 4)),
        updates=", ".join(f"{c} = CASE WHEN {mask} & {1 << bit} THEN excluded.{c} ELSE issue.{c} END"
                          for bit, c in enumerate(columns)),
    )


@lru_cache(maxsize=4)
def _postgres_issue_copy(columns: tuple[str, ...]) -> Fresh:
    return Fresh("issue", ("key", *columns, "fetched_at", "neighbor"), (0,))


@lru_cache(maxsize=64)
def _postgres_issue_upsert(columns: tuple[str, ...], mask: int) -> str:
    sent = [c for bit, c in enumerate(columns) if mask & 1 << bit]
    # A column that fills from two fields (none does today) is set once.
    updates = "".join(f"{c} = excluded.{c}, " for c in dict.fromkeys(sent))
    return (f"INSERT INTO issue (key, {', '.join(columns)}, fetched_at, neighbor) "
            f"VALUES ({', '.join(['%s'] * (len(columns) + 3))}) "
            f"ON CONFLICT (key) DO UPDATE SET {updates}fetched_at = excluded.fetched_at, "
            "neighbor = excluded.neighbor, gone_at = NULL, gone_reason = NULL")


_CHANGE_COLUMNS = ("key, history_id, item_no, author, created, created_at, field, field_type, from_value, "
                   "from_string, to_value, to_string")

# Tables keyed by an issue's key (the column naming it), with their primary keys.
_PRIMARY_KEYS: dict[tuple[str, str], tuple[str, ...]] = {
    ("issue_comment", "key"): ("key", "comment_id"),
    ("issue_change", "key"): ("key", "history_id", "item_no"),
    ("issue_worklog", "key"): ("key", "worklog_id"),
    ("issue_sprint", "key"): ("key", "sprint_id"),
    ("issue_attachment", "key"): ("attachment_id",),
    ("issue_note", "key"): ("id",),
    ("issue_link", "source_key"): ("source_key", "target_key", "link_type"),
    ("issue_link", "target_key"): ("source_key", "target_key", "link_type"),
}


class _Sqlite:
    """SQLite's spelling of the pieces the engines write differently: the statements as
    the loader has always sent them."""

    dialect = Dialect("sqlite")
    mark = "?"
    keys = "(SELECT value FROM json_each(?))"

    @staticmethod
    def elements(alias: str | None = None, number: int | None = None) -> str:
        """The elements of a bound JSON array as a table (``value``: the element); ``number``
        names the parameter (one array bound once, read twice)."""
        table = f"json_each({'?' if number is None else f'?{number}'})"
        return f"{table} AS {alias}" if alias else table

    texts = elements  # (json_each gives a string element as text)

    @staticmethod
    def upsert(table: str, columns: str, conflict: str, *, nothing: bool = False) -> str:
        marks = ", ".join(["?"] * len(columns.split(",")))
        return f"INSERT OR {'IGNORE' if nothing else 'REPLACE'} INTO {table} ({columns}) VALUES ({marks})"

    @classmethod
    def fresh(cls, table: str, columns: str, conflict: str, *, nothing: bool = False) -> str | Fresh:
        """The insert of rows new to ``table`` (see :class:`Fresh`): SQLite's upsert."""
        return cls.upsert(table, columns, conflict, nothing=nothing)

    @staticmethod
    def rekey_child(table: str, column: str, primary: tuple[str, ...], moved: str) -> str:
        # OR IGNORE: a row the new key already holds stays as it has it.
        return f"UPDATE OR IGNORE {table} SET {column} = moved.new FROM {moved} WHERE {table}.{column} = moved.old"

    @staticmethod
    def moves_page_params(pairs: str, olds: str) -> tuple:
        return (pairs, olds)


class _Postgres:
    """PostgreSQL's spelling: psycopg's placeholders, jsonb, ON CONFLICT."""

    dialect = Dialect("postgresql")
    mark = "%s"
    keys = "(SELECT jsonb_array_elements_text(CAST(%s AS jsonb)))"

    @staticmethod
    def elements(alias: str | None = None, number: int | None = None) -> str:
        return f"jsonb_array_elements(CAST(%s AS jsonb)) AS {alias or 'm'}(value)"

    @staticmethod
    def texts(alias: str | None = None, number: int | None = None) -> str:
        return f"jsonb_array_elements_text(CAST(%s AS jsonb)) AS {alias or 'm'}(value)"

    @staticmethod
    def upsert(table: str, columns: str, conflict: str, *, nothing: bool = False) -> str:
        names = [name.strip() for name in columns.split(",")]
        marks = ", ".join(["%s"] * len(names))
        key = {name.strip() for name in conflict.split(",")}
        action = "NOTHING" if nothing else "UPDATE SET " + ", ".join(
            f"{name} = excluded.{name}" for name in names if name not in key)
        return f"INSERT INTO {table} ({columns}) VALUES ({marks}) ON CONFLICT ({conflict}) DO {action}"

    @staticmethod
    def fresh(table: str, columns: str, conflict: str, *, nothing: bool = False) -> str | Fresh:
        """The insert of rows new to ``table``: copied in (:class:`Fresh`)."""
        names = tuple(name.strip() for name in columns.split(","))
        return Fresh(table, names, tuple(names.index(name.strip()) for name in conflict.split(",")), first=nothing)

    @staticmethod
    def rekey_child(table: str, column: str, primary: tuple[str, ...], moved: str) -> str:
        """``UPDATE OR IGNORE`` of a child table: where the new key already holds the row's
        primary key, the row stays under the old key (and is deleted with it)."""
        statement = f"UPDATE {table} SET {column} = moved.new FROM {moved} WHERE {table}.{column} = moved.old"
        if column not in primary:
            return statement  # re-keying cannot meet another row
        same = " AND ".join(f"held.{name} = {'moved.new' if name == column else f'{table}.{name}'}"
                            for name in primary)
        return f"{statement} AND NOT EXISTS (SELECT 1 FROM {table} AS held WHERE {same})"

    @staticmethod
    def moves_page_params(pairs: str, olds: str) -> tuple:
        return (pairs, pairs, pairs, olds)  # each read of the pairs binds them again


def _build(engine: type[_Sqlite] | type[_Postgres]) -> MirrorSql:
    """The loader's statements, written once, in ``engine``'s spelling."""
    keys, mark, upsert = engine.keys, engine.mark, engine.upsert
    moved = f"(SELECT value ->> 0 AS old, value ->> 1 AS new FROM {engine.elements()}) AS moved"
    return MirrorSql(
        dialect=engine.dialect,
        keys=keys,
        known=f"SELECT key, neighbor, neighbor = 0 AND fetched_at >= {mark} FROM issue WHERE key IN {keys}",
        delete_links=f"DELETE FROM issue_link WHERE source_key IN {keys}",
        insert_link=upsert("issue_link", "source_key, target_key, link_type", "source_key, target_key, link_type",
                           nothing=True),
        delete_comments=f"DELETE FROM issue_comment WHERE key IN {keys}",
        insert_comment=engine.fresh("issue_comment", "key, comment_id, author, created, updated, body, created_at",
                                    "key, comment_id"),
        upsert_change=upsert("issue_change", _CHANGE_COLUMNS, "key, history_id, item_no"),
        delete_changes=f"DELETE FROM issue_change WHERE key IN {keys}",
        insert_change=engine.fresh("issue_change", _CHANGE_COLUMNS, "key, history_id, item_no"),
        delete_worklogs=f"DELETE FROM issue_worklog WHERE key IN {keys}",
        insert_worklog=engine.fresh("issue_worklog", "key, worklog_id, author, started, started_at, time_spent, "
                                    "comment, created, updated", "key, worklog_id"),
        delete_issue_sprints=f"DELETE FROM issue_sprint WHERE key IN {keys}",
        insert_issue_sprint=engine.fresh("issue_sprint", "key, sprint_id", "key, sprint_id", nothing=True),
        upsert_sprint=upsert("sprint", "sprint_id, name, state, start_date, end_date, complete_date, "
                             "board_id, goal, updated_at", "sprint_id"),
        delete_attachments=f"DELETE FROM issue_attachment WHERE key IN {keys} AND attachment_id NOT IN {keys}",
        delete_attachment_ids=f"DELETE FROM issue_attachment WHERE attachment_id IN {keys}",
        held_attachments=(
            f"SELECT asked.value, a.key, i.id, a.filename, a.size, f.size FROM {engine.texts('asked')} "
            "LEFT JOIN issue_attachment AS a ON a.attachment_id = asked.value "
            "LEFT JOIN issue AS i ON i.key = a.key "
            "LEFT JOIN attachment_file AS f ON f.attachment_id = asked.value"),
        upsert_attachment=upsert("issue_attachment", "attachment_id, key, filename, size, mime_type, author, "
                                 "created, created_at", "attachment_id"),
        # See hub.services.mirror.moves: the page's (key, id) pairs, bound once on SQLite
        # (?1), then the old keys its changelogs name.
        moves_page=(
            f"SELECT 0, s.value ->> 0, i.key, i.id FROM {engine.elements('s', 1)} "
            "JOIN issue AS i ON i.id = s.value ->> 1 AND i.key != s.value ->> 0 "
            f"UNION ALL SELECT 1, s.value ->> 0, i.key, i.id FROM {engine.elements('s', 1)} "
            "JOIN issue AS i ON i.key = s.value ->> 0 AND i.id != s.value ->> 1 "
            f"UNION ALL SELECT 2, a.old_key, a.key, NULL FROM {engine.elements('s', 1)} "
            "JOIN issue_alias AS a ON a.old_key = s.value ->> 0 "
            f"UNION ALL SELECT 3, c.value, i.id, a.key FROM {engine.texts('c', 2)} "
            "LEFT JOIN issue AS i ON i.key = c.value LEFT JOIN issue_alias AS a ON a.old_key = c.value"),
        moves_page_params=engine.moves_page_params,
        moved_map=moved,
        moved_old=f"(SELECT value ->> 0 FROM {engine.elements()})",
        rewritten=(f"SELECT key FROM issue WHERE epic_key IN {keys} UNION SELECT key FROM issue WHERE "
                   f"parent_key IN {keys} UNION SELECT source_key FROM issue_link WHERE target_key IN {keys} "
                   f"UNION SELECT old_key FROM issue_alias WHERE key IN {keys}"),
        upsert_alias=(f"INSERT INTO issue_alias (old_key, key, moved_at) VALUES ({mark}, {mark}, {mark}) "
                      "ON CONFLICT (old_key) DO UPDATE SET key = excluded.key"),
        delete_kind=f"DELETE FROM jira_catalogue WHERE kind = {mark}",
        insert_entry=upsert("jira_catalogue", "kind, jira_id, name, position, detail", "kind, jira_id"),
        # A user sent without a key or a display name keeps the one held.
        upsert_user=(f"INSERT INTO jira_user (name, user_key, display_name, updated_at) "
                     f"VALUES ({mark}, {mark}, {mark}, {mark}) "
                     "ON CONFLICT (name) DO UPDATE SET user_key = coalesce(excluded.user_key, jira_user.user_key), "
                     "display_name = coalesce(excluded.display_name, jira_user.display_name), "
                     "updated_at = excluded.updated_at"),
        rekey_children={(table, column): engine.rekey_child(table, column, primary, moved)
                        for (table, column), primary in _PRIMARY_KEYS.items()},
    )


@lru_cache(maxsize=2)
def _for(name: str) -> MirrorSql:
    return _build(_Postgres if name == "postgresql" else _Sqlite)


def mirror_sql() -> MirrorSql:
    """The loader's statements for the database the models are bound to now."""
    return _for(current().name)


def postgres_mirror_sql() -> MirrorSql:
    """PostgreSQL's statements, for work on a connection of its own (the search backlog's)."""
    return _for(POSTGRES.name)
