"""How long one state page of rich issues takes, and so holds the write lock.

A page is applied in one write transaction; the limit on issues per page
(``MAX_PAGE_ISSUES``) is chosen so that a page of that many rich issues (1 KB
description, 3 comments, 2 links, 2 attachments, 5 changes), sent as matches
and again as many neighbours, stays well under a second. Prints the body size
and the p50 / max request time over ``--pages`` pages, on a mirror that
already holds ``--mirror`` issues. The request time bounds the lock time from
above: parsing and validation happen before the transaction.

    python bench/page.py [--issues 100] [--pages 20] [--mirror 20000]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

import falcon.testing

from hub import startup
from hub.api.app import create_app
from hub.assembly import build
from hub.config import Config

JIRA_TIME = "2026-10-22T13:05:11.000+0300"


def rich_issue(key: str, n: int) -> dict:
    """An issue as heavy as a busy one in Jira, with ids in Jira's shapes (numbers from 1,
    each attachment's its own)."""
    return {
        "key": key, "id": str(n + 1), "issue_type": "Story", "summary": f"Summary of {key}",
        "description": ("h1. Text " * 110)[:1024], "status": "In Progress", "priority": "Major",
        "assignee": "ivanov", "reporter": "petrov", "duedate": "2026-12-01", "labels": ["AWPCA"],
        "sprint": "AURORA Sprint 14", "created": JIRA_TIME, "updated": JIRA_TIME,
        "links": [{"type": "Blocks", "outward": f"Y-{n + 1}"}, {"type": "Relates", "inward": f"Y-{n + 2}"}],
        "comments": [{"id": f"{n + 1}0{c}", "author": "ivanov", "created": JIRA_TIME, "updated": JIRA_TIME,
                      "body": "A comment of some length. " * 8} for c in range(3)],
        "attachments": [{"id": f"{n + 1}0{a}", "filename": f"spec-{a}.pdf", "size": 48213,
                         "mime_type": "application/pdf", "author": "ivanov", "created": JIRA_TIME}
                        for a in range(2)],
        "changes": [{"id": f"{n + 1}0{h}", "author": "ivanov", "created": JIRA_TIME,
                     "items": [{"field": "status", "field_type": "jira", "from": "1",
                                "from_string": "Open", "to": "3", "to_string": "In Progress"}]}
                    for h in range(5)],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--issues", type=int, default=100)
    parser.add_argument("--pages", type=int, default=20)
    parser.add_argument("--mirror", type=int, default=20000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        config = Config(data_dir=Path(tmp) / "data")
        startup.prepare(config)
        built = build(config, lambda run_id: None)
        client = falcon.testing.TestClient(create_app(built))
        tokens = built.services.tokens
        agent = {"Authorization": f"Bearer {tokens.add('agent', 'agent')}"}
        ui = {"Authorization": f"Bearer {tokens.add('ui', 'interface')}"}
        command = client.simulate_post("/api/v1/commands", headers=ui,
                                       json={"type": "refresh", "params": {"jql": "x"}}).json
        client.simulate_post("/agent/v1/claim", headers=agent, json={"agent_id": "a", "version": 14})
        path = f"/agent/v1/commands/{command['id']}/state"
        # Fill the mirror first so that every index has its real size.
        for start in range(0, args.mirror, args.issues):
            page = [rich_issue(f"M-{n + 1}", n) for n in range(start, start + args.issues)]
            client.simulate_post(path, headers=agent, json={"issues": page})
        times, size = [], 0
        for p in range(args.pages):
            base = 10**6 + p * 2 * args.issues
            body = json.dumps({
                "issues": [rich_issue(f"X-{base + n}", base + n) for n in range(args.issues)],
                "neighbors": [rich_issue(f"N-{base + n}", base + args.issues + n)
                              for n in range(args.issues)]})
            size = len(body)
            started = time.monotonic()
            resp = client.simulate_post(path, headers={**agent, "Content-Type": "application/json"},
                                        body=body)
            times.append(time.monotonic() - started)
            assert resp.status_code == 200, resp.text
        print(f"{args.issues} issues + {args.issues} neighbours per page, {size / 1024:.0f} KiB: "
              f"p50 {statistics.median(times) * 1000:.0f} ms, max {max(times) * 1000:.0f} ms "
              f"(mirror of {args.mirror} issues)")


if __name__ == "__main__":
    main()
