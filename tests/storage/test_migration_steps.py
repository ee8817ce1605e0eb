"""The data rules of the v3 → v4 and v4 → v5 steps, on real databases."""

from __future__ import annotations

import json
import logging
import random
import sqlite3
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from hub.config import Config
from hub.db import open_database
from hub.migrations import CURRENT_VERSION, migrate
from hub.migrations.steps.v4_projects import base_jql, parse_base_jql
from hub.migrations.steps.v5_changelog import JiraTimeConverter, jira_time_to_utc
from hub.services.mirror.projects import compose_base_jql
from tests.support.dbfactory import T0, V6_TOKEN, V6_TOKEN_RECORD, make_db
from tests.support.hubs import built_services


def migrated_v3(tmp_path: Path, base: str | None, board_id: str | None = "4216") -> sqlite3.Connection:
    db = make_db(tmp_path / "hub.sqlite", 3, settings={"base_jql": base, "board_id": board_id})
    migrate(db, tmp_path / "backups")
    return sqlite3.connect(db)


@pytest.mark.parametrize(
    "jql, scope, labels",
    [
        ("project = AURORA AND labels = AWPCA", "project = AURORA", ["AWPCA"]),
        ('project = AURORA AND labels = "AWPCA"', "project = AURORA", ["AWPCA"]),
        ("project = AURORA and LABELS = awpca", "project = AURORA", ["awpca"]),
        ('project = AURORA AND labels in (AWPCA, "Road Map")', "project = AURORA", ["AWPCA", "Road Map"]),
        ("project = AURORA AND Labels IN(AWPCA,KPI)", "project = AURORA", ["AWPCA", "KPI"]),
        ("project in (A, B) AND status != Done AND labels in ('X Y', Z)",
         "project in (A, B) AND status != Done", ["X Y", "Z"]),
        (r'project = A AND labels = "say \"hi\""', "project = A", ['say "hi"']),
        ("labels = AWPCA", "", ["AWPCA"]),
        ("  project = AURORA   AND   labels   =   AWPCA  ", "project = AURORA", ["AWPCA"]),
        ("project = A AND labels in (X, X)", "project = A", ["X"]),
    ],
)
def test_base_jql_forms_that_parse(jql, scope, labels):
    assert parse_base_jql(jql) == (scope, labels)


@pytest.mark.parametrize(
    "jql",
    [
        "project = AURORA",
        "project = AURORA AND labels in ()",
        "project = AURORA AND labels = AWPCA ORDER BY created",
        "project = AURORA AND labels != AWPCA",
        "project = AURORA OR labels = AWPCA",
        "project = AURORA AND labels in (AWPCA",
    ],
)
def test_base_jql_forms_that_do_not_parse(jql):
    assert parse_base_jql(jql) is None


def test_base_jql_rule_sorts_quotes_and_escapes():
    assert base_jql("project = A", ["Z", 'q"t', "b\\s"]) == (
        'project = A AND labels in ("Z", "b\\\\s", "q\\"t")')
    assert base_jql("", ["A"]) == 'labels in ("A")'
    assert base_jql("x", []) is None


def test_frozen_rule_of_the_step_matches_the_live_rule():
    for scope, labels in [("project = A", ["Z", 'q"t', "b\\s"]), ("", ["A"]), ("x", [])]:
        assert base_jql(scope, labels) == compose_base_jql(scope, labels)


def test_several_labels_make_several_projects_and_no_board(tmp_path, caplog):
    caplog.set_level(logging.WARNING, "hub.migrations")
    conn = migrated_v3(tmp_path, 'project = AURORA AND labels in (KPI, AWPCA)')

    assert conn.execute("SELECT label, name, board_id FROM project ORDER BY label").fetchall() == [
        ("AWPCA", "АРМ КА", None), ("KPI", "KPI", None)]
    assert "board_id = '4216' not given to any project" in caplog.text
    expected = 'project = AURORA AND labels in ("AWPCA", "KPI")'
    assert {q for (q,) in conn.execute("SELECT query FROM sync_run")} == {expected}
    queued = conn.execute("SELECT params FROM command WHERE status = 'queued' AND id = 3").fetchone()
    assert json.loads(queued[0])["jql"] == expected


def test_unparsed_base_jql_gives_no_projects_and_a_warning_that_quotes_it(tmp_path, caplog):
    caplog.set_level(logging.WARNING, "hub.migrations")
    old = "project = AURORA AND component = Cards"
    conn = migrated_v3(tmp_path, old)

    assert conn.execute("SELECT count(*) FROM project").fetchone() == (0,)
    assert repr(old) in caplog.text
    settings = dict(conn.execute("SELECT key, value FROM setting"))
    assert settings["base_jql"] == old and settings["board_id"] == "4216"
    assert "jql_scope" not in settings
    assert {q for (q,) in conn.execute("SELECT query FROM sync_run")} == {old}
    assert conn.execute("SELECT value FROM setting WHERE key = 'schema_version'").fetchone() == (str(CURRENT_VERSION),)


