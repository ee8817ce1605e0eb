-- sdlc-hub database schema on PostgreSQL: the baseline, at schema version 13.
--
-- The same tables, columns and indexes as ../schema.sql (SQLite's), with what
-- PostgreSQL needs to behave the same:
-- - every integer is BIGINT (PostgreSQL's INTEGER is 32-bit; SQLite's is 64);
--   ids are identities, as AUTOINCREMENT ids are;
-- - every text column is COLLATE "C": SQLite compares text byte by byte, and the
--   hub compares times as text (ISO-8601 in UTC), which a language's collation
--   would order differently;
-- - JSON columns stay TEXT holding JSON, read with ::jsonb where a query needs a
--   member (the index command_attachment).
-- A PostgreSQL hub starts at this version; the steps in steps.py take it on
-- from here, never the SQLite steps. tests/test_schema_postgres.py checks the
-- two schemas agree. The runner writes setting.schema_version.

CREATE TABLE setting (
  key   TEXT COLLATE "C" PRIMARY KEY,
  value TEXT COLLATE "C" NOT NULL
);

CREATE TABLE issue (
  key           TEXT COLLATE "C" PRIMARY KEY,
  id            TEXT COLLATE "C" NOT NULL,
  issue_type    TEXT COLLATE "C",
  summary       TEXT COLLATE "C" NOT NULL DEFAULT '',
  description   TEXT COLLATE "C",
  status        TEXT COLLATE "C",
  priority      TEXT COLLATE "C",
  assignee      TEXT COLLATE "C",
  reporter      TEXT COLLATE "C",
  duedate       TEXT COLLATE "C",
  planned_start TEXT COLLATE "C",
  planned_end   TEXT COLLATE "C",
  epic_key      TEXT COLLATE "C",
  labels        TEXT COLLATE "C" NOT NULL DEFAULT '[]',
  sprint        TEXT COLLATE "C",
  jira_updated  TEXT COLLATE "C",
  fetched_at    TEXT COLLATE "C" NOT NULL,
  neighbor      BIGINT NOT NULL DEFAULT 0,
  created       TEXT COLLATE "C",
  jira_updated_at TEXT COLLATE "C",
  resolution    TEXT COLLATE "C",
  resolved      TEXT COLLATE "C",
  resolved_at   TEXT COLLATE "C",
  components    TEXT COLLATE "C" NOT NULL DEFAULT '[]',
  fix_versions  TEXT COLLATE "C" NOT NULL DEFAULT '[]',
  affects_versions TEXT COLLATE "C" NOT NULL DEFAULT '[]',
  environment   TEXT COLLATE "C",
  parent_key    TEXT COLLATE "C",
  time_original_estimate BIGINT,
  time_estimate BIGINT,
  time_spent    BIGINT,
  custom_fields TEXT COLLATE "C" NOT NULL DEFAULT '{}',
  custom_text   TEXT COLLATE "C",
  gone_at       TEXT COLLATE "C",
  gone_reason   TEXT COLLATE "C"
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
  old_key  TEXT COLLATE "C" PRIMARY KEY,
  key      TEXT COLLATE "C" NOT NULL,
  moved_at TEXT COLLATE "C" NOT NULL
);
CREATE INDEX issue_alias_key ON issue_alias (key);

-- Every Jira sprint an issue names; issue_sprint holds every sprint an issue was ever in.
CREATE TABLE sprint (
  sprint_id     BIGINT PRIMARY KEY,
  name          TEXT COLLATE "C" NOT NULL,
  state         TEXT COLLATE "C",
  start_date    TEXT COLLATE "C",
  end_date      TEXT COLLATE "C",
  complete_date TEXT COLLATE "C",
  board_id      BIGINT,
  goal          TEXT COLLATE "C",
  updated_at    TEXT COLLATE "C" NOT NULL
);
CREATE INDEX sprint_state ON sprint (state, board_id);

CREATE TABLE issue_sprint (
  key       TEXT COLLATE "C" NOT NULL,
  sprint_id BIGINT NOT NULL,
  PRIMARY KEY (key, sprint_id)
);
CREATE INDEX issue_sprint_sprint ON issue_sprint (sprint_id);

CREATE TABLE issue_worklog (
  key        TEXT COLLATE "C" NOT NULL,
  worklog_id TEXT COLLATE "C" NOT NULL,
  author     TEXT COLLATE "C",
  started    TEXT COLLATE "C",
  started_at TEXT COLLATE "C",
  time_spent BIGINT,
  comment    TEXT COLLATE "C",
  created    TEXT COLLATE "C",
  updated    TEXT COLLATE "C",
  PRIMARY KEY (key, worklog_id)
);

-- Jira's catalogues (kind: priority, status, resolution, issue_type, link_type), in Jira's order.
CREATE TABLE jira_catalogue (
  kind     TEXT COLLATE "C" NOT NULL,
  jira_id  TEXT COLLATE "C" NOT NULL,
  name     TEXT COLLATE "C" NOT NULL,
  position BIGINT NOT NULL,
  detail   TEXT COLLATE "C" NOT NULL DEFAULT '{}',
  PRIMARY KEY (kind, jira_id)
);
CREATE INDEX jira_catalogue_name ON jira_catalogue (kind, name);

CREATE TABLE jira_user (
  name         TEXT COLLATE "C" PRIMARY KEY,
  user_key     TEXT COLLATE "C",
  display_name TEXT COLLATE "C",
  updated_at   TEXT COLLATE "C" NOT NULL
);
CREATE INDEX jira_user_key ON jira_user (user_key);

CREATE TABLE issue_link (
  source_key TEXT COLLATE "C" NOT NULL,
  target_key TEXT COLLATE "C" NOT NULL,
  link_type  TEXT COLLATE "C" NOT NULL,
  PRIMARY KEY (source_key, target_key, link_type)
);
CREATE INDEX issue_link_target ON issue_link (target_key);

CREATE TABLE issue_note (
  id         BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
  key        TEXT COLLATE "C" NOT NULL,
  author     TEXT COLLATE "C" NOT NULL,
  body       TEXT COLLATE "C" NOT NULL,
  created_at TEXT COLLATE "C" NOT NULL,
  updated_at TEXT COLLATE "C" NOT NULL
);
CREATE INDEX issue_note_key ON issue_note (key);

CREATE TABLE project (
  label      TEXT COLLATE "C" PRIMARY KEY,
  name       TEXT COLLATE "C" NOT NULL,
  board_id   BIGINT,
  board_type TEXT COLLATE "C",
  created_at TEXT COLLATE "C" NOT NULL
);

CREATE TABLE batch (
  id         BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
  title      TEXT COLLATE "C" NOT NULL,
  status     TEXT COLLATE "C" NOT NULL DEFAULT 'open',
  created_by TEXT COLLATE "C",
  created_at TEXT COLLATE "C" NOT NULL,
  project    TEXT COLLATE "C" REFERENCES project (label)
);

CREATE TABLE command (
  id          BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
  type        TEXT COLLATE "C" NOT NULL,
  params      TEXT COLLATE "C" NOT NULL DEFAULT '{}',
  status      TEXT COLLATE "C" NOT NULL DEFAULT 'queued',
  batch_id    BIGINT REFERENCES batch (id),
  agent_id    TEXT COLLATE "C",
  created_at  TEXT COLLATE "C" NOT NULL,
  claimed_at  TEXT COLLATE "C",
  lease_until TEXT COLLATE "C",
  finished_at TEXT COLLATE "C",
  result      TEXT COLLATE "C",
  error       TEXT COLLATE "C",
  deliveries  BIGINT NOT NULL DEFAULT 0,
  token_id    BIGINT
);
CREATE INDEX command_status ON command (status, id);
-- An attachment's fetches, newest last; see steps/v7_tokens.py for how to hit it.
CREATE INDEX command_attachment ON command (((params::jsonb) ->> 'attachment_id'), id)
  WHERE type = 'fetch_attachment';

CREATE TABLE sync_run (
  id            BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
  command_id    BIGINT REFERENCES command (id),
  query         TEXT COLLATE "C" NOT NULL,
  status        TEXT COLLATE "C" NOT NULL,
  started_at    TEXT COLLATE "C" NOT NULL,
  finished_at   TEXT COLLATE "C",
  issues_loaded BIGINT NOT NULL DEFAULT 0,
  error         TEXT COLLATE "C",
  history_at    TEXT COLLATE "C",
  neighbors_due BIGINT NOT NULL DEFAULT 0,
  agent_version BIGINT,
  checks_enqueued BIGINT
);
CREATE INDEX sync_run_neighbors_due ON sync_run (id) WHERE neighbors_due = 1;
CREATE INDEX sync_run_command ON sync_run (command_id);

CREATE TABLE agent_status (
  agent_id     TEXT COLLATE "C" PRIMARY KEY,
  version      BIGINT,
  last_seen_at TEXT COLLATE "C" NOT NULL,
  state        TEXT COLLATE "C",
  detail       TEXT COLLATE "C",
  token_id     BIGINT
);
-- Counting one token's agent ids, and agents seen since a time; see steps/v9_agent_tokens.py.
CREATE INDEX agent_status_token ON agent_status (token_id, last_seen_at);
CREATE INDEX agent_status_last_seen ON agent_status (last_seen_at);

CREATE TABLE issue_comment (
  key        TEXT COLLATE "C" NOT NULL,
  comment_id TEXT COLLATE "C" NOT NULL,
  author     TEXT COLLATE "C",
  created    TEXT COLLATE "C",
  updated    TEXT COLLATE "C",
  body       TEXT COLLATE "C" NOT NULL DEFAULT '',
  created_at TEXT COLLATE "C",
  PRIMARY KEY (key, comment_id)
);

CREATE TABLE issue_change (
  key         TEXT COLLATE "C" NOT NULL,
  history_id  TEXT COLLATE "C" NOT NULL,
  item_no     BIGINT NOT NULL,
  author      TEXT COLLATE "C",
  created     TEXT COLLATE "C" NOT NULL,
  created_at  TEXT COLLATE "C",
  field       TEXT COLLATE "C" NOT NULL,
  field_type  TEXT COLLATE "C",
  from_value  TEXT COLLATE "C",
  from_string TEXT COLLATE "C",
  to_value    TEXT COLLATE "C",
  to_string   TEXT COLLATE "C",
  PRIMARY KEY (key, history_id, item_no)
);
CREATE INDEX issue_change_key_created ON issue_change (key, created_at);
CREATE INDEX issue_change_field_created ON issue_change (field, created_at);
-- JQL's WAS: a field's changes from or to a value, per issue, from the index alone (v12).
CREATE INDEX issue_change_field_key ON issue_change (field, key, from_value, from_string, to_value, to_string);

CREATE TABLE issue_attachment (
  attachment_id TEXT COLLATE "C" PRIMARY KEY,
  key           TEXT COLLATE "C" NOT NULL,
  filename      TEXT COLLATE "C" NOT NULL,
  size          BIGINT,
  mime_type     TEXT COLLATE "C",
  author        TEXT COLLATE "C",
  created       TEXT COLLATE "C",
  created_at    TEXT COLLATE "C"
);
CREATE INDEX issue_attachment_key ON issue_attachment (key);

CREATE TABLE attachment_file (
  attachment_id TEXT COLLATE "C" PRIMARY KEY,
  file          TEXT COLLATE "C" NOT NULL,
  size          BIGINT NOT NULL,
  fetched_at    TEXT COLLATE "C" NOT NULL
);

CREATE TABLE token (
  id         BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
  name       TEXT COLLATE "C" NOT NULL UNIQUE,
  role       TEXT COLLATE "C" NOT NULL,
  sha256     TEXT COLLATE "C" NOT NULL UNIQUE,
  created_at TEXT COLLATE "C" NOT NULL
);

-- JQL queries kept under a name by the token that saved it; see steps/v12_saved_filters.py).
CREATE TABLE saved_filter (
  id             BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
  name           TEXT COLLATE "C" NOT NULL,
  jql            TEXT COLLATE "C" NOT NULL,
  owner_token_id BIGINT,
  created_at     TEXT COLLATE "C" NOT NULL,
  updated_at     TEXT COLLATE "C" NOT NULL
);
CREATE UNIQUE INDEX saved_filter_owner_name ON saved_filter (owner_token_id, name);

