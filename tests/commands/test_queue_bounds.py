"""The queue cannot be flooded (issue 33): an open command is answered rather than queued
twice, one token has at most HUB_QUEUED_COMMANDS_PER_TOKEN commands queued, and a
refresh's JQL is bounded as the JQL box is."""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request

import pytest

from hub.models import Command
from tests.support import claim, prepared_hub, report, serving, with_projects

pytestmark = pytest.mark.backends("sqlite", "postgresql")


def post(hub, body: dict, role: str = "interface"):
    return hub.api("POST", "/api/v1/commands", body, role=role)


def refresh(jql: str | None = None, **params) -> dict:
    return {"type": "refresh", "params": {**({"jql": jql} if jql else {}), **params}}


def test_a_second_full_refresh_is_answered_with_the_open_one(hub):
    with_projects()
    first = post(hub, {"type": "refresh"})
    assert first.status_code == 201 and first.headers["Location"] == f"/api/v1/commands/{first.json['id']}"
    base = first.json["params"]["jql"]
    # Bare or with the base JQL spelled out, by another token too: the same open command.
    for again in (post(hub, {"type": "refresh"}), post(hub, refresh(base)),
                  post(hub, {"type": "refresh"}, role="admin")):
        assert again.status_code == 200, again.json
        assert again.json == first.json and "Location" not in again.headers
    [claimed] = claim(hub)
    held = post(hub, {"type": "refresh"})
    assert held.status_code == 200 and held.json["id"] == claimed["id"] and held.json["status"] == "claimed"
    assert report(hub, claimed["id"], "done", {"result": {"total": 0}}).status_code == 200
    after = post(hub, {"type": "refresh"})
    assert after.status_code == 201 and after.json["id"] != first.json["id"]
    assert Command.select().where(Command.type == "refresh").count() == 2


def test_an_identical_open_command_is_returned_rather_than_queued_twice(hub):
    first = post(hub, refresh("key = A-1"))
    assert first.status_code == 201
    assert post(hub, refresh("key = A-1")).json["id"] == first.json["id"]
    # Other params are another command: another query, or the same one since a time.
    other = post(hub, refresh("key = A-2"))
    since = post(hub, refresh("key = A-1", updated_since="2026-11-02T08:50:00Z"))
    assert other.status_code == since.status_code == 201
    same_since = post(hub, refresh("key = A-1", updated_since="2026-11-02T08:50:00+00:00"))
    assert same_since.status_code == 200 and same_since.json["id"] == since.json["id"]
    # A cancelled one is no longer open: asking again queues anew, and so does its retry
    # once the new one is done; while the new one is open, the retry answers with it.
    hub.api("POST", f"/api/v1/commands/{first.json['id']}/cancel")
    anew = post(hub, refresh("key = A-1"))
    assert anew.status_code == 201
    retried = hub.api("POST", f"/api/v1/commands/{first.json['id']}/retry")
    assert retried.status_code == 200 and retried.json["id"] == anew.json["id"]
    assert Command.select().where(Command.status == "queued").count() == 3


def test_an_open_refresh_answered_again_keeps_its_own_batch(hub):
    batch = hub.api("POST", "/api/v1/batches", {"title": "sprint 12"}).json
    first = post(hub, refresh("key = A-1"))
    again = post(hub, {**refresh("key = A-1"), "batch_id": batch["id"]})
    assert again.status_code == 200 and again.json["id"] == first.json["id"] and again.json["batch_id"] is None
    assert hub.api("GET", f"/api/v1/batches/{batch['id']}").json["commands"] == {}


def test_a_token_past_its_bound_of_queued_commands_gets_429_and_queues_nothing(make_hub):
    hub = make_hub(queued_commands_per_token=3)
    ids = [post(hub, refresh(f"key = A-{n}")).json["id"] for n in range(3)]
    over = post(hub, refresh("key = A-9"))
    assert over.status_code == 429, over.json
    assert over.headers["Retry-After"] == "60"
    assert over.json["title"] == "Too many requests"
    assert "HUB_QUEUED_COMMANDS_PER_TOKEN = 3" in over.json["description"]
    assert Command.select().count() == 3
    # At the bound, asking for an open command still answers it: nothing is queued.
    assert post(hub, refresh("key = A-1")).status_code == 200
    # Another token has a bound of its own.
    assert post(hub, refresh("key = A-9"), role="admin").status_code == 201
    # A command claimed, or cancelled, is no longer queued: room for one more each.
    claim(hub)  # the oldest: A-0
    assert post(hub, refresh("key = A-10")).status_code == 201
    assert post(hub, refresh("key = A-11")).status_code == 429
    hub.api("POST", f"/api/v1/commands/{ids[1]}/cancel")
    assert post(hub, refresh("key = A-11")).status_code == 201
    # A retry queues a command too, within the same bound.
    retry = hub.api("POST", f"/api/v1/commands/{ids[1]}/retry")
    assert retry.status_code == 429 and retry.headers["Retry-After"] == "60"


