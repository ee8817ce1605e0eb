"""A state page is loaded set-based: a few statements whatever its size, ending
where its states applied one by one would."""

from __future__ import annotations

import random

import pytest

import hub.dialect.mirror
from hub import startup
from hub.db import database, open_hub_database
from hub.dialect import current
from hub.dialect.mirror import connection, insertion_order, mirror_sql
from hub.services.issues.sprints import SprintService
from hub.services.mirror.aliases import current_issue, current_keys, moved_from
from hub.services.mirror.loading import MirrorService, RunContext
from tests.support import JIRA_TIME, claim, db_rows, enqueue, issue, jira_id, report, rich

pytestmark = pytest.mark.backends("sqlite", "postgresql")

START = "2026-11-02T09:00:00+00:00"
TABLES = {
    "issue": "SELECT * FROM issue ORDER BY key",
    "issue_link": "SELECT * FROM issue_link ORDER BY 1, 2, 3",
    "issue_comment": "SELECT * FROM issue_comment ORDER BY 1, 2",
    "issue_change": "SELECT * FROM issue_change ORDER BY 1, 2, 3",
    "issue_attachment": "SELECT * FROM issue_attachment ORDER BY 1",
    "attachment_file": "SELECT * FROM attachment_file ORDER BY 1",
    # Moves: the old keys, in the order each issue had them.
    "issue_alias": "SELECT old_key, key FROM issue_alias ORDER BY key, moved_at, {insertion}",
}
# What SQLite's full-text index holds: each token of each issue, where. (PostgreSQL's
# index is the search's: see tests/search/test_search.py.)
FTS_TERMS = ("SELECT key, term, col, offset FROM temp.fts_terms JOIN issue ON issue.rowid = doc"
             " ORDER BY 1, 2, 3, 4")


@pytest.fixture
def db(config):
    startup.prepare(config)
    return open_hub_database(config)



class Counting:
    """The connection, counting the statements sent to it: an executemany is one."""

    def __init__(self, conn):
        self._conn, self.sent = conn, []

    def execute(self, sql, *args):
        self.sent.append(sql)
        return self._conn.execute(sql, *args)

    def executemany(self, sql, rows):
        self.sent.append(sql)
        return self._conn.executemany(sql, rows)


def statements(monkeypatch, issues: list[dict], neighbors: list[dict] = (), full: bool = False) -> list[str]:
    run = RunContext(full=full, started_at=START, now=START)
    with database.atomic(), monkeypatch.context() as patch:
        counting = Counting(connection())
        patch.setattr(hub.dialect.mirror, "connection", lambda: counting)  # the loader's
        MirrorService().load_page(issues, list(neighbors), run)
    return counting.sent


def test_a_page_takes_the_same_few_statements_whatever_its_size(db, monkeypatch):
    # Neighbours numbered apart: an attachment belongs to one Jira issue. All new to the
    # mirror, then all known (the same hundred again).
    one = statements(monkeypatch, [rich("X-1", 1)], [rich("N-1", 1001)])
    hundred = [statements(monkeypatch, [rich(f"X-{n}", n) for n in range(2, 102)],
                          [rich(f"N-{n}", 1000 + n) for n in range(2, 102)], full=True) for _ in range(2)]
    # 9 for the tables, 2 that keep the full-text index in step (the issues whose
    # text may change leave it before, and come back with the new ones after;
    # none on PostgreSQL until its index has them), 1 that reads what the mirror
    # holds of the page's attachments, and 1 that reads whether the page moves
    # issues (it moves none); on PostgreSQL 4 more: the locks of the page's keys and then of
    # their rows, after a savepoint (a page that moves issues rolls back to it to lock more
    # keys), released at the end; and for issues new to the mirror 1 that clears their key of
    # stray changes before theirs are inserted (copied in, on PostgreSQL).
    sql = mirror_sql()
    index = (sql.index is not None) + (sql.unindex is not None)
    lock = 4 if current().postgres else 0
    fresh = 1
    assert len(one) == len(hundred[0]) <= 11 + index + lock + fresh, hundred[0]
    assert len(hundred[1]) <= 11 + index + lock, hundred[1]
    assert statements(monkeypatch, [], []) == []
    # A page that sends no lists writes the issue rows alone, and their index entries.
    assert len(statements(monkeypatch, [issue(f"X-{n}") for n in range(1, 101)])) == 3 + index + lock
    # One that sends no text (not new, no summary, description or comments) leaves the index alone.
    assert len(statements(monkeypatch, [{"key": f"X-{n}", "id": jira_id(f"X-{n}"), "status": "Done"}
                                             for n in range(1, 101)])) == 3 + lock


