"""State ingest through a real hub, against raw ``sqlite3`` inserting the same rows.

Starts ``hub serve --no-worker`` on a scratch data dir and sends ``--pages``
pages of ``--issues`` issues as rich as a real team's as one refresh's state
pages over HTTP (protocol v15), bodies encoded beforehand. Each issue has a
1 KB description, 3 comments, 2 links, 2 attachments and 5 changes (bench/page.py),
and the whole of a Jira issue beside them: 20 custom fields of mixed types as
an agent flattens them (numbers, text, options, lists, a cascading select,
users, dates, versions, a group), 3 sprints with every member, 3 worklogs,
components, fix and affected versions, resolution and its date, environment,
a parent, time tracking. The same rows are inserted into a fresh hub database
with raw ``sqlite3`` (the hub's pragmas, one transaction per page,
``executemany`` per table, the values the hub stores: UTC times, JSON columns,
custom fields' text; the raw side keeps no full-text index). Both are measured
in the same run and printed as issues per second, with their ratio (target
>= 0.4); beside them, raw ``sqlite3`` that also builds the full-text index from
the same view in the same transaction, as the loader does (what of the hub's
time the index takes), and the CPU time each side spent per 1,000 issues (the raw side's
process, the hub's process), which a machine shared with other work moves less
than the wall clock. The rounds alternate between the two; each figure is the
median of ``--repeat`` rounds (and the best beside it), so that a hiccup of the
machine does not decide it.

On PostgreSQL (``--postgres URL``, a superuser's URL to a server; without it the
bench starts a throw-away server as the tests do, devservers/postgres.py, and leaves
PostgreSQL out if none can be had) the same pages go over HTTP to ``hub serve`` on
a migrated database, and the same rows through raw psycopg (``executemany`` of
INSERTs per table, one transaction per page, into emptied tables), printed beside
the SQLite figures with their ratio (target >= 0.3). Beside them, the hub's loader
run in this process as a state report runs it (``MirrorService.load_page``, one
transaction per page, each round into an emptied mirror, then the search backlog
drained): what loading costs on PostgreSQL without the HTTP request and its JSON
around it. A round over HTTP ends when the search index holds every page (the served
hub computes a page's vectors after the page commits, on a thread of its own:
hub/services/search/fulltext_backlog.py); the verdict is on that
figure when the hub cannot be served on PostgreSQL (the line says why), and with
``--no-postgres-http``.

    python bench/ingest.py [--issues 100] [--pages 20] [--repeat 5] [--postgres URL]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson

from bench.figures import verdict
from bench.page import JIRA_TIME, rich_issue
from bench.server import KeepAlive, hub_command, serve, stop, throwaway_postgres
from hub.clock import jira_to_utc
from hub.services.mirror.loading import custom_text

TARGET = 0.4
POSTGRES_TARGET = 0.3
# The tables a state page writes, with the columns in the order rows_of gives them.
COLUMNS = {
    "issue": "issue (key, id, issue_type, summary, description, status, priority, assignee, "
             "reporter, duedate, planned_start, planned_end, epic_key, labels, sprint, "
             "jira_updated, jira_updated_at, fetched_at, neighbor, created, resolution, resolved, "
             "resolved_at, components, fix_versions, affects_versions, environment, parent_key, "
             "time_original_estimate, time_estimate, time_spent, custom_fields, custom_text)",
    "issue_link": "issue_link (source_key, target_key, link_type)",
    "issue_comment": "issue_comment (key, comment_id, author, created, updated, body, created_at)",
    "issue_attachment": "issue_attachment (attachment_id, key, filename, size, mime_type, author, "
                        "created, created_at)",
    "issue_change": "issue_change (key, history_id, item_no, author, created, created_at, field, "
                    "field_type, from_value, from_string, to_value, to_string)",
    "issue_worklog": "issue_worklog (key, worklog_id, author, started, started_at, time_spent, "
                     "comment, created, updated)",
    "issue_sprint": "issue_sprint (key, sprint_id)",
    "sprint": "sprint (sprint_id, name, state, start_date, end_date, complete_date, board_id, goal, "
              "updated_at)",
}
# A team's three latest sprints: every issue of the bench was in all of them.
SPRINTS = [{"id": 12 + s, "name": f"AURORA Sprint {12 + s}", "state": state,
            "start": f"2026-{9 + s:02d}-01T10:00:00.000+03:00", "end": f"2026-{9 + s:02d}-15T10:00:00.000+03:00",
            "complete": None if state == "active" else f"2026-{9 + s:02d}-15T11:30:00.000+03:00",
            "board_id": 3, "goal": f"Ship the {12 + s}th increment"}
           for s, state in enumerate(("closed", "closed", "active"))]
PLUGIN = "com.atlassian.jira.plugin.system.customfieldtypes:"
AGILE = "com.pyxis.greenhopper.jira:"


def custom_fields(n: int) -> dict:
    """20 custom fields as an agent sends them: display name, schema type, value flattened."""
    fields = [
        ("Story Points", "number", PLUGIN + "float", float(n % 13)),
        ("Epic Link", "any", AGILE + "gh-epic-link", f"AURORA-{n % 50 + 1}"),
        ("Team", "option", PLUGIN + "select", "Platform"),
        ("Severity", "option", PLUGIN + "radiobuttons", "S2 - Major"),
        ("Platforms", "array", PLUGIN + "multiselect", ["Linux", "Windows"]),
        ("Browsers", "array", PLUGIN + "multicheckboxes", ["Chromium", "Firefox"]),
        ("Site", "option-with-child", PLUGIN + "cascadingselect", {"parent": "EMEA", "child": "Berlin"}),
        ("Tester", "user", PLUGIN + "userpicker", "sidorov"),
        ("Reviewers", "array", PLUGIN + "multiuserpicker", ["ivanov", "petrov"]),
        ("Acceptance criteria", "string", PLUGIN + "textarea",
         "* The export keeps every field.\n* Nothing is lost on retry. " * 4),
        ("Root cause", "string", PLUGIN + "textfield", f"Timeout in the loader of X-{n}"),
        ("Target date", "date", PLUGIN + "datepicker", "2026-12-15"),
        ("Deployed", "datetime", PLUGIN + "datetime", JIRA_TIME),
        ("Found in build", "array", PLUGIN + "multiversion", ["2.2", "2.2.1"]),
        ("Owning group", "group", PLUGIN + "grouppicker", "aurora-developers"),
        ("Tags", "array", PLUGIN + "labels", ["backend", "performance"]),
        ("Business value", "number", PLUGIN + "float", 13),
        ("Customer page", "string", PLUGIN + "url", f"https://support.example.com/case/{n}"),
        ("Rank", "any", AGILE + "gh-lexo-rank", f"0|i{n:05x}:"),
        ("Flagged", "array", PLUGIN + "multicheckboxes", ["Impediment"]),
    ]
    return {f"customfield_{10100 + f}": {"name": name, "type": kind, "custom": custom, "value": value}
            for f, (name, kind, custom, value) in enumerate(fields)}


def whole_issue(key: str, n: int) -> dict:
    """:func:`rich_issue` with every field of protocol v15 a real team's issue has."""
    return {
        **rich_issue(key, n),
        "resolution": "Fixed", "resolved": JIRA_TIME, "components": ["Backend", "API"],
        "fix_versions": [{"id": "10201", "name": "2.3", "released": False, "release_date": "2026-12-20"}],
        "affects_versions": [{"id": "10200", "name": "2.2", "released": True, "release_date": "2026-09-30"}],
        "environment": "Linux x86_64, PostgreSQL 15, behind nginx 1.24; reproduced on staging. " * 2,
        "parent_key": f"Y-{n}" if n % 2 else None,
        "time_original_estimate": 28800, "time_estimate": 7200, "time_spent": 21600,
        "sprints": SPRINTS,
        "worklogs": [{"id": f"{n + 1}0{w}", "author": "ivanov", "started": JIRA_TIME, "time_spent": 7200,
                      "comment": "Worked on the loader.", "created": JIRA_TIME, "updated": JIRA_TIME}
                     for w in range(3)],
        "custom_fields": custom_fields(n),
    }


