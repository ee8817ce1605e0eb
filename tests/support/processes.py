"""The ``hub`` console script and its processes: started, read line by line, stopped; a hub
prepared on disk, its tokens, and real HTTP clients of it."""

from __future__ import annotations

import contextlib
import hashlib
import http.client
import io
import json
import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path
from urllib.parse import urlparse

from agent.config import AgentConfig
from agent.retry import Backoff
from agent.runner import Runner
from devservers.reaper import end_with_this_process
from hub.config import Config
from tests.support import engine_rows
from tests.support.engine_rows import engine_settings
from tests.support.hubs import built_services
from tests.support.protocol import hub_config
from tests.support.samples import mcp_mirror
from tests.support.waiting import wait_until

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
    return dict(engine_rows.rows(config, "SELECT key, neighbor FROM issue"))


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
    engine_rows.execute(config, "INSERT INTO setting VALUES ('jql_scope', 'project = AURORA')")
    engine_rows.execute(config, "INSERT INTO project (label, name, created_at)"
                                   " VALUES ('AWPCA', 'АРМ КА', '2026-11-01T00:00:00+00:00')")
    return agent, interface


def quick_runner(url: str, agent_token: str, jira, agent_id: str, claim_wait: int = 0,
                 concurrency: int = 1) -> Runner:
    """A started reference agent (``Runner``, in this process) speaking to the hub at ``url``
    and the fake ``jira``, its clients retrying at once (50 ms to 200 ms, five times)."""
    runner = Runner(AgentConfig(hub_url=url, hub_token=agent_token, jira_url=jira.url, jira_token=jira.token,
                                agent_id=agent_id, claim_wait=claim_wait, concurrency=concurrency))
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


@contextlib.contextmanager
def looping_agent(data_dir: Path, database_url: str | None, agent_id: str, *, concurrency: int = 1):
    """A served hub (``prepared_hub``'s: one project, a token per role) mirroring AURORA-1 and
    AURORA-2 from a started fake Jira, with the reference agent running its loop beside it (claims
    of 1 s, ``concurrency`` at once) and the first full refresh done. Yields ``(url, config,
    interface token, jira)``; more tokens may be added on ``config`` meanwhile. All of it stops at
    the end, the hub with exit 0."""
    from demo.fakejira import FakeJira

    agent_token, interface = prepared_hub(data_dir, database_url)
    hub = start("serve", data_dir=data_dir, database_url=database_url)
    jira = FakeJira().start()
    jira.add_issue("AURORA-1", summary="Cards list", labels=["AWPCA"])
    jira.add_issue("AURORA-2", labels=["AWPCA"])
    runner = thread = None
    try:
        url = wait_for_line(hub, r"serving on (http://\S+)").group(1)
        runner = quick_runner(url, agent_token, jira, agent_id, claim_wait=1, concurrency=concurrency)
        thread = threading.Thread(target=runner.run, name="agent-loop", daemon=True)
        thread.start()
        refresh = call(url, interface, "/api/v1/commands", {"type": "refresh"})
        wait_until(lambda: call(url, interface, f"/api/v1/commands/{refresh['id']}")["status"] == "done",
                   timeout=60, every=0.2, message="the first refresh")
        yield url, hub_config(data_dir, database_url), interface, jira
    finally:
        if runner is not None:
            runner.stop()
        if thread is not None:
            thread.join(timeout=30)
        jira.stop()
        assert stop(hub) == 0
