"""The hub's agent protocol (``/agent/v1``, version 19) as method calls."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

import httpx
import orjson

from agent.retry import Backoff, retry_after, send

PROTOCOL_VERSION = 19
# The longest heartbeat detail the hub takes (docs/agent-protocol.md); a longer one is 422.
MAX_DETAIL_CHARS = 1000
STOPPING_TIMEOUT = 3.0  # seconds a call to the hub may take once the agent is stopping


class HubError(Exception):
    """The hub refused a request for a reason retrying will not mend; ``status`` is its HTTP status."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


class HubAuthError(HubError):
    """401/403: the token is wrong or revoked; the operator must act."""


class Dropped(HubError):
    """409: the agent no longer holds the command (cancelled, re-leased, finished); drop it."""


@dataclass
class Command:
    """A claimed command; ``delivery`` goes into every report about it."""

    id: int
    type: str
    params: dict
    delivery: int
    lease_until: str | None = None
    extra: dict = field(default_factory=dict)


@dataclass
class Claimed:
    """What one claim gave: commands, and how long to wait before the next claim (``Retry-After``)."""

    commands: list[Command]
    pause: float = 0.0


def _error(response: httpx.Response, what: str) -> HubError:
    try:
        body = response.json()
        text = body.get("description") or body.get("title") or response.text
    except ValueError:
        text = response.text[:200]
    message = f"hub answered {response.status_code} to {what}: {text}"
    if response.status_code in (401, 403):
        return HubAuthError(response.status_code, message)
    if response.status_code == 409:
        return Dropped(409, message)
    return HubError(response.status_code, message)


