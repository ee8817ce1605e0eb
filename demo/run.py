"""``make demo``: a hub, the demo Jira and hub-agent on loopback, one full refresh and one attachment
fetch, a summary, then everything stops. Shows a newcomer the whole flow in under a minute.

``make demo-keep`` (``demo/run.py --keep``) keeps the three running after the summary, for browsing:
it prints the web interface's address and an interface token, and stops them all on Ctrl-C or SIGTERM
(exit status 0), leaving nothing behind."""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

from demo.fakejira import FakeJira
from demo.sample import BOARD, WRITER, sample_project

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


class Stop(BaseException):
    """SIGTERM, raised into the main thread as Ctrl-C's KeyboardInterrupt is: everything started is stopped."""


def stop_on_sigterm(signum, frame):
    raise Stop()


def browse(url: str, ui_token: str) -> None:
    """Keep everything running until Ctrl-C or SIGTERM, saying where to look and with which token."""
    print(f"\nThe demo keeps running. Open {url}/ and sign in with this interface token:\n  {ui_token}",
          flush=True)
    print(f"Or: curl -H 'Authorization: Bearer {ui_token}' '{url}/api/v1/issues?limit=5'", flush=True)
    print("Ctrl-C stops the hub, the agent and the demo Jira.", flush=True)
    while True:
        signal.pause()  # each signal's handler raises out of here; any other signal is waited past


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="demo/run.py", description="A hub, the demo Jira and hub-agent on loopback: a refresh, a fetch, "
                                        "a summary.",
        epilog="example:\n  python demo/run.py --keep    # then browse the URL it prints; Ctrl-C ends it",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--keep", action="store_true",
                        help="keep the hub, the agent and the demo Jira running after the summary, until Ctrl-C")
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, stop_on_sigterm)
    try:
        return run(keep=args.keep)
    except (Stop, KeyboardInterrupt):
        print("demo stopped", flush=True)
        return 0


def run(keep: bool) -> int:
    work = Path(tempfile.mkdtemp(prefix="sdlc-hub-demo-"))
    data_dir = work / "data"
    processes: list[subprocess.Popen] = []
    jira = FakeJira().start()
    try:
        sample_project(jira)
        # The agent writes as one of the team, so what the page writes carries a teammate's name.
        jira_token = "pat-demo-writer"
        jira.user_tokens[jira_token] = WRITER
        hub_cli(data_dir, "migrate")
        agent_token = hub_cli(data_dir, "token", "add", "demo-agent", "--role", "agent")
        ui_token = hub_cli(data_dir, "token", "add", "demo-ui", "--role", "interface")
        hub_cli(data_dir, "scope", "set", "project = AURORA")
        hub_cli(data_dir, "project", "add", "AWPCA", "--name", "Aurora", "--board-id", str(BOARD),
                "--board-type", "scrum")
        env = {**os.environ, "HUB_DATA_DIR": str(data_dir), "HUB_PORT": "0", "PYTHONUNBUFFERED": "1"}
        hub = subprocess.Popen([str(BIN / "hub"), "serve"], env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
        processes.append(hub)
        url = line(hub, r"serving on (http://\S+)").group(1)
        # Read its log (a line per request) all along: a full pipe would stall it.
        threading.Thread(target=hub.stdout.read, daemon=True).start()
        # Its settings by the environment, as the README runs it: a command line is visible to everyone.
        agent = subprocess.Popen([str(BIN / "hub-agent"), "run"],
                                 env={**os.environ, "PYTHONUNBUFFERED": "1", "HUB_URL": url,
                                      "HUB_AGENT_TOKEN": agent_token, "JIRA_URL": jira.url,
                                      "JIRA_TOKEN": jira_token, "HUB_AGENT_ID": "demo-agent"},
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        processes.append(agent)
        line(agent, r"running as")
        threading.Thread(target=agent.stdout.read, daemon=True).start()
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
        kinds = ", ".join(f"{kind} {n}" for kind, n in db.execute(
            "SELECT issue_type, count(*) FROM issue WHERE neighbor = 0 GROUP BY issue_type ORDER BY 2 DESC"))
        active = db.execute("SELECT s.name, count(*) FROM sprint s JOIN issue_sprint i USING (sprint_id)"
                            " WHERE s.state = 'active' GROUP BY s.name").fetchone()
        print(f"  {kinds}; active sprint {active[0] if active else '(none)'}"
              f" with {active[1] if active else 0} issues, on board {BOARD} (scrum)")
        db.close()
        print(f"fetch of attachment 31337: {fetch['status']} in {fetch_seconds:.2f} s, {len(content)} bytes,"
              f" sha256 {hashlib.sha256(content).hexdigest()}")
        worked = refresh["status"] == fetch["status"] == "done"
        if keep and worked:
            browse(url, ui_token)
        return 0 if worked else 1
    finally:
        # A second Ctrl-C or SIGTERM must not cut the stopping short and leave a process behind.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
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
