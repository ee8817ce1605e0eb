-- sdlc-hub database schema, current version (15), as a new hub creates it.
--
-- A deployed database reaches the same schema through the steps in steps/;
-- tests/test_schema.py checks that a new database and a migrated v1 database
-- agree on every table, column and index. Columns that a step adds with
-- ALTER TABLE come last in their table here, in the order the steps add them.
-- The runner sets journal_mode and writes setting.schema_version.

CREATE TABLE setting (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
);

CREATE TABLE issue (
  key           TEXT PRIMARY KEY,
  id            TEXT NOT NULL,
  issue_type    TEXT,
  summary       TEXT NOT NULL DEFAULT '',
  description   TEXT,
  status        TEXT,
  priority      TEXT,
  assignee      TEXT,
  reporter      TEXT,
  duedate       TEXT,
  planned_start TEXT,
  planned_end   TEXT,
  epic_key      TEXT,
  labels        TEXT NOT NULL DEFAULT '[]',
  sprint        TEXT,
  jira_updated  TEXT,
  fetched_at    TEXT NOT NULL,
  neighbor      INTEGER NOT NULL DEFAULT 0,
  created       TEXT,
  jira_updated_at TEXT,
  resolution    TEXT,
  resolved      TEXT,
  resolved_at   TEXT,
  components    TEXT NOT NULL DEFAULT '[]',
  fix_versions  TEXT NOT NULL DEFAULT '[]',
  affects_versions TEXT NOT NULL DEFAULT '[]',
  environment   TEXT,
  parent_key    TEXT,
  time_original_estimate INTEGER,
  time_estimate INTEGER,
  time_spent    INTEGER,
  custom_fields TEXT NOT NULL DEFAULT '{}',
  custom_text   TEXT,
  gone_at       TEXT,
  gone_reason   TEXT,
  transitions   TEXT,
  edit_fields   TEXT
);
CREATE INDEX issue_epic_key ON issue (epic_key);
CREATE INDEX issue_status ON issue (status);
CREATE INDEX issue_jira_updated_at ON issue (jira_updated_at);
-- Sub-tasks of an issue, and "resolved but not released"; see steps/v10_whole_issue.py.
CREATE INDEX issue_parent_key ON issue (parent_key);
CREATE INDEX issue_resolution ON issue (resolution);
-- An issue is its Jira id: a moved issue is re-keyed, not mirrored twice; see steps/v11_moves.py.
CREATE UNIQUE INDEX issue_jira_id ON issue (id);
-- Gone issues: few, counted and left out of lists by default.
CREATE INDEX issue_gone ON issue (gone_at) WHERE gone_at IS NOT NULL;
-- JQL's sprint = … also matches the current sprint by name (see steps/v12_saved_filters.py).
CREATE INDEX issue_current_sprint ON issue (sprint);
-- JQL's priority = / IN (v12).
CREATE INDEX issue_priority ON issue (priority);

-- The keys issues had before they moved, and the key each has now.
CREATE TABLE issue_alias (
  old_key  TEXT PRIMARY KEY,
  key      TEXT NOT NULL,
  moved_at TEXT NOT NULL
);
CREATE INDEX issue_alias_key ON issue_alias (key);

-- Every Jira sprint an issue names; issue_sprint holds every sprint an issue was ever in.
CREATE TABLE sprint (
  sprint_id     INTEGER PRIMARY KEY,
  name          TEXT NOT NULL,
  state         TEXT,
  start_date    TEXT,
  end_date      TEXT,
  complete_date TEXT,
  board_id      INTEGER,
  goal          TEXT,
  updated_at    TEXT NOT NULL
);
CREATE INDEX sprint_state ON sprint (state, board_id);

CREATE TABLE issue_sprint (
  key       TEXT NOT NULL,
  sprint_id INTEGER NOT NULL,
  PRIMARY KEY (key, sprint_id)
);
CREATE INDEX issue_sprint_sprint ON issue_sprint (sprint_id);

CREATE TABLE issue_worklog (
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
);

-- Jira's catalogues (kind: priority, status, resolution, issue_type, link_type), in Jira's order.
CREATE TABLE jira_catalogue (
  kind     TEXT NOT NULL,
  jira_id  TEXT NOT NULL,
  name     TEXT NOT NULL,
  position INTEGER NOT NULL,
  detail   TEXT NOT NULL DEFAULT '{}',
  PRIMARY KEY (kind, jira_id)
);
CREATE INDEX jira_catalogue_name ON jira_catalogue (kind, name);

CREATE TABLE jira_user (
  name         TEXT PRIMARY KEY,
  user_key     TEXT,
  display_name TEXT,
  updated_at   TEXT NOT NULL
);
CREATE INDEX jira_user_key ON jira_user (user_key);

