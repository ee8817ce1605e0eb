"""Reading the mirror and keeping notes through ``/api/v1``."""

from __future__ import annotations

from tests.support import BASE, db_rows, mirrored, with_projects


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
    assert hub.api("GET", "/api/v1/issues", params={"sort": "key"}).status_code == 422


def test_one_issue_with_links_both_ways_comments_and_changes(hub):
    mirrored(hub)
    one = hub.api("GET", "/api/v1/issues/X-1").json
    assert one["description"] == "h1. one" and one["labels"] == ["AWPCA"]
    assert one["links"] == {"outward": [{"type": "Blocks", "key": "X-2"}],
                            "inward": [{"type": "Cloners", "key": "X-2"}, {"type": "Relates", "key": "X-3"}]}
    comments = hub.api("GET", "/api/v1/issues/X-1/comments").json["items"]
    assert [c["id"] for c in comments] == ["101", "102"]
    assert comments[0]["created_at"] == "2026-10-22T10:05:11+00:00"
    [change] = hub.api("GET", "/api/v1/issues/X-1/changes").json["items"]
    assert (change["field"], change["from_string"], change["to_string"]) == ("status", "Open", "In Progress")
    for path in ("", "/comments", "/changes", "/notes", "/attachments"):
        assert hub.api("GET", f"/api/v1/issues/NOPE-1{path}").status_code == 404


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
