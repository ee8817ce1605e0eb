"""Claim + done round trips/s and issue reads/s (list, search) with 1, 2 and 3 hub nodes on one database.

For each number of nodes: a fresh database (PostgreSQL by default: a throw-away
server of the machine's own packages, as the tests start, or ``--database-url``;
``--engine sqlite`` puts every node on one hub.sqlite, which one machine allows),
that many ``hub serve --no-worker`` processes on it, ``--issues`` issues loaded
through the API (one refresh, state pages of 100) and ``--commands`` refreshes
enqueued. Then two phases of ``--seconds`` each, their load from ``--processes``
separate processes of ``--threads`` clients each, every client on one node
(client i on node i mod n), keep-alive:

- claims: claim one command, report it done (a round trip is two requests);
- reads: the issue list's first page (``GET /api/v1/issues?limit=50``) and a
  search for a word (``?q=``), in turn.

Beside each figure, the CPU each process used during the phase (seconds of user
+ system time, from /proc): every node, the database server (the postmaster and
its backends, when it runs on this machine), and each load process.

On a machine of 2 cores the nodes, the database and the load share the same
cores, so 2 or 3 nodes cannot do more than 1: the figures show that adding nodes
costs nothing, and the CPU columns show where the time goes. To show scaling, each
node needs cores of its own (a machine, or a cgroup per node), the database its own
machine, and the load generated elsewhere, so that the nodes are the bottleneck.

    python bench/nodes.py [--engine postgresql] [--nodes 1,2,3] [--seconds 5]
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import quote

from bench.server import postgres_server_for

HUB = str(Path(sys.executable).parent / "hub")
TICK = os.sysconf("SC_CLK_TCK")
WORDS = ("telemetry", "uplink", "ephemeris", "антенна")
T = "2026-11-02T09:00:00+00:00"


# -- processes and their CPU -------------------------------------------------------------------

def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds ``pid`` has used so far (0 once it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / TICK


def server_pids(port: int) -> list[int]:
    """The PostgreSQL server listening on ``port`` on this machine: its postmaster and children."""
    postmaster = None
    for stat in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            argv = stat.read_bytes().split(b"\0")
        except OSError:
            continue
        if argv and argv[0].endswith(b"/postgres") and str(port).encode() in argv:
            postmaster = int(stat.parent.name)
    if postmaster is None:
        return []
    children = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == postmaster:
            children.append(int(stat.parent.name))
    return [postmaster, *children]


class Meter:
    """CPU used by a set of processes between :meth:`start` and :meth:`stop`."""

    def __init__(self, named: dict[str, list[int] | int], server_port: int | None):
        self.named = {name: pids if isinstance(pids, list) else [pids] for name, pids in named.items()}
        self.server_port = server_port

    def _read(self) -> dict[str, float]:
        seen = {name: sum(cpu_seconds(p) for p in pids) for name, pids in self.named.items()}
        if self.server_port is not None:
            # Backends come and go: sum those alive now, and keep the ended ones' share below.
            seen["database"] = sum(cpu_seconds(p) for p in server_pids(self.server_port))
        return seen

    def start(self) -> None:
        self.before = self._read()

    def stop(self) -> dict[str, float]:
        after = self._read()
        return {name: max(0.0, after[name] - self.before.get(name, 0.0)) for name in after}


# -- the load, in processes of its own ----------------------------------------------------------

def _client_turns(kind: str, port: int, token: str, name: str):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}

    def call(method: str, path: str, body=None):
        conn.request(method, path, body=None if body is None else json.dumps(body), headers=headers)
        resp = conn.getresponse()
        data = resp.read()
        if resp.status != 200:
            raise SystemExit(f"{method} {path} on :{port}: {resp.status} {data[:300]!r}")
        return json.loads(data)

    if kind == "claims":
        claim = {"agent_id": name, "version": 18, "types": ["refresh"]}

        def turn() -> int:
            [command] = call("POST", "/agent/v1/claim", claim)["commands"] or [None]
            if command is None:
                raise SystemExit("the queue ran dry: raise --commands")
            call("POST", f"/agent/v1/commands/{command['id']}/done",
                 {"result": {"total": 0}, "agent_id": name, "delivery": command["deliveries"]})
            return 1
    else:
        step = [0]

        def turn() -> int:
            step[0] += 1
            if step[0] % 2:
                call("GET", "/api/v1/issues?limit=50")
            else:
                call("GET", f"/api/v1/issues?q={quote(WORDS[step[0] // 2 % len(WORDS)])}&limit=20")
            return 1
    return turn


def load_process(kind: str, ports: list[int], token: str, offset: int, threads: int, seconds: float,
                 start_at: float, results) -> None:
    """One load process: ``threads`` clients, client i on ``ports[(offset + i) % len(ports)]``,
    from ``start_at`` (wall clock) for ``seconds``; puts (count, elapsed, its CPU seconds)."""
    turns = [_client_turns(kind, ports[(offset + i) % len(ports)], token, f"load-{offset + i}")
             for i in range(threads)]
    counts = [0] * threads
    stopping = threading.Event()
    failures: list[BaseException] = []

    def run(i: int) -> None:
        try:
            while not stopping.is_set():
                counts[i] += turns[i]()
        except BaseException as exc:  # reported to the parent, which stops the run
            failures.append(exc)
            stopping.set()

    time.sleep(max(0.0, start_at - time.time()))
    cpu0 = resource.getrusage(resource.RUSAGE_SELF)
    began = time.perf_counter()
    workers = [threading.Thread(target=run, args=(i,)) for i in range(threads)]
    for worker in workers:
        worker.start()
    stopping.wait(seconds)
    stopping.set()
    for worker in workers:
        worker.join()
    elapsed = time.perf_counter() - began
    cpu1 = resource.getrusage(resource.RUSAGE_SELF)
    used = (cpu1.ru_utime - cpu0.ru_utime) + (cpu1.ru_stime - cpu0.ru_stime)
    results.put((sum(counts), elapsed, used, repr(failures[0]) if failures else None))


def run_load(kind: str, ports: list[int], token: str, args, meter: Meter) -> tuple[float, dict[str, float]]:
    """The phase ``kind`` from ``args.processes`` processes: per second, and the CPU by process."""
    context = multiprocessing.get_context("spawn")
    results = context.Queue()
    start_at = time.time() + 3  # every process spawned and connected before the clock runs
    procs = [context.Process(target=load_process,
                             args=(kind, ports, token, p * args.threads, args.threads, args.seconds,
                                   start_at, results))
             for p in range(args.processes)]
    for proc in procs:
        proc.start()
    time.sleep(max(0.0, start_at - time.time()))
    meter.start()
    answers = [results.get(timeout=args.seconds + 120) for _ in procs]
    cpu = meter.stop()
    for proc in procs:
        proc.join(timeout=60)
    failed = [a[3] for a in answers if a[3]]
    if failed:
        raise SystemExit(f"{kind}: {failed[0]}")
    for n, answer in enumerate(answers):
        cpu[f"load {n + 1}"] = answer[2]
    return sum(a[0] for a in answers) / max(a[1] for a in answers), cpu


# -- a hub of n nodes ------------------------------------------------------------------------

class Nodes:
    """``count`` nodes on a fresh database, with tokens, issues and commands; stopped on exit."""

    def __init__(self, count: int, engine: str, work: Path, server, args):
        self.count, self.engine, self.work, self.server, self.args = count, engine, work, server, args
        self.procs: list[subprocess.Popen] = []
        self.ports: list[int] = []

    def __enter__(self) -> Nodes:
        self.data_dir = self.work / f"nodes-{self.count}"
        self.env = {**os.environ, "HUB_DATA_DIR": str(self.data_dir), "HUB_PORT": "0",
                    "HUB_LOG_LEVEL": "WARNING", "HUB_REFRESH_CRON": "off", "HUB_FULL_REFRESH_CRON": "off",
                    "HUB_AGENTS_PER_TOKEN": "1000", "PYTHONUNBUFFERED": "1"}
        if self.engine == "postgresql":
            from hub.migrations.postgres import migrate_postgres

            self.database = self.server.create_database(prefix="bench_nodes")
            self.url = self.server.url(self.database)
            migrate_postgres(self.url)
            self.env["HUB_DATABASE_URL"] = self.env["HUB_QUEUE_URL"] = self.url
        else:
            subprocess.run([HUB, "migrate"], env=self.env, check=True, capture_output=True)
        for n in range(self.count):
            self._serve(n)
        admin = (self.data_dir / "admin.token").read_text().strip()
        self.tokens = {role: self._call(self.ports[0], admin, "POST", "/api/v1/tokens",
                                        {"name": f"bench-{role}", "role": role})["token"]
                       for role in ("agent", "interface")}
        self._seed()
        self._enqueue(self.args.commands)
        return self

    def _serve(self, n: int) -> None:
        log_path = self.work / f"nodes-{self.count}-node-{n}.log"
        with open(log_path, "wb") as log:
            proc = subprocess.Popen([HUB, "serve", "--no-worker"], env=self.env, stdout=log,
                                    stderr=subprocess.STDOUT)
        self.procs.append(proc)
        deadline = time.monotonic() + 120
        while not (match := re.search(r"serving on http://[^:]+:(\d+)", log_path.read_text(errors="replace"))):
            if proc.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"node {n} did not serve:\n{log_path.read_text(errors='replace')[-2000:]}")
            time.sleep(0.05)
        self.ports.append(int(match.group(1)))

    def _call(self, port: int, token: str, method: str, path: str, body=None) -> dict:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        try:
            conn.request(method, path, body=None if body is None else json.dumps(body),
                         headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
            resp = conn.getresponse()
            data = resp.read()
        finally:
            conn.close()
        if resp.status not in (200, 201):
            raise SystemExit(f"{method} {path}: {resp.status} {data[:300]!r}")
        return json.loads(data)

    def _seed(self) -> None:
        port, agent, interface = self.ports[0], self.tokens["agent"], self.tokens["interface"]
        command = self._call(port, interface, "POST", "/api/v1/commands",
                             {"type": "refresh", "params": {"jql": "project = AURORA"}})
        self._call(port, agent, "POST", "/agent/v1/claim", {"agent_id": "seeder", "version": 18, "types": ["refresh"]})
        issues = [{"key": f"AURORA-{n + 1}", "id": str(10_001 + n), "status": "Open",
                   "summary": f"Frame {n} {WORDS[n % len(WORDS)]}", "description": f"Pass {n} of the ground station",
                   "updated": "2026-10-22T13:05:11.000+0300"} for n in range(self.args.issues)]
        for at in range(0, len(issues), 100):
            self._call(port, agent, "POST", f"/agent/v1/commands/{command['id']}/state",
                       {"issues": issues[at:at + 100]})
        self._call(port, agent, "POST", f"/agent/v1/commands/{command['id']}/done",
                   {"result": {"total": len(issues)}})

    def _enqueue(self, count: int) -> None:
        """``count`` queued refreshes, each a JQL of its own (no full run), written straight
        into the database as bench/claims.py does."""
        rows = [("refresh", json.dumps({"jql": f"key = B-{n}"}), "queued", T) for n in range(count)]
        sql = "INSERT INTO command (type, params, status, created_at) VALUES "
        if self.engine == "postgresql":
            import psycopg

            with psycopg.connect(self.url) as conn, conn.cursor() as cur:
                cur.executemany(sql + "(%s, %s, %s, %s)", rows)
        else:
            import sqlite3

            conn = sqlite3.connect(self.data_dir / "hub.sqlite")
            conn.executemany(sql + "(?, ?, ?, ?)", rows)
            conn.commit()
            conn.close()

    def __exit__(self, *exc) -> None:
        for proc in self.procs:
            proc.terminate()
        for proc in self.procs:
            proc.wait(timeout=60)
        if self.engine == "postgresql":
            self.server.drop_database(self.database)


def cpu_line(cpu: dict[str, float], seconds: float) -> str:
    return ", ".join(f"{name} {used:.1f} s ({used / seconds:.0%})" for name, used in cpu.items())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     epilog="example: python bench/nodes.py --nodes 1,2,3 --seconds 5")
    parser.add_argument("--engine", choices=("postgresql", "sqlite"), default="postgresql")
    parser.add_argument("--database-url", help="a PostgreSQL superuser's URL (default: a throw-away server)")
    parser.add_argument("--nodes", default="1,2,3", help="numbers of nodes to measure, comma-separated")
    parser.add_argument("--seconds", type=float, default=5.0, help="length of each phase")
    parser.add_argument("--processes", type=int, default=2, help="load processes")
    parser.add_argument("--threads", type=int, default=6, help="clients per load process")
    parser.add_argument("--issues", type=int, default=2000, help="issues in the mirror")
    parser.add_argument("--commands", type=int, default=30_000, help="refreshes enqueued for the claims")
    args = parser.parse_args()

    server, server_port = None, None
    if args.engine == "postgresql":
        server = postgres_server_for(args.database_url)
        host_port = re.search(r"@([^:/]+):(\d+)", server.admin_url)
        if host_port and host_port.group(1) in ("127.0.0.1", "localhost") and server_pids(int(host_port.group(2))):
            server_port = int(host_port.group(2))

    work = Path(tempfile.mkdtemp(prefix="hub-bench-nodes-"))
    clients = args.processes * args.threads
    print(f"{args.engine}; {args.issues} issues; load from {args.processes} processes of {args.threads} clients "
          f"({clients} in all, client i on node i mod n); phases of {args.seconds:g} s; {os.cpu_count()} cores")
    try:
        for count in [int(n) for n in args.nodes.split(",")]:
            with Nodes(count, args.engine, work, server, args) as nodes:
                named: dict[str, list[int] | int] = {f"node {n + 1}": proc.pid for n, proc in enumerate(nodes.procs)}
                meter = Meter(named, server_port)
                rate, cpu = run_load("claims", nodes.ports, nodes.tokens["agent"], args, meter)
                print(f"{count} node{'s' if count > 1 else ''}: claim + done {rate:8.0f} round trips/s")
                print(f"    CPU: {cpu_line(cpu, args.seconds)}")
                rate, cpu = run_load("reads", nodes.ports, nodes.tokens["interface"], args, meter)
                print(f"{count} node{'s' if count > 1 else ''}: list + search {rate:8.0f} reads/s")
                print(f"    CPU: {cpu_line(cpu, args.seconds)}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