def test_no_base_jql_gives_no_projects(tmp_path):
    conn = migrated_v3(tmp_path, None, board_id=None)
    assert conn.execute("SELECT count(*) FROM project").fetchone() == (0,)


def test_board_id_that_is_not_a_number_is_not_given(tmp_path, caplog):
    caplog.set_level(logging.WARNING, "hub.migrations")
    conn = migrated_v3(tmp_path, "project = AURORA AND labels = AWPCA", board_id="board-7")
    assert conn.execute("SELECT board_id FROM project").fetchall() == [(None,)]
    assert "'board-7' is not a number" in caplog.text


def test_command_params_that_are_not_json_are_left_alone(tmp_path):
    db = make_db(tmp_path / "hub.sqlite", 3)
    conn = sqlite3.connect(db)
    conn.execute("UPDATE command SET params = 'not json' WHERE id = 3")
    conn.commit()
    migrate(db, tmp_path / "backups")
    assert conn.execute("SELECT params FROM command WHERE id = 3").fetchone() == ("not json",)


@pytest.mark.parametrize(
    "jira, utc",
    [
        ("2026-10-22T13:05:11.000+0300", "2026-10-22T10:05:11+00:00"),
        ("2026-10-22T01:05:11.999+0300", "2026-10-21T22:05:11+00:00"),
        ("2026-10-22T10:05:11.000-0500", "2026-10-22T15:05:11+00:00"),
        ("2026-10-22T10:05:11+00:00", "2026-10-22T10:05:11+00:00"),
        ("2026-10-22T10:05:11Z", "2026-10-22T10:05:11+00:00"),
        ("2026-10-22T10:05:11.000", None),
        ("2026-02-30T10:05:11.000+0300", None),
        ("yesterday", None),
        ("", None),
        (None, None),
        ("0001-01-01T00:00:00.000+0300", None),
        ("9999-12-31T23:00:00.000-0300", None),
        ("0001-01-01T03:00:00.000+0300", "0001-01-01T00:00:00+00:00"),
        ("9999-12-31T20:59:59.000-0300", "9999-12-31T23:59:59+00:00"),
    ],
)
def test_comment_times_to_utc(jira, utc):
    assert jira_time_to_utc(jira) == utc


def jira_times(count: int, seed: int) -> list[str]:
    """Jira-format times over three years and many offsets, with broken ones mixed in."""
    rng = random.Random(seed)
    offsets = ["+0300", "+0000", "-0500", "+0530", "+0545", "-0930", "+1400", "-1200", "+0100"]
    start = datetime(2024, 1, 1)
    values = []
    for _ in range(count):
        moment = start + timedelta(seconds=rng.randrange(3 * 366 * 86400))
        value = f"{moment:%Y-%m-%dT%H:%M:%S}.{rng.randrange(1000):03d}{rng.choice(offsets)}"
        if rng.random() < 0.05:  # break one character
            i = rng.randrange(len(value))
            value = value[:i] + rng.choice("0959:+-.xT ") + value[i + 1:]
        values.append(value)
    return [*values, "0001-01-01T00:00:00.000+0300", "9999-12-31T23:00:00.000-0300",
            "0001-01-01T00:30:00.000+0030", "9999-12-31T23:59:59.999-0001",
            "2026-02-29T10:00:00.000+0300", "2028-02-29T23:30:00.000-0530",
            "2026-10-22T24:00:00.000+0300", "2026-10-22T13:05:11.000+2400",
            "2026-12-31T23:59:59.999-1200", "2027-01-01T00:00:00.000+1400"]


def test_jira_format_shortcut_gives_the_same_results_as_the_general_rule():
    convert = JiraTimeConverter()
    for value in jira_times(20000, seed=6):
        assert convert(value) == jira_time_to_utc(value), value


def test_v7_moves_tokens_into_their_table_and_the_hub_still_knows_them(tmp_path, caplog):
    """A v6 hub's tokens (``setting`` rows) become rows of ``token``; the rows go."""
    caplog.set_level(logging.WARNING, "hub.migrations")
    db = make_db(tmp_path / "v6.sqlite", 6, settings={"token:broken": "not json"})
    migrate(db, tmp_path / "backups")
    conn = sqlite3.connect(db)
    assert conn.execute("SELECT name, role, sha256, created_at FROM token ORDER BY id").fetchall() == [
        ("admin", "admin", "0" * 64, T0),
        ("agent-1", "agent", V6_TOKEN_RECORD["sha256"], T0),
    ]
    settings = dict(conn.execute("SELECT key, value FROM setting"))
    assert "token:agent-1" not in settings and "token:admin" not in settings
    assert settings["token:broken"] == "not json" and "'token:broken'" in caplog.text
    assert conn.execute("SELECT count(*) FROM command WHERE token_id IS NOT NULL").fetchone() == (0,)
    assert conn.execute("SELECT count(*) FROM sync_run WHERE neighbors_due != 0").fetchone() == (0,)
    conn.close()

    open_database(db)
    principal = built_services(Config(data_dir=tmp_path)).tokens.authenticate(V6_TOKEN)
    assert (principal.name, principal.role) == ("agent-1", "agent")


