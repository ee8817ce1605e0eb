"""Three nodes, a worker, twelve agents and four interfaces, for tests/operations/test_nodes.py: the
cluster's run (:func:`run_cluster`), its file store (:func:`shared_store`), and the agents'
and interfaces' loops, which speak HTTP to the nodes and record what each answered.

Every agent and interface passes to the next node when one does not answer, as nginx passes
to the next upstream. What they saw is kept in a :class:`Cluster`, which the run checks at
the end: every command done once, no delivery handed to two agents, no 5xx, every file right.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import random
import sqlite3
import threading
import time
import urllib.parse
from collections import Counter, defaultdict
from pathlib import Path

from tests.support import wait_until
from tests.support.engines import require
from tests.support.nodes import (
    Http,
    Ledger,
    NodeDown,
    engine_settings,
    first_admin_token,
    make_token,
    start_node,
    start_nodes,
    start_worker,
    stop_all,
)

ISSUES, PER_ISSUE = 300, 10
COMMANDS = ISSUES * PER_ISSUE
AGENTS = 12
LEASE_SECONDS = 3
# A round of reads per this many commands done; after the run, every DOWNLOAD_EVERY-th file again.
READ_EVERY = 30
DOWNLOAD_EVERY = 5


def content(attachment_id: str) -> bytes:
    """The attachment's bytes as its agent finds them in Jira: 0.5 to 16 KiB of its own."""
    seed = hashlib.sha256(attachment_id.encode()).digest()
    size = 512 + (int(attachment_id) * 7919) % 16_000
    return (seed * (size // len(seed) + 1))[:size]


def attachment_ids() -> list[str]:
    return [str(200_000 + n * PER_ISSUE + j) for n in range(ISSUES) for j in range(PER_ISSUE)]


def issue_states() -> list[dict]:
    words = ("telemetry", "uplink", "ephemeris", "антенна")
    return [{"key": f"AURORA-{n + 1}", "id": str(10_001 + n), "summary": f"Frame {n} {words[n % len(words)]}",
             "status": "Open", "updated": "2026-10-22T13:05:11.000+0300",
             "attachments": [{"id": aid, "filename": f"frame-{aid}.bin", "size": len(content(aid)),
                              "mime_type": "application/octet-stream", "author": "ivanov",
                              "created": "2026-10-22T13:05:11.000+0300"}
                             for aid in attachment_ids()[n * PER_ISSUE:(n + 1) * PER_ISSUE]]}
            for n in range(ISSUES)]


class Cluster:
    """What the agents and interfaces saw, shared by their threads."""

    def __init__(self, nodes: list[str]):
        self.nodes = nodes
        self.lock = threading.Lock()
        self.claims: list[tuple[int, int, str]] = []     # (command id, delivery, agent)
        self.done: dict[int, set[str]] = defaultdict(set)  # command id -> agents whose done answered 200
        self.lost: Counter = Counter()                    # reports refused: the lease had gone
        self.digests_checked = 0
        self.wrong: list[tuple[str, str]] = []            # (attachment id, what was wrong)
        self.reads: Counter = Counter()
        self.failures: list[str] = []
        self.finished = threading.Event()
        self.killed: str | None = None

    def done_count(self) -> int:
        with self.lock:
            return len(self.done)

    def alive(self) -> list[str]:
        return [node for node in self.nodes if node != self.killed]


def _through(http: Http, order: list[str], call):
    """``call(node)`` on the first node of ``order`` that answers (as nginx passes to the next
    upstream); ``order`` is turned so that the node that answered comes first next time."""
    for _ in range(3 * len(order)):
        try:
            return call(order[0])
        except NodeDown:
            order.append(order.pop(0))
    raise NodeDown(f"no node answered: {order}")


def _agent(cluster: Cluster, http: Http, name: str, order: list[str]) -> None:
    claim = {"agent_id": name, "version": 18, "types": ["fetch_attachment"], "limit": 5, "wait": 2}
    while not cluster.finished.is_set():
        status, body = _through(http, order, lambda node: http.json(node, "POST", "/agent/v1/claim", claim))
        assert status == 200, (status, body)
        for command in body["commands"]:
            ident, delivery = command["id"], command["deliveries"]
            with cluster.lock:
                cluster.claims.append((ident, delivery, name))
            data = content(command["params"]["attachment_id"])
            sha = hashlib.sha256(data).hexdigest()
            status, _, answer = _through(http, order, lambda node, ident=ident, delivery=delivery, data=data, sha=sha:
                                         http.request(node, "PUT", f"/agent/v1/commands/{ident}/file"
                                                      f"?agent_id={name}&delivery={delivery}", data,
                                                      {"X-Content-SHA256": sha,
                                                       "Content-Type": "application/octet-stream"}))
            if status == 409:
                with cluster.lock:
                    cluster.lost["file"] += 1
                continue
            assert status == 200, (status, answer)
            report = {"result": {"sha256": sha, "size": len(data)}, "agent_id": name, "delivery": delivery}
            status, answer = _through(http, order, lambda node, ident=ident, report=report:
                                      http.json(node, "POST", f"/agent/v1/commands/{ident}/done", report))
            with cluster.lock:
                if status == 409:
                    cluster.lost["done"] += 1
                else:
                    assert status == 200, (status, answer)
                    cluster.done[ident].add(name)


def _enqueuer(cluster: Cluster, http: Http, ids: list[str], order: list[str]) -> None:
    for n, aid in enumerate(ids):
        order.append(order.pop(0)) if n % 7 == 0 else None  # spread the requests over the nodes
        status, body = _through(http, order, lambda node, aid=aid:
                                http.json(node, "POST", f"/api/v1/attachments/{aid}/fetch"))
        assert status in (200, 201), (status, body)


def _reader(cluster: Cluster, http: Http, seed: int) -> None:
    rng = random.Random(seed)
    ids = attachment_ids()
    while not cluster.finished.is_set():
        # A round of reads for every READ_EVERY commands done: the interfaces' load grows with
        # the agents' work, and leaves them most of the machine.
        mark = cluster.done_count() + READ_EVERY
        while cluster.done_count() < mark and not cluster.finished.is_set():
            time.sleep(0.02)
        order = cluster.alive()
        rng.shuffle(order)
        status, page = _through(http, order, lambda node: http.json(node, "GET", "/api/v1/issues?limit=50"))
        assert status == 200 and len(page["items"]) == 50, (status, page)
        word = rng.choice(("telemetry", "uplink", "ephemeris", "антенна"))
        status, found = _through(http, order, lambda node, word=word:
                                 http.json(node, "GET", f"/api/v1/issues?q={urllib.parse.quote(word)}&limit=20"))
        assert status == 200 and found["items"], (status, found)
        status, states = _through(http, order, lambda node: http.json(
            node, "POST", "/api/v1/attachments/states", {"ids": rng.sample(ids, 50)}))
        assert status == 200, (status, states)
        ready = [s["attachment_id"] for s in states["items"] if s["state"] == "ready"][:3]
        for aid in ready:
            status, _, data = _through(http, order, lambda node, aid=aid:
                                       http.request(node, "GET", f"/api/v1/attachments/{aid}/content"))
            with cluster.lock:
                if status != 200 or data != content(aid):
                    cluster.wrong.append((aid, f"{status}, {len(data)} bytes"))
                cluster.digests_checked += 1
        with cluster.lock:
            cluster.reads[order[0]] += 1


def _run(target, cluster: Cluster, *args) -> threading.Thread:
    def guarded():
        try:
            target(cluster, *args)
        except BaseException as exc:  # the test reports it, with the thread's name
            with cluster.lock:
                cluster.failures.append(f"{threading.current_thread().name}: {exc!r}")
            cluster.finished.set()

    thread = threading.Thread(target=guarded, name=getattr(target, "__name__", "thread"), daemon=True)
    thread.start()
    return thread


def rows(database: str | Path, sql: str) -> list[tuple]:
    """Rows of the hub's database, read beside the hub: PostgreSQL's at a URL, or a SQLite file."""
    if isinstance(database, Path):
        conn = sqlite3.connect(database)
        try:
            return conn.execute(sql).fetchall()
        finally:
            conn.close()
    import psycopg

    with psycopg.connect(database, autocommit=True) as conn:
        return conn.execute(sql).fetchall()


class Store:
    """The nodes' file store as the test sees it: their settings, and what it holds by name."""

    def __init__(self, settings: dict[str, str], listing):
        self.settings = settings
        self.listing = listing  # () -> {name: size} of the files visible under their names


@contextlib.contextmanager
def shared_store(data_dir: Path):
    """An S3 bucket of a real server (tests/support/s3.py) where the S3 store is part of the hub, else the
    data dir's files/, which the nodes of one machine share."""
    if importlib.util.find_spec("tests.support.s3") is None:
        files = data_dir / "files"
        yield Store({}, lambda: {p.name: p.stat().st_size for p in files.iterdir() if p.is_file()})
        return
    from tests.support.s3 import s3_server

    server, reason = s3_server()
    require(reason)
    bucket = server.create_bucket()

    def listing() -> dict[str, int]:
        pages = server.client().get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix="hub/files/")
        return {item["Key"].rsplit("/", 1)[1]: item["Size"] for page in pages for item in page.get("Contents", [])
                if "/.tmp/" not in item["Key"] and item["Key"].count("/") == 2}

    try:
        yield Store({"HUB_STORE_URL": f"s3://{bucket}/hub/files", **server.environ}, listing)
    finally:
        server.drop_bucket(bucket)


def run_cluster(database_url: str | None, data_dir: Path, store: Store) -> None:
    """The cluster's run: on PostgreSQL at ``database_url`` (the queue too), or, with None, on
    one SQLite hub in ``data_dir`` that every process opens (one machine only); files in ``store``."""
    shared_database: str | Path = database_url or data_dir / "hub.sqlite"
    settings = engine_settings(database_url, queue_url=database_url, HUB_LEASE_SECONDS=str(LEASE_SECONDS),
                               HUB_THREADS="16", HUB_LONG_POLL_THREADS="12", HUB_LOG_LEVEL="WARNING",
                               **store.settings)
    first = start_node(data_dir, settings)
    procs: list = [first]
    try:
        admin = first_admin_token(data_dir)
        tokens = {role: make_token(first.url, admin, f"test-{role}", role) for role in ("agent", "interface")}
        procs.append(start_worker(data_dir, settings))
        procs[1:1] = start_nodes(2, data_dir, settings)
        nodes: list = procs[:3]
        cluster = Cluster([node.url for node in nodes])
        _seed(cluster, tokens)
        ledger = Ledger()
        # Two interfaces ask for every attachment first, through the nodes in turn. (Enqueued
        # while twelve agents long-poll, each command would wake them all, on every node, to
        # find one command: a herd that costs more than the run itself. The wake-up across
        # nodes has a test of its own, above.)
        ids = attachment_ids()
        random.Random(21).shuffle(ids)
        enqueuers = [_run(_enqueuer, cluster, Http(cluster.nodes, tokens["interface"], ledger), ids[k::2],
                          cluster.nodes[k:] + cluster.nodes[:k]) for k in range(2)]
        for thread in enqueuers:
            thread.join(timeout=120)
        assert not cluster.failures, cluster.failures
        threads = [_run(_agent, cluster, Http(cluster.nodes, tokens["agent"], ledger), f"agent-{i}",
                        cluster.nodes[i % 3:] + cluster.nodes[:i % 3]) for i in range(AGENTS)]
        threads += [_run(_reader, cluster, Http(cluster.nodes, tokens["interface"], ledger), k) for k in range(2)]

        wait_until(lambda: cluster.done_count() >= COMMANDS // 3 or cluster.failures, timeout=120,
                   message="a third of the commands done")
        # An agent beside the doomed node claims through it and dies with it: its leases must run out.
        doomed = Http([nodes[1].url], tokens["agent"], Ledger())
        status, body = doomed.json(nodes[1].url, "POST", "/agent/v1/claim",
                                   {"agent_id": "doomed", "version": 18, "types": ["fetch_attachment"],
                                    "limit": 5, "wait": 10})
        abandoned = {command["id"] for command in body["commands"]}
        assert status == 200 and abandoned, (status, body)
        cluster.killed = nodes[1].url
        nodes[1].kill()
        after_kill = dict(ledger.statuses)
        wait_until(lambda: cluster.done_count() >= COMMANDS or cluster.failures, timeout=240,
                   message=f"all {COMMANDS} commands done")
        cluster.finished.set()
        for thread in threads:
            thread.join(timeout=60)
        assert not cluster.failures, cluster.failures

        # No command lost or held twice: each done once, by one agent, each delivery to one agent.
        statuses = dict(rows(shared_database, "SELECT status, count(*) FROM command GROUP BY status"))
        assert statuses == {"done": COMMANDS + 1}, statuses
        deliveries = Counter((ident, delivery) for ident, delivery, _ in cluster.claims)
        assert max(deliveries.values()) == 1, [key for key, n in deliveries.items() if n > 1][:10]
        assert len(cluster.done) == COMMANDS and all(len(agents) == 1 for agents in cluster.done.values())
        # The doomed agent's commands were delivered again once their leases ran out.
        again = dict(rows(shared_database, "SELECT id, deliveries FROM command WHERE id IN ("
                           + ", ".join(map(str, abandoned)) + ")"))
        assert all(n >= 2 for n in again.values()) and "doomed" not in set().union(
            *(cluster.done[ident] for ident in abandoned)), again
        # No 5xx from anyone, and the survivors kept answering after the kill.
        assert not ledger.server_errors, ledger.server_errors[:5]
        for survivor in (nodes[0].url, nodes[2].url):
            before = sum(n for (node, _), n in after_kill.items() if node == survivor)
            assert sum(n for (node, _), n in ledger.statuses.items() if node == survivor) > before
        # Every file's sha256 right: the records name each attachment's own, the store holds
        # exactly those files whole (nothing partial under a name), and what the nodes served
        # during the run and serve now is the attachment's bytes.
        files = dict(rows(shared_database, "SELECT attachment_id, file FROM attachment_file"))
        expected = {aid: hashlib.sha256(content(aid)).hexdigest() for aid in attachment_ids()}
        assert files == expected
        assert store.listing() == {expected[aid]: len(content(aid)) for aid in attachment_ids()}
        assert not cluster.wrong and cluster.digests_checked > 0, cluster.wrong[:5]
        _download(cluster, attachment_ids()[::DOWNLOAD_EVERY], tokens["interface"], ledger)
        assert not ledger.server_errors, ledger.server_errors[:5]
    finally:
        stop_all(*procs)


def _seed(cluster: Cluster, tokens: dict[str, str]) -> None:
    """The mirror's issues and their attachments, loaded by one refresh through the first node."""
    node = cluster.nodes[0]
    interface, agent = Http([node], tokens["interface"], Ledger()), Http([node], tokens["agent"], Ledger())
    status, command = interface.json(node, "POST", "/api/v1/commands",
                                     {"type": "refresh", "params": {"jql": "project = AURORA"}})
    assert status == 201, command
    status, body = agent.json(node, "POST", "/agent/v1/claim", {"agent_id": "seeder", "version": 18,
                                                                "types": ["refresh"], "wait": 10})
    assert status == 200 and body["commands"], body
    states = issue_states()
    for at in range(0, len(states), 100):
        status, answer = agent.json(node, "POST", f"/agent/v1/commands/{command['id']}/state",
                                    {"issues": states[at:at + 100]})
        assert status == 200, answer
    status, answer = agent.json(node, "POST", f"/agent/v1/commands/{command['id']}/done",
                                {"result": {"total": len(states)}})
    assert status == 200, answer


def _download(cluster: Cluster, ids: list[str], token: str, ledger: Ledger) -> None:
    """Each of ``ids`` downloaded through the surviving nodes: its bytes, and its ETag their sha256."""
    wrong: list[str] = []

    def download(part: list[str], node: str) -> None:
        http = Http([node], token, ledger)
        for aid in part:
            status, headers, data = http.request(node, "GET", f"/api/v1/attachments/{aid}/content")
            if status != 200 or hashlib.sha256(data).hexdigest() != headers.get("etag", "").strip('"') \
                    or data != content(aid):
                wrong.append(aid)

    survivors = cluster.alive()
    workers = [threading.Thread(target=download, args=(ids[k::4], survivors[k % len(survivors)]))
               for k in range(4)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=120)
    assert not wrong, wrong[:10]
