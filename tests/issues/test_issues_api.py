"""Reading the mirror and keeping notes through ``/api/v1``."""

from __future__ import annotations

import pytest

from tests.support import BASE, db_rows, issue, load, mirrored, with_projects

pytestmark = pytest.mark.backends("sqlite", "postgresql")


def keys(resp) -> list[str]:
    assert resp.status_code == 200, resp.json
    return [item["key"] for item in resp.json["items"]]


def test_issue_list_filters_and_pages(hub):
    mirrored(hub)
    assert keys(hub.api("GET", "/api/v1/issues")) == ["Y-1", "X-3", "X-2", "X-1"]
    assert keys(hub.api("GET", "/api/v1/issues", params={"status": "Open"})) == ["X-3", "X-1"]
    assert keys(hub.api("GET", "/api/v1/issues", params={"label": "KPI"})) == ["X-3", "X-2"]
    assert keys(hub.api("GET", "/api/v1/issues", params={"assignee": "ivanov"})) == ["X-1"]
    assert keys(hub.api("GET", "/api/v1/issues", params={"epic_key": "X-9"})) == ["X-2"]
    assert keys(hub.api("GET", "/api/v1/issues", params={"neighbor": 1})) == ["Y-1"]
    first = hub.api("GET", "/api/v1/issues", params={"limit": 3}).json
    rest = hub.api("GET", "/api/v1/issues", params={"limit": 3, "cursor": first["next_cursor"]}).json
    assert [i["key"] for i in first["items"] + rest["items"]] == ["Y-1", "X-3", "X-2", "X-1"]
    assert rest["next_cursor"] is None
    assert first["items"][0]["neighbor"] is True and "description" not in first["items"][0]
    assert hub.api("GET", "/api/v1/issues", params={"neighbor": 2}).status_code == 422
    assert hub.api("GET", "/api/v1/issues", params={"sort": "rank"}).status_code == 422


def test_one_issue_with_links_both_ways_comments_and_changes(hub):
    mirrored(hub)
    one = hub.api("GET", "/api/v1/issues/X-1").json
    assert one["description"] == "h1. one" and one["labels"] == ["AWPCA"]
    x2, x3 = ({"summary": f"Summary {key}", "status": status, "in_mirror": True, "gone": False}
              for key, status in (("X-2", "Done"), ("X-3", "Open")))
    # No link types catalogue reported: each link's phrase is its type's name.
    assert one["links"] == {"outward": [{"type": "Blocks", "phrase": "Blocks", "key": "X-2", **x2}],
                            "inward": [{"type": "Cloners", "phrase": "Cloners", "key": "X-2", **x2},
                                       {"type": "Relates", "phrase": "Relates", "key": "X-3", **x3}]}
    comments = hub.api("GET", "/api/v1/issues/X-1/comments").json["items"]
    assert [c["id"] for c in comments] == ["101", "102"]
    assert comments[0]["created_at"] == "2026-10-22T10:05:11+00:00"
    [change] = hub.api("GET", "/api/v1/issues/X-1/changes").json["items"]
    assert (change["field"], change["from_string"], change["to_string"]) == ("status", "Open", "In Progress")
    for path in ("", "/comments", "/changes", "/notes", "/attachments"):
        assert hub.api("GET", f"/api/v1/issues/NOPE-1{path}").status_code == 404


def test_each_link_names_the_other_issues_summary_and_status_read_in_one_query(hub, caplog):
    """Links both ways, to an issue the mirror holds, one it does not and the issue itself; 10,000
    links cost the queries one link does."""
    with_projects()
    links = [{"type": "Blocks", "outward": "AURORA-2"}, {"type": "Relates", "outward": "OTHER-9"},
             {"type": "Relates", "inward": "AURORA-3"}, {"type": "Duplicate", "outward": "AURORA-1"}]
    load(hub, [issue("AURORA-1", links=links), issue("AURORA-2", summary="Card details", status="Done"),
               issue("AURORA-3", summary="Cards epic", status=None),
               issue("AURORA-4", links=[{"type": "Relates", "outward": f"AURORA-{n}"} for n in range(5, 10_005)])])
    one = hub.api("GET", "/api/v1/issues/AURORA-1").json
    held = {"in_mirror": True, "gone": False}
    assert one["links"] == {
        "outward": [{"type": "Blocks", "phrase": "Blocks", "key": "AURORA-2", "summary": "Card details",
                     "status": "Done", **held},
                    {"type": "Duplicate", "phrase": "Duplicate", "key": "AURORA-1", "summary": "Summary AURORA-1",
                     "status": None, **held},
                    {"type": "Relates", "phrase": "Relates", "key": "OTHER-9", "summary": None, "status": None,
                     "in_mirror": False, "gone": False}],
        "inward": [{"type": "Relates", "phrase": "Relates", "key": "AURORA-3", "summary": "Cards epic",
                    "status": None, **held}]}
    two = hub.api("GET", "/api/v1/issues/AURORA-2").json
    assert two["links"] == {"outward": [], "inward": [
        {"type": "Blocks", "phrase": "Blocks", "key": "AURORA-1", "summary": "Summary AURORA-1", "status": None,
         **held}]}

    def queries(key: str) -> int:
        caplog.clear()
        with caplog.at_level("DEBUG", logger="peewee"):
            assert hub.api("GET", f"/api/v1/issues/{key}").status_code == 200
        return sum(1 for record in caplog.records if record.name == "peewee")

    assert 0 < queries("AURORA-4") == queries("AURORA-2")
    many = hub.api("GET", "/api/v1/issues/AURORA-4").json["links"]["outward"]
    assert len(many) == 10_000 and sum(link["in_mirror"] for link in many) == 0  # AURORA-5.. are not held
    assert [link["key"] for link in many[:3]] == ["AURORA-10", "AURORA-100", "AURORA-1000"]


def test_notes_are_kept_by_interfaces_and_never_touch_the_mirror(hub):
    mirrored(hub)
    before = db_rows(hub, "SELECT * FROM issue ORDER BY key")
    added = hub.api("POST", "/api/v1/issues/X-1/notes", {"body": "ask design"})
    assert added.status_code == 201
    assert (added.json["author"], added.json["body"]) == ("test-interface", "ask design")
    edited = hub.api("PATCH", f"/api/v1/notes/{added.json['id']}", {"body": "asked"})
    assert edited.json["body"] == "asked" and edited.json["updated_at"] > added.json["updated_at"]
    assert [n["body"] for n in hub.api("GET", "/api/v1/issues/X-1/notes").json["items"]] == ["asked"]
    assert hub.api("POST", "/api/v1/issues/X-1/notes", {"body": ""}).status_code == 422
    assert hub.api("POST", "/api/v1/issues/NOPE-1/notes", {"body": "x"}).status_code == 404
    assert hub.api("DELETE", f"/api/v1/notes/{added.json['id']}").status_code == 204
    assert hub.api("DELETE", f"/api/v1/notes/{added.json['id']}").status_code == 404
    assert db_rows(hub, "SELECT * FROM issue ORDER BY key") == before
    assert hub.api("POST", "/api/v1/issues/X-1/notes", {"body": "x"}, role="agent").status_code == 403


def test_projects_and_the_base_jql(hub):
    empty = hub.api("GET", "/api/v1/projects").json
    assert empty == {"items": [], "next_cursor": None, "scope": "", "base_jql": None}
    with_projects()
    listed = hub.api("GET", "/api/v1/projects").json
    assert [p["label"] for p in listed["items"]] == ["AWPCA"]
    assert (listed["scope"], listed["base_jql"]) == ("project = AURORA", BASE)