def pages_of(count: int, size: int, first: int) -> list[list[dict]]:
    """``count`` pages of ``size`` whole issues, keys numbered from ``first``."""
    return [[whole_issue(f"X-{n}", n) for n in range(start, start + size)]
            for start in range(first, first + count * size, size)]


class ThroughHttp:
    """State pages sent to a hub served on ``data_dir``, one refresh per round."""

    def __init__(self, data_dir: Path, database_url: str | None = None):
        self._database_url = database_url
        hub_command(data_dir, "migrate")
        agent_token = hub_command(data_dir, "token", "add", "agent", "--role", "agent").strip()
        ui_token = hub_command(data_dir, "token", "add", "ui", "--role", "interface").strip()
        self._proc, port = serve(data_dir)
        self._ui, self._agent = KeepAlive(port, ui_token), KeepAlive(port, agent_token)

    def round(self, pages: list[list[dict]]) -> tuple[float, float | None]:
        """Seconds to send ``pages`` (bodies encoded beforehand), and the CPU seconds the
        hub's process spent meanwhile (None where /proc does not tell)."""
        command = self._ui.post("/api/v1/commands", json.dumps(
            {"type": "refresh", "params": {"jql": "project = BENCH"}}).encode())
        self._agent.post("/agent/v1/claim", json.dumps({"agent_id": "bench", "version": 15}).encode())
        path = f"/agent/v1/commands/{command['id']}/state"
        # Encoded as the reference agent encodes its pages (agent/hub_client.py): compact UTF-8.
        bodies = [orjson.dumps({"agent_id": "bench", "issues": page}) for page in pages]
        cpu, started = _cpu_of(self._proc.pid), time.perf_counter()
        for body in bodies:
            self._agent.post(path, body)
        if self._database_url:
            _wait_until_indexed(self._database_url)
        elapsed = time.perf_counter() - started
        cpu_after = _cpu_of(self._proc.pid)
        self._agent.post(f"/agent/v1/commands/{command['id']}/done",
                         json.dumps({"agent_id": "bench", "result": {"total": 0}}).encode())
        return elapsed, None if cpu is None or cpu_after is None else cpu_after - cpu

    def close(self) -> None:
        self._ui.close()
        self._agent.close()
        stop(self._proc)


