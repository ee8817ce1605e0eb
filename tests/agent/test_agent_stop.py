"""hub-agent stops within a few seconds of SIGTERM, whatever the hub's state: down before it
started, hung (it takes the request and never answers), or gone while it runs. Every setting
comes from the environment, as the README runs it."""

from __future__ import annotations

import os
import queue
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time

import pytest

from demo.fakejira import FakeJira
from tests.support import prepared_hub, start, stop, wait_for_line

# The hub's client is this module's subject, not the hub's engine: one engine will do (docs/architecture.md, Tests).
pytestmark = pytest.mark.backends("sqlite")

AGENT = shutil.which("hub-agent", path=os.path.dirname(sys.executable)) or "hub-agent"
# The requirement is "within a few seconds"; the bound is the brief's own, well above what it takes.
STOP_BOUND = 5.0


def closed_port() -> int:
    """A loopback port nothing listens on: a hub that is down."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def agent(hub_url: str, token: str, jira: FakeJira) -> subprocess.Popen:
    """``hub-agent run`` with every setting from the environment, its output read all along."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "HUB_URL": hub_url, "HUB_AGENT_TOKEN": token,
           "JIRA_URL": jira.url, "JIRA_TOKEN": jira.token, "HUB_AGENT_ID": "agent-stop"}
    proc = subprocess.Popen([AGENT, "run"], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    proc.lines = queue.Queue()

    def drain():
        for line in proc.stdout:
            proc.lines.put(line)
        proc.lines.put(None)

    threading.Thread(target=drain, daemon=True).start()
    return proc


def stopped_within(proc: subprocess.Popen, bound: float) -> tuple[int, float]:
    sent = time.monotonic()
    proc.send_signal(signal.SIGTERM)
    try:
        code = proc.wait(timeout=bound)
    finally:
        if proc.poll() is None:
            proc.kill()
    return code, time.monotonic() - sent


def test_the_agent_exits_at_once_on_sigterm_while_the_hub_is_down():
    jira = FakeJira().start()
    try:
        proc = agent(f"http://127.0.0.1:{closed_port()}", "an-agent-token", jira)
        # It reached Jira and now retries the hub, which is down: the wait a stop used to sit out.
        wait_for_line(proc, r"hub unreachable: .*trying again")
        code, took = stopped_within(proc, STOP_BOUND)
    finally:
        jira.stop()
    assert code == 0 and took < STOP_BOUND


def test_the_agent_exits_at_once_on_sigterm_while_the_hub_takes_its_request_and_never_answers():
    jira = FakeJira().start()
    # A hub that is hung: the kernel completes the connection (the backlog), nothing ever answers.
    with socket.socket() as hung:
        hung.bind(("127.0.0.1", 0))
        hung.listen(8)
        try:
            proc = agent(f"http://127.0.0.1:{hung.getsockname()[1]}", "an-agent-token", jira)
            # Its start has asked Jira and now waits on the hub's answer to its heartbeat.
            hung.settimeout(30)
            connection, _ = hung.accept()
            with connection:
                code, took = stopped_within(proc, STOP_BOUND)
        finally:
            jira.stop()
    assert code == 0 and took < STOP_BOUND


def test_the_agent_exits_at_once_on_sigterm_after_the_hub_it_ran_against_stopped(tmp_path, database_url):
    agent_token, _ = prepared_hub(tmp_path / "data", database_url)
    jira = FakeJira().start()
    hub = start("serve", data_dir=tmp_path / "data", database_url=database_url)
    try:
        url = wait_for_line(hub, r"serving on (http://\S+)").group(1)
        proc = agent(url, agent_token, jira)
        wait_for_line(proc, r"running as agent-stop")
        assert stop(hub) == 0
        wait_for_line(proc, r"hub unreachable: .*trying again")
        code, took = stopped_within(proc, STOP_BOUND)
    finally:
        jira.stop()
        if hub.poll() is None:
            stop(hub)
    assert code == 0 and took < STOP_BOUND

