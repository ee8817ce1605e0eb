"""Errors per the contract: JSON {title, description}, the right status, never a 500."""

from __future__ import annotations

import json
import random

import pytest

from tests.support import POSTS, garbage
from tests.support.engine_rows import snapshot, writer_holding

pytestmark = pytest.mark.backends("sqlite", "postgresql")

GETS = [("/api/v1/commands", "interface"), ("/api/v1/commands/1", "interface"),
        ("/api/v1/attachments/1", "interface"), ("/api/v1/attachments/1/content", "interface"),
        ("/api/v1/issues/X-1/attachments", "interface"), ("/api/v1/issues", "interface"),
        ("/api/v1/issues/X-1", "interface"), ("/api/v1/projects", "interface"),
        ("/api/v1/sync-runs", "interface"), ("/api/v1/agents", "interface"), ("/healthz", None)]



@pytest.fixture
def client(make_hub):
    hub = make_hub(on_full_run_done=lambda run_id: None)
    return hub.client, {role: hub.headers(role) for role in ("agent", "interface")}


def test_malformed_requests_never_answer_500(client):
    client, headers = client
    rng = random.Random(5)
    raw_bodies = [b"", b"{", b"[]", b"null", b"\xff\xfe", b'{"agent_id": "a", "version": 14', b"1e999999"]
    for path, role in POSTS:
        for raw in raw_bodies:
            resp = client.simulate_post(path, body=raw, headers={**headers[role], "Content-Type": "application/json"})
            assert 400 <= resp.status_code < 500, (path, raw, resp.status_code)
            assert set(resp.json) >= {"title", "description"}
        for _ in range(150):
            body = garbage(rng)
            resp = client.simulate_post(path, body=json.dumps(body), headers=headers[role])  # lone surrogates too
            assert resp.status_code < 500, (path, body, resp.text)
    for path, role in GETS:
        for _ in range(30):
            value = str(garbage(rng))[:50].encode("utf-8", "replace").decode("utf-8")
            params = {rng.choice(["status", "type", "cursor", "limit", "x"]): value}
            resp = client.simulate_get(path, params=params, headers=headers.get(role, {}))
            assert resp.status_code < 500, (path, params, resp.text)


def test_a_rejected_request_writes_nothing(client, config):
    client, headers = client
    before = snapshot(config)
    client.simulate_post("/api/v1/commands", json={"type": "refresh", "params": {"jql": ""}},
                         headers=headers["interface"])
    client.simulate_post("/agent/v1/claim", json={"agent_id": "a", "version": "14"}, headers=headers["agent"])
    client.simulate_post("/agent/v1/heartbeat", json={"agent_id": "", "version": 14}, headers=headers["agent"])
    assert snapshot(config) == before


def test_unknown_fields_of_agents_are_accepted_and_of_interfaces_rejected(client):
    client, headers = client
    beat = client.simulate_post("/agent/v1/heartbeat", headers=headers["agent"],
                                json={"agent_id": "a", "version": 15, "capabilities": ["x"]})
    assert beat.status_code == 200
    resp = client.simulate_post("/api/v1/commands", headers=headers["interface"],
                                json={"type": "refresh", "params": {"jql": "x"}, "priority": 1})
    assert resp.status_code == 422 and resp.json["field"] == "priority"


def test_a_busy_database_answers_503_not_locked(make_hub):
    hub = make_hub(busy_timeout_seconds=1, on_full_run_done=lambda run_id: None)
    with writer_holding(hub.config, "command"):
        resp = hub.api("POST", "/api/v1/commands", {"type": "refresh", "params": {"jql": "key = A-1"}})
    assert resp.status_code == 503
    assert resp.headers["Retry-After"] == "1"
    assert "locked" not in resp.text and "lock timeout" not in resp.text
    assert set(resp.json) == {"title", "description"}
    again = hub.api("POST", "/api/v1/commands", {"type": "refresh", "params": {"jql": "key = A-1"}})
    assert again.status_code == 201


