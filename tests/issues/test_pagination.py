"""Every list through ``/api/v1``: one keyset pager, one ``{items, next_cursor}`` shape."""

from __future__ import annotations

import pytest

from hub.models import SyncRun
from tests.support import enqueue, issue, load, mirrored

pytestmark = pytest.mark.backends("sqlite", "postgresql")

T = "2026-11-02T09:00:00+00:00"


def pages(hub, path: str, limit: int, **filters) -> list[list]:
    """Every page of a list, following ``next_cursor`` until it is null."""
    found, cursor = [], None
    while True:
        params = {**filters, "limit": limit, **({"cursor": cursor} if cursor is not None else {})}
        resp = hub.api("GET", path, params=params)
        assert resp.status_code == 200, resp.json
        assert list(resp.json)[:2] == ["items", "next_cursor"]
        found.append(resp.json["items"])
        cursor = resp.json["next_cursor"]
        if cursor is None:
            return found
        assert len(found) < 50, "the cursor never ran out"


def test_commands_sync_runs_and_batches_page_newest_first_by_id(hub):
    commands = [enqueue(hub, f"key = A-{n}")["id"] for n in range(5)]
    batches = [hub.api("POST", "/api/v1/batches", {"title": f"b{n}"}).json["id"] for n in range(3)]
    runs = [SyncRun.create(command=commands[n], query="q", status="done" if n % 2 else "failed",
                           started_at=T).id for n in range(5)]

    assert [[c["id"] for c in p] for p in pages(hub, "/api/v1/commands", 2)] == [
        commands[4:2:-1], commands[2:0:-1], commands[:1]]
    assert [[b["id"] for b in p] for p in pages(hub, "/api/v1/batches", 2)] == [batches[:0:-1], batches[:1]]
    assert [[r["id"] for r in p] for p in pages(hub, "/api/v1/sync-runs", 1, status="done")] == [
        [runs[3]], [runs[1]]]
    # An exact fit: the last full page still says there is nothing more.
    assert [len(p) for p in pages(hub, "/api/v1/batches", 3)] == [3]


def test_rows_added_between_pages_do_not_shift_the_next_page(hub):
    ids = [enqueue(hub, f"key = A-{n}")["id"] for n in range(4)]
    first = hub.api("GET", "/api/v1/commands", params={"limit": 2}).json
    enqueue(hub, "key = A-new")
    rest = hub.api("GET", "/api/v1/commands", params={"limit": 2, "cursor": first["next_cursor"]}).json
    assert [c["id"] for c in first["items"] + rest["items"]] == ids[::-1]


def test_issues_page_by_arrival_with_their_filters(hub):
    mirrored(hub)
    load(hub, [issue(f"Z-{n}", status="Open") for n in range(1, 4)])
    everything = [i["key"] for p in pages(hub, "/api/v1/issues", 2) for i in p]
    assert everything == ["Z-3", "Z-2", "Z-1", "Y-1", "X-3", "X-2", "X-1"]
    assert [[i["key"] for i in p] for p in pages(hub, "/api/v1/issues", 2, status="Open")] == [
        ["Z-3", "Z-2"], ["Z-1", "X-3"], ["X-1"]]
    assert [[i["key"] for i in p] for p in pages(hub, "/api/v1/issues", 1, label="KPI")] == [["X-3"], ["X-2"]]


@pytest.mark.parametrize("path, role", [
    ("/api/v1/projects", "interface"), ("/api/v1/tokens", "admin"),
    ("/api/v1/issues/X-1/comments", "interface"), ("/api/v1/issues/X-1/changes", "interface"),
    ("/api/v1/issues/X-1/notes", "interface"), ("/api/v1/issues/X-1/attachments", "interface"),
])
def test_lists_shown_whole_have_no_next_cursor(hub, path, role):
    mirrored(hub)
    resp = hub.api("GET", path, role=role)
    assert resp.status_code == 200, resp.json
    assert list(resp.json)[:2] == ["items", "next_cursor"] and resp.json["next_cursor"] is None
    assert isinstance(resp.json["items"], list)
