"""Claim + done round trips with 8 agents against ``GET /healthz`` with 8 clients, through a real hub.

Enqueues ``--commands`` refresh commands (each a JQL of its own, so no full
run: ``done`` finishes the command and its sync run, nothing more), serves the
hub on loopback, and then, in alternating phases of ``--seconds`` each, lets
``--agents`` agents claim one command and report it done in a loop, and as
many clients ask ``GET /healthz`` in a loop; every client keeps one connection
open. Counts requests per second in each phase (a round trip is two requests)
and prints the claims' figure beside the ``/healthz`` baseline measured in the
same run. Target: ratio ≥ 0.5.

    python bench/claims.py [--agents 8] [--seconds 4] [--rounds 2] [--commands 40000]
"""

from __future__ import annotations

import argparse
import http.client
import json
import sqlite3
import sys
import threading
import time
from pathlib import Path

from bench.figures import verdict
from bench.server import ScratchHub

T = "2026-11-02T09:00:00+00:00"
TARGET = 0.5


def enqueue(data_dir: Path, count: int) -> None:
    """``count`` queued refreshes, written straight into the migrated database."""
    conn = sqlite3.connect(data_dir / "hub.sqlite")
    conn.executemany("INSERT INTO command (type, params, status, created_at) VALUES (?, ?, ?, ?)",
                     [("refresh", json.dumps({"jql": f"key = B-{n}"}), "queued", T)
                      for n in range(count)])
    conn.commit()
    conn.close()


class Client:
    """A keep-alive connection to the hub with one token."""

    def __init__(self, port: int, token: str):
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        self.headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}

    def call(self, method: str, path: str, body=None) -> dict:
        self.conn.request(method, path, body=None if body is None else json.dumps(body),
                          headers=self.headers)
        resp = self.conn.getresponse()
        data = resp.read()
        if resp.status != 200:
            raise SystemExit(f"{method} {path}: {resp.status} {data[:200]!r}")
        return json.loads(data)

    def close(self) -> None:
        self.conn.close()


def agent_loop(client: Client, name: str):
    """One agent: claim a command, report it done; two requests per turn."""
    claim = {"agent_id": name, "version": 14, "types": ["refresh"]}

    def turn() -> int:
        [command] = client.call("POST", "/agent/v1/claim", claim)["commands"] or [None]
        if command is None:
            raise SystemExit("the queue ran dry: raise --commands")
        client.call("POST", f"/agent/v1/commands/{command['id']}/done",
                    {"result": {"total": 0}, "agent_id": name, "delivery": command["deliveries"]})
        return 2
    return turn


def healthz_loop(client: Client):
    def turn() -> int:
        client.call("GET", "/healthz")
        return 1
    return turn


def phase(turns: list, seconds: float) -> float:
    """Run each ``turn`` in a thread of its own for ``seconds``; requests per second."""
    start = threading.Barrier(len(turns) + 1)
    stopping = threading.Event()
    counts = [0] * len(turns)
    failures: list[BaseException] = []

    def run(i: int) -> None:
        start.wait()
        try:
            while not stopping.is_set():
                counts[i] += turns[i]()
        except BaseException as exc:
            failures.append(exc)
            stopping.set()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(turns))]
    for thread in threads:
        thread.start()
    start.wait()
    began = time.perf_counter()
    stopping.wait(seconds)
    stopping.set()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - began
    if failures:
        raise failures[0]
    return sum(counts) / elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", type=int, default=8, help="agents, and as many /healthz clients")
    parser.add_argument("--seconds", type=float, default=4.0, help="length of each phase")
    parser.add_argument("--rounds", type=int, default=2, help="/healthz and claim phases, alternating")
    parser.add_argument("--commands", type=int, default=40_000, help="refreshes enqueued beforehand")
    args = parser.parse_args()

    with ScratchHub("hub-bench-claims-") as scratch:
        token = scratch.token("agent", "agent")
        enqueue(scratch.data_dir, args.commands)
        # The agents share one token, each with its own agent_id: room for them all.
        port = scratch.serve(HUB_AGENTS_PER_TOKEN=str(args.agents))
        agents = [Client(port, token) for _ in range(args.agents)]
        checkers = [Client(port, "") for _ in range(args.agents)]
        for client in agents + checkers:
            scratch.callback(client.close)
        agent_turns = [agent_loop(c, f"agent-{n}") for n, c in enumerate(agents)]
        health_turns = [healthz_loop(c) for c in checkers]
        phase(health_turns, 0.5)  # warm up: connections open, code paths run once
        phase(agent_turns, 0.5)

        health, claims = [], []
        for _ in range(args.rounds):
            health.append(phase(health_turns, args.seconds))
            claims.append(phase(agent_turns, args.seconds))
        health_rate, claim_rate = sum(health) / len(health), sum(claims) / len(claims)
        ratio = claim_rate / health_rate
        print(f"{args.agents} agents and {args.agents} /healthz clients, keep-alive; "
              f"{args.rounds} phases of {args.seconds:g} s each")
        print(f"{'GET /healthz (baseline)':<34} {health_rate:8.0f} requests/s")
        print(f"{'claim + done':<34} {claim_rate:8.0f} requests/s ({claim_rate / 2:.0f} round trips/s)")
        print(f"ratio to baseline {ratio:5.2f} {verdict(ratio >= TARGET, f'>= {TARGET}', 'UNDER TARGET')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
