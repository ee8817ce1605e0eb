"""State pages loaded from several processes at once (tests/mirror/test_mirror_concurrency.py).

Each process opens the hub's database as a hub node does and loads its pages, one
transaction each, as a state report does (the page, then its catalogues), writing
in the same transaction which page it was into ``load_log``: the order of that
log is the order the pages took effect in, to replay them one after the other.

A page that PostgreSQL ends as a deadlock or a serialization failure (what an agent
hears as 503 with Retry-After) is loaded again, as the agent would, and counted: the
test holds the count to none.

With ``moving``, the pages move issues between two projects (AURORA and BOREAS, one
Jira id for both keys of an issue), and name each other's keys as epics and parents,
so that a move re-keys issues the page does not send.
"""

from __future__ import annotations

import random
from pathlib import Path

START = "2026-11-02T09:00:00+00:00"
KEYS = [f"AURORA-{n}" for n in range(1, 13)]
# What the moving pages send an issue of KEYS as, once Jira has moved it (the same Jira id).
MOVED = {key: key.replace("AURORA", "BOREAS") for key in KEYS}
# PostgreSQL's deadlock and serialization failure: the page is to be loaded again.
RETRIED = {"40P01", "40001"}
# The mirror's tables a page writes, each in an order of its primary key.
TABLES = {
    "issue": "SELECT * FROM issue ORDER BY key",
    "issue_link": "SELECT * FROM issue_link ORDER BY 1, 2, 3",
    "issue_comment": "SELECT * FROM issue_comment ORDER BY 1, 2",
    "issue_change": "SELECT * FROM issue_change ORDER BY 1, 2, 3",
    "issue_worklog": "SELECT * FROM issue_worklog ORDER BY 1, 2",
    "issue_sprint": "SELECT * FROM issue_sprint ORDER BY 1, 2",
    "sprint": "SELECT * FROM sprint ORDER BY 1",
    "issue_attachment": "SELECT * FROM issue_attachment ORDER BY 1",
    "jira_catalogue": "SELECT * FROM jira_catalogue ORDER BY 1, 2",
    "jira_user": "SELECT * FROM jira_user ORDER BY 1",
    "issue_alias": "SELECT * FROM issue_alias ORDER BY old_key",
}


def jira_id(key: str) -> str:
    return str(10000 + int(key.split("-")[1]))


def page(rng: random.Random, worker: int, number: int) -> dict:
    """A page of 3 to 6 of :data:`KEYS` in no particular order, each issue linked to others
    both ways, in shared sprints, with comments, worklogs, changes and attachments whose
    contents name the page (so that which page came last shows), and catalogues."""
    tag = f"w{worker}p{number}"
    states = []
    for key in rng.sample(KEYS, rng.randint(3, 6)):
        n = key.split("-")[1]
        others = [other for other in KEYS if other != key]
        states.append({
            "key": key, "id": jira_id(key), "summary": f"{key} as {tag}", "status": rng.choice(["Open", "Done"]),
            "updated": "2026-11-01T10:00:00.000+0300",
            "links": [{"type": rng.choice(["Blocks", "Relates"]), rng.choice(["outward", "inward"]): other}
                      for other in rng.sample(others, rng.randint(0, 3))],
            "comments": [{"id": str(c), "body": f"{tag} {c}", "created": "2026-11-01T10:00:00.000+0300"}
                         for c in range(rng.randint(0, 3))],
            "worklogs": [{"id": str(w), "time_spent": rng.choice([60, 3600]), "comment": tag}
                         for w in range(rng.randint(0, 2))],
            "sprints": [{"id": sid, "name": f"Sprint {sid} ({tag})", "state": "active"}
                        for sid in rng.sample([14, 15, 16], rng.randint(0, 3))],
            "changes": [{"id": str(h), "created": "2026-11-01T10:00:00.000+0300",
                         "items": [{"field": "status", "to_string": tag}]} for h in range(rng.randint(0, 2))],
            # An attachment belongs to one Jira issue: its ids are the issue's.
            "attachments": [{"id": f"{n}0{a}", "filename": f"{tag}.txt"} for a in range(rng.randint(0, 2))],
        })
    catalogues = {
        "priorities": [{"id": str(p), "name": f"P{p} {tag}"} for p in range(rng.randint(1, 4))],
        "users": [{"name": name, "display_name": f"{name} {tag}"}
                  for name in rng.sample(["ivanov", "petrov", "sidorov"], rng.randint(1, 3))],
    }
    return {"issues": states, "catalogues": catalogues,
            "now": f"2026-11-02T09:{worker:02d}:{number % 60:02d}+00:00"}


