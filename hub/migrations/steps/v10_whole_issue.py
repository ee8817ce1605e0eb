"""v9 → v10: the whole of a Jira issue — every field, every sprint, worklogs — and Jira's catalogues.

- ``issue`` gains ``resolution``, ``resolved`` (Jira's ``resolutiondate`` as written) and
  ``resolved_at`` (its UTC form), ``components``, ``fix_versions`` and ``affects_versions`` (JSON
  lists, ``[]`` by default; versions as objects with id, name, released, release date),
  ``environment``, ``parent_key`` (a sub-task's parent; indexed), ``time_original_estimate``,
  ``time_estimate`` and ``time_spent`` (seconds), and ``custom_fields`` (a JSON object, ``{}`` by
  default: every other field Jira returned, by field id, each with its name, schema type and
  value), and ``custom_text``: the text values of ``custom_fields`` joined by newlines, which the
  loader writes for the full-text index (FTS5 reads its content through statements that may not
  use table-valued functions such as ``json_each``, so the view cannot take them out of the JSON).
  ``resolution`` is indexed too: "resolved but not released" filters on it.
- ``sprint`` (one row per Jira sprint, upserted from the sprints issues carry) and
  ``issue_sprint`` (every sprint an issue was ever in, replaced when an agent sends the issue's
  sprints), so interfaces list sprints with state and dates and find issues carried over.
- ``issue_worklog``: an issue's worklogs, replaced when sent, like comments.
- ``jira_catalogue`` (priorities in Jira's order, statuses with their categories, resolutions,
  issue types, link types with their outward and inward names) and ``jira_user`` (login name,
  key, display name of the users the mirror names).
- The full-text index gains a column ``other``: the environment and every text value of the
  custom fields (``custom_text``). The view and the FTS table are made again and rebuilt here, as v8 built them.

Existing rows take the defaults: nothing is known of the new fields until an agent of protocol
v15 loads the issue again (the next full refresh).
"""

from __future__ import annotations

import sqlite3

VERSION = 10

_ISSUE_COLUMNS = (
    "resolution TEXT", "resolved TEXT", "resolved_at TEXT",
    "components TEXT NOT NULL DEFAULT '[]'", "fix_versions TEXT NOT NULL DEFAULT '[]'",
    "affects_versions TEXT NOT NULL DEFAULT '[]'", "environment TEXT", "parent_key TEXT",
    "time_original_estimate INTEGER", "time_estimate INTEGER", "time_spent INTEGER",
    "custom_fields TEXT NOT NULL DEFAULT '{}'", "custom_text TEXT",
)

_TABLES = (
    "CREATE INDEX issue_parent_key ON issue (parent_key)",
    "CREATE INDEX issue_resolution ON issue (resolution)",
    """CREATE TABLE sprint (
         sprint_id     INTEGER PRIMARY KEY,
         name          TEXT NOT NULL,
         state         TEXT,
         start_date    TEXT,
         end_date      TEXT,
         complete_date TEXT,
         board_id      INTEGER,
         goal          TEXT,
         updated_at    TEXT NOT NULL
       )""",
    "CREATE INDEX sprint_state ON sprint (state, board_id)",
    """CREATE TABLE issue_sprint (
         key       TEXT NOT NULL,
         sprint_id INTEGER NOT NULL,
         PRIMARY KEY (key, sprint_id)
       )""",
    "CREATE INDEX issue_sprint_sprint ON issue_sprint (sprint_id)",
    """CREATE TABLE issue_worklog (
         key        TEXT NOT NULL,
         worklog_id TEXT NOT NULL,
         author     TEXT,
         started    TEXT,
         started_at TEXT,
         time_spent INTEGER,
         comment    TEXT,
         created    TEXT,
         updated    TEXT,
         PRIMARY KEY (key, worklog_id)
       )""",
    """CREATE TABLE jira_catalogue (
         kind     TEXT NOT NULL,
         jira_id  TEXT NOT NULL,
         name     TEXT NOT NULL,
         position INTEGER NOT NULL,
         detail   TEXT NOT NULL DEFAULT '{}',
         PRIMARY KEY (kind, jira_id)
       )""",
    "CREATE INDEX jira_catalogue_name ON jira_catalogue (kind, name)",
    """CREATE TABLE jira_user (
         name         TEXT PRIMARY KEY,
         user_key     TEXT,
         display_name TEXT,
         updated_at   TEXT NOT NULL
       )""",
    "CREATE INDEX jira_user_key ON jira_user (user_key)",
)

_SEARCH_VIEW = """CREATE VIEW issue_search (doc, key, summary, description, comments, other) AS
  SELECT issue.rowid, issue.key,
         replace(replace(issue.summary, 'ё', 'е'), 'Ё', 'Е'),
         replace(replace(issue.description, 'ё', 'е'), 'Ё', 'Е'),
         (SELECT replace(replace(group_concat(body, char(10)), 'ё', 'е'), 'Ё', 'Е')
            FROM (SELECT body FROM issue_comment
                   WHERE issue_comment.key = issue.key ORDER BY comment_id)),
         (SELECT replace(replace(group_concat(text, char(10)), 'ё', 'е'), 'Ё', 'Е')
            FROM (SELECT issue.environment AS text UNION ALL SELECT issue.custom_text))
    FROM issue"""


def apply(conn: sqlite3.Connection) -> None:
    for column in _ISSUE_COLUMNS:
        conn.execute(f"ALTER TABLE issue ADD COLUMN {column}")
    for statement in _TABLES:
        conn.execute(statement)
    conn.execute("DROP TABLE issue_fts")
    conn.execute("DROP VIEW issue_search")
    conn.execute(_SEARCH_VIEW)
    conn.execute(
        "CREATE VIRTUAL TABLE issue_fts USING fts5 (key, summary, description, comments, other,"
        " content='issue_search', content_rowid='doc', tokenize='unicode61 remove_diacritics 2')")
    conn.execute("INSERT INTO issue_fts (issue_fts) VALUES ('rebuild')")
