"""Saved filters: ``/api/v1/filters`` keeps JQL under a name per token, and runs it."""

from __future__ import annotations

import pytest

from tests.support import issue, load

pytestmark = pytest.mark.backends("sqlite", "postgresql")


def save(hub, name="In progress", jql="status = 'In Progress' ORDER BY key", role="interface"):
    return hub.api("POST", "/api/v1/filters", {"name": name, "jql": jql}, role=role)


def test_a_filter_is_saved_listed_read_edited_and_deleted_by_its_owner(hub):
    created = save(hub)
    assert created.status_code == 201, created.json
    saved = created.json
    assert created.headers["Location"] == f"/api/v1/filters/{saved['id']}"
    assert saved["name"] == "In progress" and saved["owner"] == "test-interface"
    assert saved["jql"] == "status = 'In Progress' ORDER BY key"

    assert hub.api("GET", f"/api/v1/filters/{saved['id']}").json == saved
    listed = hub.api("GET", "/api/v1/filters").json
    assert listed == {"items": [saved], "next_cursor": None}

    edited = hub.api("PATCH", f"/api/v1/filters/{saved['id']}", {"jql": "status = Review"})
    assert edited.status_code == 200, edited.json
    assert (edited.json["name"], edited.json["jql"]) == ("In progress", "status = Review")
    assert edited.json["updated_at"] > saved["updated_at"]

    assert hub.api("DELETE", f"/api/v1/filters/{saved['id']}").status_code == 204
    assert hub.api("GET", f"/api/v1/filters/{saved['id']}").status_code == 404


def test_jql_that_does_not_parse_is_refused_with_its_position_and_nothing_is_kept(hub):
    resp = save(hub, jql="status = Open AND (")
    assert resp.status_code == 422, resp.json
    assert resp.json["field"] == "jql"
    assert resp.json["position"] == {"line": 1, "character": 20}
    assert resp.json["description"].startswith("Error in the JQL Query:")
    assert hub.api("GET", "/api/v1/filters").json["items"] == []

    kept = save(hub).json
    resp = hub.api("PATCH", f"/api/v1/filters/{kept['id']}", {"jql": "status in (Open"})
    assert resp.status_code == 422 and resp.json["field"] == "jql"
    assert hub.api("GET", f"/api/v1/filters/{kept['id']}").json["jql"] == kept["jql"]


def test_a_name_is_unique_per_owner_only(hub):
    assert save(hub, name="Mine").status_code == 201
    again = save(hub, name="Mine")
    assert again.status_code == 409, again.json
    assert save(hub, name="Mine", role="admin").status_code == 201
    other = save(hub, name="Other").json
    clash = hub.api("PATCH", f"/api/v1/filters/{other['id']}", {"name": "Mine"})
    assert clash.status_code == 409
    assert hub.api("GET", f"/api/v1/filters/{other['id']}").json["name"] == "Other"


def test_only_the_owner_or_an_admin_changes_a_filter_and_every_interface_reads_it(hub):
    second = hub.built.services.tokens.add("second-interface", "interface")
    saved = save(hub).json
    theirs = {"Authorization": f"Bearer {second}"}
    assert hub.api("GET", f"/api/v1/filters/{saved['id']}", role=None, headers=theirs).status_code == 200
    refused = hub.api("PATCH", f"/api/v1/filters/{saved['id']}", {"name": "x"}, role=None, headers=theirs)
    assert refused.status_code == 403, refused.json
    assert hub.api("DELETE", f"/api/v1/filters/{saved['id']}", role=None, headers=theirs).status_code == 403
    assert hub.api("PATCH", f"/api/v1/filters/{saved['id']}", {"name": "By admin"}, role="admin").status_code == 200
    assert hub.api("DELETE", f"/api/v1/filters/{saved['id']}", role="admin").status_code == 204


