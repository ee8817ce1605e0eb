"""Issues mirrored per second end to end (demo Jira → hub-agent → hub) against the demo Jira's own
serving rate for the same search pages, measured in the same run. Target: ratio ≥ 0.5 — the agent
and the hub together should cost no more than Jira itself.

The demo Jira (the tests' fake) holds ``--issues`` issues with comments, changes and links; it
embeds every comment and history in search, so the agent needs nothing but the search pages and the
neighbour batches. The baseline asks the same pages (same JQL, fields, ``expand``, page size) in a
loop with one keep-alive client that decodes each page with the agent's decoder, as any consumer of
the pages must; the same pages read but not decoded are printed beside it. The measured run is a
full refresh, from enqueue to the agent's log line that the hub accepted its ``done``. Each figure
is the best of ``--rounds`` rounds, the three alternating.

    python bench/refresh.py [--issues 2000] [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import httpx
import orjson

from agent.jira_client import SEARCH_FIELDS
from bench.figures import verdict
from bench.server import ScratchHub, hub_command
from demo.fakejira import FakeJira, sample_project

TARGET = 0.5
AGENT = str(Path(sys.executable).parent / "hub-agent")
JQL = 'project = AURORA AND labels in ("AWPCA") ORDER BY key ASC'


def jira_rate(jira: FakeJira, issues: int, decoded: bool) -> float:
    """Issues per second the demo Jira serves for the refresh's search pages, to a client that reads
    each page whole and, with ``decoded``, decodes it as the agent does (any consumer must)."""
    fields = SEARCH_FIELDS  # the agent's own: every field
    with httpx.Client(base_url=jira.url, headers={"Authorization": f"Bearer {jira.token}"}) as client:
        started = time.perf_counter()
        for start in range(0, issues, 100):
            response = client.post("/rest/api/2/search", json={"jql": JQL, "startAt": start, "maxResults": 100,
                                                               "fields": fields, "expand": ["changelog"]})
            if response.status_code != 200:
                raise SystemExit(f"the demo Jira answered {response.status_code}")
            if decoded:
                orjson.loads(response.content)
        return issues / (time.perf_counter() - started)


def api(port: int, token: str, path: str, body=None) -> dict:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=data,
                                     method="POST" if data else "GET",
                                     headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as resp:
        return json.loads(resp.read())


def mirror_rate(port: int, token: str, agent: subprocess.Popen, issues: int) -> float:
    """Issues per second of one full refresh, from enqueue to the agent's log line that the hub
    accepted its ``done`` (read as it is written: polling the hub would cost the hub CPU)."""
    started = time.perf_counter()
    command = api(port, token, "/api/v1/commands", {"type": "refresh"})
    finished = re.compile(rf"command {command['id']}(: refresh done| failed)")
    while not finished.search(line := agent.stdout.readline()):
        if not line:
            raise SystemExit("hub-agent ended during the refresh")
    elapsed = time.perf_counter() - started
    state = api(port, token, f"/api/v1/commands/{command['id']}")
    if state["status"] != "done":
        raise SystemExit(f"the refresh failed: {state['error']}")
    return issues / elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--issues", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with ScratchHub("bench-agent-") as scratch:
        jira = sample_project(FakeJira(max_results=100, embedded=1000).start(), issues=args.issues)
        scratch.callback(jira.stop)
        agent_token = scratch.token("agent", "agent")
        ui_token = scratch.token("ui", "interface")
        hub_command(scratch.data_dir, "scope", "set", "project = AURORA")
        hub_command(scratch.data_dir, "project", "add", "AWPCA", "--name", "Bench")
        port = scratch.serve()
        agent = subprocess.Popen([AGENT, "run", "--hub", f"http://127.0.0.1:{port}", "--token", agent_token,
                                  "--jira", jira.url, "--jira-token", jira.token, "--agent-id", "bench"],
                                 env={**os.environ, "PYTHONUNBUFFERED": "1"}, stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT, text=True)
        scratch.callback(end, agent)
        while not re.search(r"running as", agent.stdout.readline() or "ended"):
            if agent.poll() is not None:
                raise SystemExit("hub-agent ended before running")
        jira_rate(jira, args.issues, decoded=True)  # warm up: code paths run once
        served, decoded, measured = [], [], []
        for _ in range(args.rounds):
            served.append(jira_rate(jira, args.issues, decoded=False))
            decoded.append(jira_rate(jira, args.issues, decoded=True))
            measured.append(mirror_rate(port, ui_token, agent, args.issues))
        base, bytes_only, rate = max(decoded), max(served), max(measured)
        print(f"{args.issues} issues (comments, changes, links), pages of 100; best of {args.rounds} rounds")
        print(f"{'demo Jira search pages (baseline)':<44} {base:8.0f} issues/s")
        print(f"{'  the same pages read but not decoded':<44} {bytes_only:8.0f} issues/s")
        print(f"{'full refresh, Jira → agent → hub':<44} {rate:8.0f} issues/s")
        ratio = rate / base
        print(f"ratio to baseline {ratio:5.2f} {verdict(ratio >= TARGET, f'>= {TARGET}', 'UNDER TARGET')};"
              f" to the pages not decoded {rate / bytes_only:5.2f}")
    return 0


def end(process: subprocess.Popen) -> None:
    process.terminate()
    process.wait(timeout=60)


if __name__ == "__main__":
    sys.exit(main())
