"""Moved issues: a state whose Jira id the mirror holds under another key moves that issue,
with everything keyed by its key, and the old key is kept as an alias."""

from __future__ import annotations

import pytest

from hub.db import database
from hub.dialect.mirror import insertion_order
from hub.services.search.text_query import fts_query
from tests.support import JIRA_TIME, attachment, comment, db_rows, fetched, issue, jira_id, load

pytestmark = pytest.mark.backends("sqlite", "postgresql")

OLD = jira_id("AURORA-12")
WORKLOG = {"id": "501", "author": "ivanov", "started": JIRA_TIME, "time_spent": 3600}
CHANGE = {"id": "701", "author": "ivanov", "created": JIRA_TIME,
          "items": [{"field": "status", "from_string": "Open", "to_string": "Done"}]}
SPRINT = {"id": 42, "name": "Sprint 42", "state": "active"}


def moved(key: str, was: str = "AURORA-12", **fields) -> dict:
    """The state of the issue ``was`` once Jira has moved it to ``key``."""
    return issue(key, id=jira_id(was), **fields)


def key_item(old: str, new: str, history: str = "9001") -> dict:
    return {"id": history, "author": "ivanov", "created": JIRA_TIME,
            "items": [{"field": "Key", "field_type": "jira", "from_string": old, "to_string": new}]}


def rows(hub, table: str, column: str = "key") -> list[tuple]:
    return db_rows(hub, f"SELECT DISTINCT {column} FROM {table} ORDER BY 1")


def aliases(hub) -> list[tuple]:
    return db_rows(hub, f"SELECT old_key, key FROM issue_alias ORDER BY moved_at, {insertion_order()}")


def write(hub, sql: str) -> None:
    """One statement written into the hub's database from outside its services."""
    with database.atomic():
        database.execute_sql(sql)


def integrity(hub) -> None:
    """SQLite: the full-text index agrees with the text it was built from. (PostgreSQL's
    index is the search's: see tests/search/test_search.py.)"""
    if not hub.config.database_url:
        db_rows(hub, "INSERT INTO issue_fts (issue_fts, rank) VALUES ('integrity-check', 1)")


def test_a_moved_issue_is_one_issue_under_its_new_key_with_all_it_had(hub):
    load(hub, [issue("AURORA-12", comments=[comment("101")], worklogs=[WORKLOG], changes=[CHANGE],
                     sprints=[SPRINT], attachments=[attachment("3001", "spec.pdf")],
                     links=[{"type": "Blocks", "outward": "AURORA-13"}]),
               issue("AURORA-13", links=[{"type": "Relates", "outward": "AURORA-12"}]),
               issue("AURORA-14", epic_key="AURORA-12", parent_key="AURORA-12")])
    fetched(hub, "3001", b"0123456789")
    note = hub.api("POST", "/api/v1/issues/AURORA-12/notes", {"body": "only the hub knows this"}).json

    load(hub, [moved("OPS-7", summary="Moved", changes=[key_item("AURORA-12", "OPS-7")])])

    assert rows(hub, "issue") == [("AURORA-13",), ("AURORA-14",), ("OPS-7",)]
    for table in ("issue_comment", "issue_worklog", "issue_change", "issue_sprint", "issue_attachment",
                  "issue_note"):
        assert rows(hub, table) == [("OPS-7",)], table
    assert db_rows(hub, "SELECT source_key, target_key FROM issue_link ORDER BY 1") == [
        ("AURORA-13", "OPS-7"), ("OPS-7", "AURORA-13")]
    assert db_rows(hub, "SELECT epic_key, parent_key FROM issue WHERE key = 'AURORA-14'") == [("OPS-7", "OPS-7")]
    assert aliases(hub) == [("AURORA-12", "OPS-7")]
    integrity(hub)
    # The attachment's state is its id's: the fetched file follows the issue.
    [state] = hub.api("GET", "/api/v1/issues/OPS-7/attachments").json["items"]
    assert (state["attachment_id"], state["key"], state["state"]) == ("3001", "OPS-7", "ready")
    assert hub.api("GET", "/api/v1/issues/OPS-7/notes").json["items"][0]["id"] == note["id"]
    detail = hub.api("GET", "/api/v1/issues/AURORA-13").json
    assert [(link["key"], link["in_mirror"]) for link in detail["links"]["outward"]] == [("OPS-7", True)]


def test_the_old_key_answers_with_the_issue_under_its_new_key(hub):
    load(hub, [issue("AURORA-12", comments=[comment("101")])])
    load(hub, [moved("OPS-7")])

    resp = hub.api("GET", "/api/v1/issues/AURORA-12")
    assert resp.status_code == 200
    assert resp.headers["Content-Location"] == "/api/v1/issues/OPS-7"
    assert (resp.json["key"], resp.json["moved_from"]) == ("OPS-7", ["AURORA-12"])
    direct = hub.api("GET", "/api/v1/issues/OPS-7")
    assert "Content-Location" not in direct.headers and direct.json["moved_from"] == ["AURORA-12"]
    [listed] = hub.api("GET", "/api/v1/issues").json["items"]
    assert listed["moved_from"] == ["AURORA-12"]
    assert [c["id"] for c in hub.api("GET", "/api/v1/issues/AURORA-12/comments").json["items"]] == ["101"]
    for part in ("changes", "worklogs", "attachments", "notes"):
        assert hub.api("GET", f"/api/v1/issues/AURORA-12/{part}").status_code == 200, part
    assert hub.api("GET", "/api/v1/issues/AURORA-99").status_code == 404


