"""Moved issues in a state page: the mirror re-keys them before the page is written.

Jira keeps an issue's ``id`` when it moves the issue to another project (or a
project gets a new key); the key changes, and the changelog gets a ``Key``
item. The mirror holds an issue by its id (``issue.id`` is unique), so a state
whose id is mirrored under another key *moves* that issue: before the page's
rows are written, in the same transaction, the issue's row and everything
keyed by its key follow it to the new key — comments, changes, worklogs,
sprints, attachment lists (attachment states and fetched files are by
attachment id, so they follow too), notes (the hub's own data, never lost),
links both ways (a link that becomes one of the issue to itself is dropped),
and other issues' ``epic_key`` and ``parent_key``. Where the new key already
holds a row of a child table (the same comment id, say), that row wins, as
schema step v11 merges. The old key is kept in ``issue_alias`` (old key, key,
when), and aliases that led to the old key lead to the new one (a chain A-1 →
B-1 → C-1 leaves both A-1 and B-1 leading to C-1); an alias whose key is live
again (an issue moved back) is dropped.

A move seen only in a changelog's ``Key`` item (its ``from_string`` the old
key) is made the same way when the old key is mirrored with the state's id (or
with an empty one, as very old mirrors may hold); when the old key is not
mirrored the alias is still recorded, and links and epic or parent keys naming
it follow, so that the old key finds the issue.

A row that holds the state's key under another id is stale (Jira's keys are
unique: that issue moved away, or was deleted): it is *displaced* — removed
with its mirror lists and its outward links — but its notes stay on the key,
which is the new issue's from now on.

The page's states apply in order (see :mod:`hub.services.mirror.loading`). Where the
outcome would depend on that order — one Jira id under two keys in the page (or
one key with two ids), a displaced row whose id the page sends under another
key, an old key that the page also sends or that a state before the move names
in a link, epic or parent — :func:`rekey` answers None and the loader applies
the page's states one at a time, which is that order by definition. A page
without moves costs one SELECT.
"""

from __future__ import annotations

import re
from typing import NamedTuple

import orjson

from hub import dialect
from hub.vocabulary import ISSUE_KEY_PATTERN

_KEY = re.compile(ISSUE_KEY_PATTERN)
# The page's (key, id) pairs and the old keys its changelogs name go to MirrorSql.moves_page
# (hub.dialect.mirror): kind 0, a state's id mirrored under another key; 1, a state's key
# mirrored with another id; 2, a state's key that is an alias; 3, each old key a changelog
# names, with the id it is mirrored with.
# Tables keyed by an issue's key, and their columns that name one.
_CHILDREN = (
    ("issue_comment", "key"), ("issue_change", "key"), ("issue_worklog", "key"),
    ("issue_sprint", "key"), ("issue_attachment", "key"), ("issue_note", "key"),
    ("issue_link", "source_key"), ("issue_link", "target_key"),
)
# What a displaced row takes with it: the mirror's lists of it (not its notes, nor
# the links other issues have to its key).
_DISPLACED = ("issue_comment", "issue_change", "issue_worklog", "issue_sprint", "issue_attachment")

def changelog_olds(state: dict) -> list[str]:
    """The keys a state's changelog says the issue had (``Key`` items' ``from_string``), in order."""
    return [item["from_string"] for change in state.get("changes", ()) for item in change["items"]
            if item["field"] == "Key" and isinstance(item.get("from_string"), str)
            and _KEY.match(item["from_string"]) and item["from_string"] != state["key"]]


def page_keys(states: list[dict]) -> set[str]:
    """The issue keys whose rows a page's ``states`` may write: their own, the sources of
    their inward links, and the old keys their changelogs name (what the loader locks
    on PostgreSQL before it reads them)."""
    keys = {state["key"] for state in states}
    for state in states:
        keys.update(link["inward"] for link in state.get("links", ()) if "inward" in link)
        keys.update(changelog_olds(state))
    return keys


class KeysToHold(Exception):
    """A move of the page writes rows of issue keys the page does not hold the locks of
    (PostgreSQL): the loader lets go of its locks and starts the page again holding
    these too (see :meth:`hub.services.mirror.loading.MirrorService.load_page`)."""

    def __init__(self, keys: set[str]) -> None:
        super().__init__(f"{len(keys)} more issue keys to hold")
        self.keys = keys


def pointed_keys(states: list[dict]) -> set[str]:
    """The issue keys a page's ``states`` name without writing their rows: their epics,
    parents and outward links' targets (what the loader locks shared on PostgreSQL, so that
    a move of one of those keys, which re-keys what names it, waits for the page, and the
    page for the move)."""
    keys = {key for state in states for key in (state.get("epic_key"), state.get("parent_key")) if key}
    for state in states:
        keys.update(link["outward"] for link in state.get("links", ()) if "outward" in link)
    return keys


