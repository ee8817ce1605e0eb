"""Revoking a token ends its long-polls: a claim or an attachment wait that is
already open when its token goes answers 401 within a second or two and hands
out nothing, whether the token was revoked through the API or by ``hub token
revoke`` (in this process or another). Over real HTTP through waitress on
loopback; the hub is the tests' own app, so a test waits on its long-poll gate.
"""

from __future__ import annotations

import http.client
import json
import threading
import time
from dataclasses import replace

import pytest
import waitress

from hub.errors import Unauthenticated
from hub.server import waitress_settings
from tests.support import (
    attachment,
    db_rows,
    enqueue,
    fetch,
    listed,
    run_script,
    wait_until,
    waiting_polls,
)
from tests.support.engine_rows import engine_env
from tests.support.hubs import built_services

pytestmark = pytest.mark.backends("sqlite", "postgresql")

WAIT = 30  # what each poll asks for: far longer than the few seconds a revoked one may take
# Revocation is seen at the poll's next look, POLL_SECONDS (1 s) apart; the margin is generous.
PROMPT = 10


@pytest.fixture
def served(hub):
    """The hub's app behind waitress on a free loopback port, as `hub serve` sets it up."""
    settings = {**waitress_settings(hub.config), "host": "127.0.0.1", "port": 0}
    server = waitress.create_server(hub.app, **settings)
    stopping = threading.Event()

    def serve():
        try:
            server.run()
        except OSError:  # closing from this thread pulls the socket from under its loop
            if not stopping.is_set():
                raise

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    hub.port = server.effective_port
    hub.spare = hub.built.services.tokens.add("spare-agent", "agent")
    try:
        yield hub
    finally:
        stopping.set()
        server.close()
        thread.join(10)


def request(hub, method: str, path: str, token: str, body=None, timeout: float = WAIT + 30):
    """One request on its own connection: (status, headers, JSON body)."""
    conn = http.client.HTTPConnection("127.0.0.1", hub.port, timeout=timeout)
    try:
        data = None if body is None else json.dumps(body)
        conn.request(method, path, body=data, headers={"Authorization": f"Bearer {token}",
                                                       "Content-Type": "application/json"})
        resp = conn.getresponse()
        return resp.status, resp.headers, json.loads(resp.read() or b"null")
    finally:
        conn.close()


class Poll:
    """A long-poll on its own thread: its answer and when it came, once it has."""

    def __init__(self, hub, method: str, path: str, token: str, body=None):
        self.answer = None
        self.ended_at = None
        self._thread = threading.Thread(target=self._run, args=(hub, method, path, token, body), daemon=True)
        self._thread.start()

    def _run(self, *args) -> None:
        self.answer = request(*args)
        self.ended_at = time.monotonic()

    def result(self):
        self._thread.join(WAIT + 30)
        assert self.answer is not None, "the poll never answered"
        return self.answer


def revoke(hub, how: str, name: str) -> None:
    if how == "api":
        status, _, _ = request(hub, "DELETE", f"/api/v1/tokens/{name}", hub.tokens["admin"])
        assert status == 204
    else:  # `hub token revoke`, the console script: another process, as an operator runs it
        # (Not main(argv) in this process: it would bind the models anew to the database
        # while the hub served here holds a transaction open on another thread.)
        done = run_script("token", "revoke", name, data_dir=hub.config.data_dir, **engine_env(hub.config))
        assert done.returncode == 0, done.stderr


def open_claim(hub, token: str) -> Poll:
    before = waiting_polls(hub)
    poll = Poll(hub, "POST", "/agent/v1/claim", token, {"agent_id": "agent-1", "version": 14, "wait": WAIT})
    wait_until(lambda: waiting_polls(hub) > before, message="the claim waiting")
    return poll


