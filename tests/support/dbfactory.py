"""Build hub databases of the deployed versions 1–12, with sample rows.

The schemas come from ``fixtures/schema-history/v<N>.sql``, copies of what hubs
of each version created; they are never edited. The rows are what a hub of
that version could hold: issues, links, notes, a batch, commands in several
states, a full sync run, and the settings of the time.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

FIXTURES = Path(__file__).parent.parent / "fixtures" / "schema-history"

OLD_BASE_JQL = "project = AURORA AND labels = AWPCA"
NEW_BASE_JQL = 'project = AURORA AND labels in ("AWPCA")'
COMMENT_CREATED = "2026-10-22T13:05:11.000+0300"
COMMENT_CREATED_UTC = "2026-10-22T10:05:11+00:00"
T0 = "2026-10-22T10:00:00+00:00"


def schema_sql(version: int) -> str:
    return (FIXTURES / f"v{version}.sql").read_text("utf-8")


def make_db(path: Path, version: int, *, rows: bool = True, settings: dict | None = None) -> Path:
    """Create ``path`` at schema ``version``; ``settings`` override the sample settings."""
    conn = sqlite3.connect(path)
    try:
        conn.executescript(schema_sql(version))
        if rows:
            _sample_rows(conn, version, settings)
        conn.commit()
    finally:
        conn.close()
    return path


def _sample_rows(conn: sqlite3.Connection, version: int, settings: dict | None) -> None:
    values = {"base_jql": OLD_BASE_JQL, "board_id": "4216"} if version <= 3 else {
        "base_jql": OLD_BASE_JQL, "board_id": "4216", "jql_scope": "project = AURORA"}
    values.update(settings or {})
    for key, value in values.items():
        if value is not None:
            conn.execute("INSERT INTO setting (key, value) VALUES (?, ?)", (key, value))

    issues = [
        ("AURORA-1", "10001", "Epic", "Pilot", None, 0),
        ("AURORA-12", "10012", "Story", "Cards list", "AURORA-1", 0),
        ("AURORA-13", "10013", "Task", "Card detail", "AURORA-1", 0),
        ("OTHER-7", "20007", "Bug", "Neighbour", None, 1),
    ]
    conn.executemany(
        "INSERT INTO issue (key, id, issue_type, summary, description, status, epic_key,"
        " labels, jira_updated, fetched_at, neighbor, created)"
        " VALUES (?, ?, ?, ?, 'h1. wiki', 'Open', ?, '[\"AWPCA\"]',"
        " '2026-10-22T13:05:11.000+0300', ?, ?, '2026-10-01T09:00:00.000+0300')",
        [(k, i, t, s, e, T0, n) for k, i, t, s, e, n in issues],
    )
    conn.executemany(
        "INSERT INTO issue_link (source_key, target_key, link_type) VALUES (?, ?, ?)",
        [("AURORA-12", "AURORA-13", "Blocks"), ("AURORA-13", "OTHER-7", "Relates")],
    )
    conn.executemany(
        "INSERT INTO issue_note (key, author, body, created_at, updated_at) VALUES (?, ?, ?, ?, ?)",
        [("AURORA-12", "lead", "check with design", T0, T0),
         ("AURORA-13", "lead", "blocked by AURORA-12", T0, T0)],
    )
    if version >= 4:
        conn.execute(
            "INSERT INTO project (label, name, board_id, board_type, created_at)"
            " VALUES ('AWPCA', 'АРМ КА', 4216, 'scrum', ?)", (T0,))
        conn.execute(
            "INSERT INTO batch (title, created_by, created_at, project)"
            " VALUES ('Sprint 14 refresh', 'lead', ?, 'AWPCA')", (T0,))
    else:
        conn.execute(
            "INSERT INTO batch (title, created_by, created_at) VALUES ('Sprint 14 refresh', 'lead', ?)",
            (T0,))

    # The commands and runs of an old hub carry its base_jql setting as their JQL.
    jql = NEW_BASE_JQL if version >= 4 else (values.get("base_jql") or OLD_BASE_JQL)
    commands = [
        # (type, params, status, agent_id, claimed_at, lease_until, finished_at)
        ("refresh", {"jql": jql}, "done", "agent-1", T0, None, T0),
        ("refresh", {"jql": jql}, "claimed", "agent-1", T0, "2026-10-22T10:05:00+00:00", None),
        ("refresh", {"jql": jql, "note": "nightly"}, "queued", None, None, None, None),
        ("refresh", {"jql": "key = AURORA-12"}, "queued", None, None, None, None),
        ("refresh", {"jql": jql}, "failed", "agent-1", T0, None, T0),
    ]
    for type_, params, status, agent, claimed, lease, finished in commands:
        columns = "type, params, status, batch_id, agent_id, created_at, claimed_at, lease_until, finished_at"
        values = [type_, json.dumps(params), status, 1, agent, T0, claimed, lease, finished]
        if version >= 2:
            columns += ", deliveries"
            values.append(0 if status == "queued" else 1)
        conn.execute(
            f"INSERT INTO command ({columns}) VALUES ({', '.join('?' * len(values))})", values)
    conn.execute(
        "INSERT INTO sync_run (command_id, query, status, started_at, finished_at, issues_loaded)"
        " VALUES (1, ?, 'done', ?, ?, 3)", (jql, T0, T0))
    conn.execute(
        "INSERT INTO sync_run (command_id, query, status, started_at, issues_loaded)"
        " VALUES (2, ?, 'running', ?, 0)", (jql, T0))
    conn.execute(
        "INSERT INTO agent_status (agent_id, version, last_seen_at, state) VALUES ('agent-1', 12, ?, 'idle')",
        (T0,))
    if version >= 3:
        comment_columns = "key, comment_id, author, created, updated, body"
        comments = [("AURORA-12", "101", "ivanov", COMMENT_CREATED, COMMENT_CREATED, "first"),
                    ("AURORA-12", "102", "petrov", "not a time", None, "second"),
                    ("AURORA-13", "103", "petrov", None, None, "third")]
        if version >= 5:
            comment_columns += ", created_at"
            comments = [(*c, COMMENT_CREATED_UTC if c[3] == COMMENT_CREATED else None)
                        for c in comments]
        conn.executemany(
            f"INSERT INTO issue_comment ({comment_columns}) VALUES"
            f" ({', '.join('?' * len(comments[0]))})", comments)
    if version >= 5:
        conn.execute(
            "INSERT INTO issue_change (key, history_id, item_no, author, created, created_at, field,"
            " field_type, from_value, from_string, to_value, to_string) VALUES"
            " ('AURORA-12', '5001', 0, 'ivanov', ?, ?, 'status', 'jira', '1', 'Open', '3',"
            " 'In Progress')", (COMMENT_CREATED, COMMENT_CREATED_UTC))
    if version >= 6:
        _v6_rows(conn, version)


# A v6 hub's token, as it kept it in ``setting``: the token itself and its record.
V6_TOKEN = "v6-agent-token-kept-as-a-setting-row"
V6_TOKEN_RECORD = {"role": "agent", "sha256": hashlib.sha256(V6_TOKEN.encode()).hexdigest(),
                   "created_at": T0}


def _v6_rows(conn: sqlite3.Connection, version: int) -> None:
    tokens = [("agent-1", V6_TOKEN_RECORD), ("admin", {"role": "admin", "sha256": "0" * 64, "created_at": T0})]
    if version >= 7:  # v7 keeps tokens in a table of their own
        conn.executemany("INSERT INTO token (name, role, sha256, created_at) VALUES (?, ?, ?, ?)",
                         [(name, r["role"], r["sha256"], r["created_at"]) for name, r in tokens])
    else:
        conn.executemany("INSERT INTO setting (key, value) VALUES (?, ?)",
                         [(f"token:{name}", json.dumps(record)) for name, record in tokens])
    conn.execute(
        "INSERT INTO issue_attachment (attachment_id, key, filename, size, mime_type, author,"
        " created, created_at) VALUES ('31337', 'AURORA-12', 'spec.pdf', 48213,"
        " 'application/pdf', 'ivanov', ?, ?)", (COMMENT_CREATED, COMMENT_CREATED_UTC))
    conn.execute(
        "INSERT INTO attachment_file (attachment_id, file, size, fetched_at) VALUES"
        " ('31337', ?, 48213, ?)", ("a" * 64, T0))


def table_rows(path: Path, table: str) -> list[tuple]:
    """Every row of ``table``, in rowid order."""
    conn = sqlite3.connect(path)
    try:
        return conn.execute(f"SELECT * FROM {table} ORDER BY rowid").fetchall()
    finally:
        conn.close()


def dump(path: Path) -> list[str]:
    """The whole database as SQL text, to compare a database before and after."""
    conn = sqlite3.connect(path)
    try:
        return list(conn.iterdump())
    finally:
        conn.close()


def schema_version(path: Path) -> int:
    conn = sqlite3.connect(path)
    try:
        return int(conn.execute("SELECT value FROM setting WHERE key = 'schema_version'").fetchone()[0])
    finally:
        conn.close()
