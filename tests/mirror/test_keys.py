"""Keys, ids and file names come in as Jira makes them, and an attachment stays
with its issue and its name: a page that says otherwise is refused whole."""

from __future__ import annotations

import pytest

from tests.support import (
    PDF,
    attachment,
    claim,
    comment,
    db_rows,
    enqueue,
    fetched,
    issue,
    listed,
    load,
    report,
)

pytestmark = pytest.mark.backends("sqlite", "postgresql")

MIRROR = ("SELECT 'issue', key, id, summary FROM issue UNION ALL "
          "SELECT 'link', source_key, target_key, link_type FROM issue_link UNION ALL "
          "SELECT 'comment', key, comment_id, body FROM issue_comment UNION ALL "
          "SELECT 'change', key, history_id, field FROM issue_change UNION ALL "
          "SELECT 'attachment', key, attachment_id, filename || ':' || coalesce(CAST(size AS TEXT), '') "
          "FROM issue_attachment UNION ALL "
          "SELECT 'run', CAST(command_id AS TEXT), status, CAST(issues_loaded AS TEXT) FROM sync_run ORDER BY 1, 2, 3")


def mirror(hub) -> list[tuple]:
    return db_rows(hub, MIRROR)


def refused(hub, page: dict) -> dict:
    """Send ``page`` in a fresh refresh: it must be a 422 that changes nothing."""
    command = enqueue(hub, "key = AURORA-12")
    claim(hub)
    before = mirror(hub)
    resp = report(hub, command["id"], "state", page)
    assert resp.status_code == 422, resp.json
    assert mirror(hub) == before
    return resp.json


def good() -> dict:
    return issue("AURORA-12", id="10012", epic_key="AURORA-1",
                 links=[{"type": "Blocks", "outward": "AURORA-13"}, {"type": "Relates", "inward": "OTHER_2-7"}],
                 comments=[comment("101")],
                 changes=[{"id": "5001", "created": "2026-10-22T13:05:11.000+0300", "items": [{"field": "status"}]}],
                 attachments=[attachment("31337", "Снимок экрана 2014-10-14 в 12.58.42.png")])


def test_what_real_jira_sends_is_taken(hub):
    load(hub, [good(), issue("AB_1-9", id="9", epic_key=None,
                             attachments=[attachment("1", "[TIMOB-25432] app-li….webloc"),
                                          attachment("2", "網上廣東話輸入法.pdf"), attachment("3", ".bashrc"),
                                          attachment("4", 'we"ird; name…')])],
         neighbors=[issue("OTHER_2-7", id="20007")])
    assert [r[1] for r in mirror(hub) if r[0] == "issue"] == ["AB_1-9", "AURORA-12", "OTHER_2-7"]
    assert len([r for r in mirror(hub) if r[0] == "attachment"]) == 5


LOOK_ALIKES = ["\u0410URORA-12", "aurora-12", "Aurora-12", "AURORA-12\n", " AURORA-12", "AURORA-012", "AURORA-0",
               "AURORA-12/notes", "..", ".", "1AURORA-12", "_A-1", "AURORA_12", "AURORA-\uff11\uff12", "AURORA-12.",
               "AURORA-" + "9" * 19, "\u0391URORA-12", ""]


@pytest.mark.parametrize("value", LOOK_ALIKES)
@pytest.mark.parametrize("where, field", [
    (lambda s, v: s.update(key=v), "issues.0.key"),
    (lambda s, v: s["links"][0].update(outward=v), "issues.0.links.0.outward"),
    (lambda s, v: s["links"][1].update(inward=v), "issues.0.links.1.inward"),
    (lambda s, v: s.update(epic_key=v), "issues.0.epic_key"),
])
def test_a_key_jira_cannot_make_is_refused_with_its_field(hub, value, where, field):
    load(hub, [good()])
    state = good()
    where(state, value)
    body = refused(hub, {"issues": [state]})
    assert body["field"] == field, body


def test_a_neighbour_with_a_look_alike_key_is_refused(hub):
    load(hub, [good()])
    body = refused(hub, {"issues": [good()], "neighbors": [issue("\u0410URORA-12", id="10012")]})
    assert body["field"] == "neighbors.0.key"
    # Nor is a look-alike a second issue beside the real one.
    assert [r[1] for r in mirror(hub) if r[0] == "issue"] == ["AURORA-12"]


NOT_IDS = ["0", "010012", "-1", "1.0", "1e5", "att-1", "31337/content", "..", "٣", "\uff11", "12\n", " 12", "",
           "9" * 19]


@pytest.mark.parametrize("value", NOT_IDS)
@pytest.mark.parametrize("where, field", [
    (lambda s, v: s.update(id=v), "issues.0.id"),
    (lambda s, v: s["comments"][0].update(id=v), "issues.0.comments.0.id"),
    (lambda s, v: s["changes"][0].update(id=v), "issues.0.changes.0.id"),
    (lambda s, v: s["attachments"][0].update(id=v), "issues.0.attachments.0.id"),
])
def test_an_id_jira_cannot_make_is_refused_with_its_field(hub, value, where, field):
    state = good()
    where(state, value)
    body = refused(hub, {"issues": [state]})
    assert body["field"] == field, body


@pytest.mark.parametrize("name", ["a/b.pdf", "..\\..\\boot.ini", "a\x00.pdf", "a\r\nX-Evil: 1.pdf", "tab\t.pdf",
                                  "del\x7f.pdf", "c1\x85.pdf", ".", "..", "", "/etc/passwd"])
