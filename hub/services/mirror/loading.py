"""Loading issue state from an agent into the mirror.

The rules of the data model: a field the agent does not send is kept (so are
``transitions`` and ``edit_fields``, Jira's screens of the issue, which v19 agents
send: null is "not known"); sent
``links`` replace the issue's outward rows (inward ones are added if missing);
sent ``comments``, ``worklogs``, ``sprints`` and ``attachments`` replace the
issue's lists (each sprint named also updates its ``sprint`` row, the last
naming in a page winning); ``changes`` are upserted by ``(key, history_id,
item_no)``. ``attachment_file`` is never
touched here, so a fetched file outlives a refreshed attachment list.
Only this module writes the mirror's issue tables.

A page is loaded set-based: one SELECT of what the mirror knows of the page's
keys, one upsert of every issue row, and per child table one DELETE and one
``executemany``, whatever the page's size, and two statements that keep the
full-text index in step. The write lock is held for the whole page, so the
statements are few and prepared once each; the Python around them is kept to
comprehensions over the page (the issue rows are built a column at a time) and
orjson's encoding of JSON columns, since for issues with many custom fields it
costs as much as the statements. The result is
the same as applying the page's states one after the other, in order
(``issues``, then the ``neighbors`` the page does not load as matches):
where a page names a key twice, or two keys of one Jira issue (moved to
another project) claim one attachment, the sets below are built to end where
the one-by-one application would. A state whose Jira id the mirror holds under
another key moves that issue first (:mod:`hub.services.mirror.moves`: one more
SELECT for a page without moves; a page whose moves depend on its order is
applied one state at a time). What Jira cannot produce of attachments
(one claimed by two Jira issues, one fetched and renamed) refuses the page
before anything is written.

The full-text index (``issue_fts``, external content read from the view
``issue_search``) stores no text: FTS5 removes an issue's entries only when told
the text it indexed. So, before anything changes, the issues whose text the page
may change (it sends ``summary``, ``description``, ``comments``, ``environment``
or ``custom_fields``) are removed
with their current text in one statement; after the page is written, those and
the new issues are indexed again from the view in another. (Those statements are
:mod:`hub.dialect.fulltext`'s; an engine whose index needs none has them None. On
PostgreSQL both only mark the keys, whose vectors :mod:`hub.services.search.fulltext_backlog`
computes once the page has committed.)

The statements are the engine's (:mod:`hub.dialect.mirror`): on SQLite the page
holds the one write lock; on PostgreSQL it first takes a lock on each issue key
it writes (and a shared one on each key it points at), in one order for every
writer, so that two pages sharing issues take turns (each reading the mirror once
it holds its keys) and cannot deadlock, and it writes rows that are no issue's
(sprints) in key order. A page whose moves write rows of keys it did not lock
(an old key found by Jira id, the issues whose epic or parent is that key) rolls
back to a savepoint taken before its locks, which lets go of them, and takes them
again with those keys, in the same one statement and order.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from dataclasses import dataclass

import orjson
from peewee import __exception_wrapper__ as sqlite_errors_as_peewee  # type: ignore[attr-defined]  # not in peewee's stubs

from hub import dialect
from hub.clock import jira_to_utc
from hub.errors import ContractError
from hub.services.mirror.moves import KeysToHold, page_keys, pointed_keys, rekey

# State fields stored under the same name; ``updated`` goes to ``jira_updated``,
# and in UTC to ``jira_updated_at``; ``resolved`` is kept as sent and in UTC in
# ``resolved_at``; ``custom_fields`` also gives ``custom_text`` (its text, for search).
FIELDS = (
    "id", "issue_type", "summary", "description", "status", "priority", "assignee",
    "reporter", "duedate", "planned_start", "planned_end", "epic_key", "labels",
    "sprint", "created", "resolution", "resolved", "components", "fix_versions",
    "affects_versions", "environment", "parent_key", "time_original_estimate",
    "time_estimate", "time_spent", "custom_fields", "transitions", "edit_fields",
)
# (state field, column); the bit of each in a row's ``sent`` mask is its index.
_COLUMNS = (*((name, name) for name in FIELDS), ("updated", "jira_updated"), ("updated", "jira_updated_at"),
            ("resolved", "resolved_at"), ("custom_fields", "custom_text"))
# Fields held as JSON text.
_JSON_FIELDS = frozenset({"labels", "components", "fix_versions", "affects_versions", "custom_fields",
                          "transitions", "edit_fields"})
# Fields of whole seconds (a JSON number such as 3600.0 is stored as 3600).
_SECONDS_FIELDS = frozenset({"time_original_estimate", "time_estimate", "time_spent"})
# Columns that hold a Jira time of the state in UTC.
_UTC_COLUMNS = frozenset({"jira_updated_at", "resolved_at"})
# What a column not sent holds in a new row: the schema's defaults.
_INSERT_DEFAULTS = {"summary": "", "labels": "[]", "components": "[]", "fix_versions": "[]",
                    "affects_versions": "[]", "custom_fields": "{}"}
# How each column's value is made from its state field (see _issue_rows): as sent, as
# sent or the default when null (NOT NULL columns), JSON text (null: the default),
# UTC, whole seconds, or the text of custom fields.
_PLAIN, _REQUIRED, _JSON, _UTC, _SECONDS, _TEXT = "plain", "required", "json", "utc", "seconds", "text"
_PLAN = tuple(
    (name,
     _TEXT if column == "custom_text" else _JSON if name in _JSON_FIELDS else _UTC if column in _UTC_COLUMNS
     else _SECONDS if name in _SECONDS_FIELDS else _REQUIRED if column in _INSERT_DEFAULTS else _PLAIN,
     _INSERT_DEFAULTS.get(column))
    for name, column in _COLUMNS)
# A state field's bits in the mask: a field may fill more than one column.
_FIELD_BITS: dict[str, int] = {}
for _bit, (_name, _) in enumerate(_COLUMNS):
    _FIELD_BITS[_name] = _FIELD_BITS.get(_name, 0) | 1 << _bit

# The issue table's columns a page fills, in the order of _COLUMNS (the mask's bits).
_ISSUE_COLUMNS = tuple(column for _, column in _COLUMNS)
# Jira's screens of an issue, which follow its status (see _sent_mask).
_SCREENS = ("transitions", "edit_fields")
# The fields whose change changes what the full-text index holds of an issue.
_SEARCHED = ("summary", "description", "comments", "environment", "custom_fields")


@dataclass(frozen=True)
class RunContext:
    """What the neighbour rule needs to know about the run a page belongs to."""

    full: bool
    started_at: str
    now: str


class MirrorService:
    """Writes agents' state pages into the mirror's issue tables."""

    def load_page(self, issues: list[dict], neighbors: list[dict], run: RunContext) -> None:
        """Apply one page of states; call inside the report's transaction.

        A page that would move an attachment to another Jira issue, or rename
        or resize one whose content the hub holds, is refused whole
        (:class:`ContractError` naming the field) before anything is written.
        """
        in_issues = {state["key"] for state in issues}
        # The states in the order they apply, each with where the page has it;
        # a neighbour the same page loads as a match is not applied at all.
        placed = [*((state, f"issues.{n}") for n, state in enumerate(issues)),
                  *((state, f"neighbors.{n}") for n, state in enumerate(neighbors)
                    if state["key"] not in in_issues)]
        if not placed:
            return
        conn, sql = dialect.mirror.connection(), dialect.mirror.mirror_sql()
        with sqlite_errors_as_peewee:  # the API maps Peewee's errors (busy, disk full) to answers
            if not sql.dialect.postgres:
                self._apply(conn, sql, placed, run, None)  # the write lock is the page's already
                return
            # PostgreSQL: wait for the page's keys before reading what the mirror holds of
            # them (and, shared, for the keys its states point at, which a move re-keys). A
            # move may write rows of keys the page does not name (its issue's old key found
            # by its Jira id, issues whose epic or parent is that key): the page then lets go
            # of every lock it took (the savepoint's) and takes them again with those, all in
            # one statement, so that no key is ever waited for out of the one order while
            # another is held.
            states = [state for state, _ in placed]
            held, pointed = page_keys(states), pointed_keys(states)
            conn.execute("SAVEPOINT mirror_page")
            while (more := self._locked(conn, sql, placed, run, held, pointed)) is not None:
                conn.execute("ROLLBACK TO SAVEPOINT mirror_page")
                held |= more
            conn.execute("RELEASE SAVEPOINT mirror_page")

    def _locked(self, conn, sql: dialect.mirror.MirrorSql, placed: list[tuple[dict, str]], run: RunContext,
                held: set[str], pointed: set[str]) -> set[str] | None:
        """PostgreSQL: take the locks of ``held`` (and shared, of ``pointed``) and write the
        page; or, when its moves write rows of keys beyond ``held``, answer those (before
        anything is written) for the page to start again."""
        sql.lock(conn, lambda: held, shared=lambda: pointed)
        try:
            self._apply(conn, sql, placed, run, held)
        except KeysToHold as more:
            return more.keys
        return None

    def _apply(self, conn, sql: dialect.mirror.MirrorSql, placed: list[tuple[dict, str]], run: RunContext,
               held: set[str] | None) -> None:
        """Write the ``placed`` states, whose keys' locks the transaction holds (``held``:
        the keys, on PostgreSQL; None on SQLite, where it holds the write lock)."""
        states = [state for state, _ in placed]
        _check_attachments(conn, sql, placed)
        moved = rekey(conn, sql, states, run.now, held)
        if moved is None:
            # The page's moves depend on its order (see hub.services.mirror.moves), which
            # Jira hardly ever sends: its states one at a time, in that order.
            for one in placed:
                self._apply(conn, sql, [one], run, held)
            return
        known = {key: (flag, loaded) for key, flag, loaded in conn.execute(
            sql.known, (run.started_at, _json([state["key"] for state in states])))}
        flags = [self._flag(known.get(state["key"]), where.startswith("issues."), run.full)
                 for state, where in placed]
        # Indexed again: what may change its text, and what is new (a moved
        # issue left the index when it was re-keyed).
        reindex = sorted({state["key"] for state in states
                          if state["key"] not in known or any(f in state for f in _SEARCHED)} | moved)
        if reindex and sql.unindex is not None:
            conn.execute(sql.unindex, (_json([key for key in reindex if key in known and key not in moved]),))
        times = _Times()
        rows = _issue_rows(states, flags, run.now, times)
        for statement, run_rows in sql.issue_upserts(_ISSUE_COLUMNS, rows, known.keys()):
            conn.executemany(statement, run_rows)
        self._links(conn, sql, states)
        self._comments(conn, sql, states, times)
        self._worklogs(conn, sql, states, times)
        self._sprints(conn, sql, states, run.now)
        self._changes(conn, sql, states, times, known.keys())
        self._attachments(conn, sql, states, times)
        if reindex and sql.index is not None:
            conn.execute(sql.index, (_json(reindex),))

    @staticmethod
    def _flag(known: tuple[int, int] | None, match: bool, full: bool) -> int:
        if full:
            if match:
                return 0
            # A full run sets neighbor = 0 on what it loads as a match, so a row
            # with 0 fetched since the run began was loaded by it in ``issues``.
            return 0 if known is not None and known[1] else 1
        # Not a full run: a known issue keeps its flag, a new one is a neighbour.
        return known[0] if known is not None else 1

    @staticmethod
    def _links(conn, sql: dialect.mirror.MirrorSql, states: list[dict]) -> None:
        last = _last_positions(states, "links")
        if not last:
            return
        conn.execute(sql.delete_links, (_json(list(last)),))
        rows = set()
        for position, state in enumerate(states):
            if "links" not in state:
                continue
            key = state["key"]
            if last[key] == position:  # an earlier sending of the same key is replaced
                rows |= {(key, link["outward"], link["type"]) for link in state["links"]
                         if "outward" in link}
            # An inward row is the source's: a later sending of the source replaces it.
            rows |= {(link["inward"], key, link["type"]) for link in state["links"]
                     if "inward" in link and last.get(link["inward"], -1) <= position}
        conn.executemany(sql.insert_link, sorted(rows))

    @staticmethod
    def _comments(conn, sql: dialect.mirror.MirrorSql, states: list[dict], times: _Times) -> None:
        last = _last_positions(states, "comments")
        if not last:
            return
        conn.execute(sql.delete_comments, (_json(list(last)),))
        conn.executemany(sql.insert_comment, sql.ordered([
            (state["key"], c["id"], c.get("author"), c.get("created"), c.get("updated"),
             c.get("body") or "", times.utc(c.get("created")))
            for position, state in enumerate(states) if last.get(state["key"]) == position
            for c in state["comments"]], 2))

    @staticmethod
    def _worklogs(conn, sql: dialect.mirror.MirrorSql, states: list[dict], times: _Times) -> None:
        last = _last_positions(states, "worklogs")
        if not last:
            return
        conn.execute(sql.delete_worklogs, (_json(list(last)),))
        conn.executemany(sql.insert_worklog, sql.ordered([
            (state["key"], w["id"], w.get("author"), w.get("started"), times.utc(w.get("started")),
             _integer(w.get("time_spent")), w.get("comment"), w.get("created"), w.get("updated"))
            for position, state in enumerate(states) if last.get(state["key"]) == position
            for w in state["worklogs"]], 2))

    @staticmethod
    def _sprints(conn, sql: dialect.mirror.MirrorSql, states: list[dict], now: str) -> None:
        """An issue's sprints replace its ``issue_sprint`` rows; each sprint named updates its
        ``sprint`` row (the last naming in the page wins, as one-by-one application would)."""
        last = _last_positions(states, "sprints")
        if not last:
            return
        conn.execute(sql.delete_issue_sprints, (_json(list(last)),))
        conn.executemany(sql.insert_issue_sprint, sql.ordered([
            (state["key"], _integer(sprint["id"]))
            for position, state in enumerate(states) if last.get(state["key"]) == position
            for sprint in state["sprints"]], 2))
        sprints: dict[int, tuple] = {}
        for state in states:
            for sprint in state.get("sprints", ()):
                sid = _integer(sprint["id"])
                # Ids are distinct in the statement, so the last naming's row is all that counts.
                sprints[sid] = (sid, sprint["name"], sprint.get("state"), sprint.get("start"),
                                sprint.get("end"), sprint.get("complete"), _integer(sprint.get("board_id")),
                                sprint.get("goal"), now)
        conn.executemany(sql.upsert_sprint, sql.ordered(list(sprints.values()), 1))

    @staticmethod
    def _changes(conn, sql: dialect.mirror.MirrorSql, states: list[dict], times: _Times,
                 known: Collection[str]) -> None:
        """A known issue's changes are upserted (a changelog sent again adds what is new);
        an issue new to the mirror has none yet, so its rows are inserted anew."""
        rows = [
            (state["key"], change["id"], item_no, change.get("author"), change["created"],
             times.utc(change["created"]), item["field"], item.get("field_type"), item.get("from"),
             item.get("from_string"), item.get("to"), item.get("to_string"))
            for state in states if "changes" in state
            for change in state["changes"] for item_no, item in enumerate(change["items"])]
        new = {row[0] for row in rows if row[0] not in known}
        if new:
            conn.execute(sql.delete_changes, (_json(sorted(new)),))
            conn.executemany(sql.insert_change, sql.ordered([row for row in rows if row[0] in new], 3))
        rest = [row for row in rows if row[0] not in new]
        if rest:
            conn.executemany(sql.upsert_change, sql.ordered(rest, 3))

    @staticmethod
    def _attachments(conn, sql: dialect.mirror.MirrorSql, states: list[dict], times: _Times) -> None:
        last = _last_positions(states, "attachments")
        if not last:
            return
        # An attachment id belongs to the issue that names it last; it stays
        # only if that sending is the issue's last one (a later list of the
        # same issue without it removes it).
        final: dict[str, tuple[int, str, dict]] = {}
        named: set[str] = set()
        for position, state in enumerate(states):
            for a in state.get("attachments", ()):
                named.add(a["id"])
                final.pop(a["id"], None)  # keeps the dict in the order of last naming
                final[a["id"]] = (position, state["key"], a)
        rows = {aid: (key, a) for aid, (position, key, a) in final.items() if last[key] == position}
        conn.execute(sql.delete_attachments, (_json(list(last)), _json(list(rows))))
        dropped = named - rows.keys()
        if dropped:
            conn.execute(sql.delete_attachment_ids, (_json(sorted(dropped)),))
        conn.executemany(sql.upsert_attachment, sql.ordered([
            (aid, key, a["filename"], _integer(a.get("size")), a.get("mime_type"), a.get("author"),
             a.get("created"), times.utc(a.get("created")))
            for aid, (key, a) in rows.items()], 1))


def _check_attachments(conn, sql: dialect.mirror.MirrorSql, placed: list[tuple[dict, str]]) -> None:
    """Refuse what Jira cannot produce of attachments, and what would drift a
    fetched file from its name or size.

    An attachment belongs to one Jira issue: it follows the issue when Jira
    moves it (a new key, the same Jira id), never to another one. And Jira never
    renames or resizes an attachment, so a new name or size for one whose
    content the hub holds would serve the old bytes as something else. (One no
    longer listed keeps no name in the mirror: listed again, only its size is
    held to what was fetched. Jira never lists a removed attachment again, and
    cleanup removes the file of one that no issue lists.)
    """
    named: dict[str, tuple[dict, str, dict]] = {}  # id -> (its state, its field, itself)
    for state, where in placed:
        for n, a in enumerate(state.get("attachments", ())):
            field = f"{where}.attachments.{n}"
            first = named.get(a["id"])
            if first is not None and first[0]["id"] != state["id"]:
                raise ContractError(
                    f"{field}.id: attachment {a['id']} is listed by {first[0]['key']} (Jira id "
                    f"{first[0]['id']}) and by {state['key']} (Jira id {state['id']}) in one page; "
                    "an attachment belongs to one issue", f"{field}.id")
            named[a["id"]] = (state, field, a)
    if not named:
        return
    # A key the page sends has the page's Jira id from now on.
    ids = {state["key"]: state["id"] for state, _ in placed}
    rows = conn.execute(sql.held_attachments, (_json(list(named)),))
    for aid, key, issue_id, filename, listed_size, held_size in rows:
        state, field, a = named[aid]
        owner_id = ids.get(key, issue_id)
        # (An issue of an old mirror may have no Jira id: then nothing says it moved.)
        if key is not None and key != state["key"] and owner_id not in (None, state["id"]):
            raise ContractError(
                f"{field}.id: attachment {aid} belongs to {key} (Jira id {owner_id}), not to "
                f"{state['key']} (Jira id {state['id']}); an attachment moves only with its issue",
                f"{field}.id")
        if held_size is None:
            continue
        if filename is not None and a["filename"] != filename:
            raise ContractError(
                f"{field}.filename: attachment {aid} was fetched as {_excerpt(filename)}; Jira does "
                "not rename an attachment, and its content would be served under another name",
                f"{field}.filename")
        # The size it is listed with, or (listed no more, or its size unknown) the
        # size of what was fetched.
        was = listed_size if key is not None and listed_size is not None else held_size
        size = _integer(a.get("size"))
        if size is not None and was is not None and size != was:
            raise ContractError(
                f"{field}.size: attachment {aid} was fetched when it had {was} bytes, not {size}; "
                "Jira does not change an attachment's content", f"{field}.size")


def _excerpt(text: str, limit: int = 40) -> str:
    return json.dumps(text if len(text) <= limit else text[:limit] + "…", ensure_ascii=False)


class _Times:
    """:func:`jira_to_utc` once per distinct text: a page repeats its times a lot."""

    def __init__(self) -> None:
        self._seen: dict[object, str | None] = {}

    def utc(self, value: object) -> str | None:
        if not isinstance(value, str):
            return None
        try:
            return self._seen[value]
        except KeyError:
            converted = self._seen[value] = jira_to_utc(value)
            return converted


def _issue_rows(states: list[dict], flags: list[int], now: str, times: _Times) -> list[tuple]:
    """``(key, *columns, fetched_at, neighbor, sent)`` of each state, for the issue upsert
    (:meth:`hub.dialect.mirror.MirrorSql.issue_upserts`).

    Built a column at a time (one comprehension per column, then ``zip``): a
    page's states send the same fields, so each column is one kind of work
    over the whole page, and no state walks the list of columns. A column not
    sent holds the schema's default (the mask keeps a known row's value); a
    null sent for a required column, its default.
    """
    columns: list[list] = [[state["key"] for state in states]]
    for name, kind, default in _PLAN:
        if kind is _PLAIN:
            columns.append([state.get(name) for state in states])
        elif kind is _JSON:
            columns.append([default if (value := state.get(name)) is None else _dumps(value)
                            for state in states])
        elif kind is _UTC:
            columns.append([times.utc(state.get(name)) for state in states])
        elif kind is _SECONDS:
            columns.append([_integer(state.get(name)) for state in states])
        elif kind is _TEXT:
            columns.append([custom_text(state.get(name)) for state in states])
        else:  # _REQUIRED: a plain column that is NOT NULL
            columns.append([default if (value := state.get(name)) is None else value
                            for state in states])
    # The mask of sent columns: states with the same fields in the same order
    # (a page's usually are) share one.
    masks: dict[tuple, int] = {}
    sent = []
    for state in states:
        fields = tuple(state)
        mask = masks.get(fields)
        if mask is None:
            mask = masks[fields] = _sent_mask(fields)
        sent.append(mask)
    return list(zip(*columns, [now] * len(states), flags, sent, strict=True))


def _sent_mask(fields) -> int:
    """The bits of :data:`_COLUMNS` whose state field is among ``fields``. A state that sends the
    status without the screens (an agent below v19) leaves them unknown (NULL), not as they were:
    the transitions Jira offers follow the status, and the ones kept would be another status's."""
    mask = 0
    for name in fields:
        mask |= _FIELD_BITS.get(name, 0)
    if "status" in fields:
        for screen in _SCREENS:
            if screen not in fields:
                mask |= _FIELD_BITS[screen]
    return mask