def rekey(conn, sql: dialect.mirror.MirrorSql, states: list[dict], now: str,
          held: set[str] | None = None) -> set[str] | None:
    """Move and displace what the page's ``states`` (in the order they apply) say moved.

    The keys whose index entries were removed, for the page to index again (and not
    remove again); None when the page must be applied one state at a time.

    ``held`` (PostgreSQL) is the set of issue keys whose locks the page holds: a move
    writes rows of keys beyond the page's own (the old key found by the state's Jira
    id, the issues whose epic, parent or links name an old key, the aliases leading to
    it), and if one of those is not held, :class:`KeysToHold` is raised before
    anything is written, for the page to take them all at once with the others. None
    (SQLite, one writer at a time): nothing is checked.
    """
    pairs = {(state["key"], state["id"]) for state in states}
    if len(pairs) != len({key for key, _ in pairs}) or len(pairs) != len({jira_id for _, jira_id in pairs}):
        return None  # one id under two keys, or one key with two ids: the order decides
    olds = {position: named for position, state in enumerate(states) if (named := changelog_olds(state))}
    rows = conn.execute(sql.moves_page, sql.moves_page_params(
        _dumps([list(pair) for pair in pairs]),
        _dumps(sorted({old for named in olds.values() for old in named})))).fetchall()
    if not rows:
        return set()
    plan = _plan(states, rows, olds, {jira_id for _, jira_id in pairs})
    if plan is None:
        return None
    moves, at, displaced, live_aliases, rekeyed = plan
    if moves and _named_before(states, at):
        return None
    if held is not None:
        wanted = _written(conn, sql, moves, displaced)
        if not wanted <= held:
            raise KeysToHold(wanted - held)
    if displaced:
        _displace(conn, sql, sorted(displaced))
    if moves:
        _move(conn, sql, moves, now)
    if live_aliases:
        conn.execute(f"DELETE FROM issue_alias WHERE old_key IN {sql.keys}",
                     (_dumps(sorted({key for key, _ in pairs})),))
    return rekeyed


class _Plan(NamedTuple):
    moves: dict[str, str]  # old key -> new key, in the order the aliases are recorded
    at: dict[str, int]  # old key -> the position of the state that moves it
    displaced: set[str]  # keys whose rows are stale
    live_aliases: bool  # whether a key the page sends is an alias
    rekeyed: set[str]  # the new keys of mirrored rows (not of aliases alone)


def _plan(states: list[dict], rows: list[tuple], olds: dict[int, list[str]], ids: set[str]) -> _Plan | None:
    """What the page moves and displaces, from what ``moves_page`` read; None if its order decides."""
    first: dict[str, int] = {}  # each key's first position in the page
    for position, state in enumerate(states):
        first.setdefault(state["key"], position)
    displaced: set[str] = set()
    mirrored: dict[str, tuple] = {}
    id_moves: dict[str, str] = {}  # new key -> the old key its id is mirrored under
    live_aliases = False
    for kind, a, b, c in rows:
        if kind == 0:
            id_moves[a] = b
        elif kind == 1:
            if c in ids:
                return None  # the stale row's issue is in the page under another key
            displaced.add(a)
        elif kind == 2:
            live_aliases = True
        else:
            mirrored[a] = (b, c)
    moves = _changelog_moves(states, olds, first, mirrored, id_moves)
    if moves is None:
        return None
    claims: dict[str, set[str]] = {}  # old key -> the keys whose changelogs name it
    for position, named in olds.items():
        for old in named:
            claims.setdefault(old, set()).add(states[position]["key"])
    for new, old in id_moves.items():
        if old in first or claims.get(old, {new}) != {new} or moves.get(old, (new, 0))[0] != new:
            return None  # an old key the page also sends, or that another issue's changelog names
        position = min(moves.pop(old, (new, first[new]))[1], first[new])
        moves[old] = (new, position)  # recorded last: the key the issue had just before
    # In the order the page's states move them (a sort keeps a state's own in its order).
    ordered = sorted(moves.items(), key=lambda move: move[1][1])
    rekeyed = {new for old, (new, _) in moves.items() if mirrored.get(old, ("",))[0] is not None}
    return _Plan({old: new for old, (new, _) in ordered}, {old: position for old, (_, position) in ordered},
                 displaced, live_aliases, rekeyed)


