"""Jira requests a full refresh makes per 1,000 issues, beside the fewest it could make. Target:
ratio 1.00 — the agent asks Jira for nothing a minimal client would not.

The demo Jira (the tests' fake) holds ``--issues`` issues of the demo's sample project, as a team's
Jira holds them: custom fields by issue type, up to three sprints, worklogs, comments, changes,
links and a few neighbours. Search embeds ``--embedded`` entries of each comment, worklog and
changelog container (real Jira embeds 20 worklogs and 100 histories), so some lists are cut short.
The fewest requests possible are one search page per page size, one ``key in (…)`` search per 100
neighbours, one follow-up per cut-short list (a page of 100 for comments and worklogs), the six
reads each run makes once (``/field`` and the five catalogues), and each project's create screens
once a run (Jira 9 answers them only as ``createmeta/{project}/issuetypes`` and one request per issue
type: the fewest a client that knows them can make). The measured run is one full refresh
by ``hub-agent`` against a scratch hub, counted in the fake from the enqueue to the agent's done;
what the hub mirrored is checked against the fake (issues, worklogs, sprints) so a cheap run is not
a run that skipped work.

    python bench/jira_requests.py [--issues 2000] [--embedded 2]
"""

from __future__ import annotations

import argparse
import math
import re
import sqlite3
import subprocess
import sys
from collections import Counter
from pathlib import Path

from bench.figures import verdict
from bench.server import ScratchHub
from demo.fakejira import FakeJira
from demo.jirashapes import ISSUE_TYPES
from demo.sample import sample_project

PAGE = 100  # the agent's page size, and the neighbour batch
PER_RUN = 6  # /field and the five catalogues


def fewest(jira: FakeJira, keys: set[str], neighbours: set[str]) -> Counter:
    """The fewest requests a refresh of ``keys`` (and ``neighbours``) can make, by kind."""
    page = min(PAGE, jira.max_results)
    least = Counter({"search pages": math.ceil(len(keys) / page), "neighbour searches":
                     math.ceil(len(neighbours) / PAGE), "per run (/field, catalogues)": PER_RUN,
                     "create screens (per project)": len({key.split("-")[0] for key in keys}) * (1 + len(ISSUE_TYPES))})
    for key in keys | neighbours:
        issue = jira.issues[key]
        for name, listed in (("comment", issue["fields"]["comment"]["comments"]),
                             ("worklog", issue["fields"]["worklog"]["worklogs"])):
            if len(listed) > jira.embedded:
                least[f"{name} follow-ups"] += math.ceil(len(listed) / min(100, jira.max_results))
        if len(issue["changelog"]["histories"]) > jira.embedded:
            least["changelog follow-ups"] += 1
    return least


def made(jira: FakeJira) -> Counter:
    """The requests the fake answered, by the same kinds."""
    counts: Counter = Counter()
    for _method, path, body in jira.requests:
        if path == "/rest/api/2/search":
            counts["neighbour searches" if body["jql"].startswith("key in") else "search pages"] += 1
        elif path.startswith("/rest/api/2/issue/createmeta"):
            counts["create screens (per project)"] += 1
        elif path.endswith("/comment") or path.endswith("/worklog"):
            counts[f"{path.rsplit('/', 1)[1]} follow-ups"] += 1
        elif path.startswith("/rest/api/2/issue/"):
            counts["changelog follow-ups"] += 1
        else:
            counts["per run (/field, catalogues)"] += 1
    return counts


def refresh(port: int, token: str, agent: subprocess.Popen) -> None:
    """One full refresh, enqueued with the hub's CLI-made token, to the agent's log line of its done."""
    import json
    import urllib.request

    request = urllib.request.Request(f"http://127.0.0.1:{port}/api/v1/commands", method="POST",
                                     data=json.dumps({"type": "refresh"}).encode(),
                                     headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as resp:
        command = json.loads(resp.read())
    finished = re.compile(rf"command {command['id']}(: refresh done| failed)")
    while not (match := finished.search(line := agent.stdout.readline())):
        if not line:
            raise SystemExit("hub-agent ended during the refresh")
    if "failed" in match.group(1):
        raise SystemExit(f"the refresh failed: {line.strip()}")


def mirrored(db: Path) -> tuple[int, int, int]:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return tuple(conn.execute(sql).fetchone()[0] for sql in (
            "SELECT count(*) FROM issue", "SELECT count(*) FROM issue_worklog",
            "SELECT count(*) FROM issue_sprint"))
    finally:
        conn.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--issues", type=int, default=2000)
    parser.add_argument("--embedded", type=int, default=2, help="entries search embeds per list (default 2)")
    args = parser.parse_args()
    with ScratchHub("bench-agent-requests-") as scratch:
        jira = sample_project(FakeJira(max_results=100, embedded=args.embedded).start(), issues=args.issues)
        scratch.callback(jira.stop)
        port, ui_token, agent = scratch.serve_with_agent(jira.url, jira.token)
        with jira.lock:
            jira.requests.clear()  # /myself and /field at start are the agent's, not the run's
        refresh(port, ui_token, agent)

        keys = {k for k in jira.issues if k.startswith("AURORA-")}
        neighbours = {k for k in jira.issues if not k.startswith("AURORA-")}
        least, counts = fewest(jira, keys, neighbours), made(jira)
        issues, worklogs, sprints = mirrored(scratch.data_dir / "hub.sqlite")
        want = (len(jira.issues), sum(len(i["fields"]["worklog"]["worklogs"]) for i in jira.issues.values()),
                sum(len(i["fields"].get("customfield_10100") or []) for i in jira.issues.values()))
        if (issues, worklogs, sprints) != want:
            raise SystemExit(f"the hub mirrored {issues} issues, {worklogs} worklogs, {sprints} issue sprints;"
                             f" Jira holds {want}")
        per = 1000 / args.issues
        print(f"{args.issues} issues ({want[1] / want[0]:.1f} worklogs, {want[2] / want[0]:.1f} sprints each on"
              f" average), {len(neighbours)} neighbours;"
              f" search embeds {args.embedded} per list; requests per 1,000 issues")
        print(f"{'':<32} {'made':>8} {'fewest':>8}")
        for kind in sorted(set(least) | set(counts)):
            print(f"{kind:<32} {counts[kind] * per:8.1f} {least[kind] * per:8.1f}")
        total, minimum = sum(counts.values()), sum(least.values())
        print(f"{'all':<32} {total * per:8.1f} {minimum * per:8.1f}")
        ratio = total / minimum
        print(f"ratio to the fewest {ratio:5.2f} {verdict(ratio <= 1.0, '1.00')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
