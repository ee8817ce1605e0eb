"""State ingest through a real hub, against raw ``sqlite3`` inserting the same rows.

Starts ``hub serve --no-worker`` on a scratch data dir and sends ``--pages``
pages of ``--issues`` rich issues (1 KB description, 3 comments, 2 links, 2
attachments, 5 changes each) as one refresh's state pages over HTTP, bodies
encoded beforehand; and inserts the same rows into a fresh hub database with
raw ``sqlite3`` (the hub's pragmas, one transaction per page, ``executemany``
per table). Both are measured in the same run and printed as issues per
second, with their ratio (target >= 0.3). The rounds alternate between the
two; each figure is the best of ``--repeat`` rounds, so that a hiccup of the
machine does not decide it.

    python bench/ingest.py [--issues 100] [--pages 20] [--repeat 5]
"""

from __future__ import annotations

import argparse
import http.client
import json
import shutil
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

from bench.figures import verdict
from bench.page import rich_issue
from bench.server import hub_command, serve, stop

TARGET = 0.3
# The tables a state page writes, with the columns in the order rows_of gives them.
COLUMNS = {
    "issue": "issue (key, id, issue_type, summary, description, status, priority, assignee, "
             "reporter, duedate, planned_start, planned_end, epic_key, labels, sprint, "
             "jira_updated, fetched_at, neighbor, created)",
    "issue_link": "issue_link (source_key, target_key, link_type)",
    "issue_comment": "issue_comment (key, comment_id, author, created, updated, body, created_at)",
    "issue_attachment": "issue_attachment (attachment_id, key, filename, size, mime_type, author, "
                        "created, created_at)",
    "issue_change": "issue_change (key, history_id, item_no, author, created, created_at, field, "
                    "field_type, from_value, from_string, to_value, to_string)",
}


def pages_of(count: int, size: int, first: int) -> list[list[dict]]:
    """``count`` pages of ``size`` rich issues, keys numbered from ``first``."""
    return [[rich_issue(f"X-{n}", n) for n in range(start, start + size)]
            for start in range(first, first + count * size, size)]


class Agent:
    """One keep-alive HTTP connection with a token."""

    def __init__(self, port: int, token: str):
        self._conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        self._headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}

    def post(self, path: str, body: bytes) -> dict:
        self._conn.request("POST", path, body=body, headers=self._headers)
        resp = self._conn.getresponse()
        data = resp.read()
        if resp.status not in (200, 201):
            raise SystemExit(f"POST {path}: {resp.status} {data[:300]!r}")
        return json.loads(data)

    def close(self) -> None:
        self._conn.close()


class ThroughHttp:
    """State pages sent to a hub served on ``data_dir``, one refresh per round."""

    def __init__(self, data_dir: Path):
        hub_command(data_dir, "migrate")
        agent_token = hub_command(data_dir, "token", "add", "agent", "--role", "agent").strip()
        ui_token = hub_command(data_dir, "token", "add", "ui", "--role", "interface").strip()
        self._proc, port = serve(data_dir)
        self._ui, self._agent = Agent(port, ui_token), Agent(port, agent_token)

    def round(self, pages: list[list[dict]]) -> float:
        """Seconds to send ``pages``, bodies encoded beforehand."""
        command = self._ui.post("/api/v1/commands", json.dumps(
            {"type": "refresh", "params": {"jql": "project = BENCH"}}).encode())
        self._agent.post("/agent/v1/claim", json.dumps({"agent_id": "bench", "version": 14}).encode())
        path = f"/agent/v1/commands/{command['id']}/state"
        bodies = [json.dumps({"agent_id": "bench", "issues": page}).encode() for page in pages]
        started = time.perf_counter()
        for body in bodies:
            self._agent.post(path, body)
        elapsed = time.perf_counter() - started
        self._agent.post(f"/agent/v1/commands/{command['id']}/done",
                         json.dumps({"agent_id": "bench", "result": {"total": 0}}).encode())
        return elapsed

    def close(self) -> None:
        self._ui.close()
        self._agent.close()
        stop(self._proc)