CREATE TABLE issue_link (
  source_key TEXT NOT NULL,
  target_key TEXT NOT NULL,
  link_type  TEXT NOT NULL,
  PRIMARY KEY (source_key, target_key, link_type)
);
CREATE INDEX issue_link_target ON issue_link (target_key);

CREATE TABLE issue_note (
  id         INTEGER PRIMARY KEY AUTOINCREMENT,
  key        TEXT NOT NULL,
  author     TEXT NOT NULL,
  body       TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX issue_note_key ON issue_note (key);

CREATE TABLE batch (
  id         INTEGER PRIMARY KEY AUTOINCREMENT,
  title      TEXT NOT NULL,
  status     TEXT NOT NULL DEFAULT 'open',
  created_by TEXT,
  created_at TEXT NOT NULL,
  project    TEXT REFERENCES project (label)
);

CREATE TABLE command (
  id          INTEGER PRIMARY KEY AUTOINCREMENT,
  type        TEXT NOT NULL,
  params      TEXT NOT NULL DEFAULT '{}',
  status      TEXT NOT NULL DEFAULT 'queued',
  batch_id    INTEGER REFERENCES batch (id),
  agent_id    TEXT,
  created_at  TEXT NOT NULL,
  claimed_at  TEXT,
  lease_until TEXT,
  finished_at TEXT,
  result      TEXT,
  error       TEXT,
  deliveries  INTEGER NOT NULL DEFAULT 0,
  token_id    INTEGER,
  serial_key  TEXT
);
CREATE INDEX command_status ON command (status, id);
-- An older open command of the same serial key holds a claim back; see steps/v15_writes.py.
CREATE INDEX command_serial ON command (serial_key, id) WHERE serial_key IS NOT NULL;
-- An attachment's fetches, newest last; see steps/v7_tokens.py for how to hit it.
CREATE INDEX command_attachment ON command (json_extract(params, '$.attachment_id'), id)
  WHERE type = 'fetch_attachment';

CREATE TABLE sync_run (
  id            INTEGER PRIMARY KEY AUTOINCREMENT,
  command_id    INTEGER REFERENCES command (id),
  query         TEXT NOT NULL,
  status        TEXT NOT NULL,
  started_at    TEXT NOT NULL,
  finished_at   TEXT,
  issues_loaded INTEGER NOT NULL DEFAULT 0,
  error         TEXT,
  history_at    TEXT,
  neighbors_due INTEGER NOT NULL DEFAULT 0,
  agent_version INTEGER,
  checks_enqueued INTEGER
);
CREATE INDEX sync_run_neighbors_due ON sync_run (id) WHERE neighbors_due = 1;
CREATE INDEX sync_run_command ON sync_run (command_id);

CREATE TABLE agent_status (
  agent_id     TEXT PRIMARY KEY,
  version      INTEGER,
  last_seen_at TEXT NOT NULL,
  state        TEXT,
  detail       TEXT,
  token_id     INTEGER
);
-- Counting one token's agent ids, and agents seen since a time; see steps/v9_agent_tokens.py.
CREATE INDEX agent_status_token ON agent_status (token_id, last_seen_at);
CREATE INDEX agent_status_last_seen ON agent_status (last_seen_at);

CREATE TABLE issue_comment (
  key        TEXT NOT NULL,
  comment_id TEXT NOT NULL,
  author     TEXT,
  created    TEXT,
  updated    TEXT,
  body       TEXT NOT NULL DEFAULT '',
  created_at TEXT,
  PRIMARY KEY (key, comment_id)
);

CREATE TABLE project (
  label      TEXT PRIMARY KEY,
  name       TEXT NOT NULL,
  board_id   INTEGER,
  board_type TEXT,
  created_at TEXT NOT NULL
);

CREATE TABLE issue_change (
  key         TEXT NOT NULL,
  history_id  TEXT NOT NULL,
  item_no     INTEGER NOT NULL,
  author      TEXT,
  created     TEXT NOT NULL,
  created_at  TEXT,
  field       TEXT NOT NULL,
  field_type  TEXT,
  from_value  TEXT,
  from_string TEXT,
  to_value    TEXT,
  to_string   TEXT,
  PRIMARY KEY (key, history_id, item_no)
);
CREATE INDEX issue_change_key_created ON issue_change (key, created_at);
CREATE INDEX issue_change_field_created ON issue_change (field, created_at);
-- JQL's WAS: a field's changes from or to a value, per issue, from the index alone (v12).
CREATE INDEX issue_change_field_key ON issue_change (field, key, from_value, from_string, to_value, to_string);

CREATE TABLE issue_attachment (
  attachment_id TEXT PRIMARY KEY,
  key           TEXT NOT NULL,
  filename      TEXT NOT NULL,
  size          INTEGER,
  mime_type     TEXT,
  author        TEXT,
  created       TEXT,
  created_at    TEXT
);
CREATE INDEX issue_attachment_key ON issue_attachment (key);

CREATE TABLE attachment_file (
  attachment_id TEXT PRIMARY KEY,
  file          TEXT NOT NULL,
  size          INTEGER NOT NULL,
  fetched_at    TEXT NOT NULL
);

CREATE TABLE token (
  id         INTEGER PRIMARY KEY AUTOINCREMENT,
  name       TEXT NOT NULL UNIQUE,
  role       TEXT NOT NULL,
  sha256     TEXT NOT NULL UNIQUE,
  created_at TEXT NOT NULL,
  may_write  INTEGER NOT NULL DEFAULT 0
);

-- JQL queries kept under a name by the token that saved it; see steps/v12_saved_filters.py).
CREATE TABLE saved_filter (
  id             INTEGER PRIMARY KEY AUTOINCREMENT,
  name           TEXT NOT NULL,
  jql            TEXT NOT NULL,
  owner_token_id INTEGER,
  created_at     TEXT NOT NULL,
  updated_at     TEXT NOT NULL
);
CREATE UNIQUE INDEX saved_filter_owner_name ON saved_filter (owner_token_id, name);