@pytest.mark.parametrize("how", ["api", "another process"])
def test_a_claim_waiting_when_its_token_is_revoked_gets_401_and_the_command_stays_for_others(served, how):
    hub = served
    poll = open_claim(hub, hub.tokens["agent"])
    revoke(hub, how, "test-agent")
    revoked_at = time.monotonic()
    command = enqueue(hub, "key = AURORA-12")  # after the revocation: it wakes the poll
    status, headers, body = poll.result()
    assert status == 401, body
    assert headers["WWW-Authenticate"] == "Bearer"
    assert "revoked" in body["description"] and "commands" not in body
    assert poll.ended_at - revoked_at < PROMPT
    # Untouched by the revoked claim: still queued, and named by the token that queued it.
    assert db_rows(hub, "SELECT c.status, c.agent_id, t.name, c.deliveries FROM command c"
                        " LEFT JOIN token t ON t.id = c.token_id WHERE c.id = ?",
                   command["id"]) == [("queued", None, "test-interface", 0)]
    status, _, claimed = request(hub, "POST", "/agent/v1/claim", hub.spare,
                                 {"agent_id": "agent-2", "version": 14})
    assert status == 200 and [c["id"] for c in claimed["commands"]] == [command["id"]]
    assert claimed["commands"][0]["deliveries"] == 1


def test_a_claim_whose_token_is_revoked_while_nothing_arrives_ends_within_seconds(served):
    hub = served
    poll = open_claim(hub, hub.tokens["agent"])
    revoke(hub, "another process", "test-agent")
    revoked_at = time.monotonic()
    status, _, _ = poll.result()
    assert status == 401 and poll.ended_at - revoked_at < PROMPT
    assert waiting_polls(hub) == 0


def test_a_valid_tokens_claim_still_gets_the_command_when_another_token_is_revoked(served):
    hub = served
    poll = open_claim(hub, hub.spare)
    revoke(hub, "api", "test-agent")
    command = enqueue(hub, "key = AURORA-12")
    status, _, body = poll.result()
    assert status == 200 and [c["id"] for c in body["commands"]] == [command["id"]]


@pytest.mark.parametrize("how", ["api", "another process"])
def test_an_attachment_wait_ends_with_401_when_its_token_is_revoked(served, how):
    hub = served
    listed(hub, attachment("901", "spec.pdf"), key="AURORA-12")
    assert fetch(hub, "901").status_code == 201
    before = waiting_polls(hub)
    watcher = hub.built.services.tokens.add("watcher", "interface")
    path = f"/api/v1/attachments/901?wait={WAIT}&known=fetching"
    poll, other = Poll(hub, "GET", path, watcher), Poll(hub, "GET", path, hub.tokens["interface"])
    wait_until(lambda: waiting_polls(hub) == before + 2, message="both waits waiting")
    revoke(hub, how, "watcher")
    revoked_at = time.monotonic()
    [(command_id,)] = db_rows(hub, "SELECT id FROM command WHERE type = 'fetch_attachment'")
    assert hub.api("POST", f"/api/v1/commands/{command_id}/cancel").status_code == 200  # no longer fetching
    status, _, body = poll.result()
    assert status == 401 and "state" not in body and "revoked" in body["description"]
    assert poll.ended_at - revoked_at < PROMPT
    # The valid token's wait is answered with the change.
    status, _, body = other.result()
    assert status == 200 and body["state"] != "fetching"


def test_a_claim_never_hands_a_command_to_a_token_gone_since_it_was_authenticated(hub):
    # The race the HTTP tests cannot time: revoked between the auth check and the claim.
    command = enqueue(hub, "key = AURORA-12")
    [(token_id,)] = db_rows(hub, "SELECT id FROM token WHERE name = 'test-agent'")
    hub.built.services.tokens.revoke("test-agent")
    dispatcher = built_services(replace(hub.config, lease_seconds=60, max_deliveries=3)).dispatcher
    with pytest.raises(Unauthenticated):
        dispatcher.claim("agent-1", 14, token_id=token_id)
    assert db_rows(hub, "SELECT status, deliveries FROM command WHERE id = ?", command["id"]) == [("queued", 0)]
    # A call made outside HTTP, with no token, claims as before.
    assert [c["id"] for c in dispatcher.claim("agent-1", 14)] == [command["id"]]