def _wait_until_indexed(url: str) -> None:
    """Until PostgreSQL's search index holds every page sent (the hub computes the vectors
    after each page commits, hub/services/search/fulltext_backlog.py): a round ends there."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        while conn.execute("SELECT EXISTS (SELECT FROM issue_fts_stale)").fetchone()[0]:
            time.sleep(0.002)


def _cpu_of(pid: int) -> float | None:
    """CPU seconds (user and system) process ``pid`` has spent, from /proc; None elsewhere."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _dumps(value: object) -> str:
    return orjson.dumps(value).decode()


def rows_of(page: list[dict], now: str, utc: dict[str, str | None]) -> dict[str, list[tuple]]:
    """The rows of every table that ``page`` gives, as the hub stores them (JSON columns
    in the same bytes); ``utc`` caches Jira times in UTC (a page repeats them)."""
    def at(value: str | None) -> str | None:
        if value is None:
            return None
        if value not in utc:
            utc[value] = jira_to_utc(value)
        return utc[value]

    issues, links, comments, attachments, changes, worklogs, in_sprints = [], [], [], [], [], [], []
    sprints: dict[int, tuple] = {}
    for state in page:
        key = state["key"]
        issues.append((key, state["id"], state["issue_type"], state["summary"], state["description"],
                       state["status"], state["priority"], state["assignee"], state["reporter"],
                       state["duedate"], None, None, None, _dumps(state["labels"]),
                       state["sprint"], state["updated"], at(state["updated"]), now, 0, state["created"],
                       state["resolution"], state["resolved"], at(state["resolved"]),
                       _dumps(state["components"]), _dumps(state["fix_versions"]),
                       _dumps(state["affects_versions"]), state["environment"], state["parent_key"],
                       state["time_original_estimate"], state["time_estimate"], state["time_spent"],
                       _dumps(state["custom_fields"]), custom_text(state["custom_fields"])))
        for link in state["links"]:
            links.append((key, link["outward"], link["type"]) if "outward" in link
                         else (link["inward"], key, link["type"]))
        comments += [(key, c["id"], c["author"], c["created"], c["updated"], c["body"], at(c["created"]))
                     for c in state["comments"]]
        attachments += [(a["id"], key, a["filename"], a["size"], a["mime_type"], a["author"],
                         a["created"], at(a["created"])) for a in state["attachments"]]
        changes += [(key, change["id"], n, change["author"], change["created"], at(change["created"]),
                     item["field"], item["field_type"], item["from"], item["from_string"], item["to"],
                     item["to_string"])
                    for change in state["changes"] for n, item in enumerate(change["items"])]
        worklogs += [(key, w["id"], w["author"], w["started"], at(w["started"]), w["time_spent"],
                      w["comment"], w["created"], w["updated"]) for w in state["worklogs"]]
        for s in state["sprints"]:
            in_sprints.append((key, s["id"]))
            sprints[s["id"]] = (s["id"], s["name"], s["state"], s["start"], s["end"], s["complete"],
                                s["board_id"], s["goal"], now)
    return {COLUMNS["issue"]: issues, COLUMNS["issue_link"]: links,
            COLUMNS["issue_comment"]: comments, COLUMNS["issue_attachment"]: attachments,
            COLUMNS["issue_change"]: changes, COLUMNS["issue_worklog"]: worklogs,
            COLUMNS["issue_sprint"]: in_sprints, COLUMNS["sprint"]: list(sprints.values())}


