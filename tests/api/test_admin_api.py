"""Batches, and the admin-only routes: projects, scope, tokens."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.backends("sqlite", "postgresql")


def test_projects_and_scope_are_admin_only_to_change(hub):
    body = {"label": "AWPCA", "name": "АРМ КА", "board_id": 4216, "board_type": "scrum"}
    assert hub.api("POST", "/api/v1/projects", body).status_code == 403
    added = hub.api("POST", "/api/v1/projects", body, role="admin")
    assert added.status_code == 201 and added.json["board_type"] == "scrum"
    assert hub.api("POST", "/api/v1/projects", body, role="admin").status_code == 409
    assert hub.api("PUT", "/api/v1/scope", {"jql": "project = AURORA"}).status_code == 403
    scope = hub.api("PUT", "/api/v1/scope", {"jql": "project = AURORA"}, role="admin").json
    assert scope == {"jql": "project = AURORA", "base_jql": 'project = AURORA AND labels in ("AWPCA")'}
    assert hub.api("GET", "/api/v1/scope").json == scope
    listed = hub.api("GET", "/api/v1/projects").json
    assert [p["label"] for p in listed["items"]] == ["AWPCA"] and listed["base_jql"] == scope["base_jql"]
    half = hub.api("POST", "/api/v1/projects", {"label": "KPI", "name": "KPI", "board_id": 1}, role="admin")
    assert half.status_code == 422
    assert hub.api("DELETE", "/api/v1/projects/AWPCA").status_code == 403
    assert hub.api("DELETE", "/api/v1/projects/AWPCA", role="admin").status_code == 204
    assert hub.api("DELETE", "/api/v1/projects/AWPCA", role="admin").status_code == 404
    assert hub.api("GET", "/api/v1/projects").json["base_jql"] is None


def test_batches_group_commands(hub):
    hub.api("POST", "/api/v1/projects", {"label": "AWPCA", "name": "АРМ КА"}, role="admin")
    batch = hub.api("POST", "/api/v1/batches", {"title": "Sprint 14", "project": "AWPCA"})
    assert batch.status_code == 201
    assert (batch.json["created_by"], batch.json["project"], batch.json["commands"]) == (
        "test-interface", "AWPCA", {})
    for jql in ("key = A-1", "key = A-2"):
        hub.api("POST", "/api/v1/commands", {"type": "refresh", "params": {"jql": jql},
                                             "batch_id": batch.json["id"]})
    shown = hub.api("GET", f"/api/v1/batches/{batch.json['id']}").json
    assert shown["commands"] == {"queued": 2}
    assert [b["id"] for b in hub.api("GET", "/api/v1/batches").json["items"]] == [batch.json["id"]]
    assert hub.api("POST", "/api/v1/batches", {"title": "x", "project": "NOPE"}).json["field"] == "project"
    assert hub.api("GET", "/api/v1/batches/999").status_code == 404
    assert hub.api("POST", "/api/v1/batches", {"title": "x"}, role="agent").status_code == 403


def test_tokens_over_http(hub):
    assert hub.api("GET", "/api/v1/tokens").status_code == 403
    made = hub.api("POST", "/api/v1/tokens", {"name": "mcp", "role": "interface"}, role="admin")
    assert made.status_code == 201 and made.headers["cache-control"] == "no-store"
    token = made.json["token"]
    names = [t["name"] for t in hub.api("GET", "/api/v1/tokens", role="admin").json["items"]]
    assert "mcp" in names and token not in str(hub.api("GET", "/api/v1/tokens", role="admin").json)
    works = hub.client.simulate_get("/api/v1/agents", headers={"Authorization": f"Bearer {token}"})
    assert works.status_code == 200
    assert hub.api("DELETE", "/api/v1/tokens/mcp", role="admin").status_code == 204
    gone = hub.client.simulate_get("/api/v1/agents", headers={"Authorization": f"Bearer {token}"})
    assert gone.status_code == 401
    assert hub.api("POST", "/api/v1/tokens", {"name": "x y", "role": "agent"}, role="admin").status_code == 422
