"""An issue re-read every few seconds costs the hub a hash, not an answer: ``GET
/api/v1/issues/{key}`` carries an ETag of its body, and an ``If-None-Match`` naming it is
answered 304 without a body until the issue (or a write pending on it) changes."""

from __future__ import annotations

import pytest

from tests.support.protocol import issue, load

pytestmark = pytest.mark.backends("sqlite", "postgresql")


def test_the_same_issue_has_the_same_etag_and_a_matching_if_none_match_is_304(hub):
    load(hub, [issue("AURORA-1", status="Open")])
    first = hub.api("GET", "/api/v1/issues/AURORA-1")
    again = hub.api("GET", "/api/v1/issues/AURORA-1")
    etag = first.headers["etag"]
    assert first.status_code == 200 and etag.startswith('W/"') and again.headers["etag"] == etag
    same = hub.api("GET", "/api/v1/issues/AURORA-1", headers={"If-None-Match": etag})
    assert same.status_code == 304 and same.content == b"" and same.headers["etag"] == etag
    assert same.headers["cache-control"] == "no-store"
    # The strong form and a list naming it match too (If-None-Match compares weakly).
    strong = etag.removeprefix("W/")
    listed = hub.api("GET", "/api/v1/issues/AURORA-1", headers={"If-None-Match": f'"other", {strong}'})
    assert listed.status_code == 304


def test_an_issue_changed_by_the_mirror_is_sent_again_with_a_new_etag(hub):
    load(hub, [issue("AURORA-1", status="Open")])
    etag = hub.api("GET", "/api/v1/issues/AURORA-1").headers["etag"]
    load(hub, [issue("AURORA-1", status="In Progress")])
    changed = hub.api("GET", "/api/v1/issues/AURORA-1", headers={"If-None-Match": etag})
    assert changed.status_code == 200 and changed.json["status"] == "In Progress"
    assert changed.headers["etag"] != etag


def test_a_write_asked_for_on_the_issue_changes_its_etag(hub):
    load(hub, [issue("AURORA-1", status="Open")], version=19)
    etag = hub.api("GET", "/api/v1/issues/AURORA-1").headers["etag"]
    token = hub.built.services.tokens.add("alice", "interface", write=True)
    asked = hub.client.simulate_post("/api/v1/issues/AURORA-1/comments", json={"body": "hello"},
                                     headers={"Authorization": f"Bearer {token}"})
    assert asked.status_code == 202
    now = hub.api("GET", "/api/v1/issues/AURORA-1", headers={"If-None-Match": etag})
    assert now.status_code == 200 and [w["op"] for w in now.json["pending_writes"]] == ["comment"]


def test_the_rendered_answer_has_an_etag_of_its_own(hub):
    load(hub, [issue("AURORA-1", status="Open", description="*bold*")])
    plain = hub.api("GET", "/api/v1/issues/AURORA-1").headers["etag"]
    rendered = hub.api("GET", "/api/v1/issues/AURORA-1?render=html")
    assert rendered.status_code == 200 and rendered.headers["etag"] != plain
    again = hub.api("GET", "/api/v1/issues/AURORA-1?render=html", headers={"If-None-Match": rendered.headers["etag"]})
    assert again.status_code == 304


def test_an_unknown_issue_is_404_whatever_if_none_match_says(hub):
    resp = hub.api("GET", "/api/v1/issues/AURORA-404", headers={"If-None-Match": "*"})
    assert resp.status_code == 404
