"""The whole of a Jira issue in the loader: the fields of protocol v15 are stored as
sent, kept when absent and cleared by null, and a page of them, loaded set-based,
ends where its states applied one by one would."""

from __future__ import annotations

import json
import random

import pytest

import hub.dialect.mirror
from hub import startup
from hub.db import database, open_hub_database
from hub.dialect import current
from hub.dialect.mirror import connection
from hub.services.mirror.loading import MirrorService, RunContext

pytestmark = pytest.mark.backends("sqlite", "postgresql")

START = "2026-11-02T09:00:00+00:00"
JIRA_TIME = "2026-10-22T13:05:11.000+0300"
TABLES = {
    "issue": "SELECT * FROM issue ORDER BY key",
    "issue_worklog": "SELECT * FROM issue_worklog ORDER BY 1, 2",
    "issue_sprint": "SELECT * FROM issue_sprint ORDER BY 1, 2",
    "sprint": "SELECT * FROM sprint ORDER BY 1",
}
# What SQLite's full-text index holds: each token of each issue, where. (PostgreSQL's
# index is the search's: see tests/search/test_search.py.)
FTS_TERMS = ("SELECT key, term, col, offset FROM temp.fts_terms JOIN issue ON issue.rowid = doc"
             " ORDER BY 1, 2, 3, 4")
# Beyond 64 bits: what orjson does not write, so the loader's JSON falls back to json.
HUGE = 123456789012345678901234567890
SPRINTS = [{"id": 14, "name": "AURORA Sprint 14", "state": "closed", "start": JIRA_TIME, "end": JIRA_TIME,
            "complete": JIRA_TIME, "board_id": 3, "goal": "Cards"},
           {"id": 15, "name": "AURORA Sprint 15", "state": "active"}]


@pytest.fixture
def db(config):
    startup.prepare(config)
    return open_hub_database(config)


def whole(key: str, n: int = 1, **fields) -> dict:
    """A state with every field of protocol v15 a team's issue has."""
    return {
        "key": key, "id": str(10000 + n), "summary": f"Summary {key}", "status": "Done",
        "resolution": "Fixed", "resolved": JIRA_TIME, "components": ["Backend", "Вход"],
        "fix_versions": [{"id": "10201", "name": "2.3", "released": False, "release_date": "2026-12-20"}],
        "affects_versions": [{"id": "10200", "name": "2.2", "released": True, "release_date": None}],
        "environment": "Linux, nginx", "parent_key": "AURORA-1",
        "time_original_estimate": 28800, "time_estimate": 7200.0, "time_spent": 21600,
        "sprints": SPRINTS, "sprint": "AURORA Sprint 15",
        "worklogs": [{"id": f"4000{n}", "author": "ivanov", "started": JIRA_TIME, "time_spent": 3600.0,
                      "comment": "loader"}],
        "custom_fields": {
            "customfield_10002": {"name": "Story Points", "type": "number", "custom": "float", "value": 5.0},
            "customfield_10101": {"name": "Site", "type": "option-with-child", "custom": "cascadingselect",
                                  "value": {"parent": "EMEA", "child": "Berlin"}},
            "customfield_10102": {"name": "Reviewers", "type": "array", "custom": "multiuserpicker",
                                  "value": ["ivanov", "petrov"]},
            "customfield_10103": {"name": "Root cause", "type": "string", "custom": None,
                                  "value": "ёлочный таймаут"},
            "customfield_10104": {"name": "Ticket", "type": "number", "custom": None, "value": HUGE},
        },
        **fields,
    }


def load(*pages: list[dict]) -> None:
    run = RunContext(full=False, started_at=START, now=START)
    for page in pages:
        with database.atomic():
            MirrorService().load_page(page, [], run)


def row(key: str) -> dict:
    cursor = database.execute_sql("SELECT * FROM issue WHERE key = ?", (key,))
    names = [d[0] for d in cursor.description]
    return dict(zip(names, cursor.fetchone(), strict=True))


def rows(sql: str, *args) -> list[tuple]:
    return [tuple(r) for r in database.execute_sql(sql, args)]