def test_a_page_mixing_old_and_new_agents_keeps_what_each_did_not_send(hub):
    comment = {"id": "1", "body": "kept", "created": JIRA_TIME}
    attachment = {"id": "31337", "filename": "spec.pdf"}
    first = enqueue(hub, "key in (X-1, X-2)")
    claim(hub)
    full = [issue(key, status="Open", priority="Major", comments=[comment],
                  attachments=[attachment | {"id": key.split("-")[1]}]) for key in ("X-1", "X-2")]
    assert report(hub, first["id"], "state", {"issues": full}).status_code == 200
    # X-1 as a v9 agent sends it (no comments, no attachments, no priority);
    # X-2 as a v14 agent does, with new lists.
    page = [{"key": "X-1", "id": jira_id("X-1"), "status": "Done"},
            issue("X-2", status="Done", comments=[], attachments=[{"id": "22", "filename": "b.pdf"}])]
    assert report(hub, first["id"], "state", {"issues": page}).status_code == 200

    assert db_rows(hub, "SELECT key, status, priority, summary FROM issue ORDER BY key") == [
        ("X-1", "Done", "Major", "Summary X-1"), ("X-2", "Done", "Major", "Summary X-2")]
    assert db_rows(hub, "SELECT key, comment_id, body FROM issue_comment") == [("X-1", "1", "kept")]
    assert db_rows(hub, "SELECT attachment_id, key FROM issue_attachment ORDER BY 1") == [
        ("1", "X-1"), ("22", "X-2")]


def change(history: str, to: str) -> dict:
    return {"id": history, "author": "ivanov", "created": JIRA_TIME,
            "items": [{"field": "status", "from_string": "Open", "to_string": to}]}


def test_a_new_issue_gets_the_changes_sent_and_a_known_one_adds_them(hub):
    """The changes of an issue new to the mirror are the ones its state sends (copied in on
    PostgreSQL; a stray row its key held is cleared first, or the copy would be refused);
    a known issue's are upserted, as a changelog sent again adds what is new. A page that
    sends a new issue twice ends as the two sendings applied in order."""
    with database.atomic():  # a row no issue has: the loader must not meet it as a conflict
        database.execute_sql("INSERT INTO issue_change (key, history_id, item_no, created, field) "
                             "VALUES ('X-1', '7001', 0, ?, 'status')", (JIRA_TIME,))
    command = enqueue(hub, "key in (X-1, X-2)")
    claim(hub)
    page = [issue("X-1", changes=[change("7001", "Done"), change("7002", "Closed")]),
            issue("X-2", status="Open", priority="Major", changes=[change("7003", "Done")]),
            {"key": "X-2", "id": jira_id("X-2"), "status": "Done", "changes": [change("7004", "Closed")]}]
    assert report(hub, command["id"], "state", {"issues": page}).status_code == 200
    later = [issue("X-1", changes=[change("7002", "Reopened"), change("7005", "Done")])]
    assert report(hub, command["id"], "state", {"issues": later}).status_code == 200

    assert db_rows(hub, "SELECT key, history_id, to_string FROM issue_change ORDER BY 1, 2") == [
        ("X-1", "7001", "Done"), ("X-1", "7002", "Reopened"), ("X-1", "7005", "Done"),
        ("X-2", "7003", "Done"), ("X-2", "7004", "Closed")]
    assert db_rows(hub, "SELECT key, status, priority FROM issue ORDER BY key") == [
        ("X-1", None, None), ("X-2", "Done", "Major")]


