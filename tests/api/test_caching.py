"""No answer to a token is kept by a cache: every route that needs a token says
``Cache-Control: no-store`` on every answer (successes, errors, downloads and the
401 of a missing token), and /openapi.json says so; the public routes keep theirs."""

from __future__ import annotations

import pytest

from tests.support import attachment, fetched, listed

pytestmark = pytest.mark.backends("sqlite", "postgresql")

SAMPLES = {"key": "AURORA-12", "attachment_id": "901", "command_id": "1", "note_id": "1", "batch_id": "1",
           "label": "NOPE", "name": "nobody"}
ROLE_TOKENS = ("interface", "agent", "admin")  # the hub fixture's tokens; admin also reads /metrics


def operations(hub):
    paths = hub.client.simulate_get("/openapi.json").json["paths"]
    for template, item in paths.items():
        for method, operation in item.items():
            path = template
            for name, value in SAMPLES.items():
                path = path.replace("{" + name + "}", value)
            yield method.upper(), path, operation


def test_every_answer_of_every_route_that_needs_a_token_is_no_store(hub):
    seen = 0
    for method, path, operation in operations(hub):
        if not operation.get("security"):
            continue
        role = next(r for r in ROLE_TOKENS if r in operation["x-roles"] or r == "admin")
        body = {} if method in ("POST", "PUT", "PATCH") else None
        for who, headers in [("none", {}), ("unknown", {"Authorization": "Bearer not-a-token"}),
                             ("wrong role", hub.headers("agent" if role != "agent" else "interface")),
                             (role, hub.headers(role))]:
            resp = hub.client.simulate_request(method, path, json=body, headers=headers)
            assert resp.headers.get("cache-control") == "no-store", (method, path, who, resp.status_code)
            seen += 1
        for status, response in operation["responses"].items():
            header = response["headers"]["Cache-Control"]
            assert header["required"] and header["schema"]["const"] == "no-store", (method, path, status)
    assert seen > 100


def test_downloads_are_no_store_in_full_in_part_and_unchanged(hub):
    listed(hub, attachment("901", "spec.pdf"), key="AURORA-12")
    sha = fetched(hub, "901")
    full = hub.api("GET", "/api/v1/attachments/901/content")
    part = hub.api("GET", "/api/v1/attachments/901/content", headers={"Range": "bytes=0-9"})
    same = hub.api("GET", "/api/v1/attachments/901/content", headers={"If-None-Match": f'"{sha}"'})
    head = hub.api("HEAD", "/api/v1/attachments/901/content")
    past = hub.api("GET", "/api/v1/attachments/901/content", headers={"Range": "bytes=999999-"})
    assert [r.status_code for r in (full, part, same, head, past)] == [200, 206, 304, 200, 416]
    assert {r.headers["cache-control"] for r in (full, part, same, head, past)} == {"no-store"}


@pytest.mark.parametrize("path", ["/api/v1/nothing", "/api/v1/commands/not-an-id", "/agent/v1/nothing"])
def test_the_apis_paths_are_no_store_even_where_no_route_matches(hub, path):
    resp = hub.api("GET", path)
    assert resp.status_code == 404 and resp.headers["cache-control"] == "no-store"


@pytest.mark.parametrize("path, cached", [("/healthz", None), ("/openapi.json", None), ("/", "no-cache"),
                                          ("/ui/app.js", "no-cache")])
def test_public_routes_keep_their_own_caching(hub, path, cached):
    resp = hub.api("GET", path, role=None)
    assert resp.status_code == 200 and resp.headers.get("cache-control") == cached