def test_whole_fields_are_stored_as_sent(db):
    sent = whole("AURORA-12")
    load([sent])
    stored = row("AURORA-12")
    for name in ("components", "fix_versions", "affects_versions", "custom_fields"):
        assert json.loads(stored[name]) == sent[name], name
    assert json.loads(stored["custom_fields"])["customfield_10104"]["value"] == HUGE  # exactly, not a float
    assert (stored["resolution"], stored["resolved"], stored["resolved_at"]) == (
        "Fixed", JIRA_TIME, "2026-10-22T10:05:11+00:00")
    assert (stored["time_original_estimate"], stored["time_estimate"], stored["time_spent"]) == (28800, 7200, 21600)
    assert (stored["environment"], stored["parent_key"]) == ("Linux, nginx", "AURORA-1")
    assert stored["custom_text"] == "EMEA\nBerlin\nivanov\npetrov\nёлочный таймаут"
    assert rows("SELECT key, worklog_id, time_spent, started_at FROM issue_worklog") == [
        ("AURORA-12", "40001", 3600, "2026-10-22T10:05:11+00:00")]
    assert rows("SELECT * FROM issue_sprint") == [("AURORA-12", 14), ("AURORA-12", 15)]
    assert rows("SELECT sprint_id, name, state, board_id FROM sprint ORDER BY 1") == [
        (14, "AURORA Sprint 14", "closed", 3), (15, "AURORA Sprint 15", "active", None)]
    if not current().postgres:  # (PostgreSQL's index is the search's: tests/search/test_search.py)
        # Custom fields' text and the environment are searched, ё-folded like the rest.
        assert rows("SELECT key FROM issue_fts WHERE issue_fts MATCH ?", "елочный") == [("AURORA-12",)]
        assert rows("SELECT key FROM issue_fts WHERE issue_fts MATCH ?", "nginx") == [("AURORA-12",)]


def test_absent_fields_are_kept_and_null_clears_them_in_one_page(db):
    load([whole("AURORA-12", 12), whole("AURORA-13", 13)])
    before = row("AURORA-12")
    # In one page: AURORA-12 as an agent v14 sends it (none of the new fields), and
    # AURORA-13 as a v15 agent that found every new field empty (no worklogs sent).
    cleared = {name: None for name in (
        "resolution", "resolved", "components", "fix_versions", "affects_versions", "environment",
        "parent_key", "time_original_estimate", "time_estimate", "time_spent", "custom_fields")}
    load([{"key": "AURORA-12", "id": "10012", "status": "Reopened"},
          {"key": "AURORA-13", "id": "10013", **cleared, "sprints": []}])
    after = row("AURORA-12")
    assert after["status"] == "Reopened"
    assert {k: v for k, v in after.items() if k not in ("status", "fetched_at")} == {
        k: v for k, v in before.items() if k not in ("status", "fetched_at")}
    other = row("AURORA-13")
    assert {name: other[name] for name in cleared} | {"resolved_at": other["resolved_at"],
                                                      "custom_text": other["custom_text"]} == {
        **dict.fromkeys(cleared), "components": "[]", "fix_versions": "[]", "affects_versions": "[]",
        "custom_fields": "{}", "resolved_at": None, "custom_text": None}
    # Worklogs not sent are kept; sprints sent empty leave the issue in none (the sprints stay).
    assert rows("SELECT key, worklog_id FROM issue_worklog ORDER BY 1") == [
        ("AURORA-12", "400012"), ("AURORA-13", "400013")]
    assert rows("SELECT key FROM issue_sprint GROUP BY key") == [("AURORA-12",)]
    assert rows("SELECT count(*) FROM sprint") == [(2,)]
    if not current().postgres:
        assert rows("SELECT key FROM issue_fts WHERE issue_fts MATCH ?", "елочный") == [("AURORA-12",)]


