"""The time zone JQL's dates are read in: HUB_JQL_TIME_ZONE, else the Jira user's as the agent
reports it in its heartbeat (v17), else UTC; the overview says which."""

from __future__ import annotations

from zoneinfo import ZoneInfo

import pytest

from agent.runner import known_zone
from hub.config import Config
from hub.services.search.jql.zone import jql_zone
from tests.support import db_rows

pytestmark = pytest.mark.backends("sqlite", "postgresql")


def beat(hub, **more):
    return hub.agent("POST", "/agent/v1/heartbeat", {"agent_id": "agent-1", "version": 17, **more})


def zone_shown(hub) -> dict:
    return hub.api("GET", "/api/v1/overview").json["jql_time_zone"]


def test_with_nothing_known_jql_reads_dates_in_utc(hub):
    assert zone_shown(hub) == {"name": "UTC", "source": "default"}
    assert jql_zone() == ZoneInfo("UTC")


def test_the_zone_an_agent_reports_is_kept_and_used(hub):
    assert beat(hub, jira_time_zone="Europe/Moscow").status_code == 200
    assert zone_shown(hub) == {"name": "Europe/Moscow", "source": "jira"}
    assert hub.built.services.jql_zone() == ZoneInfo("Europe/Moscow")
    # A heartbeat that says nothing of the zone leaves it; a new one replaces it.
    assert beat(hub).status_code == 200
    assert zone_shown(hub)["name"] == "Europe/Moscow"
    assert beat(hub, jira_time_zone="America/Argentina/Buenos_Aires").status_code == 200
    assert jql_zone() == ZoneInfo("America/Argentina/Buenos_Aires")
    assert db_rows(hub, "SELECT value FROM setting WHERE key = 'jira_time_zone'") == [
        ("America/Argentina/Buenos_Aires",)]


def test_the_setting_overrides_what_the_agent_reports(make_hub):
    hub = make_hub(jql_time_zone="Asia/Tokyo")
    assert zone_shown(hub) == {"name": "Asia/Tokyo", "source": "HUB_JQL_TIME_ZONE"}
    assert beat(hub, jira_time_zone="Europe/Moscow").status_code == 200
    assert zone_shown(hub) == {"name": "Asia/Tokyo", "source": "HUB_JQL_TIME_ZONE"}
    assert hub.built.services.jql_zone() == ZoneInfo("Asia/Tokyo")
    assert Config.from_env({"HUB_JQL_TIME_ZONE": " Asia/Tokyo "}).jql_time_zone == "Asia/Tokyo"
    assert Config.from_env({}).jql_time_zone is None


@pytest.mark.parametrize("name", ["Mars/Olympus", "../../etc/passwd", "/etc/localtime", "Europe/Moscow ",
                                  "x" * 65, ""])
def test_a_zone_that_is_no_iana_name_is_refused_naming_the_field_and_nothing_is_recorded(hub, name):
    resp = beat(hub, jira_time_zone=name)
    assert resp.status_code == 422, resp.json
    assert resp.json["field"] == "jira_time_zone"
    assert db_rows(hub, "SELECT count(*) FROM agent_status") == [(0,)]
    assert zone_shown(hub)["source"] == "default"


def test_an_older_agent_without_the_field_is_heard_as_before(hub):
    resp = hub.agent("POST", "/agent/v1/heartbeat", {"agent_id": "agent-1", "version": 16})
    assert resp.status_code == 200
    assert zone_shown(hub)["source"] == "default"


@pytest.mark.parametrize("name, sent", [
    ("Europe/Moscow", "Europe/Moscow"), ("UTC", "UTC"), ("Etc/GMT+3", "Etc/GMT+3"),
    ("America/Argentina/Buenos_Aires", "America/Argentina/Buenos_Aires"),
    ("Mars/Olympus", None), ("../../etc/passwd", None), (None, None), ("", None), (42, None),
])
def test_the_agent_sends_only_a_zone_the_hub_can_take(name, sent):
    assert known_zone(name) == sent


def test_jql_reads_a_date_in_the_zone_in_use(make_hub):
    """22:30 UTC on 22 October is already 23 October in Moscow: `created >= "2026/10/23"` finds the
    issue once the agent says the Jira user is in Moscow, and not before."""
    from tests.support import issue, load

    hub = make_hub()
    load(hub, [issue("AURORA-12", created="2026-10-22T22:30:00.000+0000"),
               issue("AURORA-13", created="2026-10-22T10:00:00.000+0000")])

    def found() -> list[str]:
        resp = hub.api("GET", "/api/v1/issues", params={"jql": 'created >= "2026/10/23"'})
        assert resp.status_code == 200, resp.json
        return [item["key"] for item in resp.json["items"]]

    assert found() == []
    assert beat(hub, jira_time_zone="Europe/Moscow").status_code == 200
    assert found() == ["AURORA-12"]


def test_a_day_without_a_time_is_its_midnight_in_the_zone_and_only_history_reads_the_whole_day(make_hub):
    """Jira's =, !=, <, <=, >, >= and IN take "2026/10/27" as that instant, midnight in the user's
    zone (DateEqualityQueryFactory, DateRelationalQueryFactory: the index's term in seconds), so
    `created <= "2026/10/27"` leaves out what was created during the 27th; WAS … ON reads the day
    whole (implied precision)."""
    from tests.support import issue, load

    hub = make_hub(jql_time_zone="Europe/Moscow")
    def closed(at: str) -> list[dict]:
        return [{"id": at[:10].replace("-", ""), "author": "ivanov", "created": at,
                 "items": [{"field": "status", "field_type": "jira", "from": "1", "from_string": "Open",
                            "to": "6", "to_string": "Closed"}]}]

    load(hub, [issue("AURORA-1", created="2026-10-26T21:00:00.000+0000"),   # 27th, 00:00 in Moscow
               issue("AURORA-2", created="2026-10-27T09:00:00.000+0300",    # 27th, 09:00 in Moscow
                     status="Closed", changes=closed("2026-10-27T15:00:00.000+0300")),
               issue("AURORA-3", created="2026-10-26T20:59:59.000+0000",    # 26th, 23:59:59 in Moscow
                     status="Closed", changes=closed("2026-10-28T10:00:00.000+0300"))])

    def found(jql: str) -> list[str]:
        resp = hub.api("GET", "/api/v1/issues", params={"jql": jql + " ORDER BY key"})
        assert resp.status_code == 200, resp.json
        return [item["key"] for item in resp.json["items"]]

    assert found('created <= "2026/10/27"') == ["AURORA-1", "AURORA-3"]
    assert found('created < "2026/10/27"') == ["AURORA-3"]
    assert found('created > "2026/10/27"') == ["AURORA-2"]
    assert found('created >= "2026/10/27"') == ["AURORA-1", "AURORA-2"]
    assert found('created = "2026/10/27"') == ["AURORA-1"]
    assert found('created != "2026/10/27"') == ["AURORA-2", "AURORA-3"]
    assert found('created in ("2026/10/27", "2026/10/27 09:00")') == ["AURORA-1", "AURORA-2"]
    assert found('created = "2026/10/27 09:00"') == ["AURORA-2"]
    # The history predicates keep Jira's implied precision: ON a day is the whole day.
    assert found('status changed ON "2026/10/27"') == ["AURORA-2"]
    assert found('status changed AFTER "2026/10/27"') == ["AURORA-3"]
    assert found('status changed DURING ("2026/10/27", "2026/10/28")') == ["AURORA-2", "AURORA-3"]
