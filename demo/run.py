"""``make demo``: a hub, the demo Jira and hub-agent on loopback, one full refresh and one attachment
fetch, a summary, then everything stops. Shows a newcomer the whole flow in under a minute."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

from demo.fakejira import FakeJira, sample_project

BIN = Path(sys.executable).parent


def hub_cli(data_dir: Path, *args: str) -> str:
    env = {**os.environ, "HUB_DATA_DIR": str(data_dir)}
    return subprocess.run([str(BIN / "hub"), *args], env=env, check=True, capture_output=True,
                          text=True).stdout.strip()


def line(proc: subprocess.Popen, pattern: str) -> re.Match:
    for text in proc.stdout:
        match = re.search(pattern, text)
        if match:
            return match
    raise SystemExit(f"the process ended before printing {pattern!r}")


def api(url: str, token: str, path: str, body=None):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url + path, data=data, method="POST" if data else "GET",
                                     headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as resp:
        raw = resp.read()
        return raw if resp.headers.get_content_type() != "application/json" else json.loads(raw)


def finished(url: str, token: str, command_id: int) -> dict:
    while (command := api(url, token, f"/api/v1/commands/{command_id}"))["status"] not in ("done", "failed"):
        time.sleep(0.1)
    return command


def main() -> int:
    work = Path(tempfile.mkdtemp(prefix="sdlc-hub-demo-"))
    data_dir = work / "data"
    processes: list[subprocess.Popen] = []
    jira = FakeJira().start()
    try:
        sample_project(jira)
        hub_cli(data_dir, "migrate")
        agent_token = hub_cli(data_dir, "token", "add", "demo-agent", "--role", "agent")
        ui_token = hub_cli(data_dir, "token", "add", "demo-ui", "--role", "interface")
        hub_cli(data_dir, "scope", "set", "project = AURORA")
        hub_cli(data_dir, "project", "add", "AWPCA", "--name", "Demo project")
        env = {**os.environ, "HUB_DATA_DIR": str(data_dir), "HUB_PORT": "0", "PYTHONUNBUFFERED": "1"}
        hub = subprocess.Popen([str(BIN / "hub"), "serve"], env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
        processes.append(hub)
        url = line(hub, r"serving on (http://\S+)").group(1)
        # Read its log (a line per request) all along: a full pipe would stall it.
        threading.Thread(target=hub.stdout.read, daemon=True).start()
        agent = subprocess.Popen([str(BIN / "hub-agent"), "run", "--hub", url, "--token", agent_token,
                                  "--jira", jira.url, "--jira-token", jira.token, "--agent-id", "demo-agent"],
                                 env={**os.environ, "PYTHONUNBUFFERED": "1"}, stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT, text=True)
        processes.append(agent)
        line(agent, r"running as")
        print(f"hub on {url}, demo Jira on {jira.url}, agent demo-agent running")

        started = time.monotonic()
        refresh = finished(url, ui_token, api(url, ui_token, "/api/v1/commands", {"type": "refresh"})["id"])
        refresh_seconds = time.monotonic() - started
        started = time.monotonic()
        fetch = finished(url, ui_token, api(url, ui_token, "/api/v1/attachments/31337/fetch", {})["command_id"])
        content = api(url, ui_token, "/api/v1/attachments/31337/content")
        fetch_seconds = time.monotonic() - started

        db = sqlite3.connect(data_dir / "hub.sqlite")
        count = lambda sql: db.execute(sql).fetchone()[0]  # noqa: E731
        print(f"refresh: {refresh['status']} in {refresh_seconds:.2f} s, Jira total {refresh['result']['total']}")
        print(f"  issues {count('SELECT count(*) FROM issue WHERE neighbor = 0')},"
              f" neighbours {count('SELECT count(*) FROM issue WHERE neighbor = 1')},"
              f" links {count('SELECT count(*) FROM issue_link')},"
              f" comments {count('SELECT count(*) FROM issue_comment')},"
              f" changes {count('SELECT count(*) FROM issue_change')},"
              f" attachments {count('SELECT count(*) FROM issue_attachment')}")
        rich = count("SELECT count(*) FROM issue WHERE custom_fields != '{}'")
        link_types = count("SELECT count(*) FROM jira_catalogue WHERE kind = 'link_type'")
        print(f"  worklogs {count('SELECT count(*) FROM issue_worklog')},"
              f" sprints {count('SELECT count(*) FROM sprint')}, with custom fields {rich},"
              f" Jira users {count('SELECT count(*) FROM jira_user')}, link types {link_types}")
        db.close()
        print(f"fetch of attachment 31337: {fetch['status']} in {fetch_seconds:.2f} s, {len(content)} bytes,"
              f" sha256 {hashlib.sha256(content).hexdigest()}")
        return 0 if refresh["status"] == fetch["status"] == "done" else 1
    finally:
        for proc in reversed(processes):
            proc.terminate()
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
        jira.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
