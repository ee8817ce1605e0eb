"""Issues written straight into the mirror's tables for the search tests, on either engine.

The search reads the index the mirror's loader keeps (hub/dialect/fulltext.py); these
write the rows through the models and run the engine's index statements around them,
as the loader does, so that a search test does not depend on the loader of the engine.
"""

from __future__ import annotations

import json

from hub.clock import jira_to_utc
from hub.db import database
from hub.dialect import current
from hub.dialect.fulltext import index, unindex
from hub.models import Issue, IssueComment
from hub.services.search.fulltext_backlog_postgres import PostgresSearchBacklog

# What an issue dict (tests.support.issue) names that the rows hold as it is.
_PLAIN = ("summary", "description", "status", "issue_type", "sprint", "environment", "priority", "assignee")
T = "2026-11-02T09:00:00+00:00"


def put(issues: list[dict]) -> None:
    """Write ``issues`` (dicts as tests.support.issue makes them; ``comments`` replaced
    whole when given) and index them, in one transaction."""
    keys = json.dumps(sorted(state["key"] for state in issues))
    dialect = current()
    with database.atomic():
        known = [row.key for row in Issue.select(Issue.key).where(Issue.key.in_([s["key"] for s in issues]))]
        if known and unindex(dialect):
            _run(unindex(dialect), json.dumps(sorted(known)))
        for state in issues:
            row = {name: state[name] for name in _PLAIN if name in state}
            if "labels" in state:
                row["labels"] = state["labels"]
            if "updated" in state:
                row["jira_updated"], row["jira_updated_at"] = state["updated"], jira_to_utc(state["updated"])
            (Issue.insert(key=state["key"], id=state["id"], fetched_at=T, **row)
             .on_conflict(conflict_target=[Issue.key], update=row or {Issue.fetched_at: T}).execute())
            if "comments" in state:
                IssueComment.delete().where(IssueComment.key == state["key"]).execute()
                for one in state["comments"]:
                    IssueComment.create(key=state["key"], comment_id=one["id"], author=one.get("author"),
                                        body=one.get("body", ""))
        _run(index(dialect), keys)


def _run(statement: str | None, keys: str) -> None:
    """One of the index statements, on the raw connection as the loader sends them."""
    if statement is not None:
        database.connection().execute(statement, (keys,))


def index_agrees() -> None:
    """The index holds each issue as its text is now, and nothing else (on SQLite FTS5
    checks itself; on PostgreSQL each row is computed anew and compared)."""
    dialect = current()
    if not dialect.postgres:
        database.execute_sql("INSERT INTO issue_fts (issue_fts, rank) VALUES ('integrity-check', 1)")
        return
    fresh = index(dialect).split(" ON CONFLICT")[0].replace("INSERT INTO issue_fts (key, doc, head, body) ", "")
    fresh = fresh.replace(" WHERE key IN (SELECT jsonb_array_elements_text(CAST(%s AS jsonb)))", "")

    def differing(read: str) -> int:
        return database.connection().execute(
            f"SELECT count(*) FROM ({fresh}) AS fresh (key, doc, head, body) FULL JOIN {read} AS issue_fts "
            "USING (key) WHERE fresh.doc IS DISTINCT FROM issue_fts.doc OR fresh.head IS DISTINCT FROM "
            "issue_fts.head OR fresh.body IS DISTINCT FROM issue_fts.body").fetchone()[0]

    # What search reads agrees before the backlog is drained, and the index itself after.
    assert differing("issue_fts_now") == 0
    drain_backlog()
    assert differing("issue_fts") == 0


def drain_backlog() -> int:
    """On PostgreSQL, index what pages marked stale, as a node's thread does after a page
    (in this thread's transaction, if it is in one); how many keys."""
    if not current().postgres:
        return 0
    return PostgresSearchBacklog("").drain(database.connection())


def index_everything() -> None:
    """Index every issue of the mirror, as the loader would have page by page."""
    keys = json.dumps([key for (key,) in database.execute_sql("SELECT key FROM issue ORDER BY key")])
    _run(index(current()), keys)