def moving_page(rng: random.Random, worker: int, number: int) -> dict:
    """A page of 3 to 6 issues of :data:`KEYS`, each under its AURORA or its BOREAS key (a
    move when the mirror holds it under the other, sometimes told by a ``Key`` item of its
    changelog too), whose epics, parents and links name either key of other issues, so
    that a move re-keys the epic and parent keys of issues the page does not send."""
    tag = f"w{worker}p{number}"
    states = []

    def either(key: str) -> str:
        return rng.choice([key, MOVED[key]])

    for base in rng.sample(KEYS, rng.randint(3, 6)):
        key = either(base)
        others = [other for other in KEYS if other != base]
        state = {
            "key": key, "id": jira_id(base), "summary": f"{key} as {tag}", "updated": "2026-11-01T10:00:00.000+0300",
            "epic_key": either(rng.choice(others)) if rng.random() < 0.6 else None,
            "parent_key": either(rng.choice(others)) if rng.random() < 0.6 else None,
            "links": [{"type": "Relates", rng.choice(["outward", "inward"]): either(other)}
                      for other in rng.sample(others, rng.randint(0, 2))],
            "comments": [{"id": f"{jira_id(base)}{c}", "body": f"{tag} {c}"} for c in range(rng.randint(0, 2))],
        }
        if key != base and rng.random() < 0.3:
            state["changes"] = [{"id": f"9{jira_id(base)}", "created": "2026-11-01T10:00:00.000+0300",
                                 "items": [{"field": "Key", "from_string": base, "to_string": key}]}]
        states.append(state)
    return {"issues": states, "catalogues": {}, "now": f"2026-11-02T10:{worker:02d}:{number % 60:02d}+00:00"}


def seed_page() -> dict:
    """Every issue of :data:`KEYS` under its AURORA key: the moving pages start from it, so
    that each of their states finds its Jira id mirrored (two pages that both add one Jira
    id under two keys are not what this is about)."""
    return {"issues": [{"key": key, "id": jira_id(key), "summary": key} for key in KEYS], "catalogues": {},
            "now": "2026-11-02T09:59:00+00:00"}


def pages_of(seed: int, worker: int, count: int, moving: bool = False) -> list[dict]:
    rng = random.Random(seed * 1000 + worker)
    make = moving_page if moving else page
    return [make(rng, worker, number) for number in range(count)]


def load_one(worker: int, number: int, content: dict, log: bool) -> None:
    """Load one page in its own transaction (and log it, with ``log``)."""
    from hub.db import database
    from hub.services.mirror.catalogues import CatalogueService
    from hub.services.mirror.loading import MirrorService, RunContext

    run = RunContext(full=False, started_at=START, now=content["now"])
    with database.atomic():
        MirrorService().load_page(content["issues"], [], run)
        CatalogueService().load(content["catalogues"], run.now)
        if log:
            database.execute_sql("INSERT INTO load_log (worker, page) VALUES (?, ?)", (worker, number))


def load_rounds(data_dir: str, database_url: str | None, worker: int, seed: int, rounds: int, pages: int,
                steps, moving: bool = False) -> tuple[int, list[str]]:
    """In a process of its own: open the database, then ``rounds`` times wait at ``steps``
    (a barrier the test and every process share) for the others, load ``pages`` of
    ``worker``'s pages, and wait at ``steps`` again while the test compares. Answers how
    many pages it loaded and the SQLSTATE of each load that had to be made again (a
    deadlock, say); any other error ends it with that error, for the test to show."""
    import peewee

    from hub.config import Config
    from hub.db import open_hub_database
    from hub.services.search.jql.bounded import sqlstate

    contents = pages_of(seed, worker, rounds * pages, moving)
    db = open_hub_database(Config(data_dir=Path(data_dir), database_url=database_url))
    retried: list[str] = []
    try:
        db.connect(reuse_if_open=True)
        for first in range(0, rounds * pages, pages):
            steps.wait(120)
            for number in range(first, first + pages):
                while True:
                    try:
                        load_one(worker, number, contents[number], log=True)
                        break
                    except peewee.DatabaseError as exc:
                        state = sqlstate(exc)
                        if state not in RETRIED:
                            raise
                        retried.append(f"{state} on page {number}")
            steps.wait(120)
    except BaseException:
        steps.abort()  # the test stops waiting, and shows this error
        raise
    finally:
        db.close()
    return rounds * pages, retried


def snapshot() -> dict:
    """Each table's rows, without a ``rowid`` column: on PostgreSQL an identity whose values
    follow the order inserts were tried in, not the order the pages took effect in."""
    from hub.db import database

    tables = {}
    for table, sql in TABLES.items():
        cursor = database.execute_sql(sql)
        kept = [n for n, column in enumerate(cursor.description) if column[0] != "rowid"]
        tables[table] = [tuple(row[n] for n in kept) for row in cursor]
    return tables