def test_too_large_json_is_413(client):
    client, headers = client
    resp = client.simulate_post("/agent/v1/commands/1/state", headers={**headers["agent"],
                                "Content-Length": str(65 * 1024 * 1024)}, body=b"{}")
    assert resp.status_code == 413


def test_lone_surrogates_in_strings_are_422(client):
    client, headers = client
    resp = client.simulate_post("/agent/v1/heartbeat", headers=headers["agent"],
                                body='{"agent_id": "a\\ud800", "version": 14}')
    assert resp.status_code == 400, resp.text
    ok = client.simulate_post("/agent/v1/heartbeat", headers=headers["agent"],
                              body='{"agent_id": "a\\ud83d\\ude00", "version": 14}')
    assert ok.status_code == 200


@pytest.mark.parametrize("body", ['{"agent_id": "a", "version": 14, "wait": NaN}',
                                  '{"agent_id": "a", "version": 14, "wait": Infinity}'])
def test_nan_and_infinity_are_not_json(client, body):
    client, headers = client
    resp = client.simulate_post("/agent/v1/claim", headers=headers["agent"], body=body)
    assert resp.status_code == 400


@pytest.mark.parametrize("path", ["/api/v1/commands/0", "/api/v1/commands/-1",
                                  "/api/v1/commands/99999999999999999999", "/api/v1/commands/\uff11"])
def test_ids_out_of_range_are_404(client, path):
    client, headers = client
    assert client.simulate_get(path, headers=headers["interface"]).status_code == 404


VALID_STATE = {"issues": [{
    "key": "A-1", "id": "1", "summary": "s", "labels": ["L"], "updated": "2026-10-22T13:05:11.000+0300",
    "links": [{"type": "Blocks", "outward": "A-2"}, {"type": "Relates", "inward": "A-3"}],
    "comments": [{"id": "101", "author": "a", "created": "2026-10-22T13:05:11.000+0300", "body": "b"}],
    "changes": [{"id": "5", "created": "2026-10-22T13:05:11.000+0300",
                 "items": [{"field": "status", "from": "1", "to": "3"}]}],
    "attachments": [{"id": "9", "filename": "f.pdf", "size": 10, "created": "x"}]}],
    "neighbors": [{"key": "A-2", "id": "2"}]}


