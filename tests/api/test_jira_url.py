"""Jira's base URL, for the page's "Open in Jira": the agent reports Jira's own (``jira.base_url`` in
its heartbeats), the hub keeps the last, ``HUB_JIRA_URL`` overrides it; the issue answers its page in
Jira (``jira_url``) and the overview the base in use (``jira_base_url``), null while none is known."""

from __future__ import annotations

import pytest

from hub.config import Config, ConfigError
from tests.support.protocol import issue, load

pytestmark = pytest.mark.backends("sqlite", "postgresql")


def beat(hub, jira: dict, agent_id: str = "agent-1"):
    return hub.agent("POST", "/agent/v1/heartbeat", {"agent_id": agent_id, "version": 19, "state": "idle",
                                                     "jira": {"reachable": True, "checked_at": "2026-11-20T04:00:00Z",
                                                              "error": None, **jira}})


def test_no_link_to_jira_while_its_address_is_unknown(hub):
    load(hub, [issue("AURORA-1", status="Open")])
    assert hub.api("GET", "/api/v1/issues/AURORA-1").json["jira_url"] is None
    assert hub.api("GET", "/api/v1/overview").json["jira_base_url"] is None
    # A heartbeat without it (an older agent) leaves it unknown.
    assert beat(hub, {}).status_code == 200
    assert hub.api("GET", "/api/v1/overview").json["jira_base_url"] is None


def test_the_base_url_an_agent_reports_links_each_issue_to_its_page_in_jira(hub):
    load(hub, [issue("AURORA-1", status="Open")])
    before = hub.api("GET", "/api/v1/issues/AURORA-1").headers["etag"]
    assert beat(hub, {"base_url": "https://jira.example.com/"}).status_code == 200
    resp = hub.api("GET", "/api/v1/issues/AURORA-1", headers={"If-None-Match": before})
    assert resp.status_code == 200 and resp.json["jira_url"] == "https://jira.example.com/browse/AURORA-1"
    assert hub.api("GET", "/api/v1/overview").json["jira_base_url"] == "https://jira.example.com"
    # The last one reported wins (Jira moved, or another agent's Jira says it so).
    assert beat(hub, {"base_url": "http://jira.internal:8080/jira"}, "agent-2").status_code == 200
    assert hub.api("GET", "/api/v1/issues/aurora-1").json["jira_url"] == "http://jira.internal:8080/jira/browse/AURORA-1"
    # A heartbeat that says nothing of it keeps it.
    assert beat(hub, {"base_url": None}).status_code == 200
    assert hub.api("GET", "/api/v1/overview").json["jira_base_url"] == "http://jira.internal:8080/jira"


@pytest.mark.parametrize("url", ["ftp://jira.example.com", "jira.example.com", "https://user:pw@jira.example.com",
                                 "https://jira.example.com/?a=1", "https://jira example.com", "https://" + "j" * 2000,
                                 "javascript:alert(1)"])
def test_a_base_url_that_is_no_http_url_is_refused_naming_it(hub, url):
    resp = beat(hub, {"base_url": url})
    assert resp.status_code == 422 and resp.json["field"] == "jira.base_url"
    assert hub.api("GET", "/api/v1/overview").json["jira_base_url"] is None


def test_hub_jira_url_overrides_what_the_agent_reports(make_hub):
    hub = make_hub(jira_url="https://jira.example.org")
    load(hub, [issue("AURORA-1", status="Open")])
    assert beat(hub, {"base_url": "http://jira.internal:8080"}).status_code == 200
    assert hub.api("GET", "/api/v1/issues/AURORA-1").json["jira_url"] == "https://jira.example.org/browse/AURORA-1"
    assert hub.api("GET", "/api/v1/overview").json["jira_base_url"] == "https://jira.example.org"


@pytest.mark.parametrize("raw, read", [("https://jira.example.com/", "https://jira.example.com"),
                                       ("http://10.0.0.5:8080/jira", "http://10.0.0.5:8080/jira"), ("", None)])
def test_hub_jira_url_is_read_as_an_http_url(raw, read):
    assert Config.from_env({"HUB_JIRA_URL": raw}).jira_url == read


@pytest.mark.parametrize("raw", ["jira.example.com", "ftp://jira.example.com", "https://user:secret@jira.example.com",
                                 "https://jira.example.com/?x=1", "https://jira.example.com/#top", "https://:8080",
                                 "https://jira.example.com:port"])
def test_hub_jira_url_that_is_no_http_url_stops_the_hub_naming_it(raw):
    with pytest.raises(ConfigError, match="HUB_JIRA_URL") as raised:
        Config.from_env({"HUB_JIRA_URL": raw})
    assert "secret" not in str(raised.value)