def test_a_file_name_jira_cannot_make_is_refused(hub, name):
    state = good()
    state["attachments"][0]["filename"] = name
    body = refused(hub, {"issues": [state]})
    assert body["field"] == "issues.0.attachments.0.filename", body


def test_fetch_attachment_of_an_id_that_is_no_jira_id_is_422(hub):
    resp = hub.api("POST", "/api/v1/commands", {"type": "fetch_attachment",
                                                "params": {"attachment_id": "att-1/content"}})
    assert resp.status_code == 422 and resp.json["field"] == "params.attachment_id"


# --- an attachment stays with its issue, its name and its size -------------------------


def state_of(hub, aid: str) -> dict:
    return hub.api("GET", f"/api/v1/attachments/{aid}").json


def test_an_attachment_moves_with_its_issue_when_jira_moves_the_issue(hub):
    listed(hub, attachment("31337", "spec.pdf", len(PDF)), key="AURORA-12")
    fetched(hub, "31337")
    # Moved to another project: a new key, the same Jira id (issue() takes it from the key).
    load(hub, [issue("BOREAS-5", id="12", attachments=[attachment("31337", "spec.pdf", len(PDF))])])
    moved = state_of(hub, "31337")
    assert (moved["key"], moved["filename"], moved["state"]) == ("BOREAS-5", "spec.pdf", "ready")
    assert hub.api("GET", "/api/v1/attachments/31337/content").content == PDF


def test_an_attachment_listed_by_another_jira_issue_is_refused(hub):
    listed(hub, attachment("31337", "spec.pdf", len(PDF)), key="AURORA-12")
    fetched(hub, "31337")
    body = refused(hub, {"issues": [issue("AURORA-13", attachments=[attachment("31337", "evil.exe", 1)])]})
    assert body["field"] == "issues.0.attachments.0.id"
    assert "belongs to AURORA-12" in body["description"]
    kept = state_of(hub, "31337")
    assert (kept["key"], kept["filename"], kept["size"], kept["state"]) == ("AURORA-12", "spec.pdf", len(PDF),
                                                                           "ready")


def test_an_attachment_listed_by_two_jira_issues_in_one_page_is_refused(hub):
    page = {"issues": [issue("AURORA-12", attachments=[attachment("31337", "a.pdf")])],
            "neighbors": [issue("AURORA-13", attachments=[attachment("31337", "a.pdf")])]}
    body = refused(hub, page)
    assert body["field"] == "neighbors.0.attachments.0.id"
    assert db_rows(hub, "SELECT count(*) FROM issue_attachment") == [(0,)]


@pytest.mark.parametrize("change, field", [({"filename": "spec.exe"}, "filename"), ({"size": 1}, "size")])
def test_a_fetched_attachment_renamed_or_resized_is_refused_and_served_as_fetched(hub, change, field):
    listed(hub, attachment("31337", "spec.pdf", len(PDF)), key="AURORA-12")
    fetched(hub, "31337")
    body = refused(hub, {"issues": [issue("AURORA-12", attachments=[{**attachment("31337", "spec.pdf",
                                                                                   len(PDF)), **change}])]})
    assert body["field"] == f"issues.0.attachments.0.{field}", body
    content = hub.api("GET", "/api/v1/attachments/31337/content")
    assert content.content == PDF and "spec.pdf" in content.headers["content-disposition"]
    assert content.headers["content-length"] == str(len(PDF))


def test_a_fetched_attachment_listed_again_as_it_was_stays_ready(hub):
    listed(hub, attachment("31337", "spec.pdf", len(PDF)), key="AURORA-12")
    fetched(hub, "31337")
    # Its size unknown this time (null), and then dropped from the list and listed again.
    listed(hub, {**attachment("31337", "spec.pdf"), "size": None}, key="AURORA-12")
    listed(hub, key="AURORA-12")
    listed(hub, attachment("31337", "spec.pdf", len(PDF)), key="AURORA-12")
    assert state_of(hub, "31337")["state"] == "ready"
    # Listed again after it was dropped, with another size than what was fetched: refused.
    listed(hub, key="AURORA-12")
    body = refused(hub, {"issues": [issue("AURORA-12", attachments=[attachment("31337", "spec.pdf", 5)])]})
    assert body["field"] == "issues.0.attachments.0.size"


def test_an_attachment_not_fetched_takes_what_the_page_says(hub):
    listed(hub, attachment("31337", "spec.pdf", 10), key="AURORA-12")
    listed(hub, attachment("31337", "spec-v2.pdf", 12), key="AURORA-12")
    assert (state_of(hub, "31337")["filename"], state_of(hub, "31337")["size"]) == ("spec-v2.pdf", 12)


def test_a_fetched_attachment_listed_without_a_size_takes_the_fetched_size_as_its_own(hub):
    listed(hub, {**attachment("31337", "spec.pdf"), "size": None}, key="AURORA-12")
    fetched(hub, "31337")
    body = refused(hub, {"issues": [issue("AURORA-12", attachments=[attachment("31337", "spec.pdf", 5)])]})
    assert body["field"] == "issues.0.attachments.0.size"
    listed(hub, attachment("31337", "spec.pdf", len(PDF)), key="AURORA-12")
    assert state_of(hub, "31337")["state"] == "ready"
