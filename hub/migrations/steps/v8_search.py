"""v7 → v8: full-text search over issues, and the Jira ``updated`` time in UTC.

- ``issue.jira_updated_at``: ``jira_updated`` (Jira's time, e.g.
  ``2026-10-22T13:05:11.000+0300``) in UTC at whole seconds
  (``2026-10-22T10:05:11+00:00``), NULL where it names no instant; indexed, so
  ``updated_since`` compares instants whatever zone Jira wrote. Filled here with
  v5's frozen conversion, the same result the loader's gives.
- ``issue_search``: a view, one row per issue — its ``rowid`` as ``doc``, ``key``,
  ``summary``, ``description`` and its comments' bodies joined by newlines
  (ordered by ``comment_id``) — with ``ё``/``Ё`` read as ``е``/``Е``, which the
  tokenizer does not fold and Russian writers use interchangeably.
- ``issue_fts``: an FTS5 table of external content (``content='issue_search'``):
  the index alone is stored, the text is read back from the view for snippets,
  so the mirror's text is not held twice. Tokenizer ``unicode61
  remove_diacritics 2``: case folded in every script, Latin diacritics removed.
  Built here by ``rebuild``; afterwards the state loader keeps it in step in the
  same transaction (an FTS ``delete`` with the old text before it changes, an
  insert after). Anything else that writes ``issue`` or ``issue_comment`` must do
  the same, or ``rebuild`` the table.
"""

from __future__ import annotations

import sqlite3

from hub.migrations.steps.v5_changelog import JiraTimeConverter

VERSION = 8


def apply(conn: sqlite3.Connection) -> None:
    conn.execute("ALTER TABLE issue ADD COLUMN jira_updated_at TEXT")
    # One UPDATE with the conversion as an SQL function, as v5 did for comments.
    conn.create_function("hub_v8_jira_time_to_utc", 1, JiraTimeConverter(), deterministic=True)
    conn.execute("UPDATE issue SET jira_updated_at = hub_v8_jira_time_to_utc(jira_updated)"
                 " WHERE jira_updated IS NOT NULL")
    conn.execute("CREATE INDEX issue_jira_updated_at ON issue (jira_updated_at)")
    conn.execute(
        """CREATE VIEW issue_search (doc, key, summary, description, comments) AS
             SELECT issue.rowid, issue.key,
                    replace(replace(issue.summary, 'ё', 'е'), 'Ё', 'Е'),
                    replace(replace(issue.description, 'ё', 'е'), 'Ё', 'Е'),
                    (SELECT replace(replace(group_concat(body, char(10)), 'ё', 'е'), 'Ё', 'Е')
                       FROM (SELECT body FROM issue_comment
                              WHERE issue_comment.key = issue.key ORDER BY comment_id))
               FROM issue"""
    )
    conn.execute(
        "CREATE VIRTUAL TABLE issue_fts USING fts5 (key, summary, description, comments,"
        " content='issue_search', content_rowid='doc', tokenize='unicode61 remove_diacritics 2')")
    conn.execute("INSERT INTO issue_fts (issue_fts) VALUES ('rebuild')")
