"""GET /metrics: who may read it, and every family after the action it counts."""

from __future__ import annotations

import os
import time

import falcon.testing
import pytest
from prometheus_client.parser import text_string_to_metric_families

from hub.api.app import create_app
from hub.clock import Clock
from hub.services.files.cleanup import CleanupService
from tests.support import (
    PDF,
    attachment,
    claim,
    enqueue,
    fetched,
    issue,
    listed,
    load,
    report,
)
from tests.support.hubs import MovableClock, built_services

pytestmark = pytest.mark.backends("sqlite", "postgresql")


def scrape(hub, token: str | None = None, app=None) -> dict:
    """The metrics of ``app`` (the hub's own by default) as ``{sample name: {labels
    as a sorted tuple of pairs: value}}``, read by prometheus-client's own parser."""
    client = hub.client if app is None else falcon.testing.TestClient(app)
    resp = client.simulate_get("/metrics", headers={"Authorization": f"Bearer {token or hub.tokens['admin']}"})
    assert resp.status_code == 200, resp.text
    assert resp.headers["Content-Type"].startswith("text/plain; version=0.0.4")
    families = {}
    for family in text_string_to_metric_families(resp.text):
        for sample in family.samples:
            families.setdefault(sample.name, {})[tuple(sorted(sample.labels.items()))] = sample.value
    return families


def value(families: dict, name: str, **labels) -> float:
    return families[name][tuple(sorted(labels.items()))]


def metrics_token(hub) -> str:
    return hub.built.services.tokens.add("prometheus", "metrics")


def test_only_a_metrics_or_admin_token_reads_the_metrics(hub):
    anonymous = hub.client.simulate_get("/metrics")
    assert anonymous.status_code == 401 and anonymous.headers["WWW-Authenticate"] == "Bearer"
    for role in ("agent", "interface"):
        refused = hub.api("GET", "/metrics", role=role)
        assert refused.status_code == 403 and "metrics" in refused.json["description"], role
    token = metrics_token(hub)
    assert scrape(hub, token) and scrape(hub, hub.tokens["admin"])
    # The metrics role reads nothing else.
    for path in ("/api/v1/overview", "/api/v1/issues", "/api/v1/tokens"):
        resp = hub.client.simulate_get(path, headers={"Authorization": f"Bearer {token}"})
        assert resp.status_code == 403, path


def test_every_family_appears_after_its_action(hub):
    load(hub, [issue("X-1"), issue("X-2")])  # enqueue, claim, one state page, done
    assert claim(hub, agent_id="agent-2") == []  # nothing queued: an empty claim
    done_again = report(hub, 1, "state", {"issues": []})
    assert done_again.status_code == 409
    listed(hub, attachment("31337", "spec.pdf", len(PDF)))
    fetched(hub, "31337")
    enqueue(hub, "key = X-9")  # stays queued

    m = scrape(hub)
    assert value(m, "hub_claims_total", result="commands") == 3  # two refreshes, one fetch
    assert value(m, "hub_claims_total", result="empty") == 1
    assert value(m, "hub_state_pages_total") == 2
    assert value(m, "hub_issues_loaded_total") == 3
    assert value(m, "hub_conflicts_total", route="/agent/v1/commands/{command_id}/state") == 1
    assert value(m, "hub_uploads_total") == 1
    assert value(m, "hub_upload_bytes_total") == len(PDF)
    assert value(m, "hub_store_files") == 1 and value(m, "hub_store_bytes") == len(PDF)
    assert value(m, "hub_queue_commands", type="refresh", status="done") == 2
    assert value(m, "hub_queue_commands", type="refresh", status="queued") == 1
    assert value(m, "hub_queue_commands", type="fetch_attachment", status="done") == 1
    assert value(m, "hub_queue_oldest_queued_age_seconds") > 0  # the test clock ticks a second per reading
    assert value(m, "hub_command_deliveries_total", type="refresh") == 2
    assert value(m, "hub_command_deliveries_total", type="fetch_attachment") == 1
    assert value(m, "hub_lease_expiries_total", outcome="requeued") == 0
    assert value(m, "hub_sync_run_duration_seconds_count", status="done") == 2
    assert value(m, "hub_sync_run_duration_seconds_bucket", status="done", le="+Inf") == 2
    assert value(m, "hub_sync_run_duration_seconds_sum", status="done") > 0
    assert value(m, "hub_agents", online="true") == 2 and value(m, "hub_agents", online="false") == 0
    assert set(m["hub_agent_last_seen_age_seconds"]) == {
        (("agent_id", "agent-1"),), (("agent_id", "agent-2"),)}
    # Neither has reported Jira's reachability (protocol v18): no series of it.
    assert "hub_agent_jira_reachable" not in m
    assert value(m, "hub_cleanup_removed_files_total", rule="unnamed") == 0
    assert value(m, "hub_http_requests_total", route="/agent/v1/claim", method="POST", status="200") == 4
    assert value(m, "hub_http_request_duration_seconds_count", route="/agent/v1/claim", method="POST") == 4
    assert "process_resident_memory_bytes" in m


