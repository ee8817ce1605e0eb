"""One log line per request, with its id, route template, status, duration and token name."""

from __future__ import annotations

import json
import logging
import re
import urllib.error
import urllib.request

import pytest

from hub.logs import JsonFormatter
from tests.support import (
    claim,
    enqueue,
    prepared_hub,
    report,
    rest_of_output,
    run_hub,
    start,
    stop,
    wait_for_line,
)

pytestmark = pytest.mark.backends("sqlite", "postgresql")

LINE = re.compile(r"request id=(?P<id>\S+) method=(?P<method>\S+) route=(?P<route>\S+) "
                  r"status=(?P<status>\d+) duration_ms=(?P<ms>[\d.]+) token=(?P<token>\S+)")


def lines(caplog) -> list[dict]:
    return [record.request for record in caplog.records if record.name == "hub.requests"]


def test_each_request_logs_one_line_and_answers_its_id(hub, caplog):
    caplog.set_level(logging.INFO, logger="hub.requests")
    resp = hub.api("GET", "/api/v1/issues/X-1", headers={"X-Request-Id": "proxy-7f3a.2:1"})
    assert resp.status_code == 404
    assert resp.headers["X-Request-Id"] == "proxy-7f3a.2:1"
    [line] = lines(caplog)
    assert line["request_id"] == "proxy-7f3a.2:1" and line["route"] == "/api/v1/issues/{key}"
    assert (line["method"], line["status"], line["token"]) == ("GET", 404, "test-interface")
    assert line["duration_ms"] >= 0
    [record] = [r for r in caplog.records if r.name == "hub.requests"]
    assert LINE.fullmatch(record.getMessage())


@pytest.mark.parametrize("incoming", [None, "", "a b", "x" * 129, "-leading-dash", "id\nforged line", "ид"])
def test_an_id_that_is_not_a_plain_token_is_replaced(hub, caplog, incoming):
    caplog.set_level(logging.INFO, logger="hub.requests")
    resp = hub.api("GET", "/api/v1/agents", headers={"X-Request-Id": incoming} if incoming is not None else {})
    assert resp.status_code == 200
    assert re.fullmatch(r"[0-9a-f]{32}", resp.headers["X-Request-Id"])
    assert [line["request_id"] for line in lines(caplog)] == [resp.headers["X-Request-Id"]]


def test_errors_refusals_and_long_polls_are_logged_without_the_token(hub, caplog):
    caplog.set_level(logging.DEBUG)
    command = enqueue(hub, "key = X-1")
    claim(hub)
    report(hub, command["id"], "done", {"result": {"total": 0}})
    assert report(hub, command["id"], "failed", {"error": "late"}).status_code == 409
    hub.client.simulate_get("/api/v1/agents")  # no token
    hub.client.simulate_get("/api/v1/agents", headers={"Authorization": "Bearer not-a-token-of-ours"})
    hub.api("GET", "/api/v1/tokens", role="interface")  # wrong role
    hub.api("GET", "/no/such/path")
    hub.agent("POST", "/agent/v1/claim", {"agent_id": "agent-1", "version": 14, "wait": 1})

    got = [(line["route"], line["status"], line["token"]) for line in lines(caplog)]
    assert got[3:] == [
        ("/agent/v1/commands/{command_id}/failed", 409, "test-agent"),
        ("/api/v1/agents", 401, "-"),
        ("/api/v1/agents", 401, "-"),
        ("/api/v1/tokens", 403, "test-interface"),
        ("unrouted", 404, "-"),  # no route: no token is looked at
        ("/agent/v1/claim", 200, "test-agent"),
    ]
    assert lines(caplog)[-1]["duration_ms"] >= 900  # the whole wait of the long-poll
    everything = caplog.text + "".join(JsonFormatter().format(r) for r in caplog.records)
    for token in hub.tokens.values():
        assert token not in everything
    assert "not-a-token-of-ours" not in everything


def test_json_lines_carry_the_request_fields():
    record = logging.LogRecord("hub.requests", logging.INFO, __file__, 1, "request id=%s", ("r1",), None)
    record.request = {"request_id": "r1", "route": "/healthz", "status": 200}
    line = json.loads(JsonFormatter().format(record))
    assert line["level"] == "INFO" and line["logger"] == "hub.requests" and line["message"] == "request id=r1"
    assert (line["request_id"], line["route"], line["status"]) == ("r1", "/healthz", 200)
    assert line["time"].endswith("+00:00")


def get(url: str, token: str | None = None, request_id: str | None = None):
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    if request_id:
        headers["X-Request-Id"] = request_id
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=30) as resp:
            return resp.status, resp.headers["X-Request-Id"]
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers["X-Request-Id"]


@pytest.mark.parametrize("log_format", ["text", "json"])
def test_hub_serve_logs_requests_in_the_format_asked(data_dir, database_url, log_format):
    agent, interface = prepared_hub(data_dir, database_url)
    proc = start("serve", data_dir=data_dir, database_url=database_url, HUB_LOG_FORMAT=log_format)
    output = []
    try:
        url = wait_for_line(proc, r"serving on (http://\S+)").group(1)
        assert get(url + "/api/v1/overview", interface, "req-1") == (200, "req-1")
        assert get(url + "/api/v1/overview", agent, "req-2") == (403, "req-2")
        assert get(url + "/api/v1/overview", None, "req-3") == (401, "req-3")
        for request_id in ("req-1", "req-2", "req-3"):
            output.append(wait_for_line(proc, request_id).string)
    finally:
        stop(proc)
        output.append(rest_of_output(proc))
    if log_format == "json":
        parsed = [json.loads(line) for line in output[:3]]
        assert [(p["request_id"], p["status"], p["token"], p["route"]) for p in parsed] == [
            ("req-1", 200, "ui", "/api/v1/overview"), ("req-2", 403, "agent", "/api/v1/overview"),
            ("req-3", 401, "-", "/api/v1/overview")]
        assert all(p["logger"] == "hub.requests" and p["method"] == "GET" for p in parsed)
    else:
        parsed = [LINE.search(line) for line in output[:3]]
        assert [(m["id"], m["status"], m["token"]) for m in parsed] == [
            ("req-1", "200", "ui"), ("req-2", "403", "agent"), ("req-3", "401", "-")]
        assert " INFO hub.requests: request id=req-1 " in output[0]
    text = "".join(output)
    assert agent not in text and interface not in text


def test_hub_log_format_is_checked(data_dir):
    done = run_hub("migrate", data_dir=data_dir, HUB_LOG_FORMAT="xml")
    assert done.returncode == 2 and "HUB_LOG_FORMAT must be text or json, got 'xml'" in done.stderr
    assert not data_dir.exists()
