"""v10 → v11: an issue is its Jira id — moved issues keep their mirror under the new key, and
issues Jira no longer returns are marked gone.

- ``issue.id`` becomes unique (index ``issue_jira_id``). Rows of one Jira id under several keys
  (an issue moved to another project, mirrored under both keys) are merged first: the row Jira
  updated last is kept (by ``jira_updated_at``, then the row loaded last), and the others' comments,
  changes, worklogs, sprints, attachment lists, links (both ways) and notes move to its key;
  what the kept row already holds (the same comment id, say) stays as the kept row has it.
- ``issue_alias (old_key, key, moved_at)``: a key an issue had before it moved, and the key it
  has now; the merged rows' keys are recorded here.
- ``issue.gone_at`` and ``issue.gone_reason``: when the hub learned that Jira no longer returns
  the issue, and why (NULL while Jira returns it).
  Index ``issue_gone`` (partial: gone issues only) counts them and tells at once that there are none.
- ``sync_run.agent_version``: the protocol version of the agent that claimed the run's refresh
  (NULL: claimed before v11); ``sync_run.checks_enqueued``: how many ``check_issues`` commands the
  run's neighbour marking enqueued (NULL: not decided yet, or a run from before v11).
- The full-text index is rebuilt when rows were merged (the merged rows leave it).
"""

from __future__ import annotations

import sqlite3

VERSION = 11

# Per child table: its key columns that name an issue.
_CHILDREN = (
    ("issue_comment", ("key",)), ("issue_change", ("key",)), ("issue_worklog", ("key",)),
    ("issue_sprint", ("key",)), ("issue_attachment", ("key",)), ("issue_note", ("key",)),
    ("issue_link", ("source_key", "target_key")),
)


def apply(conn: sqlite3.Connection) -> None:
    conn.execute("ALTER TABLE issue ADD COLUMN gone_at TEXT")
    conn.execute("ALTER TABLE issue ADD COLUMN gone_reason TEXT")
    conn.execute("""CREATE TABLE issue_alias (
                      old_key  TEXT PRIMARY KEY,
                      key      TEXT NOT NULL,
                      moved_at TEXT NOT NULL
                    )""")
    conn.execute("CREATE INDEX issue_alias_key ON issue_alias (key)")
    conn.execute("CREATE INDEX issue_gone ON issue (gone_at) WHERE gone_at IS NOT NULL")
    conn.execute("ALTER TABLE sync_run ADD COLUMN agent_version INTEGER")
    conn.execute("ALTER TABLE sync_run ADD COLUMN checks_enqueued INTEGER")
    merged = _merge_duplicates(conn)
    conn.execute("CREATE UNIQUE INDEX issue_jira_id ON issue (id)")
    if merged:
        conn.execute("INSERT INTO issue_fts (issue_fts) VALUES ('rebuild')")


def _merge_duplicates(conn: sqlite3.Connection) -> int:
    """Fold the rows of each Jira id into the one Jira updated last; the number folded."""
    conn.execute("""CREATE TEMP TABLE v11_moved AS
                      SELECT key AS old_key, first_value(key) OVER (
                               PARTITION BY id ORDER BY jira_updated_at IS NULL, jira_updated_at DESC,
                               fetched_at DESC, rowid DESC) AS key
                        FROM issue WHERE id IN (SELECT id FROM issue GROUP BY id HAVING count(*) > 1)""")
    conn.execute("DELETE FROM v11_moved WHERE old_key = key")
    moved = conn.execute("SELECT count(*) FROM v11_moved").fetchone()[0]
    if moved:
        for table, columns in _CHILDREN:
            for column in columns:
                # OR IGNORE: a row the kept issue already holds stays as it has it; the
                # merged row's copy is removed below.
                conn.execute(f"UPDATE OR IGNORE {table} SET {column} = (SELECT key FROM v11_moved "
                             f"WHERE old_key = {table}.{column}) WHERE {column} IN (SELECT old_key FROM v11_moved)")
                conn.execute(f"DELETE FROM {table} WHERE {column} IN (SELECT old_key FROM v11_moved)")
        conn.execute("DELETE FROM issue_link WHERE source_key = target_key")
        conn.execute("INSERT OR REPLACE INTO issue_alias (old_key, key, moved_at) "
                     "SELECT old_key, key, strftime('%Y-%m-%dT%H:%M:%S+00:00', 'now') FROM v11_moved")
        conn.execute("DELETE FROM issue WHERE key IN (SELECT old_key FROM v11_moved)")
    conn.execute("DROP TABLE v11_moved")
    return moved