def test_times_at_the_calendars_ends_convert_to_nothing_on_both_paths():
    convert = JiraTimeConverter()
    for value in ["0001-01-01T00:00:00.000+0300", "9999-12-31T23:00:00.000-0300",
                  "0001-01-01T00:00:00+03:00", "9999-12-31T23:00:00-03:00"]:
        assert convert(value) is None and jira_time_to_utc(value) is None, value


def test_a_v4_database_with_comments_at_the_calendars_ends_migrates(tmp_path):
    db = make_db(tmp_path / "hub.sqlite", 4)
    conn = sqlite3.connect(db)
    conn.executemany(
        "INSERT INTO issue_comment (key, comment_id, author, created, updated, body)"
        " VALUES ('AURORA-13', ?, 'petrov', ?, NULL, 'edge')",
        [("201", "0001-01-01T00:00:00.000+0300"), ("202", "9999-12-31T23:00:00.000-0300"),
         ("203", "0001-01-01T00:00:00+03:00")])
    conn.commit()
    migrate(db, tmp_path / "backups")
    rows = conn.execute("SELECT comment_id, created_at FROM issue_comment"
                        " WHERE comment_id IN ('101', '201', '202', '203') ORDER BY comment_id").fetchall()
    assert rows == [("101", "2026-10-22T10:05:11+00:00"), ("201", None), ("202", None), ("203", None)]


def test_v7_indexes_the_fetches_of_a_v6_hub_and_states_read_them(tmp_path):
    """The step indexes the fetch_attachment commands already there; commands of other
    types are never parsed, so a v3 refresh whose params are not JSON does not stop it."""
    db = make_db(tmp_path / "v6.sqlite", 6)
    conn = sqlite3.connect(db)
    conn.execute("UPDATE command SET params = 'not json' WHERE id = 3")
    conn.executemany(
        "INSERT INTO command (type, params, status, error, created_at) VALUES ('fetch_attachment', ?, ?, ?, ?)",
        [(json.dumps({"attachment_id": "31337"}), "done", None, T0),
         (json.dumps({"attachment_id": "31337"}), "failed", "Jira answered 404", T0)])
    conn.commit()
    migrate(db, tmp_path / "backups")
    assert conn.execute(
        "SELECT id FROM command INDEXED BY command_attachment"
        " WHERE type = 'fetch_attachment' AND json_extract(params, '$.attachment_id') = ?",
        ("31337",)).fetchall() == [(6,), (7,)]
    conn.close()

    open_database(db)
    # The v6 file row names a file this store does not have: the last fetch decides.
    [state] = built_services(Config(data_dir=tmp_path)).attachments.states(["31337"])
    assert (state["state"], state["error"], state["command_id"]) == ("failed", "Jira answered 404", 7)


def test_rows_of_one_jira_id_are_merged_into_the_one_jira_updated_last(tmp_path):
    """v11: an issue moved (AURORA-12 → OPS-7) and mirrored under both keys becomes one row,
    the one Jira updated last, with the other's comments, links and notes; its old key an alias."""
    db = make_db(tmp_path / "hub.sqlite", 10, rows=False)
    conn = sqlite3.connect(db)
    issue = ("INSERT INTO issue (key, id, summary, jira_updated_at, fetched_at) VALUES (?, ?, ?, ?, ?)")
    conn.execute(issue, ("AURORA-12", "10012", "before the move", "2026-10-01T09:00:00+00:00", T0))
    conn.execute(issue, ("OPS-7", "10012", "after the move", "2026-10-22T10:05:11+00:00", T0))
    conn.execute(issue, ("AURORA-13", "10013", "a neighbour", None, T0))
    comment = "INSERT INTO issue_comment (key, comment_id, body) VALUES (?, ?, ?)"
    conn.executemany(comment, [("AURORA-12", "101", "old copy"), ("OPS-7", "101", "kept copy"),
                               ("AURORA-12", "102", "only under the old key")])
    conn.executemany("INSERT INTO issue_link (source_key, target_key, link_type) VALUES (?, ?, ?)",
                     [("AURORA-13", "AURORA-12", "Blocks"), ("AURORA-12", "OPS-7", "Cloners")])
    conn.execute("INSERT INTO issue_note (key, author, body, created_at, updated_at) VALUES (?, ?, ?, ?, ?)",
                 ("AURORA-12", "ivanov", "the hub's own words", T0, T0))
    conn.commit()
    conn.close()

    migrate(db, tmp_path / "backups")

    conn = sqlite3.connect(db)
    assert conn.execute("SELECT key, summary FROM issue ORDER BY key").fetchall() == [
        ("AURORA-13", "a neighbour"), ("OPS-7", "after the move")]
    assert conn.execute("SELECT comment_id, body FROM issue_comment WHERE key = 'OPS-7' ORDER BY 1").fetchall() == [
        ("101", "kept copy"), ("102", "only under the old key")]
    assert conn.execute("SELECT * FROM issue_link").fetchall() == [("AURORA-13", "OPS-7", "Blocks")]
    assert conn.execute("SELECT key, body FROM issue_note").fetchall() == [("OPS-7", "the hub's own words")]
    assert conn.execute("SELECT old_key, key FROM issue_alias").fetchall() == [("AURORA-12", "OPS-7")]
    conn.execute("INSERT INTO issue_fts (issue_fts, rank) VALUES ('integrity-check', 1)")
    with pytest.raises(sqlite3.IntegrityError):
        conn.execute(issue, ("OTHER-1", "10013", "the same Jira id again", None, T0))
    conn.close()