def test_null_sent_for_a_required_column_stores_its_default(db, monkeypatch):
    statements(monkeypatch, [issue("X-1", labels=["a"], summary="s")])
    statements(monkeypatch, [{"key": "X-1", "id": jira_id("X-1"), "labels": None, "summary": None}])
    statements(monkeypatch, [{"key": "X-2", "id": jira_id("X-2")}])
    assert [tuple(r) for r in database.execute_sql(
        "SELECT key, summary, labels FROM issue ORDER BY key")] == [("X-1", "", "[]"), ("X-2", "", "[]")]


KEYS = ["K-1", "K-2", "K-3"]
# Each key's Jira id: K-3 is K-2 moved to another project (a new key, the same
# Jira id), so attachments move between them as Jira moves them.
JIRA_IDS = {"K-1": "1", "K-2": "2", "K-3": "2"}
# An attachment belongs to one Jira issue and keeps its name and size, as in
# Jira (what contradicts that is refused, see tests/files/test_attachments.py).
FILES = {"1": [("11", "f1", 1), ("12", "f2", 2.0)], "2": [("21", "f3", 2), ("22", "f1", None)]}


def random_state(rng: random.Random) -> dict:
    key = rng.choice(KEYS)
    state = {"key": key, "id": JIRA_IDS[key]}
    for name in ("status", "summary", "labels", "updated", "priority"):
        if rng.random() < 0.5:
            state[name] = rng.choice([None, f"{name}-{rng.randint(1, 3)}"]) if name != "labels" else \
                rng.choice([None, [], ["a"]])
    if rng.random() < 0.6:
        state["links"] = [{"type": rng.choice("AB"), rng.choice(["outward", "inward"]): rng.choice([*KEYS, "Z-1"])}
                          for _ in range(rng.randint(0, 3))]
    if rng.random() < 0.6:
        state["comments"] = [{"id": rng.choice("123"), "body": rng.choice(["x", None]),
                              "created": rng.choice([JIRA_TIME, "0001-01-01T00:00:00.000+0300", None])}
                             for _ in range(rng.randint(0, 3))]
    if rng.random() < 0.6:
        # Few ids across few keys: attachments move with their issue, and repeat.
        state["attachments"] = [{"id": aid, "filename": name, "size": rng.choice([None, size])}
                                for aid, name, size in (rng.choice(FILES[state["id"]])
                                                        for _ in range(rng.randint(0, 3)))]
    if rng.random() < 0.5:
        state["changes"] = [{"id": rng.choice("12"), "created": JIRA_TIME,
                             "items": [key_item(rng) if rng.random() < 0.2 else {"field": rng.choice("fg")}
                                       for _ in range(rng.randint(0, 2))]}
                            for _ in range(rng.randint(0, 2))]
    return state


def key_item(rng: random.Random) -> dict:
    """A changelog's Key item: the issue had another key (one the page may send, or not)."""
    return {"field": "Key", "from_string": rng.choice([*KEYS, "Z-1", "Z-2"]), "to_string": "K-1"}


def content(sql: str) -> list[tuple]:
    """The rows of ``sql`` without a ``rowid`` column: on PostgreSQL an identity whose values
    depend on how many inserts were tried (and rolled back), not on what the mirror holds."""
    cursor = database.execute_sql(sql)
    kept = [n for n, column in enumerate(cursor.description) if column[0] != "rowid"]
    return [tuple(row[n] for n in kept) for row in cursor]


def snapshot() -> dict:
    # The index must agree with the text it was built from (with 1, FTS5 compares
    # it with the external content, and raises if not).
    tables = {table: content(sql.format(insertion=insertion_order())) for table, sql in TABLES.items()}
    if not current().postgres:
        database.execute_sql("INSERT INTO issue_fts (issue_fts, rank) VALUES ('integrity-check', 1)")
        tables["issue_fts"] = [tuple(row) for row in database.execute_sql(FTS_TERMS)]
    return tables


def loaded(pages: list[tuple[list, list, RunContext]], one_by_one: bool) -> dict:
    """The mirror after ``pages``, rolled back afterwards."""
    mirror = MirrorService()
    with database.atomic() as transaction:
        for issues, neighbors, run in pages:
            if not one_by_one:
                mirror.load_page(issues, neighbors, run)
                continue
            keys = {state["key"] for state in issues}
            for state in issues:
                mirror.load_page([state], [], run)
            for state in neighbors:
                if state["key"] not in keys:
                    mirror.load_page([], [state], run)
        tables = snapshot()
        transaction.rollback()
    return tables


