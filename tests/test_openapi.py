"""/openapi.json describes every route from the same schemas that validate requests."""

from __future__ import annotations

from hub.api import schemas


def test_openapi_lists_every_route_with_its_schemas(hub):
    resp = hub.client.simulate_get("/openapi.json")
    assert resp.status_code == 200
    doc = resp.json
    assert doc["openapi"] == "3.1.0"
    paths = doc["paths"]
    assert set(paths) == {
        "/healthz", "/openapi.json", "/agent/v1/heartbeat", "/agent/v1/claim",
        "/agent/v1/commands/{command_id}/state", "/agent/v1/commands/{command_id}/done",
        "/agent/v1/commands/{command_id}/failed", "/api/v1/commands",
        "/api/v1/commands/{command_id}", "/api/v1/commands/{command_id}/cancel",
        "/api/v1/sync-runs", "/api/v1/agents", "/agent/v1/commands/{command_id}/file",
        "/api/v1/issues/{key}/attachments", "/api/v1/attachments/states",
        "/api/v1/attachments/{attachment_id}", "/api/v1/attachments/{attachment_id}/fetch",
        "/api/v1/attachments/{attachment_id}/content", "/api/v1/issues", "/api/v1/issues/{key}",
        "/api/v1/issues/{key}/comments", "/api/v1/issues/{key}/changes", "/api/v1/issues/{key}/notes",
        "/api/v1/notes/{note_id}", "/api/v1/projects", "/api/v1/projects/{label}", "/api/v1/scope",
        "/api/v1/batches", "/api/v1/batches/{batch_id}", "/api/v1/tokens", "/api/v1/tokens/{name}",
    }
    claim = paths["/agent/v1/claim"]["post"]
    assert claim["requestBody"]["content"]["application/json"]["schema"] == schemas.CLAIM
    assert claim["x-roles"] == ["agent"] and claim["security"] == [{"bearer": []}]
    listing = paths["/api/v1/commands"]["get"]
    assert {p["name"] for p in listing["parameters"]} == {"cursor", "limit", "status", "type"}
    assert paths["/api/v1/commands"]["post"]["requestBody"]["content"]["application/json"][
        "schema"] == schemas.NEW_COMMAND
    state = paths["/agent/v1/commands/{command_id}/state"]["post"]
    assert state["parameters"][0] == {"name": "command_id", "in": "path", "required": True,
                                      "schema": {"type": "integer", "minimum": 1}}
    assert "security" not in paths["/healthz"]["get"]


def test_openapi_tells_roles_per_method(hub):
    paths = hub.client.simulate_get("/openapi.json").json["paths"]
    assert paths["/api/v1/projects"]["get"]["x-roles"] == ["admin", "interface"]
    assert paths["/api/v1/projects"]["post"]["x-roles"] == ["admin"]