def test_a_note_added_under_the_old_key_lands_on_the_new_one(hub):
    load(hub, [issue("AURORA-12")])
    load(hub, [moved("OPS-7")])

    resp = hub.api("POST", "/api/v1/issues/AURORA-12/notes", {"body": "written on the old key"})

    assert resp.status_code == 201 and resp.json["key"] == "OPS-7"
    assert [n["body"] for n in hub.api("GET", "/api/v1/issues/OPS-7/notes").json["items"]] == [
        "written on the old key"]


def test_search_by_the_old_key_finds_the_issue(hub):
    load(hub, [issue("AURORA-12", summary="Radar calibration"), issue("AURORA-13")])
    load(hub, [moved("OPS-7", summary="Radar calibration")])

    for q in ("AURORA-12", "key:AURORA-12", "aurora-12", '"AURORA-12"'):
        found = hub.api("GET", "/api/v1/issues", params={"q": q}).json
        assert [item["key"] for item in found["items"]] == ["OPS-7"], q
        assert found["total"] == 1
    assert hub.api("GET", "/api/v1/issues", params={"q": "OPS-7"}).json["total"] == 1
    assert hub.api("GET", "/api/v1/issues", params={"q": "calibration"}).json["items"][0]["key"] == "OPS-7"


def test_a_move_seen_only_in_the_changelog_is_made_and_its_alias_kept(hub):
    # The mirror held the issue under its old key with no Jira id (an old mirror's row).
    write(hub, "INSERT INTO issue (key, id, summary, fetched_at) VALUES ('AURORA-12', '', 'old', 't')")
    write(hub, "INSERT INTO issue_comment (key, comment_id, body) VALUES ('AURORA-12', '1', 'kept')")
    if not hub.config.database_url:  # (the rows above went round SQLite's index)
        write(hub, "INSERT INTO issue_fts (issue_fts) VALUES ('rebuild')")
    load(hub, [issue("AURORA-20", links=[{"type": "Blocks", "outward": "AURORA-30"}])])

    load(hub, [issue("OPS-7", changes=[key_item("AURORA-12", "OPS-7")]),
               # AURORA-30 never was in the mirror: its alias is kept all the same, and links follow.
               issue("OPS-8", changes=[key_item("AURORA-30", "OPS-8", "9002")])])

    assert rows(hub, "issue") == [("AURORA-20",), ("OPS-7",), ("OPS-8",)]
    assert db_rows(hub, "SELECT key, body FROM issue_comment") == [("OPS-7", "kept")]
    assert aliases(hub) == [("AURORA-12", "OPS-7"), ("AURORA-30", "OPS-8")]
    assert db_rows(hub, "SELECT target_key FROM issue_link") == [("OPS-8",)]
    assert hub.api("GET", "/api/v1/issues/AURORA-30").json["key"] == "OPS-8"
    integrity(hub)
    # Loaded again with the same changelog, nothing more happens.
    load(hub, [issue("OPS-7", changes=[key_item("AURORA-12", "OPS-7")])])
    assert aliases(hub) == [("AURORA-12", "OPS-7"), ("AURORA-30", "OPS-8")]


def test_a_changelog_naming_a_live_key_of_another_issue_moves_nothing(hub):
    load(hub, [issue("AURORA-12"), issue("OPS-7")])
    load(hub, [issue("OPS-7", changes=[key_item("AURORA-12", "OPS-7")])])
    assert rows(hub, "issue") == [("AURORA-12",), ("OPS-7",)] and aliases(hub) == []


def test_a_chain_of_two_moves_leaves_both_old_keys_leading_to_the_last(hub):
    load(hub, [issue("AURORA-12", comments=[comment("1")])])
    load(hub, [moved("OPS-7")])
    load(hub, [moved("CORE-3")])

    assert aliases(hub) == [("AURORA-12", "CORE-3"), ("OPS-7", "CORE-3")]
    assert rows(hub, "issue_comment") == [("CORE-3",)]
    for key in ("AURORA-12", "OPS-7", "CORE-3"):
        answer = hub.api("GET", f"/api/v1/issues/{key}").json
        assert (answer["key"], answer["moved_from"]) == ("CORE-3", ["AURORA-12", "OPS-7"]), key
    integrity(hub)