-- The web interface's sessions: only the sha256 of a session id (the cookie's
-- value) is kept; see steps/v13_web_sessions.py.
CREATE TABLE web_session (
  id           INTEGER PRIMARY KEY AUTOINCREMENT,
  sha256       TEXT NOT NULL UNIQUE,
  token_id     INTEGER NOT NULL,
  created_at   TEXT NOT NULL,
  last_seen_at TEXT NOT NULL,
  expires_at   TEXT NOT NULL
);
CREATE INDEX web_session_token ON web_session (token_id);
CREATE INDEX web_session_expires ON web_session (expires_at);

-- Writes to Jira an interface asked for, applied by an agent; see steps/v15_writes.py.
CREATE TABLE write (
  id              INTEGER PRIMARY KEY AUTOINCREMENT,
  op              TEXT NOT NULL,
  key             TEXT,
  project         TEXT,
  params          TEXT NOT NULL DEFAULT '{}',
  base            TEXT,
  token_id        INTEGER,
  requested_by    TEXT NOT NULL,
  idempotency_key TEXT,
  status          TEXT NOT NULL,
  error           TEXT,
  conflict        TEXT,
  result          TEXT,
  command_id      INTEGER,
  file            TEXT,
  created_at      TEXT NOT NULL,
  updated_at      TEXT NOT NULL
);
CREATE UNIQUE INDEX write_idempotency ON write (token_id, idempotency_key)
  WHERE idempotency_key IS NOT NULL;
CREATE INDEX write_key ON write (key, id);
CREATE INDEX write_command ON write (command_id);
CREATE INDEX write_status ON write (status, id);

-- Each project's create screen by issue type, as an agent last read it.
CREATE TABLE create_meta (
  project    TEXT NOT NULL,
  issue_type TEXT NOT NULL,
  fields     TEXT NOT NULL DEFAULT '{}',
  updated_at TEXT NOT NULL,
  PRIMARY KEY (project, issue_type)
);

-- Full-text search: the index of issue_fts only; its text is read back from
-- the view. The state loader keeps it in step; see steps/v8_search.py and
-- steps/v10_whole_issue.py (the column ``other``: environment and the text of
-- custom fields).
CREATE VIEW issue_search (doc, key, summary, description, comments, other) AS
  SELECT issue.rowid, issue.key,
         replace(replace(issue.summary, 'ё', 'е'), 'Ё', 'Е'),
         replace(replace(issue.description, 'ё', 'е'), 'Ё', 'Е'),
         (SELECT replace(replace(group_concat(body, char(10)), 'ё', 'е'), 'Ё', 'Е')
            FROM (SELECT body FROM issue_comment
                   WHERE issue_comment.key = issue.key ORDER BY comment_id)),
         (SELECT replace(replace(group_concat(text, char(10)), 'ё', 'е'), 'Ё', 'Е')
            FROM (SELECT issue.environment AS text UNION ALL SELECT issue.custom_text))
    FROM issue;
CREATE VIRTUAL TABLE issue_fts USING fts5 (key, summary, description, comments, other,
  content='issue_search', content_rowid='doc', tokenize='unicode61 remove_diacritics 2');
