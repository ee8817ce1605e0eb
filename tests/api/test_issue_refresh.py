"""``POST /api/v1/issues/{key}/refresh``: "Refresh from Jira" on the issue page. It queues one
refresh of that issue (``key = KEY``, an other query's run, never a full one), hands back the open
one rather than a second while it is queued or claimed, and knows only the issues the mirror holds."""

from __future__ import annotations

import pytest

from tests.support.protocol import claim, issue, load, report

pytestmark = pytest.mark.backends("sqlite", "postgresql")


def refresh(hub, key: str = "AURORA-1", role: str = "interface"):
    return hub.api("POST", f"/api/v1/issues/{key}/refresh", role=role)


def test_a_refresh_of_the_issue_is_queued(hub):
    load(hub, [issue("AURORA-1", status="Open")])
    resp = refresh(hub)
    assert resp.status_code == 202, resp.json
    command = resp.json["command"]
    assert command["type"] == "refresh" and command["params"] == {"jql": "key = AURORA-1"}
    assert command["status"] == "queued" and command["batch_id"] is None
    assert resp.headers["Location"] == f"/api/v1/commands/{command['id']}"
    assert hub.api("GET", f"/api/v1/commands/{command['id']}").json == command


def test_the_open_refresh_comes_back_while_queued_or_claimed_and_a_new_one_after_it_ends(hub):
    load(hub, [issue("AURORA-1", status="Open")])
    first = refresh(hub).json["command"]
    again = refresh(hub)
    assert again.status_code == 200 and again.json["command"]["id"] == first["id"]
    [claimed] = claim(hub)
    assert claimed["id"] == first["id"] and claimed["params"]["jql"] == "key = AURORA-1"
    held = refresh(hub)
    assert held.status_code == 200 and held.json["command"]["status"] == "claimed"
    assert report(hub, first["id"], "state", {"issues": [issue("AURORA-1", status="In Progress")],
                                              "neighbors": []}).status_code == 200
    assert report(hub, first["id"], "done", {"result": {"total": 1}}).status_code == 200
    assert hub.api("GET", "/api/v1/issues/AURORA-1").json["status"] == "In Progress"
    # The run was the other query's, not a full one: nothing outside the issue is marked gone.
    run = hub.api("GET", "/api/v1/sync-runs").json["items"][0]
    assert run["kind"] == "jql"
    after = refresh(hub)
    assert after.status_code == 202 and after.json["command"]["id"] != first["id"]


def test_each_issue_has_its_own_refresh(hub):
    load(hub, [issue("AURORA-1", status="Open"), issue("AURORA-2", status="Open")])
    one, two = refresh(hub, "AURORA-1"), refresh(hub, "AURORA-2")
    assert (one.status_code, two.status_code) == (202, 202)
    assert two.json["command"]["params"] == {"jql": "key = AURORA-2"}


def test_a_key_in_another_case_refreshes_the_issue_under_its_key(hub):
    load(hub, [issue("AURORA-1", status="Open")])
    resp = refresh(hub, "aurora-1")
    assert resp.status_code == 202 and resp.json["command"]["params"] == {"jql": "key = AURORA-1"}


def test_an_issue_the_mirror_does_not_hold_is_404_and_nothing_is_queued(hub):
    load(hub, [issue("AURORA-1", status="Open")])
    assert refresh(hub, "AURORA-404").status_code == 404
    assert refresh(hub, "not a key").status_code in (400, 404)
    queued = hub.api("GET", "/api/v1/commands?status=queued").json["items"]
    assert queued == []


def test_only_roles_that_may_enqueue_a_refresh_may_refresh_an_issue(hub):
    load(hub, [issue("AURORA-1", status="Open")])
    assert refresh(hub, role="agent").status_code == 403
    assert refresh(hub, role=None).status_code == 401
    assert refresh(hub, role="admin").status_code == 202
    assert "refresh_issue" in hub.api("GET", "/api/v1/me").json["may"]
    assert "refresh_issue" not in hub.api("GET", "/api/v1/me", role="agent").json["may"]


def test_the_tokens_bound_of_queued_commands_holds(make_hub):
    hub = make_hub(queued_commands_per_token=1)
    load(hub, [issue("AURORA-1", status="Open"), issue("AURORA-2", status="Open")])
    assert refresh(hub, "AURORA-1").status_code == 202
    full = refresh(hub, "AURORA-2")
    assert full.status_code == 429 and full.headers["Retry-After"]
