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

Then the same full refresh at ``--issues`` and at ``--scale`` issues (25,000), each in a hub of its
own, with the demo Jira refusing pages past 10,000 results as Data Center 9 does: the agent pages
by id, and the big scope must not be slower per issue. The demo Jira answers a page by id from
the scope's matches it keeps (Jira answers from its index), so its own cost per page does not
grow with the scope; what could is the agent's and the hub's. Target: the big scope's rate ≥ 0.9 of the
small one's (best of ``--rounds`` each, the two alternating); the Jira requests per 1,000 issues are printed beside it.
``--scale 0`` leaves it out.

    python bench/refresh.py [--issues 2000] [--rounds 3] [--scale 25000]
"""

from __future__ import annotations

import argparse
import gc
import json
import re
import subprocess
import sys
import time
import urllib.request
from contextlib import ExitStack

import httpx
import orjson

from agent.jira_client import SEARCH_FIELDS
from bench.figures import verdict
from bench.server import ScratchHub
from demo.fakejira import FakeJira
from demo.sample import sample_project

TARGET = 0.5
SCALE_TARGET = 0.9  # the big scope's issues/s against the small one's
WINDOW = 10_000  # Data Center's default jira.search.platform.max.result.window
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


def started(scratch: ScratchHub, issues: int, window: int | None = None) -> tuple[FakeJira, int, str,
                                                                                  subprocess.Popen]:
    """The demo Jira with ``issues`` sample issues, a hub in ``scratch`` with the scope set, and
    ``hub-agent`` running against both: ``(jira, port, interface token, agent)``. The demo Jira
    answers pages ordered by id from the scope's kept matches, as Jira answers from its index, so its
    page costs the same at any scope size and the figures are the agent's and the hub's."""
    jira = sample_project(FakeJira(max_results=100, embedded=1000, max_result_window=window,
                                   indexed=True).start(), issues=issues)
    scratch.callback(jira.stop)
    # The demo Jira's issues are millions of objects that live as long as the run: left to the cyclic
    # collector, each full collection walks them all, which slowed its pages at 25,000 issues by half.
    gc.freeze()
    port, ui_token, agent = scratch.serve_with_agent(jira.url, jira.token)
    return jira, port, ui_token, agent


def scaled(sizes: tuple[int, ...], rounds: int) -> dict[int, tuple[float, float, float]]:
    """For each of ``sizes``, in a hub of its own against a demo Jira refusing pages past
    :data:`WINDOW`: the best issues/s of ``rounds`` full refreshes, and the Jira requests and search
    pages of a run per 1,000 issues. The sizes' rounds alternate, so a busy spell of the machine
    falls on both."""
    with ExitStack() as stack:
        worlds = {issues: started(stack.enter_context(ScratchHub(f"bench-agent-{issues}-")), issues, WINDOW)
                  for issues in sizes}
        rates: dict[int, list[float]] = {issues: [] for issues in sizes}
        counted: dict[int, tuple[float, float]] = {}
        for _ in range(rounds):
            for issues, (jira, port, ui_token, agent) in worlds.items():
                with jira.lock:
                    jira.requests.clear()
                rates[issues].append(mirror_rate(port, ui_token, agent, issues))
                with jira.lock:
                    pages = sum(1 for _m, path, body in jira.requests
                                if path == "/rest/api/2/search" and not body["jql"].startswith("key in"))
                    counted[issues] = (len(jira.requests) * 1000 / issues, pages * 1000 / issues)
        return {issues: (max(rates[issues]), *counted[issues]) for issues in sizes}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     epilog="example: python bench/refresh.py --issues 2000 --rounds 3 --scale 25000")
    parser.add_argument("--issues", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--scale", type=int, default=25_000,
                        help="issues of the big scope, against --issues with the 10,000 window (0: left out)")
    args = parser.parse_args()
    with ScratchHub("bench-agent-") as scratch:
        jira, port, ui_token, agent = started(scratch, args.issues)
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
    if args.scale:
        print(f"\nfull refresh paged by id, Jira refusing pages past {WINDOW:,} results; best of {args.rounds}")
        print(f"{'':<16} {'issues/s':>9} {'Jira requests':>14} {'search pages':>13}  (per 1,000 issues)")
        figures = scaled((args.issues, args.scale), args.rounds)
        for issues, (rate, requests, pages) in figures.items():
            print(f"{f'{issues:,} issues':<16} {rate:9.0f} {requests:14.1f} {pages:13.1f}")
        ratio = figures[args.scale][0] / figures[args.issues][0]
        print(f"ratio {args.scale:,} to {args.issues:,} issues {ratio:5.2f}"
              f" {verdict(ratio >= SCALE_TARGET, f'>= {SCALE_TARGET}', 'UNDER TARGET')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