def test_a_page_ends_where_its_states_applied_one_by_one_end(db):
    if not current().postgres:
        database.execute_sql("CREATE VIRTUAL TABLE temp.fts_terms USING fts5vocab(main, issue_fts, 'instance')")
    database.execute_sql("INSERT INTO attachment_file VALUES ('11', ?, 1, ?)", ("ab" * 32, START))
    rng = random.Random(8)
    for _ in range(300):
        pages = []
        for p in range(2):
            run = RunContext(full=rng.random() < 0.5, started_at=START,
                             now=f"2026-11-02T09:0{p}:00+00:00")
            pages.append(([random_state(rng) for _ in range(rng.randint(0, 4))],
                          [random_state(rng) for _ in range(rng.randint(0, 3))], run))
        assert loaded(pages, one_by_one=False) == loaded(pages, one_by_one=True), pages


def test_moved_issues_are_found_by_their_old_keys_and_name_them_in_order(db):
    def move(issues: list[dict], minute: int) -> None:
        with database.atomic():
            MirrorService().load_page(issues, [], RunContext(full=False, started_at=START,
                                                             now=f"2026-11-02T09:{minute:02d}:00+00:00"))

    move([{"key": "AURORA-12", "id": "10012", "summary": "radar"},
          {"key": "AURORA-13", "id": "10013", "summary": "sonar"}], 1)
    # AURORA-12 moves to OPS-7 (the same Jira id), then on to SEC-2; AURORA-13's changelog
    # alone tells that it was AURORA-99 before it was mirrored, and then moves it to OPS-8.
    move([{"key": "OPS-7", "id": "10012"}], 2)
    key_item = {"field": "Key", "from_string": "AURORA-99", "to_string": "AURORA-13"}
    move([{"key": "AURORA-13", "id": "10013", "changes": [{"id": "1", "created": JIRA_TIME, "items": [key_item]}]}], 3)
    move([{"key": "SEC-2", "id": "10012"}, {"key": "OPS-8", "id": "10013"}], 4)

    assert current_issue("AURORA-12").key == current_issue("OPS-7").key == "SEC-2"
    assert current_issue("AURORA-99").summary == "sonar"
    assert current_issue("AURORA-14") is None
    assert current_keys(["AURORA-12", "OPS-7", "SEC-2", "AURORA-99"]) == {
        "AURORA-12": "SEC-2", "OPS-7": "SEC-2", "AURORA-99": "OPS-8"}
    assert moved_from(["SEC-2", "OPS-8", "AURORA-14"]) == {
        "SEC-2": ["AURORA-12", "OPS-7"], "OPS-8": ["AURORA-99", "AURORA-13"]}


def test_sprints_of_issues_and_the_list_of_sprints_read_what_pages_loaded(db):
    sprints = [{"id": 14, "name": "AURORA Sprint 14", "state": "closed", "start": "2026-10-01T10:00:00.000+0300"},
               {"id": 15, "name": "AURORA Sprint 15", "state": "active", "start": "2026-10-15T10:00:00.000+0300",
                "board_id": 3},
               {"id": 16, "name": "AURORA Sprint 16", "state": "future"}]
    with database.atomic():
        MirrorService().load_page([issue("AURORA-1", sprints=sprints), issue("AURORA-2", sprints=sprints[1:2])], [],
                                  RunContext(full=False, started_at=START, now=START))
    of = SprintService().of_issues(["AURORA-1", "AURORA-2", "AURORA-3"])
    assert {key: [s.id for s in listed] for key, listed in of.items()} == {"AURORA-1": [14, 15, 16],
                                                                           "AURORA-2": [15]}
    listed = SprintService().list(limit=2)
    assert [(s.id, s.state, s.issues) for s in listed["items"]] == [(15, "active", 2), (16, "future", 1)]
    assert [s.id for s in SprintService().list(cursor=listed["next_cursor"])["items"]] == [14]
    assert [s.id for s in SprintService().list(state="active", board=3)["items"]] == [15]
