"""``GET /metrics`` on a hub with a year of history, through a real hub.

Builds a hub holding ``--commands`` commands (default 150,000: a year of
quarter-hourly refreshes and many attachment fetches, in every status), a sync
run for each refresh, 30 agents and 5,000 stored files, then times a scrape of
``GET /metrics`` over HTTP: what Prometheus pays every 15 to 60 s. Prints the
p50 and p95 beside those of ``GET /healthz`` measured in the same run, and the
first scrape, which reads the whole history once (later ones read only the
commands and runs that changed since). Target: p50 < 100 ms — a scrape every
15 s then takes under 1 % of one thread.

    python bench/metrics.py [--commands 150000] [--requests 30]
"""

from __future__ import annotations

import argparse
import json
import random
import sqlite3
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bench.figures import against_baseline, latency
from bench.server import ScratchHub
from bench.states import timed_requests

FILES = 5_000
AGENTS = 30


def populate(data_dir: Path, count: int) -> None:
    rng = random.Random(11)
    start = datetime(2025, 11, 30, tzinfo=UTC)
    conn = sqlite3.connect(data_dir / "hub.sqlite")
    commands, runs = [], []
    for n in range(count):
        at = start + timedelta(minutes=3.5 * n)
        refresh = n % 3 == 0
        status = rng.choices(["done", "failed", "cancelled", "queued"], weights=[85, 8, 4, 3])[0]
        params = {"jql": f"key = X-{n}"} if refresh else {"attachment_id": str(n)}
        commands.append((n + 1, "refresh" if refresh else "fetch_attachment", json.dumps(params), status,
                         at.isoformat(timespec="seconds"), rng.choice([1, 1, 1, 2])))
        if refresh and status in ("done", "failed"):
            runs.append((n + 1, params["jql"], status, at.isoformat(timespec="seconds"),
                         (at + timedelta(seconds=rng.expovariate(1 / 40))).isoformat(timespec="seconds")))
    conn.executemany("INSERT INTO command (id, type, params, status, created_at, deliveries)"
                     " VALUES (?, ?, ?, ?, ?, ?)", commands)
    conn.executemany("INSERT INTO sync_run (command_id, query, status, started_at, finished_at)"
                     " VALUES (?, ?, ?, ?, ?)", runs)
    # Seen now: agents unseen for HUB_AGENT_FORGET_HOURS are left out of a scrape.
    seen = datetime.now(UTC).isoformat(timespec="seconds")
    conn.executemany("INSERT INTO agent_status (agent_id, version, last_seen_at) VALUES (?, 14, ?)",
                     [(f"agent-{n}", seen) for n in range(AGENTS)])
    conn.commit()
    conn.close()
    files = data_dir / "files"
    files.mkdir(exist_ok=True)
    for n in range(FILES):
        (files / f"{n:064x}").write_bytes(b"x" * (n % 4096))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commands", type=int, default=150_000)
    parser.add_argument("--requests", type=int, default=30)
    args = parser.parse_args()

    with ScratchHub("hub-bench-metrics-") as scratch:
        token = scratch.token("prometheus", "metrics")
        populate(scratch.data_dir, args.commands)
        port = scratch.serve()

        first = timed_requests(port, token, "GET", "/metrics", None, 1)[0]
        baseline = timed_requests(port, token, "GET", "/healthz", None, args.requests)
        scrapes = timed_requests(port, token, "GET", "/metrics", None, args.requests)
        print(f"{args.commands} commands, a sync run per refresh, {AGENTS} agents, {FILES} stored files;"
              f" {args.requests} scrapes")
        print(latency("GET /healthz (baseline)", baseline))
        print(latency("GET /metrics", scrapes))
        print(f"{'first GET /metrics (all history)':<34} {first * 1000:7.2f} ms")
        print(against_baseline(scrapes, baseline, 100))
    return 0


if __name__ == "__main__":
    sys.exit(main())
