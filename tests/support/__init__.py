"""Helpers the tests share: a hub's agents and interfaces in a few words, the
``hub`` console script and its processes, real HTTP clients, and waiting on a
condition instead of sleeping. Test modules import from here, never from each
other.
"""

from __future__ import annotations

import contextlib
import hashlib
import http.client
import io
import json
import os
import queue
import random
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
import urllib.request
import zlib
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlparse

from agent.config import AgentConfig
from agent.retry import Backoff
from agent.runner import Runner
from devservers.reaper import end_with_this_process
from hub.clock import Clock, iso
from hub.config import Config
from hub.models import Project, Setting
from tests.support import engine_rows as engine_support
from tests.support.engine_rows import engine_settings
from tests.support.hubs import built_services


def imported_modules(path: Path) -> set[str]:
    """The absolute imports of a Python source file, by module name."""
    import ast

    modules = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Import):
            modules.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            modules.add(node.module)
    return modules


def wait_until(condition: Callable[[], object], timeout: float = 30, every: float = 0.02,
               message: str = "the condition") -> object:
    """Poll ``condition`` until it is truthy; its value, or AssertionError after ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise AssertionError(f"{message} did not hold within {timeout} s")
        time.sleep(every)


def waiting_polls(hub) -> int:
    """How many long-polls hold a slot of the hub's gate now (claims and
    attachment waits share it): a test waits on this, not on a sleep."""
    resource, *_ = hub.app._router.find("/agent/v1/claim")
    return resource._polls.waiting


def next_second() -> None:
    """Wait until the wall clock enters its next whole second: the hub writes whole
    seconds, so a run started after this is later than anything fetched before it."""
    start = int(time.time())
    wait_until(lambda: int(time.time()) > start, timeout=2, every=0.01, message="the next second")


BASE = 'project = AURORA AND labels in ("AWPCA")'


def issue(key: str, **fields) -> dict:
    return {"key": key, "id": jira_id(key), "summary": f"Summary {key}", **fields}


def jira_id(key: str) -> str:
    """A Jira id for a key, the same on every call: an issue's number in AURORA, and
    numbers of their own in other projects (an issue is its id, so two keys must not share one)."""
    project, number = key.rsplit("-", 1)
    if project == "AURORA":
        return number
    return str((zlib.crc32(project.encode()) % 900 + 100) * 10**9 + int(number))


def with_projects():
    (Setting.insert(key="jql_scope", value="project = AURORA")
     .on_conflict(conflict_target=[Setting.key], preserve=[Setting.value]).execute())
    Project.create(label="AWPCA", name="АРМ КА", created_at=iso(Clock().now()))


def enqueue(hub, jql: str | None = None) -> dict:
    body = {"type": "refresh", "params": {"jql": jql}} if jql else {"type": "refresh"}
    resp = hub.api("POST", "/api/v1/commands", body)
    assert resp.status_code == 201, resp.json
    return resp.json


def claim(hub, agent_id="agent-1", version=14, **extra) -> list[dict]:
    resp = hub.agent("POST", "/agent/v1/claim", {"agent_id": agent_id, "version": version, **extra})
    assert resp.status_code == 200, resp.json
    return resp.json["commands"]


def report(hub, command_id: int, what: str, body: dict):
    return hub.agent("POST", f"/agent/v1/commands/{command_id}/{what}", body)


def db_rows(hub, sql: str, *args) -> list[tuple]:
    """The rows of ``sql`` (written with ``?``) on the hub's database, whichever engine."""
    return engine_support.rows(hub.config, sql, *args)


def hub_config(data_dir: Path, database_url: str | None = None) -> Config:
    """The settings naming a hub's database as its processes find it: ``data_dir`` (its
    hub.sqlite), or the PostgreSQL database ``database_url`` names."""
    return Config(data_dir=data_dir, database_url=database_url)


