"""Bodies and values at the edges: sizes, depths, counts and times that must not cost a 500."""

from __future__ import annotations

from tests.test_agent_protocol import db_rows, issue
from tests.test_mirror import load

EDGES = ["0001-01-01T00:00:00.000+0300", "9999-12-31T23:00:00.000-0300"]


def test_jira_times_at_the_calendars_ends_store_no_utc_time(hub):
    comments = [{"id": str(n), "created": t, "body": "b"} for n, t in enumerate(EDGES)]
    changes = [{"id": str(n), "created": t, "items": [{"field": "status"}]} for n, t in enumerate(EDGES)]
    attachments = [{"id": str(n), "filename": "f", "created": t} for n, t in enumerate(EDGES)]
    load(hub, [issue("X-1", comments=comments, changes=changes, attachments=attachments)])
    for table in ("issue_comment", "issue_change", "issue_attachment"):
        assert db_rows(hub, f"SELECT created, created_at FROM {table} ORDER BY created") == [
            (EDGES[0], None), (EDGES[1], None)], table