def _changelog_moves(states, olds, first, mirrored, id_moves) -> dict[str, tuple[str, int]] | None:
    """The moves the page's changelogs tell (old key -> (new key, position)); None if its order decides."""
    moves: dict[str, tuple[str, int]] = {}
    for position, named in olds.items():
        state = states[position]
        for old in named:
            if old in first:
                return None  # an old key the page also sends
            jira_id, alias = mirrored[old]
            if jira_id is None and alias == state["key"]:
                continue  # known already
            if jira_id is not None and jira_id != state["id"] and (jira_id != "" or state["key"] in id_moves):
                continue  # a live key of another issue
            if moves.get(old, (state["key"],))[0] != state["key"]:
                return None  # two issues of the page claim one old key
            if first[state["key"]] != position:
                return None  # what an earlier sending of the key wrote would meet the old key's
            moves.setdefault(old, (state["key"], position))
    return moves


def _named_before(states: list[dict], at: dict[str, int]) -> bool:
    """Whether a state before the one that moves a key names that key (link, epic, parent)."""
    last = max(at.values())
    for position, state in enumerate(states[:last]):
        named = {state.get("epic_key"), state.get("parent_key")}
        named.update(link.get("outward") or link.get("inward") for link in state.get("links", ()))
        if any(at.get(key, -1) > position for key in named if key):
            return True
    return False


def _written(conn, sql: dialect.mirror.MirrorSql, moves: dict[str, str], displaced: set[str]) -> set[str]:
    """The issue keys whose rows moving ``moves`` and displacing ``displaced`` write: the old
    and new keys, the displaced ones, and (read from the mirror) the issues whose epic,
    parent or outward links name an old key, and the old keys of aliases that lead to an
    old or a displaced key."""
    keys = {*moves, *moves.values(), *displaced}
    if moves or displaced:
        olds = _dumps(sorted(moves))
        keys.update(key for key, in conn.execute(
            sql.rewritten, (olds, olds, olds, _dumps(sorted({*moves, *displaced})))))
    return keys


def _displace(conn, sql: dialect.mirror.MirrorSql, keys: list[str]) -> None:
    """Remove stale rows and their mirror lists; their notes stay on the key."""
    keys_json = _dumps(keys)
    if sql.unindex is not None:
        conn.execute(sql.unindex, (keys_json,))
    for table in _DISPLACED:
        conn.execute(f"DELETE FROM {table} WHERE key IN {sql.keys}", (keys_json,))
    conn.execute(f"DELETE FROM issue_link WHERE source_key IN {sql.keys}", (keys_json,))
    # An alias that led to a stale row would lead to the issue that took its key.
    conn.execute(f"DELETE FROM issue_alias WHERE key IN {sql.keys}", (keys_json,))
    conn.execute(f"DELETE FROM issue WHERE key IN {sql.keys}", (keys_json,))


def _move(conn, sql: dialect.mirror.MirrorSql, moves: dict[str, str], now: str) -> None:
    """Re-key ``moves`` (old -> new) with what follows them, all in a few statements."""
    pairs = _dumps([[old, new] for old, new in moves.items()])
    if sql.unindex is not None:
        conn.execute(sql.unindex, (_dumps(list(moves)),))
    # One pair a statement on PostgreSQL, where one UPDATE that gives two rows one key
    # fails, instead of leaving the second as SQLite's OR IGNORE does.
    batches = [_dumps([pair]) for pair in moves.items()] if sql.dialect.postgres and len(moves) > 1 else [pairs]
    for table, column in _CHILDREN:
        # A row the new key already holds stays as it has it; the old key's copy goes
        # below. Notes have no such row: every one moves.
        for batch in batches:
            conn.execute(sql.rekey_children[table, column], (batch,))
        if table != "issue_note":
            conn.execute(f"DELETE FROM {table} WHERE {column} IN {sql.moved_old}", (pairs,))
    conn.execute(f"DELETE FROM issue_link WHERE source_key = target_key AND source_key IN {sql.keys}",
                 (_dumps(list(moves.values())),))
    for column in ("epic_key", "parent_key"):
        conn.execute(f"UPDATE issue SET {column} = moved.new FROM {sql.moved_map} WHERE issue.{column} = moved.old",
                     (pairs,))
    conn.execute(f"UPDATE issue SET key = moved.new FROM {sql.moved_map} WHERE issue.key = moved.old", (pairs,))
    conn.execute(f"UPDATE issue_alias SET key = moved.new FROM {sql.moved_map} WHERE issue_alias.key = moved.old",
                 (pairs,))
    conn.executemany(sql.upsert_alias, [(old, new, now) for old, new in moves.items()])
    # An issue moved back: its key is live again, and no alias of itself.
    conn.execute(f"DELETE FROM issue_alias WHERE old_key IN {sql.keys}", (_dumps(list(moves.values())),))


def _dumps(values: list) -> str:
    return orjson.dumps(values).decode()