@pytest.mark.filterwarnings("ignore:Unknown REQUEST_METHOD")
def test_routes_are_counted_by_template_never_by_path(hub):
    load(hub, [issue("X-1")])
    assert hub.api("GET", "/api/v1/issues/X-1").status_code == 200
    assert hub.api("GET", "/api/v1/issues/NOPE-404").status_code == 404
    assert hub.api("GET", "/wp-login.php/X-1").status_code == 404
    assert hub.api("BREW", "/api/v1/issues/X-1").status_code == 400  # Falcon: not an HTTP method
    text = hub.client.simulate_get("/metrics", headers=hub.headers("admin")).text
    assert "X-1" not in text and "NOPE" not in text and "wp-login" not in text and "BREW" not in text
    m = scrape(hub)
    assert value(m, "hub_http_requests_total", route="/api/v1/issues/{key}", method="GET", status="200") == 1
    assert value(m, "hub_http_requests_total", route="/api/v1/issues/{key}", method="GET", status="404") == 1
    assert value(m, "hub_http_requests_total", route="unrouted", method="GET", status="404") == 1
    assert value(m, "hub_http_requests_total", route="/api/v1/issues/{key}", method="other", status="400") == 1


def test_lease_expiries_and_cleanup_removals_count_whichever_process_saw_them(make_hub):
    """Both are tallied in the database: the worker's periodic tasks (another
    process, or another registry) count as much as a claim in the API."""
    clock = MovableClock()
    hub = make_hub(clock=clock, lease_seconds=10, max_deliveries=2)
    first, second = enqueue(hub, "key = A-1"), enqueue(hub, "key = A-2")
    assert len(claim(hub, limit=2)) == 2
    clock.advance(11)
    assert [c["id"] for c in claim(hub, agent_id="agent-2", limit=2)] == [first["id"], second["id"]]
    clock.advance(11)
    # The worker's task: its own dispatcher, counting into no registry of the app's.
    assert built_services(hub.config, clock=clock).dispatcher.expire_leases() == {"requeued": 0, "failed": 2}

    stray = hub.config.files_dir / ("ab" * 32)
    stray.parent.mkdir(parents=True, exist_ok=True)
    stray.write_bytes(b"x" * 100)
    old = time.time() - 7200
    os.utime(stray, (old, old))
    assert CleanupService(hub.built.services.store, 10**12, 30, Clock()).run(dry_run=True).files == 1
    assert value(scrape(hub), "hub_cleanup_removed_files_total", rule="unnamed") == 0  # dry: not counted
    assert CleanupService(hub.built.services.store, 10**12, 30, Clock()).run().files == 1

    for app in (hub.app, create_app(hub.config, print, clock)):  # a second process's view
        m = scrape(hub, app=app)
        assert value(m, "hub_lease_expiries_total", outcome="requeued") == 2
        assert value(m, "hub_lease_expiries_total", outcome="failed") == 2
        assert value(m, "hub_command_deliveries_total", type="refresh") == 4
        assert value(m, "hub_cleanup_removed_files_total", rule="unnamed") == 1
        assert value(m, "hub_cleanup_removed_bytes_total", rule="unnamed") == 100
        assert value(m, "hub_sync_run_duration_seconds_count", status="failed") == 4


# Families read from the database: any app on the same data dir reports the same.
FROM_THE_DATABASE = ("hub_queue_commands", "hub_command_deliveries_total", "hub_lease_expiries_total",
                     "hub_sync_run_duration_seconds_bucket", "hub_sync_run_duration_seconds_count",
                     "hub_sync_run_duration_seconds_sum", "hub_agents", "hub_store_files")


def test_scrapes_in_between_read_the_same_as_one_scrape_at_the_end(hub):
    """A scrape reads only what changed since the last one; what it reports
    must be what a first scrape of everything reports."""
    scrape(hub)
    load(hub, [issue("X-1")])
    queued = enqueue(hub, "key = X-2")
    scrape(hub)
    assert hub.api("POST", f"/api/v1/commands/{queued['id']}/cancel").status_code == 200
    failing = enqueue(hub, "key = X-3")
    claim(hub)
    scrape(hub)
    assert report(hub, failing["id"], "failed", {"error": "Jira down"}).status_code == 200
    listed(hub, attachment("31337", "spec.pdf", len(PDF)))
    fetched(hub, "31337")
    enqueue(hub, "key = X-4")
    mine = scrape(hub)

    theirs = scrape(hub, app=create_app(hub.config, print))
    for name in FROM_THE_DATABASE:
        assert mine[name] == theirs[name], name
    assert value(mine, "hub_queue_commands", type="refresh", status="cancelled") == 1
    assert value(mine, "hub_queue_commands", type="refresh", status="queued") == 1
    assert value(mine, "hub_sync_run_duration_seconds_count", status="failed") == 1
    assert value(mine, "hub_sync_run_duration_seconds_count", status="done") == 2


def test_each_app_counts_on_its_own_registry(hub):
    other = create_app(hub.config, print)
    hub.api("GET", "/api/v1/overview")
    mine, theirs = scrape(hub), scrape(hub, app=other)
    assert value(mine, "hub_http_requests_total", route="/api/v1/overview", method="GET", status="200") == 1
    assert "hub_http_requests_total" not in theirs  # its first request is still being answered


@pytest.mark.parametrize("accept", [None, "application/openmetrics-text; version=1.0.0", "text/plain;version=x"])
def test_the_text_format_is_served_whatever_the_accept_header(hub, accept):
    headers = {**hub.headers("admin"), **({"Accept": accept} if accept else {})}
    resp = hub.client.simulate_get("/metrics", headers=headers)
    assert resp.status_code == 200 and resp.headers["Content-Type"].startswith("text/plain; version=0.0.4")
    assert list(text_string_to_metric_families(resp.text))
