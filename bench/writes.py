"""A write from the API's 202 to ``done``, beside a one-issue refresh through the same path, and the
Jira requests each operation costs beside the fewest Jira needs.

A hub served on loopback, the demo Jira (the tests' fake) holding ``--issues`` issues, and
``hub-agent`` long-polling for work (``--claim-wait`` 30 s, its default). Each round asks for a
comment on an issue (``POST /api/v1/issues/{key}/comments``) and, as the baseline, a refresh of one
issue (``POST /api/v1/commands`` with ``key = …``); each is timed from the hub's answer (202 or 201)
to the agent's log line that the hub took its ``done``, read as it is written (polling the hub would
cost the hub CPU). Both travel the same path: the enqueue wakes the waiting claim, the agent asks
Jira, sends the issue's state page and reports ``done``; the write also posts the comment. Target:
the write's p50 ≤ 1.5x the refresh's.

Then one write of each operation, counting the Jira requests the agent made for it, beside the
fewest Jira needs for it: the write's own request and the issue's fresh state (one search).
Target: at most one request over the minimum — the base a transition or an edit is checked
against (one GET, which for a transition also lists the transitions open), or a work log's
marker, a property Jira takes only once the work log exists (a PUT after the POST).

    python bench/writes.py [--issues 50] [--rounds 40]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time
import urllib.request

from bench.figures import verdict
from bench.server import ScratchHub, hub_command
from demo.fakejira import FakeJira

TARGET = 1.5
# The fewest Jira requests each operation needs: its own, and the issue's fresh state (a search).
MINIMUM = {"comment": 2, "edit_comment": 2, "transition": 2, "edit": 2, "log_work": 2, "create_issue": 2,
           "link": 2, "remove_link": 2, "attach": 2}
# Requests the agent makes on its own, whatever it runs: the probe of an idle agent's heartbeat.
OWN = re.compile(r"/rest/api/2/(myself|serverInfo)$")
SHOW = bool(os.environ.get("BENCH_SHOW_REQUESTS"))


def request(port: int, token: str, method: str, path: str, body=None, *, raw: bytes | None = None,
            content_type: str = "application/json") -> dict:
    data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=data, method=method,
                                 headers={"Authorization": f"Bearer {token}", "Content-Type": content_type})
    with urllib.request.urlopen(req, timeout=60) as resp:
        return json.loads(resp.read() or b"{}")


def until_logged(agent: subprocess.Popen, pattern: re.Pattern) -> str:
    """The agent's next log line matching ``pattern`` (lines before it are passed over)."""
    while True:
        line = agent.stdout.readline()  # type: ignore[union-attr]
        if not line:
            raise SystemExit("hub-agent ended")
        if pattern.search(line):
            return line


def timed_write(port: int, token: str, agent: subprocess.Popen, method: str, path: str, body=None,
                **kwargs) -> tuple[float, dict]:
    """Seconds from a write's 202 to its agent's ``done``, and the write as it ended."""
    write = request(port, token, method, path, body, **kwargs)
    answered = time.perf_counter()
    line = until_logged(agent, re.compile(rf"write {write['id']} \(.*\) (done|failed|conflict)\b"))
    elapsed = time.perf_counter() - answered
    ended = request(port, token, "GET", f"/api/v1/writes/{write['id']}")
    if ended["status"] != "done":
        raise SystemExit(f"write {write['id']} ended {ended['status']}: {ended['error'] or ended['conflict']}"
                         f" ({line.strip()})")
    return elapsed, ended


def timed_refresh(port: int, token: str, agent: subprocess.Popen, key: str) -> float:
    """Seconds from a one-issue refresh's 201 to its agent's ``done``."""
    command = request(port, token, "POST", "/api/v1/commands", {"type": "refresh", "params": {"jql": f"key = {key}"}})
    answered = time.perf_counter()
    until_logged(agent, re.compile(rf"command {command['id']}: refresh (done|failed)"))
    return time.perf_counter() - answered