def mutations(value, rng: random.Random, path=()):
    """Every leaf and container of ``value``, each replaced once by garbage."""
    yield path, garbage(rng)
    if isinstance(value, dict):
        for key, child in value.items():
            yield from mutations(child, rng, (*path, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            yield from mutations(child, rng, (*path, index))


def replaced(value, path, new):
    if not path:
        return new
    copy = json.loads(json.dumps(value))
    target = copy
    for part in path[:-1]:
        target = target[part]
    target[path[-1]] = new
    return copy


def test_near_valid_state_pages_never_answer_500(client, config):
    client, headers = client
    from hub.models import Command, Token

    Command.create(type="refresh", params={"jql": "x"}, status="claimed", agent_id="a",
                   claimed_at="2026-11-02T09:00:00+00:00", lease_until="2999-01-01T00:00:00+00:00",
                   deliveries=1, created_at="2026-11-02T09:00:00+00:00",
                   token_id=Token.get(Token.name == "test-agent").id)
    rng = random.Random(5)
    for _ in range(4):
        for path, new in mutations(VALID_STATE, rng):
            body = replaced(VALID_STATE, path, new)
            resp = client.simulate_post("/agent/v1/commands/1/state", body=json.dumps(body),
                                        headers=headers["agent"])
            assert resp.status_code in (200, 400, 409, 422), (path, new, resp.text)
    assert client.simulate_post("/agent/v1/commands/1/state", json=VALID_STATE,
                                headers=headers["agent"]).status_code == 200


def test_odd_uploads_never_answer_500(client):
    client, headers = client
    cases = [
        ({"delivery": "abc"}, {}), ({"delivery": "0"}, {}), ({"agent_id": ""}, {}),
        ({"x": "1"}, {}), ({}, {"X-Content-SHA256": "zz"}), ({}, {"X-Content-SHA256": "a" * 64 + "\r\n"}),
        ({}, {"Content-Length": "5"}),
    ]
    for params, extra in cases:
        resp = client.simulate_put("/agent/v1/commands/1/file", body=b"hello", params=params,
                                   headers={**headers["agent"], **extra})
        assert 400 <= resp.status_code < 500, (params, extra, resp.text)


@pytest.mark.backends("postgresql")
def test_postgresql_errors_are_told_apart_by_their_sqlstate(hub):
    """Real errors of a real server, as Peewee raises them to the API: a deadlock is busy
    (503, retry), a key a concurrent write took is a conflict (409), a NUL is refused (400)."""
    import threading

    import peewee
    import psycopg

    from hub.api.errors import classify
    from hub.db import database
    from tests.support import wait_until

    database.execute_sql("INSERT INTO setting (key, value) VALUES ('a', '1'), ('b', '1')")
    caught: list[BaseException] = []
    holds_a = threading.Event()
    close_the_cycle = threading.Event()

    def hub_side() -> None:
        try:
            with database.atomic():
                database.execute_sql("UPDATE setting SET value = '2' WHERE key = 'a'")
                holds_a.set()
                close_the_cycle.wait(60)
                database.execute_sql("UPDATE setting SET value = '2' WHERE key = 'b'")
        except peewee.DatabaseError as exc:
            caught.append(exc)
        finally:
            database.close()

    def waiting_on_a_lock(pid: int) -> bool:
        with psycopg.connect(hub.config.database_url, autocommit=True) as conn:
            return bool(conn.execute("SELECT count(*) FROM pg_stat_activity WHERE pid = %s "
                                     "AND wait_event_type = 'Lock'", (pid,)).fetchone()[0])

    with psycopg.connect(hub.config.database_url) as other:
        # Only the hub's session looks for deadlocks in time, and it is the one that closes the
        # cycle: PostgreSQL looks once, deadlock_timeout after a session starts waiting, so the
        # session that waits last finds the cycle whatever the machine's load, and is the one
        # chosen to fail.
        other.execute("SET deadlock_timeout = '1h'")
        other.execute("UPDATE setting SET value = '3' WHERE key = 'b'")
        thread = threading.Thread(target=hub_side)
        thread.start()
        assert holds_a.wait(60), "the hub's transaction never took row a"
        blocked = threading.Thread(target=other.execute, args=("UPDATE setting SET value = '3' WHERE key = 'a'",))
        blocked.start()
        wait_until(lambda: waiting_on_a_lock(other.info.backend_pid), message="the other session waiting on row a")
        close_the_cycle.set()
        thread.join()
        blocked.join()
        other.commit()
    [deadlock] = caught
    assert classify(deadlock) == "busy"

    with pytest.raises(peewee.IntegrityError) as taken:
        database.execute_sql("INSERT INTO token (name, role, sha256, created_at) "
                             "SELECT name, role, sha256 || 'x', created_at FROM token WHERE name = 'test-agent'")
    assert classify(taken.value) == "conflict"
    # A NUL in a bound text is sent as U+FFFD (hub.db.nul_free_text); one in JSON text is the
    # server's to refuse (22P05): a value the engine cannot hold.
    assert database.execute_sql("SELECT CAST(? AS text)", ("a\x00",)).fetchone() == ("a\ufffd",)
    with pytest.raises(peewee.DataError) as nul:
        database.execute_sql("SELECT CAST(CAST(? AS jsonb) ->> 0 AS text)", ('["a\\u0000"]',))
    assert classify(nul.value) == "refused"
    assert hub.api("GET", "/api/v1/commands").status_code == 200
