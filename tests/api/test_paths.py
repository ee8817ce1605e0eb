"""A path segment is one segment: what decodes to '/', '.' or '..' reaches no route.

Over real HTTP (``hub serve`` on loopback, waitress decoding the path as it does in
production), with http.client, which sends the request target exactly as written; one hub
per engine for the module, on which the tests only read.
"""

from __future__ import annotations

import json
import re

import pytest

from hub.api.app import build_services, routes
from hub.api.longpoll import LongPolls
from hub.config import Config
from tests.support import Client, prepared_hub, start, stop, wait_for_line
from tests.support.engine_rows import engine_database

pytestmark = pytest.mark.backends("sqlite", "postgresql", shared=True)
# A path refused before routing, or before its token is looked at, never reaches the engine.
before_the_database = pytest.mark.backends("sqlite")

_PARAM = re.compile(r"\{(\w+)(?::\w+)?\}")
TEMPLATES = sorted({template for template, _ in routes(build_services(Config(), print), Config(), LongPolls(1))
                    if _PARAM.search(template)})
# Segments that decode to a separator or a dot segment, in the spellings a client may send.
HOSTILE = ["X-1%2Fnotes", "%2F", "%2f", "1%2F..%2Fcontent", "%2e%2e", "%2E", ".%2e", "%2e.", "..", "."]


@pytest.fixture(scope="module")
def live(tmp_path_factory, backend, request):
    with engine_database(request, backend) as database_url:
        yield from _live(tmp_path_factory.mktemp("paths") / "data", database_url)


def _live(data_dir, database_url):
    agent, interface = prepared_hub(data_dir, database_url)
    proc = start("serve", "--no-worker", data_dir=data_dir, database_url=database_url)
    try:
        url = wait_for_line(proc, r"serving on (http://\S+)").group(1)
        client = Client(url, agent, interface)
        status, command = client.json("POST", "/api/v1/commands", "interface",
                                      {"type": "refresh", "params": {"jql": "key = AURORA-1"}})
        assert status == 201
        client.json("POST", "/agent/v1/claim", "agent", {"agent_id": "a", "version": 14})
        page = {"issues": [{"key": "AURORA-1", "id": "10001", "summary": "s",
                            "attachments": [{"id": "31337", "filename": "spec.pdf", "size": 3}]}]}
        assert client.json("POST", f"/agent/v1/commands/{command['id']}/state", "agent", page)[0] == 200
        yield client
    finally:
        stop(proc)


def raw(client: Client, method: str, target: str, role: str = "interface") -> tuple[int, dict]:
    """One request with ``target`` sent byte for byte as written."""
    conn = client.connection()
    try:
        conn.putrequest(method, target, skip_accept_encoding=True)
        conn.putheader("Authorization", f"Bearer {client.tokens[role]}")
        conn.putheader("Content-Length", "0")
        conn.endheaders()
        resp = conn.getresponse()
        body = resp.read()
    finally:
        conn.close()
    return resp.status, json.loads(body) if body.startswith(b"{") else {}


def test_every_route_with_a_path_parameter_is_covered():
    assert "/api/v1/issues/{key}/notes" in TEMPLATES and "/ui/{name}" in TEMPLATES
    assert len(TEMPLATES) >= 18


@before_the_database
@pytest.mark.parametrize("template", TEMPLATES)
def test_a_segment_that_decodes_to_a_slash_or_a_dot_segment_is_400_on_every_route(live, template):
    for segment in HOSTILE:
        target = _PARAM.sub(segment, template, count=1)
        for method in ("GET", "POST"):
            status, body = raw(live, method, target)
            assert status == 400, (method, target, status, body)
            assert body["title"] == "Bad path" and "segment" in body["description"], body


def test_an_encoded_slash_does_not_reach_the_notes_route(live):
    assert raw(live, "GET", "/api/v1/issues/AURORA-1/notes")[0] == 200
    status, body = raw(live, "GET", "/api/v1/issues/AURORA-1%2Fnotes")
    assert status == 400 and "%2F" in body["description"]
    status, _ = raw(live, "POST", "/api/v1/attachments/31337%2Ffetch")
    assert status == 400
    # Nor does a dot segment climb out of the attachment to another route.
    assert raw(live, "GET", "/api/v1/attachments/%2e%2e/states")[0] == 400
    assert raw(live, "GET", "/api/v1/issues/AURORA-1/%2e%2e/AURORA-1")[0] == 400
    # Both spellings in the query are the query's: only the path is read for them.
    assert raw(live, "GET", "/api/v1/issues?q=a%2Fb")[0] in (200, 422)
    assert raw(live, "GET", "/api/v1/issues?label=..")[0] == 200


@pytest.mark.parametrize("value", ["%D0%90URORA-1", "aurora-%D0%86", "AURORA-01", "AURORA-1%0A", "AURORA-1%20",
                                   "AURORA", "-1", "1", "%C3%9Fa-1"])
def test_a_key_jira_cannot_make_is_404_with_a_reason(live, value):
    for suffix in ("", "/comments", "/changes", "/notes", "/attachments"):
        status, body = raw(live, "GET", f"/api/v1/issues/{value}{suffix}")
        assert status == 404, (value, suffix, status, body)
        assert "is not an issue key" in body["description"], body
    assert raw(live, "GET", "/api/v1/issues/AURORA-1")[0] == 200


@pytest.mark.parametrize("value", ["aurora-1", "Aurora-1", "AURORA-1"])
def test_a_key_in_any_case_is_the_issue_under_its_key_as_jira_writes_it(live, value):
    for suffix in ("/comments", "/changes", "/notes", "/attachments"):
        status, body = raw(live, "GET", f"/api/v1/issues/{value}{suffix}")
        assert status == 200, (value, suffix, status, body)
    conn = live.connection()
    try:
        conn.request("GET", f"/api/v1/issues/{value}", headers={"Authorization": f"Bearer {live.tokens['interface']}"})
        resp = conn.getresponse()
        body = json.loads(resp.read())
    finally:
        conn.close()
    assert resp.status == 200 and body["key"] == "AURORA-1"
    # Named by its own path when asked otherwise, as an old key of a moved issue is; no redirect.
    location = resp.getheader("Content-Location")
    assert location == (None if value == "AURORA-1" else "/api/v1/issues/AURORA-1")


@pytest.mark.parametrize("value", ["att-1", "031337", "31337%0A", "-1", "1e5", "%D9%A3", "31337.0"])
def test_an_attachment_id_that_is_no_jira_id_is_404_with_a_reason(live, value):
    for method, suffix in (("GET", ""), ("POST", "/fetch"), ("GET", "/content"), ("HEAD", "/content")):
        status, body = raw(live, method, f"/api/v1/attachments/{value}{suffix}")
        assert status == 404, (value, suffix, status, body)
        if method != "HEAD":
            assert "is not an attachment id" in body["description"], body
    assert raw(live, "GET", "/api/v1/attachments/31337")[0] == 200


@before_the_database
def test_a_refused_path_is_refused_before_the_token_is_looked_at(live):
    conn = live.connection()
    try:
        conn.request("GET", "/api/v1/tokens/%2e%2e")
        resp = conn.getresponse()
        assert resp.status == 400, resp.read()
        resp.read()
        # A path parameter that names nothing is looked at only for a caller who may call the route.
        conn.request("GET", "/api/v1/issues/AURORA-01")
        assert conn.getresponse().status == 401
    finally:
        conn.close()
