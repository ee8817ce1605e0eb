"""v3 → v4: projects (one Jira label each) replace the single ``base_jql`` setting.

The old setting ``base_jql`` reads ``<scope> AND labels = M``, ``… labels = "M"``
or ``… labels in (M1, "M2", …)``, keywords in any case. The step keeps
``<scope>`` as setting ``jql_scope``, makes one project per label (``AWPCA`` is
named «АРМ КА», the others by their label), gives the old ``board_id`` to the
project when there is exactly one, and rewrites every ``sync_run.query`` and
every queued or claimed ``refresh`` whose JQL equals the old ``base_jql`` into
the base JQL computed from the projects, so that such a refresh still counts as
a full run when it finishes.

The settings ``base_jql`` and ``board_id`` stay: a hub of the previous version
that has not been restarted yet still reads them. A ``base_jql`` that does not
parse gives no projects and a warning that quotes it.
"""

from __future__ import annotations

import json
import logging
import re
import sqlite3
from datetime import datetime, timezone

VERSION = 4

log = logging.getLogger("hub.migrations")

NAMES = {"AWPCA": "АРМ КА"}

_VALUE = r"""(?:"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|[^\s,()"']+)"""
_BASE_JQL = re.compile(
    rf"""^\s*(?:(?P<scope>.*?)\s+AND\s+)?labels\s*
         (?:=\s*(?P<one>{_VALUE})
           |\s+IN\s*\(\s*(?P<many>{_VALUE}(?:\s*,\s*{_VALUE})*)\s*\))
         \s*$""",
    re.IGNORECASE | re.DOTALL | re.VERBOSE,
)
_VALUES = re.compile(_VALUE)
_ESCAPE = re.compile(r"\\(.)", re.DOTALL)


def parse_base_jql(jql: str) -> tuple[str, list[str]] | None:
    """``(scope, labels)`` of an old ``base_jql``, or None when it has another shape."""
    match = _BASE_JQL.match(jql)
    if match is None:
        return None
    values = [match["one"]] if match["one"] is not None else _VALUES.findall(match["many"])
    labels: list[str] = []
    for value in values:
        if value[0] in "\"'":
            value = _ESCAPE.sub(r"\1", value[1:-1])
        if value and value not in labels:
            labels.append(value)
    if not labels:
        return None
    return (match["scope"] or "").strip(), labels


def base_jql(scope: str, labels: list[str]) -> str | None:
    """The v4 rule: ``<scope> AND labels in ("L1", …)``, labels ascending, quoted."""
    if not labels:
        return None
    quoted = ", ".join(
        '"' + label.replace("\\", "\\\\").replace('"', '\\"') + '"' for label in sorted(labels)
    )
    clause = f"labels in ({quoted})"
    return f"{scope} AND {clause}" if scope else clause


def _setting(conn: sqlite3.Connection, key: str) -> str | None:
    row = conn.execute("SELECT value FROM setting WHERE key = ?", (key,)).fetchone()
    return row[0] if row else None


def apply(conn: sqlite3.Connection) -> None:
    conn.execute(
        """CREATE TABLE project (
             label      TEXT PRIMARY KEY,
             name       TEXT NOT NULL,
             board_id   INTEGER,
             board_type TEXT,
             created_at TEXT NOT NULL
           )"""
    )
    conn.execute("ALTER TABLE batch ADD COLUMN project TEXT REFERENCES project (label)")

    old_jql = _setting(conn, "base_jql")
    board_id = _setting(conn, "board_id")
    if old_jql is None or not old_jql.strip():
        if board_id:
            log.warning("setting board_id = %r not given to any project: no base_jql", board_id)
        return
    parsed = parse_base_jql(old_jql)
    if parsed is None:
        log.warning(
            "setting base_jql = %r does not read as '<scope> AND labels = M' or "
            "'<scope> AND labels in (M1, ...)': no projects created; add them with "
            "'hub project add' and set the scope with 'hub scope set'",
            old_jql,
        )
        return
    scope, labels = parsed
    conn.execute("INSERT OR REPLACE INTO setting (key, value) VALUES ('jql_scope', ?)", (scope,))
    now = datetime.now(timezone.utc).replace(microsecond=0).isoformat()
    conn.executemany(
        "INSERT INTO project (label, name, board_id, board_type, created_at)"
        " VALUES (?, ?, NULL, NULL, ?)",
        [(label, NAMES.get(label, label), now) for label in labels],
    )
    _assign_board(conn, board_id, labels)

    new_jql = base_jql(scope, labels)
    conn.execute("UPDATE sync_run SET query = ? WHERE query = ?", (new_jql, old_jql))
    rows = conn.execute(
        "SELECT id, params FROM command"
        " WHERE type = 'refresh' AND status IN ('queued', 'claimed')"
    ).fetchall()
    for command_id, raw in rows:
        try:
            params = json.loads(raw)
        except (TypeError, ValueError):
            continue
        if isinstance(params, dict) and params.get("jql") == old_jql:
            params["jql"] = new_jql
            conn.execute(
                "UPDATE command SET params = ? WHERE id = ?",
                (json.dumps(params, ensure_ascii=False), command_id),
            )


def _assign_board(conn: sqlite3.Connection, board_id: str | None, labels: list[str]) -> None:
    if board_id is None or not board_id.strip():
        return
    if len(labels) != 1:
        log.warning(
            "setting board_id = %r not given to any project: base_jql names %d projects (%s); "
            "set it with 'hub project add LABEL --board-id N'",
            board_id, len(labels), ", ".join(labels),
        )
        return
    try:
        value = int(board_id.strip())
    except ValueError:
        log.warning("setting board_id = %r is not a number: not given to project %s",
                    board_id, labels[0])
        return
    conn.execute("UPDATE project SET board_id = ? WHERE label = ?", (value, labels[0]))