def test_a_revoked_owners_filter_stays_with_no_owner_for_an_admin_to_tidy(hub):
    spare = hub.built.services.tokens.add("spare", "interface")
    saved = hub.api("POST", "/api/v1/filters", {"name": "Old", "jql": "project = AURORA"}, role=None,
                    headers={"Authorization": f"Bearer {spare}"}).json
    hub.built.services.tokens.revoke("spare")
    assert hub.api("GET", f"/api/v1/filters/{saved['id']}").json["owner"] is None
    assert hub.api("DELETE", f"/api/v1/filters/{saved['id']}").status_code == 403
    assert hub.api("DELETE", f"/api/v1/filters/{saved['id']}", role="admin").status_code == 204


def test_bad_bodies_name_their_field(hub):
    assert hub.api("POST", "/api/v1/filters", {"name": "x"}).status_code == 422
    resp = hub.api("POST", "/api/v1/filters", {"name": "", "jql": "project = AURORA"})
    assert resp.status_code == 422 and resp.json.get("field") == "name"
    resp = hub.api("POST", "/api/v1/filters", {"name": "x", "jql": "project = AURORA", "owner": "me"})
    assert resp.status_code == 422
    saved = save(hub).json
    assert hub.api("PATCH", f"/api/v1/filters/{saved['id']}", {}).status_code == 422
    assert hub.api("GET", "/api/v1/filters/999").status_code == 404


def test_the_list_pages_newest_first(hub):
    ids = [save(hub, name=f"F{n}").json["id"] for n in range(5)]
    first = hub.api("GET", "/api/v1/filters", params={"limit": 2}).json
    assert [f["id"] for f in first["items"]] == ids[:-3:-1]
    second = hub.api("GET", "/api/v1/filters", params={"limit": 2, "cursor": first["next_cursor"]}).json
    assert [f["id"] for f in second["items"]] == [ids[2], ids[1]]


def test_a_filter_runs_over_the_mirror(hub):
    load(hub, [issue("AURORA-12", status="In Progress"), issue("AURORA-13", status="Open"),
               issue("AURORA-14", status="In Progress")])
    saved = save(hub, jql="status = 'in progress' ORDER BY key ASC").json
    found = hub.api("GET", f"/api/v1/filters/{saved['id']}/issues")
    assert found.status_code == 200, found.json
    assert [item["key"] for item in found.json["items"]] == ["AURORA-12", "AURORA-14"]
    assert found.json["total"] == 2
    assert hub.api("GET", "/api/v1/filters/999/issues").status_code == 404


def test_a_token_past_its_bound_of_saved_filters_gets_409_and_nothing_is_kept(make_hub):
    hub = make_hub(saved_filters_per_token=2)
    kept = [save(hub, name=f"F{n}").json for n in range(2)]
    over = save(hub, name="F2")
    assert over.status_code == 409, over.json
    assert "HUB_SAVED_FILTERS_PER_TOKEN = 2" in over.json["description"]
    assert [f["name"] for f in hub.api("GET", "/api/v1/filters").json["items"]] == ["F1", "F0"]
    # Another token has a bound of its own; a kept filter is still changed; one deleted makes room.
    assert save(hub, name="F2", role="admin").status_code == 201
    assert hub.api("PATCH", f"/api/v1/filters/{kept[0]['id']}", {"name": "G0"}).status_code == 200
    assert hub.api("DELETE", f"/api/v1/filters/{kept[0]['id']}").status_code == 204
    assert save(hub, name="F2").status_code == 201


def test_saves_at_once_keep_no_more_filters_than_the_bound(make_hub):
    import threading

    from hub.db import database
    from hub.errors import Conflict
    from hub.models import Token
    from hub.services.issues.saved_filters import Owner

    hub = make_hub(saved_filters_per_token=3)
    token_id = Token.get(Token.name == "test-interface").id
    start = threading.Barrier(8)
    outcomes: list = []

    def save_once(n: int) -> None:
        try:
            start.wait()
            hub.built.services.filters.create(Owner(token_id, "interface"), f"F{n}", "project = AURORA")
            outcomes.append("saved")
        except Conflict:
            outcomes.append("refused")
        finally:
            database.close()

    threads = [threading.Thread(target=save_once, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == ["refused"] * 5 + ["saved"] * 3
    assert len(hub.api("GET", "/api/v1/filters").json["items"]) == 3
