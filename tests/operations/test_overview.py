"""GET /api/v1/overview: the hub at a glance, computed at read time."""

from __future__ import annotations

from datetime import datetime

import pytest

from tests.support import claim, enqueue, fetched, issue, listed, load, report, with_projects
from tests.support.hubs import MovableClock

pytestmark = pytest.mark.backends("sqlite", "postgresql")

BASE = 'project = AURORA AND labels in ("AWPCA")'


def overview(hub) -> dict:
    resp = hub.api("GET", "/api/v1/overview")
    assert resp.status_code == 200, resp.json
    return resp.json


def finished(hub, clock, started: str, finished_at: str, params: dict | None = None) -> int:
    clock.moment = datetime.fromisoformat(started)
    resp = hub.api("POST", "/api/v1/commands", {"type": "refresh", **({"params": params} if params else {})})
    command = resp.json
    claim(hub)
    assert report(hub, command["id"], "state", {"issues": [issue("X-1")]}).status_code == 200
    clock.moment = datetime.fromisoformat(finished_at)
    assert report(hub, command["id"], "done", {"result": {"total": 1}}).status_code == 200
    return command["id"]


def test_an_empty_hub_shows_nothing_queued_no_runs_and_an_empty_store(hub):
    assert overview(hub) == {"queue": [], "oldest_queued_at": None, "oldest_queued_age_seconds": None,
                             "agents": {"total": 0, "online": 0},
                             "last_runs": {"full": None, "incremental": None},
                             "store": {"files": 0, "bytes": 0}, "gone_issues": 0,
                             "jql_time_zone": {"name": "UTC", "source": "default"},
                             "writes": {"pending": 0, "applying": 0, "failed": 0, "conflict": 0,
                                        "oldest_pending_age_seconds": None},
                             "jira_base_url": None}


def test_the_queue_is_counted_by_type_and_status_with_the_oldest_queued_age(make_hub):
    clock = MovableClock("2026-11-30T06:00:00+00:00")
    hub = make_hub(clock=clock)
    with_projects()
    enqueue(hub)
    enqueue(hub, "key = X-1")
    claim(hub)  # the first, oldest, is claimed
    clock.advance(95)
    seen = overview(hub)
    assert seen["queue"] == [{"type": "refresh", "status": "claimed", "count": 1},
                             {"type": "refresh", "status": "queued", "count": 1}]
    assert seen["oldest_queued_at"] == "2026-11-30T06:00:00+00:00"
    assert seen["oldest_queued_age_seconds"] == 95
    assert seen["agents"] == {"total": 1, "online": 1}


def test_the_last_full_and_incremental_runs_are_told_apart_with_their_durations(make_hub):
    clock = MovableClock()
    hub = make_hub(clock=clock)
    with_projects()
    full = finished(hub, clock, "2026-11-30T02:00:00+00:00", "2026-11-30T02:00:42+00:00")
    finished(hub, clock, "2026-11-30T03:00:00+00:00", "2026-11-30T03:00:05+00:00", {"jql": "key = X-1"})
    incremental = finished(hub, clock, "2026-11-30T04:00:00+00:00", "2026-11-30T04:00:03+00:00",
                           {"updated_since": "2026-11-30T01:50:00+00:00"})
    runs = overview(hub)["last_runs"]
    assert (runs["full"]["command_id"], runs["full"]["duration_seconds"], runs["full"]["query"]) == (full, 42, BASE)
    assert (runs["incremental"]["command_id"], runs["incremental"]["duration_seconds"]) == (incremental, 3)
    runs_listed = hub.api("GET", "/api/v1/sync-runs").json["items"]
    assert [r["duration_seconds"] for r in runs_listed] == [3, 5, 42]


def test_the_store_counts_files_and_bytes(hub):
    listed(hub, {"id": "301", "filename": "a.pdf", "size": 6, "mime_type": "application/pdf",
                 "author": "ivanov", "created": "2026-10-22T13:05:11.000+0300"})
    fetched(hub, "301", b"%PDF-1")
    assert overview(hub)["store"] == {"files": 1, "bytes": 6}


def test_the_overview_needs_an_interface_token(hub):
    assert hub.api("GET", "/api/v1/overview", role=None).status_code == 401
    assert hub.api("GET", "/api/v1/overview", role="agent").status_code == 403


def test_the_overview_and_the_metrics_count_writes_by_status(make_hub):
    from prometheus_client.parser import text_string_to_metric_families

    clock = MovableClock()
    hub = make_hub(clock=clock)
    load(hub, [issue(key, status="Open") for key in ("AURORA-1", "AURORA-2")], version=19)
    alice = {"Authorization": f"Bearer {hub.built.services.tokens.add('alice', 'interface', write=True)}"}
    for path, body in [("comments", {"body": "a"}), ("worklogs", {"time_spent": "1h"})]:
        key = "AURORA-1" if path == "comments" else "AURORA-2"
        resp = hub.client.simulate_post(f"/api/v1/issues/{key}/{path}", json=body, headers=alice)
        assert resp.status_code == 202, resp.json
    [command] = claim(hub, version=19, types=["write"])
    failed = {"result": {"outcome": "failed", "result": None, "error": "no", "conflict": None}}
    assert report(hub, command["id"], "done", failed).status_code == 200
    clock.advance(90)

    overview = hub.api("GET", "/api/v1/overview").json["writes"]
    assert overview == {"pending": 1, "applying": 0, "failed": 1, "conflict": 0, "oldest_pending_age_seconds": 90.0}
    resp = hub.client.simulate_get("/metrics", headers={"Authorization": f"Bearer {hub.tokens['admin']}"})
    samples = {(s.name, tuple(sorted(s.labels.items()))): s.value
               for family in text_string_to_metric_families(resp.text) for s in family.samples}
    assert samples[("hub_writes", (("op", "comment"), ("status", "failed")))] == 1
    assert samples[("hub_writes", (("op", "log_work"), ("status", "pending")))] == 1
    assert samples[("hub_writes_oldest_pending_age_seconds", ())] == 90.0
