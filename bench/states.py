"""``POST /api/v1/attachments/states`` for 1,000 ids, through a real hub.

Builds a hub whose mirror lists ``--attachments`` attachments (default 20,000)
with a history of fetch commands (about one and a half per attachment, in every
status) and stored files for a third of them, then times the states of 1,000
ids over HTTP. Prints the p50 and p95 beside those of ``GET /healthz`` (a
near no-op endpoint) measured in the same run. Target: p50 < 50 ms.

    python bench/states.py [--attachments 20000] [--requests 50]
"""

from __future__ import annotations

import argparse
import hashlib
import http.client
import json
import random
import sqlite3
import sys
import time
from pathlib import Path

from bench.figures import against_baseline, latency
from bench.server import ScratchHub

T = "2026-11-02T09:00:00+00:00"


def populate(data_dir: Path, count: int) -> None:
    rng = random.Random(7)
    conn = sqlite3.connect(data_dir / "hub.sqlite")
    conn.executemany(
        "INSERT INTO issue (key, id, fetched_at) VALUES (?, ?, ?)",
        [(f"X-{n}", str(n), T) for n in range(count // 5)])
    conn.executemany(
        "INSERT INTO issue_attachment (attachment_id, key, filename, size, mime_type) VALUES (?, ?, ?, ?, ?)",
        # Jira's attachment ids are numbers from 1 (the routes refuse others).
        [(str(n + 1), f"X-{n // 5}", f"file-{n}.pdf", 1000 + n, "application/pdf") for n in range(count)])
    commands = []
    for n in range(count):
        for _ in range(rng.choice([0, 1, 2, 3])):
            # Mostly finished; an agent that was away leaves some queued.
            status = rng.choices(["done", "failed", "cancelled", "queued", "claimed"],
                                 weights=[70, 10, 5, 12, 3])[0]
            commands.append(("fetch_attachment", json.dumps({"attachment_id": str(n + 1)}), status,
                             "Jira answered 404" if status == "failed" else None, T))
    for n in range(count):  # refreshes in between, as a real queue has
        commands.append(("refresh", json.dumps({"jql": f"key = X-{n}"}), "done", None, T))
    rng.shuffle(commands)
    conn.executemany("INSERT INTO command (type, params, status, error, created_at) VALUES (?, ?, ?, ?, ?)",
                     commands)
    files = data_dir / "files"
    rows = []
    for n in range(0, count, 3):
        content = f"content of {n}".encode()
        sha = hashlib.sha256(content).hexdigest()
        (files / sha).write_bytes(content)
        rows.append((str(n + 1), sha, len(content), T))
    conn.executemany("INSERT INTO attachment_file VALUES (?, ?, ?, ?)", rows)
    conn.commit()
    conn.close()


def timed_requests(port: int, token: str, method: str, path: str, body, count: int) -> list[float]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    times = []
    for _ in range(count):
        payload = None if body is None else json.dumps(body(_))
        started = time.perf_counter()
        conn.request(method, path, body=payload,
                     headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
        resp = conn.getresponse()
        resp.read()
        times.append(time.perf_counter() - started)
        assert resp.status == 200, resp.status
    conn.close()
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--attachments", type=int, default=20_000)
    parser.add_argument("--requests", type=int, default=50)
    args = parser.parse_args()

    with ScratchHub("hub-bench-states-") as scratch:
        token = scratch.token("ui", "interface")
        populate(scratch.data_dir, args.attachments)
        port = scratch.serve()

        rng = random.Random(1)
        ids = [str(n + 1) for n in range(args.attachments)]

        def batch(_):
            return {"ids": rng.sample(ids, 1000)}

        timed_requests(port, token, "POST", "/api/v1/attachments/states", batch, 3)  # warm up
        baseline = timed_requests(port, token, "GET", "/healthz", None, args.requests)
        states = timed_requests(port, token, "POST", "/api/v1/attachments/states", batch, args.requests)
        print(f"{args.attachments} attachments listed; 1,000 ids per request; {args.requests} requests")
        print(latency("GET /healthz (baseline)", baseline))
        print(latency("POST /api/v1/attachments/states", states))
        print(against_baseline(states, baseline, 50))
    return 0


if __name__ == "__main__":
    sys.exit(main())