def test_runs_from_before_v11_know_no_agent_version_and_are_never_checked(tmp_path):
    """v11: ``sync_run.agent_version`` and ``checks_enqueued`` are NULL for the runs it finds, so
    marking one of those again (as a late worker would) enqueues no check_issues."""
    db = make_db(tmp_path / "hub.sqlite", 10)
    conn = sqlite3.connect(db)
    conn.execute("INSERT INTO issue (key, id, summary, fetched_at) VALUES ('AURORA-3', '3', 'stale', ?)",
                 ("2000-01-01T00:00:00+00:00",))
    conn.commit()
    conn.close()
    migrate(db, tmp_path / "backups")
    conn = sqlite3.connect(db)
    runs = conn.execute("SELECT id, status, agent_version, checks_enqueued FROM sync_run ORDER BY id").fetchall()
    assert [row[2:] for row in runs] == [(None, None)] * len(runs)
    conn.close()
    open_database(db)
    runs_service = built_services(Config(data_dir=tmp_path)).runs
    for run_id, *_ in runs:
        runs_service.mark_neighbours(run_id)
    conn = sqlite3.connect(db)
    assert conn.execute("SELECT count(*) FROM command WHERE type = 'check_issues'").fetchone() == (0,)
    conn.close()


def test_v12_adds_saved_filters_empty_with_a_name_unique_per_owner(tmp_path):
    """v12: a v11 hub's rows are kept; ``saved_filter`` starts empty, and a name is taken once per
    owner token (another owner, or none, may use it)."""
    db = make_db(tmp_path / "hub.sqlite", 11)
    before = sqlite3.connect(db).execute("SELECT count(*) FROM issue").fetchone()
    migrate(db, tmp_path / "backups")
    conn = sqlite3.connect(db)
    assert conn.execute("SELECT count(*) FROM issue").fetchone() == before
    assert conn.execute("SELECT count(*) FROM saved_filter").fetchone() == (0,)
    saved = "INSERT INTO saved_filter (name, jql, owner_token_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?)"
    conn.execute(saved, ("Open bugs", "type = Bug AND resolution is EMPTY", 1, T0, T0))
    conn.execute(saved, ("Open bugs", "type = Bug", 2, T0, T0))
    conn.execute(saved, ("Open bugs", "type = Bug", None, T0, T0))
    with pytest.raises(sqlite3.IntegrityError):
        conn.execute(saved, ("Open bugs", "status = Open", 1, T0, T0))
    conn.close()


def test_v13_adds_web_sessions_empty_with_a_hash_unique(tmp_path):
    """v13: a v12 hub's rows are kept; ``web_session`` starts empty, and a session's hash is
    taken once."""
    db = make_db(tmp_path / "hub.sqlite", 12)
    before = sqlite3.connect(db).execute("SELECT count(*) FROM token").fetchone()
    migrate(db, tmp_path / "backups")
    conn = sqlite3.connect(db)
    assert conn.execute("SELECT count(*) FROM token").fetchone() == before
    assert conn.execute("SELECT count(*) FROM web_session").fetchone() == (0,)
    session = ("INSERT INTO web_session (sha256, token_id, created_at, last_seen_at, expires_at)"
               " VALUES (?, ?, ?, ?, ?)")
    conn.execute(session, ("a" * 64, 1, T0, T0, T0))
    with pytest.raises(sqlite3.IntegrityError):
        conn.execute(session, ("a" * 64, 2, T0, T0, T0))
    conn.close()