def custom_text(custom_fields: dict | None) -> str | None:
    """The text values of custom fields (strings anywhere inside each ``value``), one per
    line in field order: what the full-text index reads of them; None when there are none."""
    texts: list[str] = []
    for field in (custom_fields or {}).values():
        if isinstance(field, dict):
            value = field.get("value")
            # Most values are a string, a number or a flat list: no call for those.
            if isinstance(value, str):
                texts.append(value)
            elif isinstance(value, list | dict):
                _strings_in(value, texts)
    return "\n".join(texts) or None


def _strings_in(value: list | dict, texts: list[str]) -> None:
    for item in value.values() if isinstance(value, dict) else value:
        if isinstance(item, str):
            texts.append(item)
        elif isinstance(item, list | dict):
            _strings_in(item, texts)


def _last_positions(states: list[dict], field: str) -> dict[str, int]:
    """Each key that sent ``field``, and the position of its last sending."""
    return {state["key"]: position for position, state in enumerate(states) if field in state}


def _integer(value):
    # JSON Schema counts 48213.0 as an integer; the column holds 48213.
    return int(value) if isinstance(value, float) else value


def _dumps(value: object) -> str:
    """JSON text of a value sent (compact, UTF-8 as is). orjson writes it several
    times faster than json; past what it writes (an integer beyond 64 bits) json does."""
    try:
        return orjson.dumps(value).decode()
    except orjson.JSONEncodeError:
        return json.dumps(value, ensure_ascii=False)


def _json(values: list) -> str:
    return _dumps(values)