def test_a_fetch_counts_against_the_token_bound_of_queued_commands(make_hub):
    hub = make_hub(queued_commands_per_token=2)
    command = post(hub, refresh("key = A-1")).json
    claim(hub)
    report(hub, command["id"], "state", {"issues": [{"key": "A-1", "id": "1", "attachments": [
        {"id": str(n), "filename": f"{n}.pdf"} for n in (1, 2, 3)]}]})
    fetch = [post(hub, {"type": "fetch_attachment", "params": {"attachment_id": str(n)}}) for n in (1, 2, 3)]
    assert [f.status_code for f in fetch] == [201, 201, 429]
    assert "HUB_QUEUED_COMMANDS_PER_TOKEN = 2" in fetch[2].json["description"]
    # Nothing was kept of the refused one; the open fetch of the same attachment is still answered.
    assert Command.select().where(Command.type == "fetch_attachment").count() == 2
    again = post(hub, {"type": "fetch_attachment", "params": {"attachment_id": "1"}})
    assert again.status_code == 200 and again.json["id"] == fetch[0].json["id"]


def test_a_refresh_jql_is_bounded_as_the_jql_box_is(hub):
    from hub.api.schemas import MAX_JQL_CHARS

    longest = "key = A-1 OR summary ~ " + "x" * (MAX_JQL_CHARS - 23)
    assert len(longest) == MAX_JQL_CHARS
    assert post(hub, refresh(longest)).status_code == 201
    too_long = post(hub, refresh(longest + "x"))
    assert too_long.status_code == 422 and too_long.json["field"] == "params.jql"
    assert Command.select().count() == 1


def _post_all(url: str, token: str, bodies: list[dict]) -> list[tuple[int, dict]]:
    """Every body POSTed to /api/v1/commands at the same moment, one thread each."""
    answers: list[tuple[int, dict]] = [(0, {})] * len(bodies)
    start = threading.Barrier(len(bodies))

    def send(i: int) -> None:
        request = urllib.request.Request(url + "/api/v1/commands", data=json.dumps(bodies[i]).encode(),
                                         method="POST", headers={"Authorization": f"Bearer {token}",
                                                                 "Content-Type": "application/json"})
        start.wait()
        try:
            with urllib.request.urlopen(request, timeout=60) as resp:
                answers[i] = (resp.status, json.loads(resp.read()))
        except urllib.error.HTTPError as exc:
            answers[i] = (exc.code, json.loads(exc.read()))

    threads = [threading.Thread(target=send, args=(i,)) for i in range(len(bodies))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return answers


def test_requests_at_once_queue_one_open_refresh_and_stay_within_the_bound(data_dir, database_url):
    _, interface = prepared_hub(data_dir, database_url)
    with serving(data_dir, database_url, HUB_QUEUED_COMMANDS_PER_TOKEN="4") as url:
        same = _post_all(url, interface, [{"type": "refresh"}] * 8)
        assert sorted(status for status, _ in same) == [200] * 7 + [201]
        assert len({body["id"] for _, body in same}) == 1
        # Three places left for this token; eight different queries at once take exactly those.
        others = _post_all(url, interface, [refresh(f"key = AURORA-{n}") for n in range(8)])
        assert sorted(status for status, _ in others) == [201] * 3 + [429] * 5
        listed = json.loads(urllib.request.urlopen(urllib.request.Request(
            url + "/api/v1/commands?status=queued", headers={"Authorization": f"Bearer {interface}"}),
            timeout=30).read())["items"]
        assert len(listed) == 4


def test_the_mcp_refresh_tool_says_when_it_answers_the_open_refresh_and_when_the_queue_is_full(
        data_dir, database_url):
    import anyio
    from mcp import Client

    from hub.mcp.server import build_server
    from tests.support.mcp_hub import data, refused

    _, interface = prepared_hub(data_dir, database_url)
    with serving(data_dir, database_url, HUB_QUEUED_COMMANDS_PER_TOKEN="1") as url:
        async def calls():
            async with Client(build_server(url, interface)) as client:
                first = await data(client, "request_refresh", {})
                assert first["queued"] is True and first["finished"] is False
                again = await data(client, "request_refresh", {})
                assert again["queued"] is False and again["command"]["id"] == first["command"]["id"]
                await refused(client, "request_refresh", {"jql": "key = AURORA-1"}, "429 Too many requests",
                              "HUB_QUEUED_COMMANDS_PER_TOKEN = 1", "retry after 60 s")

        anyio.run(calls)