-- The web interface's sessions: only the sha256 of a session id (the cookie's
-- value) is kept; see steps/v13_web_sessions.py.
CREATE TABLE web_session (
  id           BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
  sha256       TEXT COLLATE "C" NOT NULL UNIQUE,
  token_id     BIGINT NOT NULL,
  created_at   TEXT COLLATE "C" NOT NULL,
  last_seen_at TEXT COLLATE "C" NOT NULL,
  expires_at   TEXT COLLATE "C" NOT NULL
);
CREATE INDEX web_session_token ON web_session (token_id);
CREATE INDEX web_session_expires ON web_session (expires_at);

-- SQLite's hub registers these two in Python (hub/db.py); here they are SQL.
-- casefold: JQL folds names in every script. lower() folds as its argument's
-- collation does, and "C" folds ASCII alone, so it is told to fold as Unicode does.
CREATE FUNCTION casefold(t TEXT) RETURNS TEXT
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  RETURN lower(t COLLATE "und-x-icu") COLLATE "C";

-- jira_utc: a Jira time (2026-10-22T13:05:11.000+0300) in the hub's format
-- (2026-10-22T10:05:11+00:00), or NULL when it names no instant (hub/clock.py's jira_to_utc).
CREATE FUNCTION jira_utc(t TEXT) RETURNS TEXT
  LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
AS $$
BEGIN
  IF t IS NULL OR btrim(t) !~ '^\d{4}-\d\d-\d\d[T ]\d\d:\d\d(:\d\d(\.\d+)?)?([+-]\d\d(:?\d\d)?|Z)$' THEN
    RETURN NULL;
  END IF;
  RETURN to_char(btrim(t)::timestamptz AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS') || '+00:00';
EXCEPTION WHEN others THEN
  RETURN NULL;
END
$$;

-- Full-text search (hub/services/fulltext_postgres.py; docs/api.md, "On PostgreSQL"). SQLite's
-- FTS5 table and its view are not here: PostgreSQL's index is a table of
-- precomputed tsvectors under GIN, kept in step by the mirror's loader with the
-- statements of hub/dialect/fulltext.py. Only unaccent is needed (it ships with
-- PostgreSQL and every major managed service offers it).
CREATE EXTENSION IF NOT EXISTS unaccent;

-- search_words: text as the index reads it, the same function for the mirror's
-- text and a query's words, so that both fold alike: case folded in every script
-- (ICU's lower, since "C" folds ASCII alone), Latin diacritics removed and ё read
-- as е (unaccent), and every run of what is not a letter or a digit a space, as
-- FTS5's unicode61 splits words. What is left are plain words, which the 'simple'
-- configuration keeps as they are. IMMUTABLE, though unaccent's rules are a file,
-- so that the planner folds a query's words to a constant once: the rules do not
-- change while a hub runs (an edited rules file needs a rebuild of issue_fts).
CREATE FUNCTION search_words(t TEXT) RETURNS TEXT
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  RETURN btrim(regexp_replace(
    unaccent('unaccent'::regdictionary, replace(lower(t COLLATE "und-x-icu"), 'ё', 'е')) COLLATE "und-x-icu",
    '[^[:alnum:]]+', ' ', 'g')) COLLATE "C";

-- search_term: one word or phrase of a query as a tsquery: its words in order
-- (<->), each followed by ``inner_mark`` (a weight, ':B'), the last by
-- ``last_mark`` (':*B' for a prefix). A term of no word at all becomes the
-- lexeme ' ', which no text holds (search_words leaves no space in a word).
CREATE FUNCTION search_term(t TEXT, inner_mark TEXT, last_mark TEXT) RETURNS tsquery
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  RETURN CASE WHEN search_words(t) = '' THEN CAST(''' ''' AS tsquery)
    ELSE to_tsquery('simple', '''' || replace(search_words(t), ' ', '''' || inner_mark || ' <-> ''')
                              || '''' || last_mark) END;

-- search_vector: a field's words, of one weight. A tsvector holds at most 1 MB:
-- a field is read up to its first 200,000 characters.
CREATE FUNCTION search_vector(t TEXT, weight "char") RETURNS tsvector
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN setweight(to_tsvector('simple', coalesce(search_words(left(t, 200000)), '')), weight);

-- The text of an issue as it is searched, one row per issue, as SQLite's view
-- issue_search (the environment and custom fields' text are ``other``). ``doc``
-- orders the matches that are ranked, newest first: the issue's Jira id, which
-- grows as Jira creates issues and stays when a page rewrites one.
CREATE VIEW issue_search (doc, key, summary, description, comments, other) AS
  SELECT CASE WHEN issue.id ~ '^[0-9]{1,18}$' THEN CAST(issue.id AS BIGINT) ELSE 0 END,
         issue.key, issue.summary, issue.description,
         (SELECT string_agg(body, E'\n' ORDER BY comment_id) FROM issue_comment
           WHERE issue_comment.key = issue.key),
         nullif(concat_ws(E'\n', issue.environment, issue.custom_text), '')
    FROM issue;

-- issue_fts: one row per issue (issue_search's ``doc``), its words in two
-- tsvectors under GIN. ``head`` is what an issue is called, a few words that
-- ranking reads: A its key, B its summary, C ``other``. ``body`` is the long
-- text: C the description, D the comments.
CREATE TABLE issue_fts (
  key  TEXT COLLATE "C" PRIMARY KEY,
  doc  BIGINT NOT NULL,
  head tsvector NOT NULL,
  body tsvector NOT NULL
);
CREATE INDEX issue_fts_head ON issue_fts USING gin (head);
CREATE INDEX issue_fts_body ON issue_fts USING gin (body);
CREATE INDEX issue_fts_doc ON issue_fts (doc);