def db_records(config: Config, sql: str, *args) -> list[dict]:
    """The rows of ``sql`` (written with ``?``) on ``config``'s database, each as a dict by
    column name, as another process reads them."""
    if config.database_url:
        import psycopg
        from psycopg.rows import dict_row

        from hub.db import qmark_to_format

        with psycopg.connect(config.database_url, autocommit=True, row_factory=dict_row) as conn:
            return list(conn.execute(qmark_to_format(sql), args).fetchall())
    conn = sqlite3.connect(f"file:{config.db_path}?mode=ro", uri=True)
    conn.row_factory = sqlite3.Row
    try:
        return [dict(row) for row in conn.execute(sql, args)]
    finally:
        conn.close()


def load(hub, issues, neighbors=(), jql="key in (X, Y, Z)", version=14, done=True, catalogues=None):
    """One refresh by an agent: claim, one state page (with ``catalogues`` if given), done."""
    command = enqueue(hub, jql)
    claim(hub, version=version)
    body = {"issues": list(issues), "neighbors": list(neighbors)}
    if catalogues is not None:
        body["catalogues"] = catalogues
    resp = report(hub, command["id"], "state", body)
    assert resp.status_code == 200, resp.json
    if done:
        assert report(hub, command["id"], "done", {"result": {"total": len(issues)}}).status_code == 200
    return command


def comment(cid: str, body: str = "text") -> dict:
    return {"id": cid, "author": "ivanov", "created": "2026-10-22T13:05:11.000+0300",
            "updated": "2026-10-22T13:05:11.000+0300", "body": body}


def attachment(aid: str, filename: str, size: int = 10) -> dict:
    return {"id": aid, "filename": filename, "size": size, "mime_type": "application/pdf",
            "author": "ivanov", "created": "2026-10-22T13:05:11.000+0300"}


HUB = shutil.which("hub", path=os.path.dirname(sys.executable)) or "hub"
# A hub process in a test queues no refresh of its own: its commands are the test's.
NO_SCHEDULED_REFRESH = {"HUB_REFRESH_CRON": "off", "HUB_FULL_REFRESH_CRON": "off"}


def run_script(*args: str, data_dir: Path, database_url: str | None = None,
               **env: str) -> subprocess.CompletedProcess:
    """The installed ``hub`` console script in a subprocess: for what only a process
    shows (its exit status as the shell sees it, signals, a server); on PostgreSQL
    when ``database_url`` is given."""
    environ = {**os.environ, **NO_SCHEDULED_REFRESH, "HUB_DATA_DIR": str(data_dir),
               **engine_settings(database_url), **env}
    return subprocess.run([HUB, *args], env=environ, capture_output=True, text=True, timeout=60)


def run_hub(*args: str, data_dir: Path, **env: str) -> subprocess.CompletedProcess:
    """``hub ARGS`` in this process, through ``hub.cli.main(argv)``, with the
    ``HUB_*`` environment it would have: its exit status and what it printed."""
    from hub.cli import main

    environ = {"HUB_DATA_DIR": str(data_dir), **env}
    saved = {name: os.environ.get(name) for name in environ}
    stdout, stderr = io.StringIO(), io.StringIO()
    os.environ.update(environ)
    try:
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            try:
                code = main(list(args))
            except SystemExit as exc:  # argparse's usage errors
                code = exc.code
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
    return subprocess.CompletedProcess(["hub", *args], code, stdout.getvalue(), stderr.getvalue())


