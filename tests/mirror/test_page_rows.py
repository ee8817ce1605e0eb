"""What a page that names a row twice leaves, on both engines: the last sending of an
issue replaces its comments, worklogs and sprints, and a comment or worklog id that one
sending repeats is kept once, as its last naming says (PostgreSQL copies these rows in,
where SQLite replaces them one by one)."""

from __future__ import annotations

import pytest

from tests.support import comment, db_rows, issue, load

pytestmark = pytest.mark.backends("sqlite", "postgresql")


def worklog(wid: str, spent: int) -> dict:
    return {"id": wid, "author": "ivanov", "started": "2026-10-22T13:05:11.000+0300", "time_spent": spent,
            "comment": f"took {spent}", "created": "2026-10-22T13:05:11.000+0300",
            "updated": "2026-10-22T13:05:11.000+0300"}


def sprint(sid: int) -> dict:
    return {"id": sid, "name": f"AURORA Sprint {sid}", "state": "active"}


def test_an_issue_sent_twice_in_a_page_keeps_what_its_last_sending_lists(hub):
    load(hub, [issue("AURORA-12", comments=[comment("10001", "first"), comment("10002", "second")],
                     worklogs=[worklog("40001", 60)], sprints=[sprint(14)]),
               issue("AURORA-12", comments=[comment("10002", "second, edited"), comment("10003", "third")],
                     worklogs=[worklog("40002", 120)], sprints=[sprint(15), sprint(16)])], version=15)
    assert db_rows(hub, "SELECT comment_id, body FROM issue_comment WHERE key = 'AURORA-12' ORDER BY 1") == [
        ("10002", "second, edited"), ("10003", "third")]
    assert db_rows(hub, "SELECT worklog_id, time_spent FROM issue_worklog ORDER BY 1") == [("40002", 120)]
    assert db_rows(hub, "SELECT sprint_id FROM issue_sprint ORDER BY 1") == [(15,), (16,)]


def test_an_id_one_sending_repeats_is_kept_once_as_its_last_naming_says(hub):
    load(hub, [issue("AURORA-12", comments=[comment("10001", "once"), comment("10001", "again")],
                     worklogs=[worklog("40001", 60), worklog("40001", 90)], sprints=[sprint(14), sprint(14)])],
         version=15)
    assert db_rows(hub, "SELECT comment_id, body FROM issue_comment") == [("10001", "again")]
    assert db_rows(hub, "SELECT worklog_id, time_spent FROM issue_worklog") == [("40001", 90)]
    assert db_rows(hub, "SELECT sprint_id FROM issue_sprint") == [(14,)]
