"""JQL's dates through GET /api/v1/issues?jql= at another clock and in the Jira user's zone
(HUB_JQL_TIME_ZONE): "2026/10/31 21:00", startOfDay() and a due day are read in that zone."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from tests.support import load
from tests.support.jql_reference import CATALOGUES, ISSUES, NEIGHBOURS

pytestmark = pytest.mark.backends("sqlite", "postgresql")

# Sunday 22:30 in UTC, already Monday 01:30 in Moscow.
LATE_SUNDAY = datetime(2026, 11, 1, 22, 30, tzinfo=UTC)


class _Clock:
    def now(self) -> datetime:
        return LATE_SUNDAY


@pytest.mark.parametrize(("zone", "query", "expected"), [
    ("UTC", 'created >= "2026/10/31 21:00"', ["AURORA-5"]),
    ("Europe/Moscow", 'created >= "2026/10/31 21:00"', ["AURORA-5", "AURORA-4"]),  # 18:00 UTC
    ("UTC", "duedate = now()", ["AURORA-2"]),  # today is the 1st
    ("Europe/Moscow", "duedate = now()", ["AURORA-5"]),  # today is the 2nd
    ("UTC", "created >= startOfDay() AND project = AURORA", ["AURORA-5"]),
    ("Europe/Moscow", "created >= startOfDay() AND project = AURORA", ["AURORA-5"]),  # 21:00 UTC
    ("UTC", "created > -1d AND created <= now()", ["AURORA-5"]),
    ("Europe/Moscow", "duedate <= startOfDay() AND duedate >= startOfDay(-1)", ["AURORA-5", "AURORA-2"]),
])
def test_dates_are_read_at_the_clock_in_the_jira_users_zone(make_hub, zone, query, expected):
    hub = make_hub(clock=_Clock(), jql_time_zone=zone)
    load(hub, ISSUES, NEIGHBOURS, version=16, catalogues=CATALOGUES)
    resp = hub.api("GET", "/api/v1/issues", params={"jql": query})
    assert resp.status_code == 200, resp.json
    assert [item["key"] for item in resp.json["items"]] == expected