class Counting:
    """The connection, counting the statements sent to it: an executemany is one."""

    def __init__(self, conn):
        self._conn, self.sent = conn, []

    def execute(self, sql, *args):
        self.sent.append(sql)
        return self._conn.execute(sql, *args)

    def executemany(self, sql, many):
        self.sent.append(sql)
        return self._conn.executemany(sql, many)


def test_a_page_of_whole_issues_takes_the_same_few_statements_whatever_its_size(db, monkeypatch):
    def statements(page: list[dict]) -> list[str]:
        with database.atomic(), monkeypatch.context() as patch:
            counting = Counting(connection())
            patch.setattr(hub.dialect.mirror, "connection", lambda: counting)  # the loader's
            MirrorService().load_page(page, [], RunContext(full=False, started_at=START, now=START))
        return counting.sent

    # All new to the mirror, then all known: a page of one and a page of a hundred alike.
    one = statements([whole("AURORA-1")])
    hundred = statements([whole(f"AURORA-{n}", n) for n in range(2, 102)])
    assert one == hundred
    assert statements([whole("AURORA-1")]) == statements([whole(f"AURORA-{n}", n) for n in range(2, 102)])


def random_state(rng: random.Random) -> dict:
    """A state of one of three keys, each v15 field absent, null or one of a few values,
    its fields in a random order (the loader groups states by the fields they send)."""
    n = rng.randint(1, 3)
    full = whole(f"AURORA-{n}", n, custom_fields=rng.choice([
        {}, {"customfield_10002": {"name": "Story Points", "value": rng.choice([3, 5.0, None])}},
        {"customfield_10103": {"name": "Root cause", "value": rng.choice(["ёж", ["a", {"b": "c"}]])}}]))
    full["sprints"] = rng.sample([*SPRINTS, {"id": 16, "name": f"Sprint {rng.randint(1, 2)}"}], rng.randint(0, 3))
    full["worklogs"] = [{"id": rng.choice(["1", "2"]), "time_spent": rng.choice([60, None])}
                        for _ in range(rng.randint(0, 2))]
    state = {"key": full["key"], "id": full["id"]}
    for name, value in full.items():
        chance = rng.random()
        if name in ("sprints", "worklogs"):
            if chance < 0.6:
                state[name] = value
        elif chance < 0.5:
            state[name] = value
        elif chance < 0.7 and name not in ("key", "id"):
            state[name] = None
    fields = list(state.items())
    rng.shuffle(fields)
    return dict(fields)


def content(sql: str) -> list[tuple]:
    """The rows of ``sql`` without a ``rowid`` column: on PostgreSQL an identity whose values
    depend on how many inserts were tried (and rolled back), not on what the mirror holds."""
    cursor = database.execute_sql(sql)
    kept = [n for n, column in enumerate(cursor.description) if column[0] != "rowid"]
    return [tuple(row[n] for n in kept) for row in cursor]


def snapshot() -> dict:
    tables = {table: content(sql) for table, sql in TABLES.items()}
    if not current().postgres:
        database.execute_sql("INSERT INTO issue_fts (issue_fts, rank) VALUES ('integrity-check', 1)")
        tables["issue_fts"] = rows(FTS_TERMS)
    return tables


def loaded(pages: list[list[dict]], one_by_one: bool) -> dict:
    """The mirror after ``pages``, rolled back afterwards."""
    mirror = MirrorService()
    run = RunContext(full=False, started_at=START, now=START)
    with database.atomic() as transaction:
        for page in pages:
            for part in ([state] for state in page) if one_by_one else [page]:
                mirror.load_page(part, [], run)
        tables = snapshot()
        transaction.rollback()
    return tables


def test_a_page_of_whole_issues_ends_where_its_states_applied_one_by_one_end(db):
    if not current().postgres:
        database.execute_sql("CREATE VIRTUAL TABLE temp.fts_terms USING fts5vocab(main, issue_fts, 'instance')")
    rng = random.Random(17)
    for _ in range(200):
        pages = [[random_state(rng) for _ in range(rng.randint(0, 5))] for _ in range(2)]
        assert loaded(pages, one_by_one=False) == loaded(pages, one_by_one=True), pages
