"""``GET /healthz`` and an agent's round trip while 128 clients long-poll, through a real hub.

Times ``/healthz`` (p50, p95) and another agent's enqueue + claim + done on an
idle hub, then again while 64 agents long-poll ``POST /agent/v1/claim`` (wait
30) and 64 interfaces long-poll ``GET /api/v1/attachments/{id}?wait=30``, each
on its own connection, each honouring ``Retry-After`` when the hub turns it
away. Prints the loaded figures beside the idle ones of the same run. Target:
``/healthz`` p50 within 3x of idle.

    python bench/longpoll.py [--requests 200] [--spacing 0.03] [--rounds 30] [--pollers 64]
"""

from __future__ import annotations

import argparse
import http.client
import json
import statistics
import sys
import threading
import time

from bench.figures import latency, verdict
from bench.server import ScratchHub


class Client:
    """A keep-alive connection to the hub with one token."""

    def __init__(self, port: int, token: str, timeout: float = 60):
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
        self.token = token

    def call(self, method: str, path: str, body=None) -> tuple[int, dict, str | None]:
        self.conn.request(method, path, body=None if body is None else json.dumps(body),
                          headers={"Authorization": f"Bearer {self.token}",
                                   "Content-Type": "application/json"})
        resp = self.conn.getresponse()
        data = resp.read()
        return resp.status, json.loads(data) if data else {}, resp.getheader("Retry-After")

    def close(self) -> None:
        self.conn.close()


def list_attachment(agent: Client, ui: Client) -> None:
    """Issue X-1 listing attachment 31337, never fetched: a wait on it holds."""
    _, command, _ = ui.call("POST", "/api/v1/commands", {"type": "refresh", "params": {"jql": "key = X-1"}})
    agent.call("POST", "/agent/v1/claim", {"agent_id": "setup", "version": 14, "types": ["refresh"]})
    agent.call("POST", f"/agent/v1/commands/{command['id']}/state", {"issues": [
        {"key": "X-1", "id": "1", "attachments": [{"id": "31337", "filename": "a.bin", "size": 1}]}]})
    agent.call("POST", f"/agent/v1/commands/{command['id']}/done", {"result": {"total": 1}})


class Pollers:
    """Clients that long-poll in a loop until stopped, honouring Retry-After."""

    def __init__(self, port: int, agent_token: str, ui_token: str, count: int):
        self.stopping = threading.Event()
        self.lock = threading.Lock()
        self.answers = {"held": 0, "turned away": 0}
        self.clients: list[Client] = []
        self.threads = []
        for n in range(count):
            self._start(Client(port, agent_token), "POST", "/agent/v1/claim",
                        {"agent_id": f"poller-{n}", "version": 14, "types": ["fetch_attachment"],
                         "wait": 30})
            self._start(Client(port, ui_token), "GET", "/api/v1/attachments/31337?wait=30&known=none",
                        None)

    def _start(self, client: Client, method: str, path: str, body) -> None:
        self.clients.append(client)
        thread = threading.Thread(target=self._run, args=(client, method, path, body), daemon=True)
        self.threads.append(thread)
        thread.start()

    def _run(self, client: Client, method: str, path: str, body) -> None:
        while not self.stopping.is_set():
            try:
                _, _, retry_after = client.call(method, path, body)
            except (OSError, http.client.HTTPException):
                return  # stopped: the connection was closed under it
            with self.lock:
                self.answers["turned away" if retry_after else "held"] += 1
            if retry_after:
                self.stopping.wait(float(retry_after))

    def stop(self) -> None:
        self.stopping.set()
        for client in self.clients:
            client.close()


def healthz(port: int, count: int, spacing: float = 0.0) -> list[float]:
    """``count`` timed requests, ``spacing`` seconds apart: spread over several
    Retry-After cycles of the pollers, they meet the bursts of returning polls."""
    client = Client(port, "")
    times = []
    for _ in range(count):
        time.sleep(spacing)
        started = time.perf_counter()
        status, _, _ = client.call("GET", "/healthz")
        times.append(time.perf_counter() - started)
        assert status == 200, status
    client.close()
    return times


def round_trips(agent: Client, ui: Client, count: int) -> list[float]:
    """Another agent's enqueue + claim + done, timed whole."""
    times = []
    for n in range(count):
        started = time.perf_counter()
        status, command, _ = ui.call("POST", "/api/v1/commands",
                                     {"type": "refresh", "params": {"jql": f"key = Y-{n}"}})
        assert status == 201, command
        status, claimed, _ = agent.call("POST", "/agent/v1/claim",
                                        {"agent_id": "other", "version": 14, "types": ["refresh"]})
        assert [c["id"] for c in claimed["commands"]] == [command["id"]], claimed
        status, _, _ = agent.call("POST", f"/agent/v1/commands/{command['id']}/done",
                                  {"result": {"total": 0}})
        assert status == 200, status
        times.append(time.perf_counter() - started)
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=200, help="/healthz requests per phase")
    parser.add_argument("--rounds", type=int, default=30, help="enqueue + claim + done per phase")
    parser.add_argument("--spacing", type=float, default=0.03,
                        help="seconds between /healthz requests (0.03 x 200: 6 s, three Retry-After cycles)")
    parser.add_argument("--pollers", type=int, default=64, help="claim pollers (as many attachment waits)")
    args = parser.parse_args()

    with ScratchHub("hub-bench-longpoll-") as scratch:
        agent_token = scratch.token("agent", "agent")
        ui_token = scratch.token("ui", "interface")
        # The pollers share one agent token, each with its own agent_id: room for them all.
        port = scratch.serve(HUB_AGENTS_PER_TOKEN=str(args.pollers + 10))
        agent, ui = Client(port, agent_token), Client(port, ui_token)
        list_attachment(agent, ui)

        healthz(port, 20)  # warm up
        idle = healthz(port, args.requests, args.spacing)
        idle_trips = round_trips(agent, ui, args.rounds)

        pollers = Pollers(port, agent_token, ui_token, args.pollers)
        scratch.callback(pollers.stop)
        time.sleep(2.0)  # every poller has asked once, and the turned-away are in their pause
        loaded = healthz(port, args.requests, args.spacing)
        loaded_trips = round_trips(agent, ui, args.rounds)
        with pollers.lock:
            answers = dict(pollers.answers)

        print(f"{2 * args.pollers} long-polls ({args.pollers} claims, {args.pollers} attachment waits,"
              f" wait 30 s); {args.requests} /healthz and {args.rounds} round trips per phase")
        print(latency("GET /healthz, idle", idle, 44))
        print(latency(f"GET /healthz, {2 * args.pollers} long-polls", loaded, 44))
        print(latency("enqueue + claim + done, idle", idle_trips, 44))
        print(latency(f"enqueue + claim + done, {2 * args.pollers} long-polls", loaded_trips, 44))
        print(f"poll answers meanwhile: {answers['turned away']} turned away with Retry-After, "
              f"{answers['held']} held to their end or to work")
        ratio = statistics.median(loaded) / statistics.median(idle)
        trips = statistics.median(loaded_trips) / statistics.median(idle_trips)
        print(f"/healthz p50 ratio to idle {ratio:5.2f}x {verdict(ratio <= 3, 'within 3x')};"
              f" round trip p50 ratio {trips:5.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
