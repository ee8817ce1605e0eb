"""Loading issue state from an agent into the mirror.

The rules of the data model: a field the agent does not send is kept; sent
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
another key moves that issue first (:mod:`hub.services.mirror_moves`: one more
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
the new issues are indexed again from the view in another.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import orjson
from peewee import __exception_wrapper__ as sqlite_errors_as_peewee  # type: ignore[attr-defined]  # not in peewee's stubs

from hub.clock import jira_to_utc
from hub.db import database
from hub.errors import ContractError
from hub.services.mirror_moves import KEYS, UNINDEX, rekey

# State fields stored under the same name; ``updated`` goes to ``jira_updated``,
# and in UTC to ``jira_updated_at``; ``resolved`` is kept as sent and in UTC in
# ``resolved_at``; ``custom_fields`` also gives ``custom_text`` (its text, for search).
FIELDS = (
    "id", "issue_type", "summary", "description", "status", "priority", "assignee",
    "reporter", "duedate", "planned_start", "planned_end", "epic_key", "labels",
    "sprint", "created", "resolution", "resolved", "components", "fix_versions",
    "affects_versions", "environment", "parent_key", "time_original_estimate",
    "time_estimate", "time_spent", "custom_fields",
)
# (state field, column); the bit of each in a row's ``sent`` mask is its index.
_COLUMNS = (*((name, name) for name in FIELDS), ("updated", "jira_updated"), ("updated", "jira_updated_at"),
            ("resolved", "resolved_at"), ("custom_fields", "custom_text"))
# Fields held as JSON text.
_JSON_FIELDS = frozenset({"labels", "components", "fix_versions", "affects_versions", "custom_fields"})
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

# One statement for every issue of a page, whatever fields each sent: a new
# row takes the sent values (defaults elsewhere), a known row changes only the
# columns whose bit is set in the row's mask, so what an agent did not send is
# kept. The mask is the row's last value, after key, the columns, fetched_at
# and neighbor. A gone issue whose state a page loads is back: Jira returned it.
_MASK = f"?{len(_COLUMNS) + 4}"
_UPSERT_ISSUE = (
    "INSERT INTO issue (key, {columns}, fetched_at, neighbor) VALUES ({values}) "
    "ON CONFLICT (key) DO UPDATE SET {updates}, fetched_at = excluded.fetched_at, "
    "neighbor = excluded.neighbor, gone_at = NULL, gone_reason = NULL"
).format(
    columns=", ".join(column for _, column in _COLUMNS),
    values=", ".join(f"?{n}" for n in range(1, len(_COLUMNS) + 4)),
    updates=", ".join(f"{c} = CASE WHEN {_MASK} & {1 << bit} THEN excluded.{c} ELSE issue.{c} END"
                      for bit, (_, c) in enumerate(_COLUMNS)),
)
# A page's keys travel as one JSON array (KEYS): one bound value whatever their number.
_KNOWN = ("SELECT key, neighbor, neighbor = 0 AND fetched_at >= ? FROM issue "
          f"WHERE key IN {KEYS}")
_DELETE_LINKS = f"DELETE FROM issue_link WHERE source_key IN {KEYS}"
_INSERT_LINK = "INSERT OR IGNORE INTO issue_link (source_key, target_key, link_type) VALUES (?, ?, ?)"
_DELETE_COMMENTS = f"DELETE FROM issue_comment WHERE key IN {KEYS}"
_INSERT_COMMENT = ("INSERT OR REPLACE INTO issue_comment (key, comment_id, author, created, updated, "
                   "body, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)")
_UPSERT_CHANGE = ("INSERT OR REPLACE INTO issue_change (key, history_id, item_no, author, created, "
                  "created_at, field, field_type, from_value, from_string, to_value, to_string) "
                  "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
_DELETE_WORKLOGS = f"DELETE FROM issue_worklog WHERE key IN {KEYS}"
_INSERT_WORKLOG = ("INSERT OR REPLACE INTO issue_worklog (key, worklog_id, author, started, started_at, "
                   "time_spent, comment, created, updated) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")
_DELETE_ISSUE_SPRINTS = f"DELETE FROM issue_sprint WHERE key IN {KEYS}"
_INSERT_ISSUE_SPRINT = "INSERT OR IGNORE INTO issue_sprint (key, sprint_id) VALUES (?, ?)"
_UPSERT_SPRINT = ("INSERT OR REPLACE INTO sprint (sprint_id, name, state, start_date, end_date, "
                  "complete_date, board_id, goal, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")
_DELETE_ATTACHMENTS = (f"DELETE FROM issue_attachment WHERE key IN {KEYS} "
                       f"AND attachment_id NOT IN {KEYS}")
_DELETE_ATTACHMENT_IDS = f"DELETE FROM issue_attachment WHERE attachment_id IN {KEYS}"
# The fields whose change changes what the full-text index holds of an issue.
_SEARCHED = ("summary", "description", "comments", "environment", "custom_fields")
_INDEX = ("INSERT INTO issue_fts (rowid, key, summary, description, comments, other) "
          f"SELECT doc, key, summary, description, comments, other FROM issue_search WHERE key IN {KEYS}")
# What the mirror holds of the attachments a page names: the issue listing
# each (and that issue's Jira id), and the size of its fetched content.
_HELD_ATTACHMENTS = (
    "SELECT asked.value, a.key, i.id, a.filename, a.size, f.size FROM json_each(?) AS asked "
    "LEFT JOIN issue_attachment AS a ON a.attachment_id = asked.value "
    "LEFT JOIN issue AS i ON i.key = a.key "
    "LEFT JOIN attachment_file AS f ON f.attachment_id = asked.value")
_UPSERT_ATTACHMENT = ("INSERT OR REPLACE INTO issue_attachment (attachment_id, key, filename, size, "
                      "mime_type, author, created, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")


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
        states = [state for state, _ in placed]
        if not states:
            return
        conn = database.connection()
        with sqlite_errors_as_peewee:  # the API maps Peewee's errors (busy, disk full) to answers
            _check_attachments(conn, placed)
            moved = rekey(conn, states, run.now)
            if moved is None:
                self._one_by_one(placed, run)
                return
            known = {key: (flag, loaded) for key, flag, loaded in conn.execute(
                _KNOWN, (run.started_at, _json([state["key"] for state in states])))}
            flags = [self._flag(known.get(state["key"]), position < len(issues), run.full)
                     for position, state in enumerate(states)]
            # Indexed again: what may change its text, and what is new (a moved
            # issue left the index when it was re-keyed).
            reindex = sorted({state["key"] for state in states
                              if state["key"] not in known or any(f in state for f in _SEARCHED)} | moved)
            if reindex:
                conn.execute(UNINDEX, (_json([key for key in reindex if key in known and key not in moved]),))
            times = _Times()
            conn.executemany(_UPSERT_ISSUE, _issue_rows(states, flags, run.now, times))
            self._links(conn, states)
            self._comments(conn, states, times)
            self._worklogs(conn, states, times)
            self._sprints(conn, states, run.now)
            self._changes(conn, states, times)
            self._attachments(conn, states, times)
            if reindex:
                conn.execute(_INDEX, (_json(reindex),))

    def _one_by_one(self, placed: list[tuple[dict, str]], run: RunContext) -> None:
        """Apply the states one at a time, in order: for a page whose moves depend on it
        (see :mod:`hub.services.mirror_moves`), which Jira hardly ever sends."""
        for state, where in placed:
            if where.startswith("issues."):
                self.load_page([state], [], run)
            else:
                self.load_page([], [state], run)

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
    def _links(conn, states: list[dict]) -> None:
        last = _last_positions(states, "links")
        if not last:
            return
        conn.execute(_DELETE_LINKS, (_json(list(last)),))
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
        conn.executemany(_INSERT_LINK, sorted(rows))

    @staticmethod
    def _comments(conn, states: list[dict], times: _Times) -> None:
        last = _last_positions(states, "comments")
        if not last:
            return
        conn.execute(_DELETE_COMMENTS, (_json(list(last)),))
        conn.executemany(_INSERT_COMMENT, [
            (state["key"], c["id"], c.get("author"), c.get("created"), c.get("updated"),
             c.get("body") or "", times.utc(c.get("created")))
            for position, state in enumerate(states) if last.get(state["key"]) == position
            for c in state["comments"]])

    @staticmethod
    def _worklogs(conn, states: list[dict], times: _Times) -> None:
        last = _last_positions(states, "worklogs")
        if not last:
            return
        conn.execute(_DELETE_WORKLOGS, (_json(list(last)),))
        conn.executemany(_INSERT_WORKLOG, [
            (state["key"], w["id"], w.get("author"), w.get("started"), times.utc(w.get("started")),
             _integer(w.get("time_spent")), w.get("comment"), w.get("created"), w.get("updated"))
            for position, state in enumerate(states) if last.get(state["key"]) == position
            for w in state["worklogs"]])

    @staticmethod
    def _sprints(conn, states: list[dict], now: str) -> None:
        """An issue's sprints replace its ``issue_sprint`` rows; each sprint named updates its
        ``sprint`` row (the last naming in the page wins, as one-by-one application would)."""
        last = _last_positions(states, "sprints")
        if not last:
            return
        conn.execute(_DELETE_ISSUE_SPRINTS, (_json(list(last)),))
        conn.executemany(_INSERT_ISSUE_SPRINT, [
            (state["key"], _integer(sprint["id"]))
            for position, state in enumerate(states) if last.get(state["key"]) == position
            for sprint in state["sprints"]])
        sprints: dict[int, tuple] = {}
        for state in states:
            for sprint in state.get("sprints", ()):
                sid = _integer(sprint["id"])
                # Ids are distinct in the statement, so the last naming's row is all that counts.
                sprints[sid] = (sid, sprint["name"], sprint.get("state"), sprint.get("start"),
                                sprint.get("end"), sprint.get("complete"), _integer(sprint.get("board_id")),
                                sprint.get("goal"), now)
        conn.executemany(_UPSERT_SPRINT, list(sprints.values()))

    @staticmethod
    def _changes(conn, states: list[dict], times: _Times) -> None:
        rows = [
            (state["key"], change["id"], item_no, change.get("author"), change["created"],
             times.utc(change["created"]), item["field"], item.get("field_type"), item.get("from"),
             item.get("from_string"), item.get("to"), item.get("to_string"))
            for state in states if "changes" in state
            for change in state["changes"] for item_no, item in enumerate(change["items"])]
        if rows:
            conn.executemany(_UPSERT_CHANGE, rows)

    @staticmethod
    def _attachments(conn, states: list[dict], times: _Times) -> None:
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
        conn.execute(_DELETE_ATTACHMENTS, (_json(list(last)), _json(list(rows))))
        dropped = named - rows.keys()
        if dropped:
            conn.execute(_DELETE_ATTACHMENT_IDS, (_json(sorted(dropped)),))
        conn.executemany(_UPSERT_ATTACHMENT, [
            (aid, key, a["filename"], _integer(a.get("size")), a.get("mime_type"), a.get("author"),
             a.get("created"), times.utc(a.get("created")))
            for aid, (key, a) in rows.items()])


def _check_attachments(conn, placed: list[tuple[dict, str]]) -> None:
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
    rows = conn.execute(_HELD_ATTACHMENTS, (_json(list(named)),))
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
    """``(key, *columns, fetched_at, neighbor, sent)`` of each state, for :data:`_UPSERT_ISSUE`.

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
    """The bits of :data:`_COLUMNS` whose state field is among ``fields``."""
    mask = 0
    for name in fields:
        mask |= _FIELD_BITS.get(name, 0)
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
