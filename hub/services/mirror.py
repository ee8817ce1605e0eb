"""Loading issue state from an agent into the mirror.

The rules of the data model: a field the agent does not send is kept; sent
``links`` replace the issue's outward rows (inward ones are added if missing);
sent ``comments`` and ``attachments`` replace the issue's lists; ``changes``
are upserted by ``(key, history_id, item_no)``. ``attachment_file`` is never
touched here, so a fetched file outlives a refreshed attachment list.
Only this module writes the mirror's issue tables.

A page is loaded set-based: one SELECT of what the mirror knows of the page's
keys, one upsert of every issue row, and per child table one DELETE and one
``executemany``, whatever the page's size, and two statements that keep the
full-text index in step. The write lock is held for the whole page, so the
statements are few and prepared once each. The result is
the same as applying the page's states one after the other, in order
(``issues``, then the ``neighbors`` the page does not load as matches):
where a page names a key twice, or two issues claim one attachment, the
sets below are built to end where the one-by-one application would.

The full-text index (``issue_fts``, external content read from the view
``issue_search``) stores no text: FTS5 removes an issue's entries only when told
the text it indexed. So, before anything changes, the issues whose text the page
may change (it sends ``summary``, ``description`` or ``comments``) are removed
with their current text in one statement; after the page is written, those and
the new issues are indexed again from the view in another.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from peewee import __exception_wrapper__ as sqlite_errors_as_peewee

from hub.clock import jira_to_utc
from hub.db import database

# State fields stored under the same name; ``updated`` goes to ``jira_updated``,
# and in UTC to ``jira_updated_at``.
FIELDS = (
    "id", "issue_type", "summary", "description", "status", "priority", "assignee",
    "reporter", "duedate", "planned_start", "planned_end", "epic_key", "labels",
    "sprint", "created",
)
# (state field, column); the bit of each in a row's ``sent`` mask is its index.
_COLUMNS = tuple((name, name) for name in FIELDS) + (("updated", "jira_updated"),
                                                     ("updated", "jira_updated_at"))
# What a column not sent holds in a new row: the schema's defaults.
_INSERT_DEFAULTS = {"summary": "", "labels": "[]"}
NOT_NULL_DEFAULTS = {"summary": "", "labels": []}

# One statement for every issue of a page, whatever fields each sent: a new
# row takes the sent values (defaults elsewhere), a known row changes only the
# columns whose bit is set in the row's mask, so what an agent did not send is
# kept. The mask is the row's last value, after key, the columns, fetched_at
# and neighbor.
_MASK = f"?{len(_COLUMNS) + 4}"
_UPSERT_ISSUE = (
    "INSERT INTO issue (key, {columns}, fetched_at, neighbor) VALUES ({values}) "
    "ON CONFLICT (key) DO UPDATE SET {updates}, fetched_at = excluded.fetched_at, "
    "neighbor = excluded.neighbor"
).format(
    columns=", ".join(column for _, column in _COLUMNS),
    values=", ".join(f"?{n}" for n in range(1, len(_COLUMNS) + 4)),
    updates=", ".join(f"{c} = CASE WHEN {_MASK} & {1 << bit} THEN excluded.{c} ELSE issue.{c} END"
                      for bit, (_, c) in enumerate(_COLUMNS)),
)
# A page's keys travel as one JSON array: one bound value whatever their number.
_KEYS = "(SELECT value FROM json_each(?))"
_KNOWN = ("SELECT key, neighbor, neighbor = 0 AND fetched_at >= ? FROM issue "
          f"WHERE key IN {_KEYS}")
_DELETE_LINKS = f"DELETE FROM issue_link WHERE source_key IN {_KEYS}"
_INSERT_LINK = "INSERT OR IGNORE INTO issue_link (source_key, target_key, link_type) VALUES (?, ?, ?)"
_DELETE_COMMENTS = f"DELETE FROM issue_comment WHERE key IN {_KEYS}"
_INSERT_COMMENT = ("INSERT OR REPLACE INTO issue_comment (key, comment_id, author, created, updated, "
                   "body, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)")
_UPSERT_CHANGE = ("INSERT OR REPLACE INTO issue_change (key, history_id, item_no, author, created, "
                  "created_at, field, field_type, from_value, from_string, to_value, to_string) "
                  "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
_DELETE_ATTACHMENTS = (f"DELETE FROM issue_attachment WHERE key IN {_KEYS} "
                       f"AND attachment_id NOT IN {_KEYS}")
_DELETE_ATTACHMENT_IDS = f"DELETE FROM issue_attachment WHERE attachment_id IN {_KEYS}"
# The fields whose change changes what the full-text index holds of an issue.
_SEARCHED = ("summary", "description", "comments")
_UNINDEX = ("INSERT INTO issue_fts (issue_fts, rowid, key, summary, description, comments) "
            f"SELECT 'delete', doc, key, summary, description, comments FROM issue_search WHERE key IN {_KEYS}")
_INDEX = ("INSERT INTO issue_fts (rowid, key, summary, description, comments) "
          f"SELECT doc, key, summary, description, comments FROM issue_search WHERE key IN {_KEYS}")
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
        """Apply one page of states; call inside the report's transaction."""
        in_issues = {state["key"] for state in issues}
        # The states in the order they apply; a neighbour the same page loads
        # as a match is not applied at all.
        states = [*issues, *(state for state in neighbors if state["key"] not in in_issues)]
        if not states:
            return
        conn = database.connection()
        with sqlite_errors_as_peewee:  # the API maps Peewee's errors (busy, disk full) to answers
            known = {key: (flag, loaded) for key, flag, loaded in conn.execute(
                _KNOWN, (run.started_at, _json([state["key"] for state in states])))}
            flags = [self._flag(known.get(state["key"]), position < len(issues), run.full)
                     for position, state in enumerate(states)]
            # Indexed again: what may change its text, and what is new.
            reindex = sorted({state["key"] for state in states
                              if state["key"] not in known or any(f in state for f in _SEARCHED)})
            if reindex:
                conn.execute(_UNINDEX, (_json([key for key in reindex if key in known]),))
            times = _Times()
            conn.executemany(_UPSERT_ISSUE, [_issue_row(state, flag, run.now, times)
                                             for state, flag in zip(states, flags)])
            self._links(conn, states)
            self._comments(conn, states, times)
            self._changes(conn, states, times)
            self._attachments(conn, states, times)
            if reindex:
                conn.execute(_INDEX, (_json(reindex),))

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
        final, named = {}, set()
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


def _issue_row(state: dict, neighbor: int, now: str, times: _Times) -> tuple:
    """``(key, *columns, fetched_at, neighbor, sent)`` for :data:`_UPSERT_ISSUE`."""
    row, sent = [state["key"]], 0
    for bit, (name, column) in enumerate(_COLUMNS):
        if name in state:
            sent |= 1 << bit
            value = state[name]
            if value is None:
                value = NOT_NULL_DEFAULTS.get(name)
            if name == "labels":
                value = json.dumps(value, ensure_ascii=False)
            elif column == "jira_updated_at":
                value = times.utc(value)
            row.append(value)
        else:
            row.append(_INSERT_DEFAULTS.get(column))
    row += (now, neighbor, sent)
    return tuple(row)


def _last_positions(states: list[dict], field: str) -> dict[str, int]:
    """Each key that sent ``field``, and the position of its last sending."""
    return {state["key"]: position for position, state in enumerate(states) if field in state}


def _integer(value):
    # JSON Schema counts 48213.0 as an integer; the column holds 48213.
    return int(value) if isinstance(value, float) else value


def _json(values: list) -> str:
    return json.dumps(values, ensure_ascii=False)