def test_an_issue_moved_back_drops_the_alias_of_its_live_key(hub):
    load(hub, [issue("AURORA-12", comments=[comment("1")])])
    load(hub, [moved("OPS-7")])
    load(hub, [moved("AURORA-12")])

    assert rows(hub, "issue") == [("AURORA-12",)]
    assert aliases(hub) == [("OPS-7", "AURORA-12")]
    answer = hub.api("GET", "/api/v1/issues/AURORA-12")
    assert "Content-Location" not in answer.headers and answer.json["moved_from"] == ["OPS-7"]
    assert hub.api("GET", "/api/v1/issues/OPS-7").headers["Content-Location"] == "/api/v1/issues/AURORA-12"
    integrity(hub)


def test_a_stale_row_under_the_new_key_is_displaced_and_its_notes_stay_on_the_key(hub):
    # OPS-7 was mirrored as another issue (Jira id 777): it has moved away or was deleted since,
    # and Jira gave OPS-7 to AURORA-12 when it moved.
    load(hub, [issue("AURORA-12", comments=[comment("1", "mine")]),
               issue("OPS-7", id="777", comments=[comment("1", "stale")],
                     links=[{"type": "Blocks", "outward": "AURORA-12"}])])
    hub.api("POST", "/api/v1/issues/OPS-7/notes", {"body": "on the stale row"})
    hub.api("POST", "/api/v1/issues/AURORA-12/notes", {"body": "on the moved issue"})

    load(hub, [moved("OPS-7")])

    assert db_rows(hub, "SELECT key, id FROM issue") == [("OPS-7", OLD)]
    assert db_rows(hub, "SELECT key, body FROM issue_comment") == [("OPS-7", "mine")]
    assert db_rows(hub, "SELECT count(*) FROM issue_link") == [(0,)]
    assert db_rows(hub, "SELECT key, body FROM issue_note ORDER BY id") == [
        ("OPS-7", "on the stale row"), ("OPS-7", "on the moved issue")]
    integrity(hub)


def test_a_page_naming_both_keys_of_one_issue_ends_where_its_order_leads(hub):
    load(hub, [issue("AURORA-12", status="Open", comments=[comment("1")])])

    # The old key first, then the new: the issue ends under the new key with both states applied.
    load(hub, [issue("AURORA-12", status="Review", priority="High"), moved("OPS-7", status="Done")])
    assert db_rows(hub, "SELECT key, status, priority FROM issue") == [("OPS-7", "Done", "High")]
    assert rows(hub, "issue_comment") == [("OPS-7",)] and aliases(hub) == [("AURORA-12", "OPS-7")]

    # The new key first, then the old: the issue is moved back by the page's last state.
    load(hub, [moved("OPS-7", status="Done"), issue("AURORA-12", status="Reopened")])
    assert db_rows(hub, "SELECT key, status FROM issue") == [("AURORA-12", "Reopened")]
    assert aliases(hub) == [("OPS-7", "AURORA-12")]
    integrity(hub)


def test_a_page_of_moved_issues_keeps_links_between_them(hub):
    # A project's new key: every issue moves in one page, and they link each other.
    load(hub, [issue(f"AURORA-{n}", links=[{"type": "Blocks", "outward": f"AURORA-{n + 1}"}])
               for n in range(1, 4)])

    load(hub, [moved(f"OPS-{n}", f"AURORA-{n}", links=[{"type": "Blocks", "outward": f"OPS-{n + 1}"}])
               for n in range(1, 4)])

    assert db_rows(hub, "SELECT source_key, target_key FROM issue_link ORDER BY 1") == [
        ("OPS-1", "OPS-2"), ("OPS-2", "OPS-3"), ("OPS-3", "OPS-4")]
    assert [old for old, _ in aliases(hub)] == ["AURORA-1", "AURORA-2", "AURORA-3"]
    integrity(hub)


def test_openapi_describes_moved_from_and_the_content_location_of_an_old_key(hub):
    document = hub.api("GET", "/openapi.json", role=None).json
    one = document["paths"]["/api/v1/issues/{key}"]["get"]["responses"]["200"]
    assert "Content-Location" in one["headers"]
    assert one["content"]["application/json"]["schema"]["properties"]["moved_from"]["type"] == "array"
    listed = document["paths"]["/api/v1/issues"]["get"]["responses"]["200"]["content"]["application/json"]
    assert "moved_from" in listed["schema"]["properties"]["items"]["items"]["required"]


def test_only_whole_key_terms_are_widened_to_the_key_a_moved_issue_has_now():
    asked: list[list[str]] = []

    def moved_keys(keys: list[str]) -> dict[str, str]:
        asked.append(keys)
        return {"AURORA-12": "OPS-7"}

    assert fts_query("aurora-12", moved_keys) == '("aurora-12" OR "OPS-7")'
    assert fts_query("key:AURORA-12 radar", moved_keys) == '(key : ("AURORA-12" OR "OPS-7") AND "radar")'
    # A prefix, another field, or a key no issue moved from, stays as written.
    assert fts_query("AURORA-12* summary:AURORA-12 AURORA-13", moved_keys) == \
        '("AURORA-12"* AND summary : "AURORA-12" AND "AURORA-13")'
    assert asked[-1] == ["AURORA-13"]
    # Words that are no key shape ask nothing.
    fts_query("radar calibration", moved_keys)
    assert len(asked) == 3