class HubClient:
    """One agent's connection to the hub; thread-safe (httpx.Client is)."""

    def __init__(self, url: str, token: str, agent_id: str, *, backoff: Backoff | None = None,
                 transport: httpx.BaseTransport | None = None, claim_wait: int = 30):
        self.agent_id = agent_id
        self.backoff = backoff or Backoff()
        self.claim_wait = claim_wait
        # Set by the runner's stop: a retry's wait ends at once, so a stopped or unreachable hub never
        # holds the agent's exit (what a lost report held, its lease returns to the queue).
        self.stopping = threading.Event()
        # The read timeout stays above the long-poll's wait, as the protocol asks, so a held claim is not cut.
        self.http = httpx.Client(base_url=url, headers={"Authorization": f"Bearer {token}"},
                                 timeout=httpx.Timeout(30.0, read=claim_wait + 15.0), transport=transport)

    def close(self) -> None:
        self.http.close()

    def _post(self, path: str, body: dict, what: str) -> httpx.Response:
        content = orjson.dumps(body)  # encoded once, whatever the retries; several times faster than json
        # Once stopping, a call (the last heartbeat, a page's report) is given a few seconds, not the
        # long-poll's read timeout: a hub that accepts and never answers must not hold the exit either.
        timeout = STOPPING_TIMEOUT if self.stopping.is_set() else httpx.USE_CLIENT_DEFAULT
        response = send(lambda: self.http.post(path, content=content, headers={"Content-Type": "application/json"},
                                               timeout=timeout),
                        self.backoff, "hub", self.stopping)
        if response.status_code != 200:
            raise _error(response, what)
        return response

    def heartbeat(self, state: str = "idle", detail: str | None = None,
                  jira_time_zone: str | None = None, jira: dict | None = None,
                  holding: list[int] | None = None) -> list[int]:
        """Report liveness (extends the leases of the commands ``holding`` names, v19; every command
        claimed under this agent id when None); the ids of commands cancelled since.

        ``detail`` is cut to the hub's bound (MAX_DETAIL_CHARS): several commands' progress and a
        long Jira error together may pass it, and the hub refuses a longer one. ``jira_time_zone``
        (v17) is the Jira user's zone, which the hub reads JQL's dates in; sent when known. ``jira``
        (v18) is the outcome of the agent's last call to Jira, ``{reachable, checked_at, error}``.
        """
        if detail is not None and len(detail) > MAX_DETAIL_CHARS:
            detail = detail[:MAX_DETAIL_CHARS - 1] + "…"
        body = {"agent_id": self.agent_id, "version": PROTOCOL_VERSION, "state": state, "detail": detail}
        if jira_time_zone:
            body["jira_time_zone"] = jira_time_zone
        if holding is not None:
            body["holding"] = holding
        if jira is not None:
            error = jira.get("error")
            if error is not None and len(error) > MAX_DETAIL_CHARS:
                jira = {**jira, "error": error[:MAX_DETAIL_CHARS - 1] + "…"}
            body["jira"] = jira
        return list(self._post("/agent/v1/heartbeat", body, "heartbeat").json().get("cancelled", []))

    def claim(self, limit: int = 1, wait: int | None = None, types: list[str] | None = None) -> Claimed:
        """Long-poll for up to ``limit`` commands; ``pause`` is the hub's ``Retry-After`` when it had no room."""
        body = {"agent_id": self.agent_id, "version": PROTOCOL_VERSION, "limit": limit,
                "wait": self.claim_wait if wait is None else wait}
        if types:
            body["types"] = types
        response = self._post("/agent/v1/claim", body, "claim")
        commands = [Command(id=c["id"], type=c["type"], params=c.get("params") or {},
                            delivery=c.get("deliveries", 1), lease_until=c.get("lease_until"))
                    for c in response.json().get("commands", [])]
        return Claimed(commands, retry_after(response) or 0.0)

    def _report(self, command: Command, what: str, body: dict) -> dict:
        body = {**body, "agent_id": self.agent_id, "delivery": command.delivery}
        return self._post(f"/agent/v1/commands/{command.id}/{what}", body, f"{what} of command {command.id}").json()

    def state(self, command: Command, issues: list[dict], neighbors: list[dict],
              catalogues: dict | None = None, create_meta: list[dict] | None = None) -> dict:
        """One page (at most 100 issues and 100 neighbours) of a refresh, with Jira's ``catalogues``
        (the users it names, and with a run's first page the five catalogues) when there are any, and
        the create screens (v19 ``create_meta``) of the projects it first meets."""
        body: dict = {"issues": issues, "neighbors": neighbors}
        if catalogues:
            body["catalogues"] = catalogues
        if create_meta:
            body["create_meta"] = create_meta
        return self._report(command, "state", body)

    def done(self, command: Command, result: dict) -> dict:
        """Finish the command with its result."""
        return self._report(command, "done", {"result": result})

    def failed(self, command: Command, error: str) -> dict:
        """Fail the command with an error an operator can act on."""
        return self._report(command, "failed", {"error": error})

    def put_file(self, command: Command, path: str, sha256: str) -> dict:
        """Upload a fetched attachment from a file on disk, streamed; the hub checks the hash."""

        def request() -> httpx.Response:
            # A file object: httpx reads it in chunks and sends its size as Content-Length.
            with open(path, "rb") as stream:
                return self.http.put(f"/agent/v1/commands/{command.id}/file", content=stream,
                                     params={"delivery": command.delivery, "agent_id": self.agent_id},
                                     headers={"X-Content-SHA256": sha256,
                                              "Content-Type": "application/octet-stream"})

        response = send(request, self.backoff, "hub", self.stopping)
        if response.status_code != 200:
            raise _error(response, f"file of command {command.id}")
        return response.json()

    def get_file(self, command: Command, path: str) -> int:
        """Download a write's upload (``GET /agent/v1/commands/{id}/file``, v19) to ``path``, streamed;
        the number of bytes written. A 404 (the command has no file) is a HubError like any refusal."""

        def request() -> httpx.Response:
            built = self.http.build_request("GET", f"/agent/v1/commands/{command.id}/file",
                                            params={"delivery": command.delivery, "agent_id": self.agent_id})
            return self.http.send(built, stream=True)

        response = send(request, self.backoff, "hub", self.stopping)
        try:
            if response.status_code != 200:
                response.read()
                raise _error(response, f"file of command {command.id}")
            size = 0
            with open(path, "wb") as out:
                for chunk in response.iter_bytes(1 << 20):
                    out.write(chunk)
                    size += len(chunk)
            return size
        finally:
            response.close()