def rows_of(page: list[dict], now: str) -> dict[str, list[tuple]]:
    """The rows of every table that ``page`` gives, as the hub stores them."""
    issues, links, comments, attachments, changes = [], [], [], [], []
    for state in page:
        key = state["key"]
        issues.append((key, state["id"], state["issue_type"], state["summary"], state["description"],
                       state["status"], state["priority"], state["assignee"], state["reporter"],
                       state["duedate"], None, None, None, json.dumps(state["labels"]),
                       state["sprint"], state["updated"], now, 0, state["created"]))
        for link in state["links"]:
            links.append((key, link["outward"], link["type"]) if "outward" in link
                         else (link["inward"], key, link["type"]))
        comments += [(key, c["id"], c["author"], c["created"], c["updated"], c["body"], now)
                     for c in state["comments"]]
        attachments += [(a["id"], key, a["filename"], a["size"], a["mime_type"], a["author"],
                         a["created"], now) for a in state["attachments"]]
        changes += [(key, change["id"], n, change["author"], change["created"], now, item["field"],
                     item["field_type"], item["from"], item["from_string"], item["to"], item["to_string"])
                    for change in state["changes"] for n, item in enumerate(change["items"])]
    return {COLUMNS["issue"]: issues, COLUMNS["issue_link"]: links,
            COLUMNS["issue_comment"]: comments, COLUMNS["issue_attachment"]: attachments,
            COLUMNS["issue_change"]: changes}


class ThroughSqlite:
    """The same rows inserted by raw sqlite3 into a fresh hub database."""

    def __init__(self, data_dir: Path):
        hub_command(data_dir, "migrate")
        self._conn = sqlite3.connect(data_dir / "hub.sqlite", isolation_level=None)
        self._conn.execute("PRAGMA journal_mode = wal")
        self._conn.execute("PRAGMA synchronous = normal")

    def round(self, pages: list[list[dict]]) -> float:
        """Seconds to insert the rows of ``pages``: one transaction per page."""
        for table in COLUMNS:
            self._conn.execute(f"DELETE FROM {table}")
        now = "2026-11-02T09:00:00+00:00"
        started = time.perf_counter()
        for page in pages:
            self._conn.execute("BEGIN IMMEDIATE")
            for table, rows in rows_of(page, now).items():  # "table (columns)": rows
                marks = ", ".join("?" * len(rows[0]))
                self._conn.executemany(f"INSERT OR REPLACE INTO {table} VALUES ({marks})", rows)
            self._conn.execute("COMMIT")
        return time.perf_counter() - started

    def close(self) -> None:
        self._conn.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--issues", type=int, default=100, help="issues per page (default 100)")
    parser.add_argument("--pages", type=int, default=20, help="pages per round (default 20)")
    parser.add_argument("--repeat", type=int, default=5, help="rounds per figure, best kept")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="hub-bench-ingest-"))
    raw = hub = None
    best_raw = best_hub = 0.0
    try:
        raw, hub = ThroughSqlite(work / "raw"), ThroughHttp(work / "hub")
        # Rounds alternate, so that both figures see the machine as it is;
        # the first round of each warms up. Each HTTP round loads new keys.
        for n in range(args.repeat + 1):
            pages = pages_of(args.pages, args.issues, 1 + n * args.pages * args.issues)
            raw_rate = args.pages * args.issues / raw.round(pages)
            hub_rate = args.pages * args.issues / hub.round(pages)
            if n:
                best_raw, best_hub = max(best_raw, raw_rate), max(best_hub, hub_rate)
    finally:
        for side in (raw, hub):
            if side is not None:
                side.close()
        shutil.rmtree(work, ignore_errors=True)
    ratio = best_hub / best_raw
    print(f"{args.pages} pages of {args.issues} rich issues; best of {args.repeat} rounds")
    print(f"{'raw sqlite3, executemany (baseline)':<44} {best_raw:9.0f} issues/s")
    print(f"{'POST /agent/v1/commands/{id}/state':<44} {best_hub:9.0f} issues/s")
    print(f"ratio {ratio:.2f} {verdict(ratio >= TARGET, f'>= {TARGET}', 'UNDER TARGET')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
