"""Claim + done round trips with 8 agents against ``GET /healthz`` with 8 clients, through a real hub,
on SQLite and on PostgreSQL.

For each engine (``--engine``; both by default, SQLite's figure printed beside
PostgreSQL's), on a hub of its own: enqueues ``--commands`` refresh commands (each a JQL of its own, so no full
run: ``done`` finishes the command and its sync run, nothing more), serves the
hub on loopback, and then, in alternating phases of ``--seconds`` each, lets
``--agents`` agents claim one command and report it done in a loop, and as
many clients ask ``GET /healthz`` in a loop; every client keeps one connection
open. Counts requests per second in each phase (a round trip is two requests)
and prints the claims' figure beside the ``/healthz`` baseline measured in the
same run. Target: ratio ≥ 0.5 on each engine.

PostgreSQL is the one ``--postgres-url`` names (an empty database the hub may
migrate), else a throw-away server started as the tests start theirs
(``devservers/postgres.py``: PostgreSQL's server binaries installed); one on the same
machine, as the hub node it serves.

    python bench/claims.py [--engine both|sqlite|postgresql] [--postgres-url URL]
                           [--agents 8] [--seconds 4] [--rounds 2] [--commands 40000]
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import sqlite3
import sys
import threading
import time
from pathlib import Path

from bench.figures import verdict
from bench.server import ScratchHub, postgres_database

T = "2026-11-02T09:00:00+00:00"
TARGET = 0.5


def enqueue(data_dir: Path, count: int, database_url: str | None = None) -> None:
    """``count`` queued refreshes, written straight into the migrated database."""
    rows = [("refresh", json.dumps({"jql": f"key = B-{n}"}), "queued", T) for n in range(count)]
    if database_url:
        import psycopg

        with psycopg.connect(database_url) as pg, pg.cursor() as cur:
            cur.executemany("INSERT INTO command (type, params, status, created_at) VALUES (%s, %s, %s, %s)",
                            rows)
        with psycopg.connect(database_url, autocommit=True) as pg:
            # What autovacuum does soon after such a load: without statistics the planner
            # takes the queue for a few rows and sorts it whole at every claim.
            pg.execute("ANALYZE command")
        return
    conn = sqlite3.connect(data_dir / "hub.sqlite")
    conn.executemany("INSERT INTO command (type, params, status, created_at) VALUES (?, ?, ?, ?)", rows)
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


def measure(args, database_url: str | None) -> tuple[float, float]:
    """On a new hub over SQLite (``database_url`` None) or PostgreSQL: the /healthz and the
    claim + done requests per second, each the mean of its phases."""
    # The hub's commands (migrate, token, serve) read the engine from the environment.
    os.environ.pop("HUB_DATABASE_URL", None)
    if database_url:
        os.environ["HUB_DATABASE_URL"] = database_url
    try:
        with ScratchHub("hub-bench-claims-") as scratch:
            token = scratch.token("agent", "agent")
            enqueue(scratch.data_dir, args.commands, database_url)
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
    finally:
        os.environ.pop("HUB_DATABASE_URL", None)
    return sum(health) / len(health), sum(claims) / len(claims)


def report(engine: str, health_rate: float, claim_rate: float) -> float:
    ratio = claim_rate / health_rate
    print(engine)
    print(f"  {'GET /healthz (baseline)':<32} {health_rate:8.0f} requests/s")
    print(f"  {'claim + done':<32} {claim_rate:8.0f} requests/s ({claim_rate / 2:.0f} round trips/s)")
    print(f"  ratio to baseline {ratio:5.2f} {verdict(ratio >= TARGET, f'>= {TARGET}', 'UNDER TARGET')}")
    return ratio


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        epilog="example: python bench/claims.py --engine both --agents 8 --seconds 4 --rounds 2")
    parser.add_argument("--engine", choices=("both", "sqlite", "postgresql"), default="both",
                        help="the hub's database: SQLite, PostgreSQL, or each in turn (default)")
    parser.add_argument("--postgres-url", help="an empty PostgreSQL database (default: a throw-away server)")
    parser.add_argument("--agents", type=int, default=8, help="agents, and as many /healthz clients")
    parser.add_argument("--seconds", type=float, default=4.0, help="length of each phase")
    parser.add_argument("--rounds", type=int, default=2, help="/healthz and claim phases, alternating")
    parser.add_argument("--commands", type=int, default=40_000, help="refreshes enqueued beforehand")
    args = parser.parse_args()

    print(f"{args.agents} agents and {args.agents} /healthz clients, keep-alive; "
          f"{args.rounds} phases of {args.seconds:g} s each, one hub node")
    figures = {}
    if args.engine in ("both", "sqlite"):
        figures["SQLite"] = measure(args, None)
        report("SQLite", *figures["SQLite"])
    if args.engine in ("both", "postgresql"):
        with postgres_database(args.postgres_url) as url:
            figures["PostgreSQL"] = measure(args, url)
        report("PostgreSQL", *figures["PostgreSQL"])
    if len(figures) == 2:
        (sh, sc), (ph, pc) = figures["SQLite"], figures["PostgreSQL"]
        print(f"PostgreSQL beside SQLite: claim + done {pc / sc:4.2f}x, /healthz {ph / sh:4.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