def jira_requests(jira: FakeJira, run) -> tuple[int, object]:
    """The Jira requests ``run()`` made (the agent's own probes left out), and what it returned."""
    with jira.lock:
        jira.requests.clear()
    result = run()
    with jira.lock:
        made = [(method, path) for method, path, _body in jira.requests if not OWN.search(path)]
    if SHOW:
        print("   ", made)
    return len(made), result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     epilog="example: python bench/writes.py --issues 50 --rounds 40")
    parser.add_argument("--issues", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=40, help="writes and refreshes timed, each")
    args = parser.parse_args()
    # Jira Server embeds an issue's whole changelog and comments in a search (as bench/refresh.py has it).
    jira = FakeJira(max_results=100, embedded=1000).start()
    for n in range(1, args.issues + 1):
        jira.add_issue(f"AURORA-{n}", labels=["AWPCA"], status="Open")
    with ScratchHub("bench-writes-") as scratch:
        scratch.callback(jira.stop)
        port, ui_token, agent = scratch.serve_with_agent(jira.url, jira.token)
        writer = hub_command(scratch.data_dir, "token", "add", "writer", "--role", "interface", "--write").strip()
        full = request(port, ui_token, "POST", "/api/v1/commands", {"type": "refresh"})
        until_logged(agent, re.compile(rf"command {full['id']}: refresh done"))

        writes, refreshes = [], []
        for n in range(args.rounds):
            key = f"AURORA-{n % args.issues + 1}"
            writes.append(timed_write(port, writer, agent, "POST", f"/api/v1/issues/{key}/comments",
                                      {"body": f"bench comment {n}"})[0])
            refreshes.append(timed_refresh(port, ui_token, agent, key))
        p50, base50 = statistics.median(writes), statistics.median(refreshes)
        p95 = statistics.quantiles(writes, n=20)[-1]
        base95 = statistics.quantiles(refreshes, n=20)[-1]
        print(f"{args.rounds} writes and as many one-issue refreshes, alternating; the agent long-polling")
        print(f"{'one-issue refresh (baseline)':<36} p50 {base50 * 1000:7.1f} ms   p95 {base95 * 1000:7.1f} ms")
        print(f"{'comment, 202 to done':<36} p50 {p50 * 1000:7.1f} ms   p95 {p95 * 1000:7.1f} ms")
        ratio = p50 / base50
        print(f"ratio of p50s {ratio:5.2f} {verdict(ratio <= TARGET, f'<= {TARGET}')}")

        costs = per_operation(jira, port, writer, agent)
        print(f"\n{'operation':<14} {'Jira requests':>14} {'minimum':>8}")
        worst = 0
        for op, count in costs.items():
            worst = max(worst, count - MINIMUM[op])
            print(f"{op:<14} {count:14d} {MINIMUM[op]:8d}  {verdict(count <= MINIMUM[op] + 1, '<= minimum + 1')}")
        print(f"at most {worst} over the minimum {verdict(worst <= 1, '<= 1')}")
    return 0


def per_operation(jira: FakeJira, port: int, token: str, agent: subprocess.Popen) -> dict[str, int]:
    """The Jira requests one write of each operation made."""
    def write(method: str, path: str, body=None, **kwargs) -> dict:
        return timed_write(port, token, agent, method, path, body, **kwargs)[1]

    key, other = "AURORA-1", "AURORA-2"
    costs: dict[str, int] = {}
    costs["comment"], made = jira_requests(jira, lambda: write("POST", f"/api/v1/issues/{key}/comments",
                                                                {"body": "to be edited"}))
    comment_id = made["result"]["comment_id"]  # type: ignore[index]
    costs["edit_comment"], _ = jira_requests(jira, lambda: write("PATCH", f"/api/v1/issues/{key}/comments/"
                                                                 f"{comment_id}", {"body": "edited"}))
    costs["transition"], _ = jira_requests(jira, lambda: write("POST", f"/api/v1/issues/{other}/transitions",
                                                               {"to": "In Progress"}))
    costs["edit"], _ = jira_requests(jira, lambda: write("PATCH", f"/api/v1/issues/{key}",
                                                         {"fields": {"summary": "Edited by the bench"}}))
    costs["log_work"], _ = jira_requests(jira, lambda: write("POST", f"/api/v1/issues/{key}/worklogs",
                                                             {"time_spent": "1h 30m"}))
    costs["create_issue"], _ = jira_requests(jira, lambda: write("POST", "/api/v1/issues", {
        "project": "AURORA", "issue_type": "Task", "summary": "Made by the bench"}))
    costs["link"], linked = jira_requests(jira, lambda: write("POST", f"/api/v1/issues/{key}/links",
                                                              {"type": "Blocks", "outward": other}))
    link_id = linked["result"]["link_id"]  # type: ignore[index]
    costs["remove_link"], _ = jira_requests(jira, lambda: write("DELETE", f"/api/v1/issues/{key}/links/{link_id}"))
    costs["attach"], _ = jira_requests(jira, lambda: write(
        "POST", f"/api/v1/issues/{key}/attachments?filename=notes.txt", raw=b"bench notes\n" * 100,
        content_type="text/plain"))
    return costs


if __name__ == "__main__":
    sys.exit(main())
