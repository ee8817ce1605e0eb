"""``GET /api/v1/issues?jql=…`` over 100k issues: a team's filters through a real hub.

Builds a hub database of ``--issues`` issues (default 100,000) with raw sqlite3, as a
team's mirror holds them: five statuses reached through a workflow, priorities in
Jira's configured order, users (old ones whose user key is their login name, newer
ones ``JIRAUSER…``), two-week sprints over two years (one active, one future), labels,
components, a few neighbours of other projects and a few gone issues, three comments
each and a changelog of status, assignee and resolution changes; then the full-text
index. Each filter below is timed as JQL over HTTP (the first page of 50 and its
total) and as a hand-written raw sqlite3 query of the same meaning on the same file
(the same page of rows and the count), and the keys of both pages are compared.
Targets: HTTP p50 < 50 ms and within 3x of the raw query. The raw queries are what a
person would write knowing the schema's indexes: the history ``WAS`` one reads the changelog
through ``issue_change_field_key`` (v12), as SQLite chooses for it.

With ``--postgres``, the same rows are then written into a PostgreSQL database (``--postgres-url``,
or one on a throw-away server as the tests start one) and each filter is timed over HTTP on a hub
served on it, beside SQLite's HTTP figure, its first page checked against the raw SQLite answer.
The history operators (``HISTORY``: WAS, WAS IN, WAS NOT, CHANGED with BEFORE, AFTER, ON, DURING,
BY, FROM, TO) are timed over HTTP on each engine, with no raw query beside them: with
``--postgres`` each one's PostgreSQL p50 over SQLite's is printed (target at most 3x), and the
two engines' first pages and totals must agree.

    python bench/jql.py [--issues 100000] [--rounds 20] [--postgres [--postgres-url URL]]
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import random
import sqlite3
import statistics
import sys
import time
import urllib.parse
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bench.figures import latency, verdict
from bench.server import ScratchHub, postgres_database, timed_gets

PAGE = 50
# The mirror's two years end here, so that the filters' absolute dates always find issues.
END = datetime(2026, 11, 30, tzinfo=UTC)
SPAN = timedelta(days=730)
SPRINT_DAYS = 14
PROJECT = "AURORA"
NEIGHBOUR_PROJECTS = ("BOREAS", "ZEPHYR")
# One issue in RARE_EVERY holds the rare word somewhere in its text; nowhere else is it written.
RARE, RARE_EVERY = "timeout", 70

# (name, Jira id, share of issues): the workflow is Open -> In Progress -> Review -> Done,
# some issues closed straight from Open.
STATUSES = (("Open", "1", 20), ("In Progress", "3", 12), ("Review", "10001", 8),
            ("Done", "10002", 55), ("Closed", "6", 5))
STATUS_ID = {name: jira_id for name, jira_id, _ in STATUSES}
# Jira's configured order, highest first (the catalogue's position), and each one's share.
PRIORITIES = (("Blocker", 4), ("Critical", 10), ("Major", 60), ("Minor", 20), ("Trivial", 6))
TYPES = (("Task", 40), ("Bug", 30), ("Story", 25), ("Epic", 2), ("Sub-task", 3))
LABELS = ("backend", "frontend", "infra", "ux", "security", "perf", "docs", "regression", "customer")
COMPONENTS = ("API", "Web", "Agent", "Database")
LOGINS = ("ivanov", "petrov", "sidorov", "smirnova", "kuznetsov", "popova", "volkov", "sokolova",
          "lebedev", "kozlova", "novikov", "morozova", "orlov", "pavlova", "semenov", "golubeva",
          "vinogradov", "bogdanova", "fedorov", "mikhailova", "belyaev", "tarasova", "belov",
          "komarova", "zaitsev")
# The users added after Jira 8 have user keys of their own (the changelog writes those).
NEW_USERS_FROM = 15


def user_key(n: int) -> str:
    return LOGINS[n] if n < NEW_USERS_FROM else f"JIRAUSER{10100 + n}"


@dataclass(frozen=True)
class Filter:
    """A team's filter: its JQL, and the same meaning in raw SQL over ``issue``
    (a condition with its parameters, and an ORDER BY that leaves no ties)."""

    jql: str
    where: str
    params: tuple
    order: str


# Jira's priority order (highest first), then the orders of key as Jira reads a key.
BY_PRIORITY = ("(SELECT position FROM jira_catalogue WHERE kind = 'priority'"
               " AND name = issue.priority)")
KEY_DESC = ("substr(issue.key, 1, instr(issue.key, '-') - 1) DESC,"
            " CAST(substr(issue.key, instr(issue.key, '-') + 1) AS INTEGER) DESC")
IN_SPRINT = ("issue.key IN (SELECT issue_sprint.key FROM issue_sprint JOIN sprint"
             " ON sprint.sprint_id = issue_sprint.sprint_id WHERE {})")
# WAS: the issue holds the value now, or held it before a change, or took it in one (by
# name for a status, by user key for a user: what the changelog's items compare by).
# As a person writes it since v12: SQLite reads the field's changes from the covering index
# issue_change_field_key. (Before it, the baseline said NOT INDEXED: the changelog read in order
# cost a tenth of reaching its rows one by one through issue_change_field_created.)
WAS = ("(issue.{field} = ? OR issue.key IN (SELECT key FROM issue_change"
       " WHERE field = '{field}' AND (from_{side} = ? OR to_{side} = ?)))")
HANDED_OVER = LOGINS[NEW_USERS_FROM + 1]  # a user whose changelog items name a JIRAUSER key
LAST_SPRINT = f"{PROJECT} Sprint {SPAN.days // SPRINT_DAYS - 1}"
MONTH = ("2026/09/01", "2026/10/01")


def filters() -> list[Filter]:
    """About eight filters of the kind a team saves: equality and IN on status, assignee
    and sprint, a date range, a text ``~``, history ``WAS``, ORDER BY priority and updated."""
    month = tuple(datetime.strptime(day, "%Y/%m/%d").replace(tzinfo=UTC).isoformat() for day in MONTH)
    return [
        Filter(f'project = {PROJECT} AND status = "In Progress" ORDER BY updated DESC',
               f"issue.key > '{PROJECT}-' AND issue.key < '{PROJECT}.' AND issue.status = ?",
               ("In Progress",), "issue.jira_updated_at DESC"),
        Filter('assignee in (ivanov, petrov) AND status in ("In Progress", Review)'
               " ORDER BY priority DESC, updated DESC",
               "issue.assignee IN (?, ?) AND issue.status IN (?, ?)",
               ("ivanov", "petrov", "In Progress", "Review"), f"{BY_PRIORITY}, issue.jira_updated_at DESC"),
        Filter("sprint in openSprints() AND type = Bug ORDER BY priority DESC, updated DESC",
               IN_SPRINT.format("sprint.state = 'active'") + " AND issue.issue_type = ?", ("Bug",),
               f"{BY_PRIORITY}, issue.jira_updated_at DESC"),
        Filter(f'sprint = "{LAST_SPRINT}" AND status != Done',
               IN_SPRINT.format("sprint.name = ?") + " AND issue.status != ?", (LAST_SPRINT, "Done"),
               KEY_DESC),
        Filter(f'updated >= "{MONTH[0]}" AND updated < "{MONTH[1]}" ORDER BY updated DESC',
               "issue.jira_updated_at >= ? AND issue.jira_updated_at < ?", month,
               "issue.jira_updated_at DESC"),
        Filter(f'text ~ "{RARE}" ORDER BY updated DESC',
               "issue.rowid IN (SELECT rowid FROM issue_fts WHERE issue_fts MATCH ?)", (f'"{RARE}"',),
               "issue.jira_updated_at DESC"),
        Filter("status WAS Review AND resolution IS EMPTY ORDER BY priority DESC, updated DESC",
               WAS.format(field="status", side="string") + " AND issue.resolution IS NULL",
               ("Review", "Review", "Review"), f"{BY_PRIORITY}, issue.jira_updated_at DESC"),
        Filter(f"assignee WAS {HANDED_OVER} AND assignee != {HANDED_OVER} ORDER BY updated DESC",
               WAS.format(field="assignee", side="value") + " AND issue.assignee != ?",
               (HANDED_OVER, user_key(LOGINS.index(HANDED_OVER)), user_key(LOGINS.index(HANDED_OVER)),
                HANDED_OVER), "issue.jira_updated_at DESC"),
        Filter("labels = backend AND priority in (Blocker, Critical) ORDER BY priority DESC, updated DESC",
               "EXISTS (SELECT 1 FROM json_each(issue.labels) WHERE value = ?) AND issue.priority IN (?, ?)",
               ("backend", "Blocker", "Critical"), f"{BY_PRIORITY}, issue.jira_updated_at DESC"),
    ]


# The history operators with their predicates, timed over HTTP on each engine (no raw query
# stands beside them): with --postgres, PostgreSQL's p50 over SQLite's is printed for each, the
# target at most 3x, and the two engines' pages must agree.
HISTORY = (
    'status WAS Open BEFORE "2026/06/01"',
    'status WAS IN (Review, "In Progress") BEFORE "2026/06/01"',
    'status WAS "In Progress" AFTER "2026/10/01"',
    'status WAS Review ON "2026/09/15"',
    'status WAS Review DURING ("2026/09/01", "2026/10/01")',
    f"status WAS Review BY {LOGINS[1]}",
    'status WAS NOT Done BEFORE "2026/06/01"',
    'status CHANGED FROM Review TO "In Progress"',
    f'status CHANGED BY {LOGINS[0]} AFTER "2026/10/01"',
    'status CHANGED DURING ("2026/09/01", "2026/10/01")',
    'assignee CHANGED BEFORE "2026/03/01"',
    'resolution CHANGED TO Fixed ON "2026/10/15"',
)


def jira_time(moment: datetime) -> str:
    """``moment`` as Jira Server writes it (this one's zone is UTC)."""
    return moment.strftime("%Y-%m-%dT%H:%M:%S.000+0000")


def hub_time(moment: datetime) -> str:
    return moment.isoformat()


def pick(rng: random.Random, weighted):
    names, weights = zip(*[(item[0], item[-1]) for item in weighted], strict=True)
    return rng.choices(names, weights)[0]


class Builder:
    """The rows of a team's mirror, written with executemany into a migrated hub database."""

    def __init__(self, count: int):
        self.rng = random.Random(19)
        syllables = ["ka", "lo", "mi", "ne", "ru", "sa", "to", "vi", "zu", "pe", "do", "ga"]
        self.vocabulary = ["".join(self.rng.choices(syllables, k=self.rng.randint(2, 4))) for _ in range(3000)]
        self.vocabulary += ["отчёт", "задача", "сервер", "ошибка", "клиент", "report", "login", "page"] * 10
        self.count = count
        self.issues, self.comments, self.changes, self.issue_sprints = [], [], [], []
        self.used_seconds: set[int] = set()
        self.history_id, self.comment_id = 20000, 30000
        self.sprints = self._sprints()

    def words(self, count: int) -> str:
        return " ".join(self.rng.choices(self.vocabulary, k=count))

    def moment(self, low: datetime, high: datetime, *, unique: bool = False) -> datetime:
        """A second between ``low`` and ``high``; a ``unique`` one no other unique moment has
        (issues' updated times: ORDER BY updated then leaves no ties to compare)."""
        second = int(low.timestamp()) + self.rng.randrange(max(1, int((high - low).total_seconds())))
        while unique and second in self.used_seconds:
            second += 1
        self.used_seconds.add(second)
        return datetime.fromtimestamp(second, UTC)

    def _sprints(self) -> list[tuple]:
        """Two-week sprints of the project's board: the closed ones, the active one, one future."""
        first = END - SPAN
        rows = []
        for n in range(SPAN.days // SPRINT_DAYS + 2):
            start = first + timedelta(days=n * SPRINT_DAYS)
            state = "closed" if start + timedelta(days=SPRINT_DAYS) <= END else "active"
            if start > END:
                state = "future"
            rows.append((100 + n, f"{PROJECT} Sprint {n}", state, hub_time(start),
                         hub_time(start + timedelta(days=SPRINT_DAYS)),
                         hub_time(start + timedelta(days=SPRINT_DAYS)) if state == "closed" else None,
                         1, None, hub_time(END)))
        return rows

    def sprint_at(self, moment: datetime) -> int:
        return min(int((moment - (END - SPAN)).days // SPRINT_DAYS), len(self.sprints) - 2)

    def build(self) -> None:
        numbers = {project: 0 for project in (PROJECT, *NEIGHBOUR_PROJECTS)}
        assignees = [(n, 1 / (n + 1)) for n in range(len(LOGINS))]
        for n in range(self.count):
            neighbour = n % 20 == 19
            project = NEIGHBOUR_PROJECTS[n % 2] if neighbour else PROJECT
            numbers[project] += 1
            key = f"{project}-{numbers[project]}"
            created = self.moment(END - SPAN, END)
            updated = self.moment(created, END, unique=True)
            status = pick(self.rng, STATUSES)
            assignee = None if self.rng.random() < 0.1 else pick(self.rng, assignees)
            done = status in ("Done", "Closed")
            resolution = (("Fixed" if self.rng.random() < 0.9 else "Won't Fix") if done else None)
            resolved = updated - timedelta(seconds=self.rng.randrange(3600)) if done else None
            labels = sorted(set(self.rng.choices(LABELS, k=self.rng.choice((0, 1, 1, 2, 3)))))
            components = [self.rng.choice(COMPONENTS)] if self.rng.random() < 0.6 else []
            summary, description = self.words(6), self.words(30)
            if n % RARE_EVERY == 0:
                summary += f" {RARE}"
            sprint = None
            if not neighbour and self.rng.random() < 0.7:
                sprint = self._issue_sprints(key, updated, done)
            gone = n % 2000 == 1999
            self.issues.append((
                key, str(10000 + n), pick(self.rng, TYPES), summary, description, status,
                pick(self.rng, PRIORITIES), None if assignee is None else LOGINS[assignee],
                LOGINS[self.rng.randrange(len(LOGINS))], json.dumps(labels), sprint,
                jira_time(updated), hub_time(updated), hub_time(END), int(neighbour), jira_time(created),
                resolution, jira_time(resolved) if resolved else None, hub_time(resolved) if resolved else None,
                json.dumps(components), hub_time(END) if gone else None, "not_found" if gone else None))
            self._comments(key, created, updated, n)
            self._history(key, created, updated, status, assignee, resolution)

    def _issue_sprints(self, key: str, updated: datetime, done: bool) -> str:
        """The sprints the issue was in (one, sometimes carried over from the one before);
        an issue still open is in the active sprint. The current sprint's name."""
        last = self.sprint_at(updated)
        if not done and self.rng.random() < 0.5:
            last = len(self.sprints) - 2
        ids = [last - 1, last] if last and self.rng.random() < 0.3 else [last]
        self.issue_sprints.extend((key, self.sprints[s][0]) for s in ids)
        return self.sprints[last][1]

    def _comments(self, key: str, created: datetime, updated: datetime, n: int) -> None:
        for c in range(3):
            at = self.moment(created, updated)
            body = self.words(15) + (f" {RARE}" if n % RARE_EVERY == RARE_EVERY // 2 and c == 1 else "")
            self.comment_id += 1
            self.comments.append((key, str(self.comment_id), user_key(self.rng.randrange(len(LOGINS))),
                                  jira_time(at), jira_time(at), body, hub_time(at)))

    def _history(self, key: str, created: datetime, updated: datetime, status: str,
                 assignee: int | None, resolution: str | None) -> None:
        """The changelog that led to the issue's fields: its status through the workflow
        (now and then sent back from Review), its assignee handed over, its resolution."""
        path = {"Open": ["Open"], "In Progress": ["Open", "In Progress"],
                "Review": ["Open", "In Progress", "Review"],
                "Done": ["Open", "In Progress", "Review", "Done"],
                "Closed": ["Open", "Closed"] if self.rng.random() < 0.5 else
                ["Open", "In Progress", "Review", "Done", "Closed"]}[status]
        if "Review" in path and self.rng.random() < 0.15:
            at = path.index("Review")
            path[at + 1:at + 1] = ["In Progress", "Review"]
        items = [("status", "jira", STATUS_ID[a], a, STATUS_ID[b], b) for a, b in itertools.pairwise(path)]
        if assignee is not None and self.rng.random() < 0.3:
            before = self.rng.randrange(len(LOGINS))
            if before != assignee:
                items.insert(self.rng.randrange(len(items) + 1), (
                    "assignee", "jira", user_key(before), display_name(before), user_key(assignee),
                    display_name(assignee)))
        if resolution is not None:
            items.append(("resolution", "jira", None, None, "1" if resolution == "Fixed" else "2", resolution))
        times = sorted(self.moment(created, updated) for _ in items)
        for at, item in zip(times, items, strict=True):
            self.history_id += 1
            self.changes.append((key, str(self.history_id), 0, user_key(self.rng.randrange(len(LOGINS))),
                                 jira_time(at), hub_time(at), *item))

    def rows(self) -> list[tuple[str, list]]:
        """Every row, as (an INSERT written with ``?``, its rows), in the order they are written."""
        return [
            ("INSERT INTO jira_catalogue (kind, jira_id, name, position) VALUES (?, ?, ?, ?)",
             [("priority", str(p + 1), name, p) for p, (name, _) in enumerate(PRIORITIES)]
             + [("status", jira_id, name, p) for p, (name, jira_id, _) in enumerate(STATUSES)]),
            ("INSERT INTO jira_user (name, user_key, display_name, updated_at) VALUES (?, ?, ?, ?)",
             [(login, user_key(n), display_name(n), hub_time(END)) for n, login in enumerate(LOGINS)]),
            ("INSERT INTO sprint (sprint_id, name, state, start_date, end_date, complete_date,"
             " board_id, goal, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", self.sprints),
            ("INSERT INTO issue (key, id, issue_type, summary, description, status, priority, assignee,"
             " reporter, labels, sprint, jira_updated, jira_updated_at, fetched_at, neighbor, created,"
             " resolution, resolved, resolved_at, components, gone_at, gone_reason)"
             " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", self.issues),
            ("INSERT INTO issue_sprint (key, sprint_id) VALUES (?, ?)", self.issue_sprints),
            ("INSERT INTO issue_comment (key, comment_id, author, created, updated, body,"
             " created_at) VALUES (?, ?, ?, ?, ?, ?, ?)", self.comments),
            ("INSERT INTO issue_change (key, history_id, item_no, author, created, created_at, field,"
             " field_type, from_value, from_string, to_value, to_string)"
             " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", self.changes),
        ]

    def write(self, db: Path) -> float:
        """Every row, then the full-text index; the seconds the index took."""
        conn = sqlite3.connect(db)
        for sql, rows in self.rows():
            conn.executemany(sql, rows)
        started = time.perf_counter()
        conn.execute("INSERT INTO issue_fts (issue_fts) VALUES ('rebuild')")
        conn.commit()
        conn.close()
        return time.perf_counter() - started

    def write_postgres(self, url: str) -> float:
        """The same rows into the migrated PostgreSQL database at ``url``, then its full-text
        index (when the hub has one there) and ANALYZE; the seconds the index took."""
        import psycopg

        from hub.db import qmark_to_format
        from hub.dialect import POSTGRES
        from hub.dialect.fulltext import index

        with psycopg.connect(url) as conn, conn.cursor() as cur:
            for sql, rows in self.rows():
                cur.executemany(qmark_to_format(sql), rows)
            conn.commit()
            started = time.perf_counter()
            statement = index(POSTGRES)
            if statement is not None:
                cur.execute(statement, (json.dumps([row[0] for row in self.issues]),))
            conn.commit()
            indexed = time.perf_counter() - started
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("VACUUM ANALYZE")
        return indexed


def display_name(n: int) -> str:
    """A user's display name, as the changelog's strings write it."""
    return LOGINS[n].capitalize()


def raw_page(conn: sqlite3.Connection, f: Filter) -> tuple[list[str], int]:
    """The raw query's first page (whole rows, as the hub reads them) and total; the keys and the total."""
    rows = conn.execute(f"SELECT issue.* FROM issue WHERE issue.gone_at IS NULL AND {f.where}"
                        f" ORDER BY {f.order} LIMIT {PAGE}", f.params).fetchall()
    total = conn.execute(f"SELECT count(*) FROM issue WHERE issue.gone_at IS NULL AND {f.where}",
                         f.params).fetchone()[0]
    return [row[0] for row in rows], total


def raw_times(db: Path, f: Filter, count: int) -> tuple[list[float], tuple[list[str], int]]:
    conn = sqlite3.connect(db)
    times, answer = [], ([], 0)
    for _ in range(count):
        started = time.perf_counter()
        answer = raw_page(conn, f)
        times.append(time.perf_counter() - started)
    conn.close()
    return times, answer


def http_times(port: int, token: str, jql: str | None, count: int) -> tuple[list[float], int, dict]:
    """``count`` requests of ``jql``'s first page over one keep-alive connection (``/healthz``
    for None); the times, the last status and its body."""
    path = "/healthz" if jql is None else "/api/v1/issues?" + urllib.parse.urlencode({"jql": jql, "limit": PAGE})
    times, status, body = timed_gets(port, token, path, count)
    try:
        return times, status, json.loads(body)
    except ValueError:
        return times, status, {"text": body[:200].decode(errors="replace")}


def compare(hub: dict, raw: tuple[list[str], int]) -> str | None:
    """What differs between the hub's first page and the raw query's, or None."""
    keys, total = [item["key"] for item in hub["items"]], hub.get("total")
    if keys == raw[0] and total == raw[1]:
        return None
    lines = [f"total {total} over HTTP, {raw[1]} raw"] if total != raw[1] else []
    if keys != raw[0]:
        pairs = enumerate(zip(keys, raw[0], strict=False))
        at = next((n for n, (a, b) in pairs if a != b), min(len(keys), len(raw[0])))
        order = "the same keys in another order" if sorted(keys) == sorted(raw[0]) else (
            f"{len(set(keys) - set(raw[0]))} keys only over HTTP, {len(set(raw[0]) - set(keys))} only raw")
        lines.append(f"first page differs from item {at}: {order}; HTTP {keys[at:at + 3]}, raw {raw[0][at:at + 3]}")
    return "; ".join(lines)


def print_summary(rows: list[tuple[Filter, list[float], list[float] | None, str]]) -> None:
    """The filters' p50s side by side: raw, over HTTP, their ratio, and whether the pages agreed."""
    print(f"\n{'raw p50':>9} {'HTTP p50':>9} {'ratio':>7}  {'pages':<24} filter")
    for f, raw, over_http, note in rows:
        base = statistics.median(raw) * 1000
        if over_http is None:
            print(f"{base:6.1f} ms {'-':>9} {'-':>7}  {note:<24} {f.jql}")
            continue
        hub = statistics.median(over_http) * 1000
        print(f"{base:6.1f} ms {hub:6.1f} ms {hub / base:6.2f}x  {note:<24} {f.jql}")


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0], formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="example: python bench/jql.py --issues 2000 --rounds 5 --postgres")
    parser.add_argument("--issues", type=int, default=100_000, help="issues in the mirror (default 100000)")
    parser.add_argument("--rounds", type=int, default=20, help="timed requests of each filter (default 20)")
    parser.add_argument("--postgres", action="store_true",
                        help="also time the filters on a hub on PostgreSQL holding the same rows")
    parser.add_argument("--postgres-url", help="the empty PostgreSQL database to use (default: a throw-away "
                        "server, as the tests start one)")
    args = parser.parse_args()

    mismatches, summary = 0, []
    answers: dict[str, tuple[tuple[list[str], int], float | None]] = {}
    with ScratchHub("hub-bench-jql-") as scratch:
        token = scratch.token("ui", "interface")
        db = scratch.data_dir / "hub.sqlite"
        started = time.perf_counter()
        builder = Builder(args.issues)
        builder.build()
        indexed = builder.write(db)
        size = db.stat().st_size
        print(f"{args.issues} issues, {len(builder.comments)} comments, {len(builder.changes)} changelog items,"
              f" {len(builder.issue_sprints)} sprint memberships; built in {time.perf_counter() - started:.1f} s"
              f" (index {indexed:.1f} s); database {size / 2**20:.0f} MiB; {args.rounds} rounds each")
        port = scratch.serve(HUB_JQL_TIME_ZONE="UTC")
        http_times(port, token, None, 3)
        floor = statistics.median(http_times(port, token, None, args.rounds)[0])
        print(f"HTTP floor: GET /healthz p50 {floor * 1000:.2f} ms (keep-alive, one client)")
        for f in filters():
            raw_times(db, f, 2)  # warm up
            raw, answer = raw_times(db, f, args.rounds)
            answers[f.jql] = (answer, None)
            print(f"{f.jql}\n  total {answer[1]}, {len(answer[0])} items on the first page")
            print(latency("  raw sqlite3 (baseline)", raw))
            _, status, body = http_times(port, token, f.jql, 2)
            if status in (400, 422):
                print(f"  hub: jql not available ({status}: {body.get('description') or body.get('title')})")
                summary.append((f, raw, None, f"jql not available ({status})"))
                continue
            over_http, status, body = http_times(port, token, f.jql, args.rounds)
            if status != 200:
                print(f"  hub: answered {status}: {body.get('description') or body.get('title') or body}")
                summary.append((f, raw, None, f"answered {status}"))
                continue
            print(latency("  GET /api/v1/issues?jql=…", over_http))
            answers[f.jql] = (answer, statistics.median(over_http))
            p50, ratio = statistics.median(over_http) * 1000, statistics.median(over_http) / statistics.median(raw)
            print(f"  ratio to baseline {ratio:5.2f}x {verdict(ratio <= 3, '<= 3x')};"
                  f" p50 {p50:.1f} ms {verdict(p50 < 50, '< 50 ms')}")
            if ratio > 3 and statistics.median(raw) < floor:
                # A query of a millisecond is below what any HTTP answer costs here.
                print("  (the raw query takes less than the HTTP floor: the ratio measures the floor)")
            difference = compare(body, answer)
            if difference:
                mismatches += 1
                print(f"  !!! MISMATCH: the hub and the raw query disagree: {difference}")
            summary.append((f, raw, over_http, "MISMATCH" if difference else "same keys"))
        print_summary(summary)
        history = history_times(port, token, args.rounds)
    if args.postgres:
        mismatches += on_postgres(builder, args, answers, history)
    if mismatches:
        print(f"!!! {mismatches} filters answered otherwise over HTTP than by the raw query")
    return 1 if mismatches else 0


def history_times(port: int, token: str, rounds: int) -> dict[str, tuple[float, tuple[list[str], int]] | None]:
    """Each of :data:`HISTORY` over HTTP on the hub at ``port``: its p50 and its first page's keys
    and total (None when it did not answer 200), printed as they come."""
    found: dict[str, tuple[float, tuple[list[str], int]] | None] = {}
    print(f"\n{'history operator':<64} {'HTTP p50':>10} {'total':>7}")
    for jql in HISTORY:
        http_times(port, token, jql, 1)
        times, status, body = http_times(port, token, jql, rounds)
        if status != 200:
            print(f"{jql:<64} answered {status}: {body.get('description') or body.get('title')}")
            found[jql] = None
            continue
        page = ([item["key"] for item in body["items"]], body.get("total"))
        found[jql] = (statistics.median(times), page)
        print(f"{jql:<64} {statistics.median(times) * 1000:7.1f} ms {page[1]:>7}")
    return found


def print_history_ratios(sqlite: dict, postgres: dict) -> int:
    """PostgreSQL's p50 over SQLite's for each history operator (target at most 3x) and whether
    the engines' pages agree; how many disagreed."""
    mismatches = 0
    print(f"\n{'history operator':<64} {'PostgreSQL':>10} {'SQLite':>9} {'ratio':>7}")
    for jql in HISTORY:
        theirs, ours = postgres.get(jql), sqlite.get(jql)
        if theirs is None or ours is None:
            print(f"{jql:<64} {'-' if theirs is None else 'ok':>10} {'-' if ours is None else 'ok':>9}  (no answer)")
            mismatches += 1
            continue
        ratio = theirs[0] / ours[0]
        same = theirs[1] == ours[1]
        mismatches += not same
        print(f"{jql:<64} {theirs[0] * 1000:7.1f} ms {ours[0] * 1000:6.1f} ms {ratio:6.2f}x "
              f"{verdict(ratio <= 3, '<= 3x')}" + ("" if same else f"  !!! MISMATCH: total {theirs[1][1]} "
                                                   f"on PostgreSQL, {ours[1][1]} on SQLite"))
    return mismatches


def on_postgres(builder: Builder, args, answers: dict, history: dict) -> int:
    """The filters over HTTP on a hub on PostgreSQL holding the same rows, each beside SQLite's
    HTTP p50 and checked against the raw SQLite answer, then the history operators beside SQLite's;
    how many answered otherwise."""
    mismatches = 0
    with postgres_database(args.postgres_url, prefix="hub_bench_jql") as url:
        previous = os.environ.get("HUB_DATABASE_URL")
        os.environ["HUB_DATABASE_URL"] = url  # the scratch hub's migrate, token and serve
        try:
            with ScratchHub("hub-bench-jql-pg-") as scratch:
                started = time.perf_counter()
                indexed = builder.write_postgres(url)
                print(f"\nPostgreSQL: the same rows written in {time.perf_counter() - started:.1f} s"
                      f" (index {indexed:.1f} s)")
                token = scratch.token("ui", "interface")
                port = scratch.serve(HUB_JQL_TIME_ZONE="UTC")
                http_times(port, token, None, 3)
                floor = statistics.median(http_times(port, token, None, args.rounds)[0])
                print(f"HTTP floor: GET /healthz p50 {floor * 1000:.2f} ms")
                print(f"{'filter':<60} {'PostgreSQL p50':>15} {'SQLite p50':>11}")
                for f in filters():
                    answer, sqlite_p50 = answers[f.jql]
                    times, status, body = http_times(port, token, f.jql, 2)
                    if status == 200:
                        times, status, body = http_times(port, token, f.jql, args.rounds)
                    if status != 200:
                        print(f"{f.jql[:60]:<60} answered {status}: {body.get('description') or body.get('title')}")
                        continue
                    difference = compare(body, answer)
                    mismatches += difference is not None
                    beside = f"{sqlite_p50 * 1000:8.1f} ms" if sqlite_p50 is not None else "      —"
                    print(f"{f.jql[:60]:<60} {statistics.median(times) * 1000:12.1f} ms {beside}"
                          + (f"  !!! MISMATCH: {difference}" if difference else ""))
                mismatches += print_history_ratios(history, history_times(port, token, args.rounds))
        finally:
            if previous is None:
                os.environ.pop("HUB_DATABASE_URL", None)
            else:
                os.environ["HUB_DATABASE_URL"] = previous
    return mismatches


if __name__ == "__main__":
    sys.exit(main())
