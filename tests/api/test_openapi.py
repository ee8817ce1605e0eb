"""/openapi.json describes every route from the same schemas that validate requests."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlparse

import pytest
from openapi_spec_validator import validate

from hub.api import schemas
from hub.api.openapi import SEGMENT
from hub.services.access.tokens import NAME_PATTERN
from hub.services.mirror.projects import LABEL_PATTERN

# The tests that read the document, or send what its schemas refuse before any service runs,
# need no engine; those whose requests the services answer run on both.
on_both_engines = pytest.mark.backends("sqlite", "postgresql")


def test_openapi_lists_every_route_with_its_schemas(hub):
    resp = hub.client.simulate_get("/openapi.json")
    assert resp.status_code == 200
    doc = resp.json
    assert doc["openapi"] == "3.1.0"
    paths = doc["paths"]
    assert set(paths) == {
        "/healthz", "/openapi.json", "/metrics", "/agent/v1/heartbeat", "/agent/v1/claim",
        "/agent/v1/commands/{command_id}/state", "/agent/v1/commands/{command_id}/done",
        "/agent/v1/commands/{command_id}/failed", "/api/v1/commands",
        "/api/v1/commands/{command_id}", "/api/v1/commands/{command_id}/cancel",
        "/api/v1/commands/{command_id}/retry", "/api/v1/sync-runs", "/api/v1/agents",
        "/api/v1/agents/{agent_id}", "/api/v1/overview",
        "/agent/v1/commands/{command_id}/file",
        "/api/v1/issues/{key}/attachments", "/api/v1/attachments/states",
        "/api/v1/issues/{key}/comments/{comment_id}", "/api/v1/issues/{key}/transitions",
        "/api/v1/issues/{key}/links", "/api/v1/issues/{key}/links/{link_id}", "/api/v1/writes",
        "/api/v1/writes/{write_id}", "/api/v1/writes/{write_id}/cancel", "/api/v1/writes/{write_id}/retry",
        "/api/v1/attachments/{attachment_id}", "/api/v1/attachments/{attachment_id}/fetch",
        "/api/v1/attachments/{attachment_id}/content", "/api/v1/issues", "/api/v1/issues/{key}",
        "/api/v1/issues/{key}/comments", "/api/v1/issues/{key}/changes", "/api/v1/issues/{key}/notes",
        "/api/v1/notes/{note_id}", "/api/v1/projects", "/api/v1/projects/{label}", "/api/v1/scope",
        "/api/v1/batches", "/api/v1/batches/{batch_id}", "/api/v1/tokens", "/api/v1/tokens/{name}",
        "/api/v1/whoami", "/api/v1/me", "/api/v1/session",
        "/api/v1/issues/{key}/worklogs", "/api/v1/sprints", "/api/v1/catalogues",
        "/api/v1/filters", "/api/v1/filters/{filter_id}", "/api/v1/filters/{filter_id}/issues",
        "/api/v1/issues/facets", "/api/v1/create-meta",
        "/api/v1/users", "/api/v1/render", "/api/v1/issues/{key}/refresh",
        "/api/v1/boards", "/api/v1/boards/{board_id}",
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
                                      "schema": schemas.ID}
    assert "security" not in paths["/healthz"]["get"]
    sprints = paths["/api/v1/sprints"]["get"]
    assert {p["name"]: p["schema"] for p in sprints["parameters"]} == {
        name: schemas.SPRINT_LIST["properties"][name] for name in ("cursor", "limit", "state", "board")}
    worklogs = paths["/api/v1/issues/{key}/worklogs"]["get"]
    assert {p["name"] for p in worklogs["parameters"]} == {"key", "cursor", "limit", "render"}
    for path, names in (("/api/v1/issues/{key}", ("render",)),
                        ("/api/v1/issues/{key}/comments", ("cursor", "limit", "render"))):
        assert {p["name"]: p["schema"] for p in paths[path]["get"]["parameters"] if p["in"] == "query"} == {
            name: (schemas.RENDERED if name == "render" else schemas.COMMENT_LIST)["properties"][name]
            for name in names}
    filters = paths["/api/v1/filters"]
    assert filters["post"]["requestBody"]["content"]["application/json"]["schema"] == schemas.NEW_FILTER
    assert set(filters["post"]["responses"]) >= {"201", "409", "422"}
    assert set(paths["/api/v1/filters/{filter_id}"]) == {"get", "patch", "delete"}
    assert "403" in paths["/api/v1/filters/{filter_id}"]["delete"]["responses"]
    heartbeat = paths["/agent/v1/heartbeat"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    assert heartbeat["properties"]["jira_time_zone"] == schemas.HEARTBEAT["properties"]["jira_time_zone"]


def test_openapi_tells_roles_per_method(hub):
    paths = hub.client.simulate_get("/openapi.json").json["paths"]
    assert paths["/api/v1/projects"]["get"]["x-roles"] == ["admin", "interface"]
    assert paths["/api/v1/projects"]["post"]["x-roles"] == ["admin"]


def document(hub) -> dict:
    return hub.client.simulate_get("/openapi.json").json


def operations(doc: dict):
    for path, methods in doc["paths"].items():
        for method, operation in methods.items():
            yield path, method, operation


def test_the_document_is_valid_openapi_3_1(hub):
    validate(document(hub))


def test_every_operation_has_an_id_a_summary_and_no_catch_all_response(hub):
    doc = document(hub)
    ids = [op["operationId"] for _, _, op in operations(doc)]
    assert len(ids) == len(set(ids))
    for path, method, op in operations(doc):
        assert op["summary"], (path, method)
        assert "default" not in op["responses"], (path, method)
        if op.get("security"):
            assert {"401", "403"} <= set(op["responses"])
            assert op["responses"]["401"]["headers"]["WWW-Authenticate"]["required"] is True
        if path != "/openapi.json":
            assert "Retry-After" in op["responses"]["503"]["headers"], (path, method)
        if "{" in path:
            assert "404" in op["responses"], (path, method)
        if "requestBody" in op:
            assert {"413"} <= set(op["responses"]), (path, method)


def test_real_success_statuses_and_media_types(hub):
    paths = document(hub)["paths"]
    created = {path: op for path, _, op in operations(document(hub)) if "201" in op["responses"]}
    assert set(created) == {"/api/v1/commands", "/api/v1/issues/{key}/notes", "/api/v1/batches",
                            "/api/v1/projects", "/api/v1/tokens", "/api/v1/attachments/{attachment_id}/fetch",
                            "/api/v1/filters", "/api/v1/commands/{command_id}/retry", "/api/v1/session"}
    for op in created.values():
        assert op["responses"]["201"]["headers"]["Location"]["required"] is True
    assert set(paths["/api/v1/notes/{note_id}"]["delete"]["responses"]) >= {"204"}
    download = paths["/api/v1/attachments/{attachment_id}/content"]["get"]
    assert {"200", "206", "304", "409", "416"} <= set(download["responses"])
    assert "application/octet-stream" in download["responses"]["200"]["content"]
    assert "Content-Range" in download["responses"]["206"]["headers"]
    assert {p["name"] for p in download["parameters"] if p["in"] == "header"} == {
        "Range", "If-Range", "If-None-Match"}
    upload = paths["/agent/v1/commands/{command_id}/file"]["put"]
    assert "application/octet-stream" in upload["requestBody"]["content"]
    assert [p["name"] for p in upload["parameters"] if p["in"] == "header"] == ["X-Content-SHA256"]
    assert "409" in paths["/agent/v1/commands/{command_id}/done"]["post"]["responses"]
    for path, method, op in operations(document(hub)):
        for status, response in op["responses"].items():
            assert response["headers"]["X-Request-Id"]["required"] is True, (path, method, status)
    metrics = paths["/metrics"]["get"]
    assert "text/plain" in metrics["responses"]["200"]["content"]
    assert metrics["x-roles"] == ["admin", "metrics"] and {"401", "403"} <= set(metrics["responses"])


@on_both_engines
def test_each_201_names_its_new_resource_in_location(hub):
    batch = hub.api("POST", "/api/v1/batches", {"title": "t"})
    assert batch.headers["Location"].endswith(f"/api/v1/batches/{batch.json['id']}")
    assert hub.api("GET", urlparse(batch.headers["Location"]).path).status_code == 200
    command = hub.api("POST", "/api/v1/commands", {"type": "refresh", "params": {"jql": "x"}})
    assert command.headers["Location"].endswith(f"/api/v1/commands/{command.json['id']}")
    note = hub.api("POST", "/api/v1/issues/X-1/notes", {"body": "b"})
    if note.status_code == 201:
        assert note.headers["Location"].endswith(f"/api/v1/notes/{note.json['id']}")
    project = hub.api("POST", "/api/v1/projects", {"label": "Ядро", "name": "n"}, role="admin")
    assert project.headers["Location"].endswith("/api/v1/projects/%D0%AF%D0%B4%D1%80%D0%BE")
    token = hub.api("POST", "/api/v1/tokens", {"name": "ui-2", "role": "interface"}, role="admin")
    assert token.headers["Location"].endswith("/api/v1/tokens/ui-2")


@pytest.mark.parametrize("pattern, good, bad", [
    (LABEL_PATTERN, ["AWPCA", "Ядро", "a-b_c.d", "x" * 255],
     ["", "A B", "A\n", "\nA", "A\u00a0B", "A\u2028", "A\u3000", "A\x00", "A\x7f", "A\x85", "A\x1c"]),
    (schemas.ISSUE_KEY["pattern"], ["AURORA-12", "AB_1-9"],
     ["AURORA-12\n", "AURORA 12", "\tA", "aurora-12", "\u0410URORA-12", "AURORA-0", "AURORA-\uff11"]),
    (schemas.JIRA_ID["pattern"], ["1", "10012", "9" * 18], ["0", "012", "1\n", "٣", "9" * 19, "-1", ""]),
    (schemas.FILENAME["pattern"], ["a.pdf", "...", ".bashrc", "Снимок экрана.png", 'a"b;c'],
     [".", "..", "a/b", "a\\b", "a\x00", "a\n", "a\x7f", "a\x85", ""]),
    (SEGMENT["pattern"], ["AWPCA", "A B", "...", "%2F"], [".", "..", "a/b", ""]),
    (NAME_PATTERN, ["ui", "mcp-1.2_x"], ["", "-x", "ui\n", "ui x", "x" * 65, "й"]),
])
def test_patterns_mean_the_same_in_python_and_ecma_262(pattern, good, bad):
    # No \\s, \\w, . or $, whose meanings differ between the two dialects.
    outside_classes = re.sub(r"\[(?:\\.|[^\]])*\]", "", pattern)
    assert not re.search(r"\\[sSwWdD]|(?<!\\)\.|\$", outside_classes), outside_classes
    for value in good:
        assert re.match(pattern, value), value
    for value in bad:
        assert not re.match(pattern, value), value


@pytest.mark.parametrize("body, field", [
    ({"type": "refresh", "params": {"attachment_id": "1"}}, "params.attachment_id"),
    ({"type": "fetch_attachment"}, "params"),
    ({"type": "fetch_attachment", "params": {}}, "params.attachment_id"),
    ({"type": "fetch_attachment", "params": {"attachment_id": "1", "jql": "x"}}, "params.jql"),
])
def test_params_by_command_type_are_checked_by_the_schema(hub, body, field):
    resp = hub.api("POST", "/api/v1/commands", body)
    assert resp.status_code == 422 and resp.json["field"] == field, resp.json


@pytest.mark.parametrize("body, field", [
    ({"label": "A", "name": "n", "board_id": 4}, "board_type"),
    ({"label": "A", "name": "n", "board_type": "scrum"}, "board_id"),
    ({"label": "A", "name": "n", "board_id": 4, "board_type": None}, "board_type"),
    ({"label": "A", "name": "n", "board_id": None, "board_type": "kanban"}, "board_id"),
    ({"label": "A B", "name": "n"}, "label"),
    ({"label": "A\n", "name": "n"}, "label"),
])
def test_project_rules_are_checked_by_the_schema(hub, body, field):
    resp = hub.api("POST", "/api/v1/projects", body, role="admin")
    assert resp.status_code == 422 and resp.json["field"] == field, resp.json


def test_token_names_follow_the_schemas_pattern(hub):
    resp = hub.api("POST", "/api/v1/tokens", {"name": "ui\n", "role": "interface"}, role="admin")
    assert resp.status_code == 422 and resp.json["field"] == "name"


# What fuzzing found the document allowed and the hub refused: each is now
# described where Schemathesis reads it, or named in the toml with its reason.


def test_updated_since_is_a_date_time_the_hub_checks(hub):
    doc = hub.client.simulate_get("/openapi.json").json
    params = {p["name"]: p["schema"] for p in doc["paths"]["/api/v1/issues"]["get"]["parameters"]}
    assert params["updated_since"]["format"] == "date-time"
    assert "checked by the hub" in params["updated_since"]["description"]
    command = doc["paths"]["/api/v1/commands"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    assert command["properties"]["params"]["properties"]["updated_since"]["format"] == "date-time"
    for value in ("0000-00-00T00:00:00Z", "6758-25-19T29:54:60+00:00", "2026-02-30T10:00:00Z",
                  "2026-10-22T10:05:60Z"):
        resp = hub.api("GET", "/api/v1/issues", params={"updated_since": value})
        assert resp.status_code == 422 and resp.json["field"] == "updated_since", (value, resp.json)
        resp = hub.api("POST", "/api/v1/commands", {"type": "refresh", "params": {"jql": "x", "updated_since": value}})
        assert resp.status_code == 422 and resp.json["field"] == "params.updated_since", (value, resp.json)


@on_both_engines
def test_a_project_filter_names_a_project_and_says_so(hub):
    doc = hub.client.simulate_get("/openapi.json").json
    params = {p["name"]: p["schema"] for p in doc["paths"]["/api/v1/issues"]["get"]["parameters"]}
    assert "GET /api/v1/projects" in params["project"]["description"]
    resp = hub.api("GET", "/api/v1/issues", params={"project": "NOPE"})
    assert resp.status_code == 422 and resp.json["field"] == "project"


@on_both_engines
def test_a_done_result_is_described_per_command_type(hub):
    doc = hub.client.simulate_get("/openapi.json").json
    done = doc["paths"]["/agent/v1/commands/{command_id}/done"]["post"]["requestBody"]["content"][
        "application/json"]["schema"]
    assert done["required"] == ["result"]
    forms = done["properties"]["result"]["anyOf"]
    assert [form["required"] for form in forms] == [["total"], ["sha256", "size"], ["checked", "missing"],
                                                    ["outcome"]]
    # An empty result is no valid body: refused by the schema, naming the member it lacks.
    enqueue = hub.api("POST", "/api/v1/commands", {"type": "refresh", "params": {"jql": "key = A-1"}})
    hub.agent("POST", "/agent/v1/claim", {"agent_id": "a", "version": 14})
    for result, field in [({}, "result.total"), ({"sha256": "a" * 64}, "result.size"),
                          ({"size": 3}, "result.sha256"), ({"total": -1}, "result.total")]:
        resp = hub.agent("POST", f"/agent/v1/commands/{enqueue.json['id']}/done", {"result": result})
        assert resp.status_code == 422 and resp.json["field"] == field, (result, resp.json)
    resp = hub.agent("POST", f"/agent/v1/commands/{enqueue.json['id']}/done", {})
    assert resp.status_code == 422 and resp.json["field"] == "result"


def test_head_of_content_documents_the_416_of_a_range_past_the_end(hub):
    doc = hub.client.simulate_get("/openapi.json").json
    content = doc["paths"]["/api/v1/attachments/{attachment_id}/content"]
    assert "416" in content["head"]["responses"] and "416" in content["get"]["responses"]
    toml = (Path(__file__).with_name("schemathesis.toml")).read_text()
    assert '"416"' in toml


def test_every_route_with_a_path_parameter_documents_400(hub):
    doc = hub.client.simulate_get("/openapi.json").json
    for path, operations in doc["paths"].items():
        if "{" in path:
            for method, operation in operations.items():
                assert "400" in operation["responses"], (method, path)