# The index entries of a page's issues, from the view the loader indexes from.
INDEX = ("INSERT INTO issue_fts (rowid, key, summary, description, comments, other) "
         "SELECT doc, key, summary, description, comments, other FROM issue_search "
         "WHERE key IN (SELECT value FROM json_each(?))")


class ThroughSqlite:
    """The same rows inserted by raw sqlite3 into a fresh hub database; with ``index``, the
    full-text index of the page's issues too, in the same transaction."""

    def __init__(self, data_dir: Path, *, index: bool = False):
        self._index = index
        hub_command(data_dir, "migrate")
        self._conn = sqlite3.connect(data_dir / "hub.sqlite", isolation_level=None)
        self._conn.execute("PRAGMA journal_mode = wal")
        self._conn.execute("PRAGMA synchronous = normal")

    def round(self, pages: list[list[dict]]) -> tuple[float, float]:
        """Seconds to insert the rows of ``pages`` (one transaction per page), and the CPU
        seconds spent."""
        for table in COLUMNS:
            self._conn.execute(f"DELETE FROM {table}")
        if self._index:  # the index of no issues: empty, as the hub's is of the keys it is sent
            self._conn.execute("INSERT INTO issue_fts (issue_fts) VALUES ('rebuild')")
        now = "2026-11-02T09:00:00+00:00"
        utc: dict[str, str | None] = {}
        cpu, started = time.process_time(), time.perf_counter()
        for page in pages:
            self._conn.execute("BEGIN IMMEDIATE")
            for table, rows in rows_of(page, now, utc).items():  # "table (columns)": rows
                marks = ", ".join("?" * len(rows[0]))
                self._conn.executemany(f"INSERT OR REPLACE INTO {table} VALUES ({marks})", rows)
            if self._index:
                self._conn.execute(INDEX, (json.dumps([state["key"] for state in page]),))
            self._conn.execute("COMMIT")
        return time.perf_counter() - started, time.process_time() - cpu

    def close(self) -> None:
        self._conn.close()


class PostgresSide:
    """A scratch database on a PostgreSQL server, migrated: the rows of pages inserted by raw
    psycopg, or (``hub``) the pages loaded by the hub's loader, one transaction per page."""

    def __init__(self, admin_url: str, name: str, *, hub: bool):
        import psycopg

        from hub.migrations.postgres import migrate_postgres

        self._admin_url, self._name, self._hub = admin_url, name, hub
        with psycopg.connect(admin_url, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}"')
            admin.execute(f'CREATE DATABASE "{name}"')
        self.url = _with_database(admin_url, name)
        migrate_postgres(self.url)
        if hub:
            from hub.db import open_postgres

            self._db = open_postgres(self.url)
        else:
            self._conn = psycopg.connect(self.url)

    def round(self, pages: list[list[dict]]) -> tuple[float, float]:
        """Seconds to write ``pages`` into emptied tables, and the CPU seconds spent."""
        now = "2026-11-02T09:00:00+00:00"
        truncate = f"TRUNCATE {', '.join(COLUMNS)}"
        if self._hub:
            from hub.db import database
            from hub.services.mirror.loading import MirrorService, RunContext
            from hub.services.search.fulltext_backlog_postgres import PostgresSearchBacklog

            database.initialize(self._db)
            database.execute_sql(truncate)
            mirror = MirrorService()
            run = RunContext(full=False, started_at=now, now=now)
            cpu, started = time.process_time(), time.perf_counter()
            for page in pages:
                with database.atomic():
                    mirror.load_page(page, [], run)
            # What a served hub's thread does after each page, here after them all.
            PostgresSearchBacklog(self.url).drain(database.connection())
            return time.perf_counter() - started, time.process_time() - cpu
        with self._conn.transaction():
            self._conn.execute(truncate)
        utc: dict[str, str | None] = {}
        cpu, started = time.process_time(), time.perf_counter()
        for page in pages:
            with self._conn.transaction(), self._conn.cursor() as cursor:
                for table, rows in rows_of(page, now, utc).items():  # "table (columns)": rows
                    marks = ", ".join(["%s"] * len(rows[0]))
                    # (Every page names the same sprints: the first naming stays.)
                    cursor.executemany(f"INSERT INTO {table} VALUES ({marks}) ON CONFLICT DO NOTHING", rows)
        return time.perf_counter() - started, time.process_time() - cpu

    def close(self) -> None:
        import psycopg

        if self._hub:
            self._db.close()
        else:
            self._conn.close()
        with psycopg.connect(self._admin_url, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{self._name}" WITH (FORCE)')


def _server_version(url: str) -> str:
    import psycopg

    with psycopg.connect(url) as conn:
        return str(conn.execute("SHOW server_version").fetchone()[0]).split()[0]


def _with_database(url: str, name: str) -> str:
    from urllib.parse import urlsplit, urlunsplit

    return urlunsplit(urlsplit(url)._replace(path="/" + name))


def postgres_admin_url(given: str | None) -> tuple[str | None, str]:
    """The server to measure PostgreSQL on: ``given``, or a throw-away one (devservers/postgres.py);
    None and why when there is none."""
    if given:
        return given, ""
    server, reason = throwaway_postgres()
    return (server.admin_url, "") if server is not None else (None, reason or "no server")


def _served_on(url: str, data_dir: Path) -> tuple[ThroughHttp | None, str]:
    """A hub served on the database at ``url``; or None and why not."""
    os.environ["HUB_DATABASE_URL"] = url
    try:
        return ThroughHttp(data_dir, url), ""
    except (SystemExit, subprocess.CalledProcessError) as exc:
        detail = getattr(exc, "stderr", None) or exc
        return None, f"PostgreSQL over HTTP: not measured ({str(detail).strip()})"
    finally:
        del os.environ["HUB_DATABASE_URL"]


def postgres_figures(args, work: Path) -> list[str]:
    """The PostgreSQL lines: raw psycopg, the hub's loader, their ratio (and HTTP if asked)."""
    admin_url, reason = postgres_admin_url(args.postgres)
    if admin_url is None:
        return [f"PostgreSQL: not measured ({reason})"]
    raw = hub = http = None
    http_failed = ""
    raw_rates: list[float] = []
    hub_rates: list[float] = []
    http_rates: list[float] = []
    raw_cpu: list[float] = []
    hub_cpu: list[float] = []
    issues = args.pages * args.issues
    try:
        raw = PostgresSide(admin_url, "bench_ingest_raw", hub=False)
        hub = PostgresSide(admin_url, "bench_ingest_hub", hub=True)
        if not args.no_postgres_http:
            http, http_failed = _served_on(hub.url, work / "pg-http")
        for n in range(args.repeat + 1):
            pages = pages_of(args.pages, args.issues, 1 + n * issues)
            raw_seconds, raw_cpu_seconds = raw.round(pages)
            hub_seconds, hub_cpu_seconds = hub.round(pages)
            http_seconds = None
            if http is not None:
                try:
                    http_seconds = http.round(pages)[0]
                except SystemExit as exc:  # the hub answered an error: say which, measure the rest
                    http_failed = f"PostgreSQL over HTTP: not measured ({exc})"
                    http.close()
                    http = None
            if n:
                raw_rates.append(issues / raw_seconds)
                hub_rates.append(issues / hub_seconds)
                raw_cpu.append(raw_cpu_seconds)
                hub_cpu.append(hub_cpu_seconds)
                if http_seconds is not None:
                    http_rates.append(issues / http_seconds)
    finally:
        for side in (http, hub, raw):
            if side is not None:
                side.close()
    median_raw, median_hub = statistics.median(raw_rates), statistics.median(hub_rates)
    lines = [
        f"PostgreSQL {_server_version(admin_url)}: {args.pages} pages of {args.issues} whole issues; "
        f"median (best) of {args.repeat} rounds",
        f"{'PostgreSQL: raw psycopg, executemany':<44} {median_raw:9.0f} ({max(raw_rates):.0f}) issues/s",
        f"{'PostgreSQL: the hub loader (in process)':<44} {median_hub:9.0f} ({max(hub_rates):.0f}) issues/s, "
        f"ratio {median_hub / median_raw:.2f}",
    ]
    if http_failed:
        lines.append(http_failed[:300])
    if http_rates:
        median_http = statistics.median(http_rates)
        lines.append(f"{'PostgreSQL: POST /agent/v1/commands/{id}/state':<44} {median_http:9.0f} "
                     f"({max(http_rates):.0f}) issues/s, ratio {median_http / median_raw:.2f}")
    per_raw, per_hub = (statistics.median(c) * 1000 / issues * 1000 for c in (raw_cpu, hub_cpu))
    lines.append(f"{'PostgreSQL: CPU ms per 1,000 issues (raw/hub)':<44} {per_raw:9.0f} / {per_hub:.0f} "
                 "(this process alone; the server's is not counted)")
    # The verdict is on HTTP, as SQLite's; on the loader in process when HTTP was not measured.
    best, of = (http_rates, "over HTTP") if http_rates else (hub_rates, "the loader in process")
    ratio = statistics.median(best) / median_raw
    lines.append(f"PostgreSQL ratio {ratio:.2f}, {of} (best to best {max(best) / max(raw_rates):.2f}) "
                 f"{verdict(ratio >= POSTGRES_TARGET, f'>= {POSTGRES_TARGET}', 'UNDER TARGET')}")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     epilog="example: python bench/ingest.py --issues 100 --pages 20 --repeat 7")
    parser.add_argument("--issues", type=int, default=100, help="issues per page (default 100)")
    parser.add_argument("--pages", type=int, default=20, help="pages per round (default 20)")
    parser.add_argument("--repeat", type=int, default=5, help="rounds per figure (default 5)")
    parser.add_argument("--postgres", metavar="URL",
                        help="a superuser's URL to the PostgreSQL server to measure on (default: a throw-away "
                             "server, as the tests start one)")
    parser.add_argument("--no-postgres-http", action="store_true",
                        help="on PostgreSQL, measure the hub's loader in process alone, not over HTTP")
    parser.add_argument("--engine", choices=("both", "sqlite", "postgresql"), default="both",
                        help="which engines to measure (default both)")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="hub-bench-ingest-"))
    try:
        if args.engine != "postgresql":
            sqlite_figures(args, work)
        if args.engine != "sqlite":
            print("\n".join(postgres_figures(args, work)))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


def sqlite_figures(args, work: Path) -> None:
    """The SQLite lines: raw sqlite3 (with and without the index), the hub over HTTP, the ratio."""
    raw = indexed = hub = None
    raw_rates: list[float] = []
    indexed_rates: list[float] = []
    hub_rates: list[float] = []
    # CPU seconds per round: on a machine shared with other work they move less than
    # the wall clock does, so their ratio is printed beside.
    raw_cpu: list[float] = []
    hub_cpu: list[float] = []
    issues = args.pages * args.issues
    try:
        raw, indexed = ThroughSqlite(work / "raw"), ThroughSqlite(work / "indexed", index=True)
        hub = ThroughHttp(work / "hub")
        # Rounds alternate, so that both figures see the machine as it is;
        # the first round of each warms up. Each HTTP round loads new keys.
        for n in range(args.repeat + 1):
            pages = pages_of(args.pages, args.issues, 1 + n * issues)
            raw_seconds, raw_cpu_seconds = raw.round(pages)
            indexed_seconds, _ = indexed.round(pages)
            hub_seconds, hub_cpu_seconds = hub.round(pages)
            if n:
                raw_rates.append(issues / raw_seconds)
                indexed_rates.append(issues / indexed_seconds)
                hub_rates.append(issues / hub_seconds)
                raw_cpu.append(raw_cpu_seconds)
                if hub_cpu_seconds is not None:
                    hub_cpu.append(hub_cpu_seconds)
    finally:
        for side in (raw, indexed, hub):
            if side is not None:
                side.close()
    median_raw, median_hub = statistics.median(raw_rates), statistics.median(hub_rates)
    ratio = median_hub / median_raw
    print(f"{args.pages} pages of {args.issues} whole issues; median (best) of {args.repeat} rounds")
    print(f"{'raw sqlite3, executemany (baseline)':<44} {median_raw:9.0f} ({max(raw_rates):.0f}) issues/s")
    median_indexed = statistics.median(indexed_rates)
    print(f"{'raw sqlite3 + the full-text index':<44} {median_indexed:9.0f} ({max(indexed_rates):.0f}) issues/s, "
          f"ratio {median_hub / median_indexed:.2f} (information: the index's part of the hub's time)")
    print(f"{'POST /agent/v1/commands/{id}/state':<44} {median_hub:9.0f} ({max(hub_rates):.0f}) issues/s")
    if hub_cpu:
        per_raw, per_hub = (statistics.median(c) * 1000 / issues * 1000 for c in (raw_cpu, hub_cpu))
        print(f"{'CPU ms per 1,000 issues (raw / hub process)':<44} {per_raw:9.0f} / {per_hub:.0f}, "
              f"ratio {per_raw / per_hub:.2f}")
    print(f"ratio {ratio:.2f} (best to best {max(hub_rates) / max(raw_rates):.2f}) "
          f"{verdict(ratio >= TARGET, f'>= {TARGET}', 'UNDER TARGET')}")


if __name__ == "__main__":
    sys.exit(main())