def start(*args: str, data_dir: Path, database_url: str | None = None, **settings: str) -> subprocess.Popen:
    """``hub ARGS`` as a process on a free port; on PostgreSQL when ``database_url``
    is given; ``settings`` are more ``HUB_*`` variables.

    Its stdout and stderr are read all along into ``proc.lines`` (None once it
    ends), for :func:`wait_for_line` and :func:`rest_of_output`: a hub logs a
    line per request, and a pipe nobody reads would stall it once full.
    """
    env = {**os.environ, **NO_SCHEDULED_REFRESH, "HUB_DATA_DIR": str(data_dir), "HUB_PORT": "0",
           "PYTHONUNBUFFERED": "1", **engine_settings(database_url), **settings}
    proc = subprocess.Popen([HUB, *args], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    end_with_this_process(proc.pid)
    proc.lines = queue.Queue()
    threading.Thread(target=_drain, args=(proc,), daemon=True).start()
    return proc


def _drain(proc: subprocess.Popen) -> None:
    for line in proc.stdout:
        proc.lines.put(line)
    proc.lines.put(None)


def _next_line(proc: subprocess.Popen, timeout: float) -> str | None:
    """The process's next line, None once it has ended; queue.Empty after ``timeout``."""
    lines = getattr(proc, "lines", None)
    if lines is None:  # a process this module did not start: read it here
        return proc.stdout.readline() or None
    line = lines.get(timeout=max(timeout, 0))
    if line is None:
        lines.put(None)  # the end stays for the next reader
    return line


def wait_for_line(proc: subprocess.Popen, pattern: str, timeout: float = 30) -> re.Match:
    deadline = time.monotonic() + timeout
    seen = []
    while time.monotonic() < deadline:
        try:
            line = _next_line(proc, deadline - time.monotonic())
        except queue.Empty:
            break
        if line is None:
            raise AssertionError(f"process ended before {pattern!r}: {''.join(seen)}")
        seen.append(line)
        match = re.search(pattern, line)
        if match:
            return match
    raise AssertionError(f"no {pattern!r} within {timeout}s: {''.join(seen)}")


def rest_of_output(proc: subprocess.Popen, timeout: float = 30) -> str:
    """What an ended (or ending) process of :func:`start` wrote after the lines already read."""
    rest = []
    while (line := _next_line(proc, timeout)) is not None:
        rest.append(line)
    return "".join(rest)


def stop(proc: subprocess.Popen) -> int:
    proc.send_signal(signal.SIGTERM)
    try:
        return proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()


@contextlib.contextmanager
def serving(data_dir: Path, database_url: str | None = None, **settings: str):
    """``hub serve`` on ``data_dir`` (and ``database_url``, on PostgreSQL; a loopback port of
    its own): its URL while the block runs. Its output is read away meanwhile (a full pipe
    would stall the hub), and it is stopped after."""
    proc = start("serve", data_dir=data_dir, database_url=database_url, **settings)
    try:
        url = wait_for_line(proc, r"serving on (http://\S+)").group(1)
        threading.Thread(target=proc.stdout.read, daemon=True).start()
        yield url
    finally:
        stop(proc)


BROWSER_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--no-first-run", "--disable-quic"]


def chromium() -> tuple[str | None, str]:
    """The system browser's path, or None and why not (Playwright drives Debian's
    chromium, never a browser of its own download)."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return None, "Playwright for Python is not installed (pip install -e '.[test]')"
    for candidate in (shutil.which("chromium"), "/usr/bin/chromium", shutil.which("chromium-browser")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate, ""
    return None, "no Chromium found (apt-get install chromium)"


def get_json(url: str) -> dict:
    with urllib.request.urlopen(url, timeout=10) as resp:
        return json.loads(resp.read())


def call(url: str, token: str, path: str, body=None) -> dict:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url + path, data=data, method="POST" if data else "GET",
                                     headers={"Authorization": f"Bearer {token}",
                                              "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as resp:
        return json.loads(resp.read())


def full_run(url: str, agent: str, interface: str, keys: list[str], issues: list[dict] | None = None) -> None:
    """One full refresh of a live hub by an agent: the bare issues ``keys``, or the states ``issues``."""
    command = call(url, interface, "/api/v1/commands", {"type": "refresh"})
    [claimed] = call(url, agent, "/agent/v1/claim", {"agent_id": "a", "version": 14})["commands"]
    assert claimed["id"] == command["id"]
    issues = issues if issues is not None else [{"key": key, "id": key.split("-")[1]} for key in keys]
    call(url, agent, f"/agent/v1/commands/{claimed['id']}/state", {"issues": issues})
    call(url, agent, f"/agent/v1/commands/{claimed['id']}/done", {"result": {"total": len(issues)}})


def neighbour_flags(config: Config) -> dict:
    """Each mirrored issue's neighbour flag, by key, on ``config``'s database."""
    return dict(engine_support.rows(config, "SELECT key, neighbor FROM issue"))


def wait_for_flags(config: Config, expected: dict, timeout: float = 30) -> dict:
    """The neighbour flags once they are ``expected`` (a worker marks them when it gets
    to it), or as they are after ``timeout``."""
    with contextlib.suppress(AssertionError):
        return wait_until(lambda: (flags := neighbour_flags(config)) == expected and flags,
                          timeout=timeout, every=0.1, message="the neighbour flags")
    return neighbour_flags(config)


def created_hub(data_dir: Path, database_url: str | None = None) -> Path:
    """An empty hub at the current schema in ``data_dir`` (and ``database_url``, on
    PostgreSQL), as ``hub migrate`` leaves it: the other commands refuse to create one."""
    from hub import startup

    startup.prepare(hub_config(data_dir, database_url))
    return data_dir


def added_tokens(config: Config, *names_and_roles: tuple[str, str]) -> list[str]:
    """A token per ``(name, role)``, made by the hub's own service in this process, as
    ``hub token add`` makes one (tests/api/test_cli.py runs that command itself): starting a
    process per token cost the suite minutes."""
    from hub.db import open_hub_database

    db = open_hub_database(config)
    try:
        tokens = built_services(config).tokens
        return [tokens.add(name, role) for name, role in names_and_roles]
    finally:
        db.close()


def prepared_hub(data_dir: Path, database_url: str | None = None) -> tuple[str, str]:
    """A migrated hub (on PostgreSQL when ``database_url`` is given) with one project
    and a token per role."""
    created_hub(data_dir, database_url)
    config = hub_config(data_dir, database_url)
    agent, interface = added_tokens(config, ("agent", "agent"), ("ui", "interface"))
    engine_support.execute(config, "INSERT INTO setting VALUES ('jql_scope', 'project = AURORA')")
    engine_support.execute(config, "INSERT INTO project (label, name, created_at)"
                                   " VALUES ('AWPCA', 'АРМ КА', '2026-11-01T00:00:00+00:00')")
    return agent, interface


def quick_runner(url: str, agent_token: str, jira, agent_id: str, claim_wait: int = 0) -> Runner:
    """A started reference agent (``Runner``, in this process) speaking to the hub at ``url``
    and the fake ``jira``, its clients retrying at once (50 ms to 200 ms, five times)."""
    runner = Runner(AgentConfig(hub_url=url, hub_token=agent_token, jira_url=jira.url, jira_token=jira.token,
                                agent_id=agent_id, claim_wait=claim_wait))
    for client in (runner.hub, runner.jira):
        client.backoff = Backoff(first=0.05, longest=0.2, attempts=5)
    runner.start()
    return runner


class Client:
    def __init__(self, url: str, agent: str, interface: str):
        parsed = urlparse(url)
        self.host, self.port = parsed.hostname, parsed.port
        self.tokens = {"agent": agent, "interface": interface}

    def connection(self) -> http.client.HTTPConnection:
        return http.client.HTTPConnection(self.host, self.port, timeout=120)

    def json(self, method: str, path: str, role: str, body=None) -> tuple[int, dict]:
        conn = self.connection()
        conn.request(method, path, body=None if body is None else json.dumps(body),
                     headers={"Authorization": f"Bearer {self.tokens[role]}",
                              "Content-Type": "application/json"})
        resp = conn.getresponse()
        data = resp.read()
        conn.close()
        return resp.status, json.loads(data) if data else {}

    def put_file(self, command_id: int, content: bytes) -> tuple[int, dict]:
        """An agent's upload of a fetched attachment's content."""
        conn = self.connection()
        conn.request("PUT", f"/agent/v1/commands/{command_id}/file", body=content,
                     headers={"Authorization": f"Bearer {self.tokens['agent']}",
                              "X-Content-SHA256": hashlib.sha256(content).hexdigest()})
        resp = conn.getresponse()
        data = resp.read()
        conn.close()
        return resp.status, json.loads(data) if data else {}


PDF = b"%PDF-1.7 " + bytes(range(256)) * 64


def listed(hub, *attachments_, key="X-1"):
    load(hub, [issue(key, attachments=list(attachments_))])


def fetch(hub, aid: str):
    return hub.api("POST", f"/api/v1/attachments/{aid}/fetch")


def upload(hub, command_id: int, content: bytes, sha: str | None = "auto", **params):
    headers = hub.headers("agent")
    if sha == "auto":
        sha = hashlib.sha256(content).hexdigest()
    if sha is not None:
        headers["X-Content-SHA256"] = sha
    return hub.client.simulate_put(f"/agent/v1/commands/{command_id}/file", body=content,
                                   headers=headers, params=params or None)


def fetched(hub, aid: str, content: bytes = PDF) -> str:
    """Request, claim, upload and finish one fetch; returns the sha256."""
    command = fetch(hub, aid).json["command"]
    [claimed] = claim(hub, types=["fetch_attachment"])
    assert claimed["id"] == command["id"] and claimed["params"] == {"attachment_id": aid}
    stored = upload(hub, command["id"], content, delivery=claimed["deliveries"])
    assert stored.status_code == 200, stored.json
    done = report(hub, command["id"], "done", {"result": stored.json, "delivery": 1})
    assert done.status_code == 200, done.json
    return stored.json["sha256"]


def mirrored(hub):
    """One full run: X-1..X-3 match the base JQL, Y-1 is a neighbour."""
    with_projects()
    change = {"id": "5001", "author": "ivanov", "created": "2026-10-22T13:05:11.000+0300",
              "items": [{"field": "status", "from": "1", "from_string": "Open", "to": "3",
                         "to_string": "In Progress"}]}
    load(hub, [
        issue("X-1", status="Open", assignee="ivanov", labels=["AWPCA"], description="h1. one",
              links=[{"type": "Blocks", "outward": "X-2"}, {"type": "Relates", "inward": "X-3"}],
              comments=[comment("102", "second"), comment("101", "first")], changes=[change]),
        issue("X-2", status="Done", assignee="petrov", labels=["KPI"], epic_key="X-9",
              links=[{"type": "Cloners", "outward": "X-1"}]),
        issue("X-3", status="Open", labels=["AWPCA", "KPI"]),
    ], neighbors=[issue("Y-1")], jql=BASE)


POSTS = [
    ("/agent/v1/heartbeat", "agent"),
    ("/agent/v1/claim", "agent"),
    ("/agent/v1/commands/1/state", "agent"),
    ("/agent/v1/commands/1/done", "agent"),
    ("/agent/v1/commands/1/failed", "agent"),
    ("/api/v1/commands", "interface"),
    ("/api/v1/commands/1/cancel", "interface"),
    ("/api/v1/attachments/states", "interface"),
    ("/api/v1/attachments/1/fetch", "interface"),
    ("/api/v1/issues/X-1/notes", "interface"),
]


def garbage(rng: random.Random, depth: int = 0):
    choices = [
        lambda: None, lambda: True, lambda: rng.randint(-10**30, 10**30), lambda: rng.random() * 1e308,
        lambda: "".join(chr(rng.randint(0, 0x10FFFF)) for _ in range(rng.randint(0, 20))),
        lambda: "AURORA-1", lambda: "refresh", lambda: 14,
    ]
    if depth < 3:
        keys = ["agent_id", "version", "issues", "neighbors", "key", "id", "links", "comments",
                "result", "total", "error", "delivery", "type", "params", "jql", "limit", "wait",
                "types", "attachments", "changes", "items", "outward", "inward"]
        choices += [
            lambda: [garbage(rng, depth + 1) for _ in range(rng.randint(0, 3))],
            lambda: {rng.choice(keys): garbage(rng, depth + 1) for _ in range(rng.randint(0, 5))},
        ]
    return rng.choice(choices)()


JIRA_TIME = "2026-10-22T13:05:11.000+0300"


def rich(key: str, n: int) -> dict:
    """A rich issue state: 1 KB description, 3 comments, 2 links, 2 attachments, 5 changes."""
    return issue(key, description="d" * 1024, status="Open", labels=["AWPCA"], updated=JIRA_TIME,
                 links=[{"type": "Blocks", "outward": f"Y-{n}"}, {"type": "Relates", "inward": f"Y-{n + 1}"}],
                 comments=[{"id": str(c), "created": JIRA_TIME, "body": "b"} for c in range(1, 4)],
                 attachments=[{"id": f"{n + 1}0{a}", "filename": "f.pdf", "created": JIRA_TIME}
                              for a in range(2)],
                 changes=[{"id": str(h), "created": JIRA_TIME, "items": [{"field": "status"}]}
                          for h in range(1, 6)])


# A 1x1 PNG: what an assistant gets back as image content.
PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489"
    "0000000d49444154789c63f8cfc0f01f00050001ff89993d1d0000000049454e44ae426082")
TEXT_FILE = "line one\nстрока два\n".encode()
MCP_FILES = {"9001": TEXT_FILE, "9002": PNG, "9003": PDF}


def mcp_mirror() -> list[dict]:
    """The issues the MCP tests read: AURORA-1 in full (wiki text, links both ways and to an issue
    the mirror lacks, three comments, two changes, a text, an image and a PDF attachment)."""
    files = [("9001", "notes.txt", "text/plain"), ("9002", "shot.png", "image/png"),
             ("9003", "spec.pdf", "application/pdf")]
    return [
        issue("AURORA-1", issue_type="Story", summary="Cards list", status="In Progress", labels=["AWPCA"],
              assignee="ivanov", description="h1. Cards\n*bold* text",
              links=[{"type": "Blocks", "outward": "AURORA-2"}, {"type": "Relates", "inward": "AURORA-3"},
                     {"type": "Relates", "outward": "OTHER-9"}],
              comments=[comment("101", "first *wiki*"), comment("102", "second"), comment("103", "third")],
              changes=[{"id": "5001", "author": "ivanov", "created": JIRA_TIME,
                        "items": [{"field": "status", "from": "1", "from_string": "Open", "to": "3",
                                   "to_string": "In Progress"},
                                  {"field": "assignee", "to_string": "ivanov"}]}],
              attachments=[{**attachment(aid, name, len(MCP_FILES[aid])), "mime_type": mime}
                           for aid, name, mime in files]),
        issue("AURORA-2", summary="Card details", status="Done", labels=["AWPCA"]),
        issue("AURORA-3", summary="Cards epic", status="Open", labels=["AWPCA"]),
    ]


@contextlib.contextmanager
def seeded_hub(data_dir: Path, database_url: str | None = None):
    """A live hub (``hub serve`` on loopback; on PostgreSQL when ``database_url`` is given)
    whose mirror holds :func:`mcp_mirror`, loaded by an agent's full refresh: yields its
    URL, the agent token and the interface token."""
    agent, interface = prepared_hub(data_dir, database_url)
    proc = start("serve", data_dir=data_dir, database_url=database_url)
    try:
        url = wait_for_line(proc, r"serving on (http://\S+)").group(1)
        full_run(url, agent, interface, [], issues=mcp_mirror())
        yield url, agent, interface
    finally:
        stop(proc)


def scripted_agent(url: str, agent: str, files: dict[str, bytes], count: int):
    """A scripted agent in a thread: claims ``count`` commands one at a time (long-polling) and
    finishes each: a fetch_attachment by uploading its file from ``files``, a refresh with no
    issues. Join the returned thread."""
    import threading

    import httpx

    def run():
        with contextlib.suppress(httpx.TransportError):  # the hub stopped: a test that failed before its commands came
            serve()

    def serve():
        served = 0
        with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {agent}"}, timeout=60) as client:
            while served < count:
                claimed = client.post("/agent/v1/claim", json={"agent_id": "scripted", "version": 14, "wait": 5})
                for command in claimed.json()["commands"]:
                    result = {"total": 0}
                    if command["type"] == "fetch_attachment":
                        content = files[command["params"]["attachment_id"]]
                        stored = client.put(f"/agent/v1/commands/{command['id']}/file", content=content,
                                            params={"delivery": command["deliveries"]},
                                            headers={"X-Content-SHA256": hashlib.sha256(content).hexdigest()})
                        assert stored.status_code == 200, stored.text
                        result = stored.json()
                    done = client.post(f"/agent/v1/commands/{command['id']}/done",
                                       json={"result": result, "delivery": command["deliveries"]})
                    assert done.status_code == 200, done.text
                    served += 1

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread
