"""Peewee models of the hub's 22 tables at schema version 13.

The full-text index (``issue_fts``, its shadow tables and the ``issue_search``
view) has no model: the loader writes it and the issue service reads it in SQL.

The models describe the schema for queries; they do not create it. The schema
belongs to :mod:`hub.migrations` (``schema.sql`` for a new database, the steps
for a deployed one), and ``tests/storage/test_models.py`` checks that the two agree.
What the mirror's columns hold is told in docs/agent-protocol.md (the state an
agent reports) and docs/attachments.md; times the hub writes are UTC
ISO-8601 strings, Jira's own time strings are kept as Jira sent them.
"""

from __future__ import annotations

import json

from peewee import (
    AutoField,
    CompositeKey,
    ForeignKeyField,
    IntegerField,
    Model,
    TextField,
)

from hub.db import database
from hub.vocabulary import QUEUED


class JSONField(TextField):
    """A TEXT column holding JSON; Python values in, Python values out."""

    def db_value(self, value):
        return None if value is None else json.dumps(value, ensure_ascii=False)

    def python_value(self, value):
        return None if value is None else json.loads(value)


class BaseModel(Model):
    class Meta:
        database = database
        legacy_table_names = False


class Setting(BaseModel):
    key = TextField(primary_key=True)
    value = TextField()


class Project(BaseModel):
    """One Jira label; the base JQL is computed from ``jql_scope`` and the projects."""

    label = TextField(primary_key=True)
    name = TextField()
    board_id = IntegerField(null=True)
    board_type = TextField(null=True)  # 'scrum' | 'kanban' | NULL
    created_at = TextField()


class Issue(BaseModel):
    """A Jira issue as the agent last loaded it."""

    key = TextField(primary_key=True)
    id = TextField(unique=True)  # Jira's id: a moved issue keeps it under its new key
    issue_type = TextField(null=True)
    summary = TextField(default="")
    description = TextField(null=True)
    status = TextField(null=True, index=True)
    priority = TextField(null=True)
    assignee = TextField(null=True)
    reporter = TextField(null=True)
    duedate = TextField(null=True)
    planned_start = TextField(null=True)
    planned_end = TextField(null=True)
    epic_key = TextField(null=True, index=True)
    labels = JSONField(default=list)
    sprint = TextField(null=True)
    jira_updated = TextField(null=True)
    fetched_at = TextField()
    neighbor = IntegerField(default=0)
    created = TextField(null=True)
    # ``jira_updated`` in UTC (hub format), for ``updated_since``.
    jira_updated_at = TextField(null=True, index=True)
    resolution = TextField(null=True, index=True)
    resolved = TextField(null=True)  # Jira's ``resolutiondate`` as written
    resolved_at = TextField(null=True)  # ``resolved`` in UTC (hub format)
    components = JSONField(default=list)  # names
    fix_versions = JSONField(default=list)  # [{id, name, released, release_date}]
    affects_versions = JSONField(default=list)
    environment = TextField(null=True)
    parent_key = TextField(null=True, index=True)  # a sub-task's parent
    time_original_estimate = IntegerField(null=True)  # seconds
    time_estimate = IntegerField(null=True)
    time_spent = IntegerField(null=True)
    # Every other field Jira returned: {field id: {name, type, custom, value}}.
    custom_fields = JSONField(default=dict)
    # The text values of ``custom_fields``, one per line: what the full-text index reads of them.
    custom_text = TextField(null=True)
    # When the hub learned that Jira no longer returns the issue, and why; NULL while it does.
    gone_at = TextField(null=True)
    gone_reason = TextField(null=True)
    # Jira's transitions from the issue's status with their screens' fields, and its edit screen's
    # fields (NULL: not known yet; an agent of protocol v19 sends them). See docs/writes.md.
    transitions = JSONField(null=True)
    edit_fields = JSONField(null=True)


class IssueAlias(BaseModel):
    """A key an issue had before it moved (``old_key``), and the key it has now."""

    old_key = TextField(primary_key=True)
    key = TextField(index=True)
    moved_at = TextField()


class IssueLink(BaseModel):
    """``source_key`` blocks / relates to ``target_key`` (Jira's outward direction)."""

    source_key = TextField()
    target_key = TextField(index=True)
    link_type = TextField()

    class Meta:
        primary_key = CompositeKey("source_key", "target_key", "link_type")


class IssueComment(BaseModel):
    key = TextField()
    comment_id = TextField()
    author = TextField(null=True)
    created = TextField(null=True)
    updated = TextField(null=True)
    body = TextField(default="")
    created_at = TextField(null=True)

    class Meta:
        primary_key = CompositeKey("key", "comment_id")


class IssueChange(BaseModel):
    """One changed field of one changelog entry (history) of an issue."""

    key = TextField()
    history_id = TextField()
    item_no = IntegerField()
    author = TextField(null=True)
    created = TextField()
    created_at = TextField(null=True)
    field = TextField()
    field_type = TextField(null=True)
    from_value = TextField(null=True)
    from_string = TextField(null=True)
    to_value = TextField(null=True)
    to_string = TextField(null=True)

    class Meta:
        primary_key = CompositeKey("key", "history_id", "item_no")


class Sprint(BaseModel):
    """A Jira sprint, as the issues that name it last carried it."""

    sprint_id = IntegerField(primary_key=True)
    name = TextField()
    state = TextField(null=True)  # 'future' | 'active' | 'closed', as Jira's agile API writes it
    start_date = TextField(null=True)  # Jira's times as written
    end_date = TextField(null=True)
    complete_date = TextField(null=True)
    board_id = IntegerField(null=True)
    goal = TextField(null=True)
    updated_at = TextField()

    class Meta:
        indexes = ((("state", "board_id"), False),)


class IssueSprint(BaseModel):
    """A sprint an issue was in (every one of them, the current one included)."""

    key = TextField()
    sprint_id = IntegerField(index=True)

    class Meta:
        primary_key = CompositeKey("key", "sprint_id")


class IssueWorklog(BaseModel):
    """Time logged on an issue; ``time_spent`` in seconds, ``started_at`` its start in UTC."""

    key = TextField()
    worklog_id = TextField()
    author = TextField(null=True)
    started = TextField(null=True)
    started_at = TextField(null=True)
    time_spent = IntegerField(null=True)
    comment = TextField(null=True)
    created = TextField(null=True)
    updated = TextField(null=True)

    class Meta:
        primary_key = CompositeKey("key", "worklog_id")


class JiraCatalogue(BaseModel):
    """One entry of a Jira catalogue (``kind``: priority, status, resolution, issue_type,
    link_type) at its ``position`` in Jira's order; ``detail`` holds what the kind adds."""

    kind = TextField()
    jira_id = TextField()
    name = TextField()
    position = IntegerField()
    detail = JSONField(default=dict)

    class Meta:
        primary_key = CompositeKey("kind", "jira_id")
        indexes = ((("kind", "name"), False),)


class JiraUser(BaseModel):
    """A Jira user the mirror names: login ``name``, Jira's internal ``user_key``, display name."""

    name = TextField(primary_key=True)
    user_key = TextField(null=True, index=True)
    display_name = TextField(null=True)
    updated_at = TextField()


class IssueAttachment(BaseModel):
    """An attachment as listed on its issue; its content lives in ``attachment_file``."""

    attachment_id = TextField(primary_key=True)
    key = TextField(index=True)
    filename = TextField()
    size = IntegerField(null=True)
    mime_type = TextField(null=True)
    author = TextField(null=True)
    created = TextField(null=True)
    created_at = TextField(null=True)


class AttachmentFile(BaseModel):
    """An attachment whose content was fetched into ``files/<file>`` (its sha256)."""

    attachment_id = TextField(primary_key=True)
    file = TextField()
    size = IntegerField()
    fetched_at = TextField()


class IssueNote(BaseModel):
    """A note an interface wrote about an issue; the hub's own data, not Jira's."""

    id = AutoField()
    key = TextField(index=True)
    author = TextField()
    body = TextField()
    created_at = TextField()
    updated_at = TextField()


class Batch(BaseModel):
    id = AutoField()
    title = TextField()
    status = TextField(default="open")
    created_by = TextField(null=True)
    created_at = TextField()
    project = ForeignKeyField(Project, column_name="project", null=True, backref="batches")
    project_id: str | None  # the label itself, which Peewee's foreign key reads without a query


class Command(BaseModel):
    """A unit of work for an agent; this table alone owns claims, leases and redelivery."""

    id = AutoField()
    type = TextField()
    params = JSONField(default=dict)
    status = TextField(default=QUEUED)
    batch = ForeignKeyField(Batch, column_name="batch_id", null=True, backref="commands")
    batch_id: int | None  # the column itself, which Peewee's foreign key reads without a query
    agent_id = TextField(null=True)
    created_at = TextField()
    claimed_at = TextField(null=True)
    lease_until = TextField(null=True)
    finished_at = TextField(null=True)
    result = JSONField(null=True)
    error = TextField(null=True)
    deliveries = IntegerField(default=0)
    # The token that claimed it (NULL: claimed before schema v7, or never).
    token_id = IntegerField(null=True)
    # Commands of one serial key are claimed one at a time, oldest first (a write's: its issue).
    serial_key = TextField(null=True)


class SyncRun(BaseModel):
    """One execution of a ``refresh`` command, opened at claim and closed by its report."""

    id = AutoField()
    command = ForeignKeyField(Command, column_name="command_id", null=True, backref="sync_runs")
    command_id: int | None  # the column itself, which Peewee's foreign key reads without a query
    query = TextField()
    status = TextField()
    started_at = TextField()
    finished_at = TextField(null=True)
    issues_loaded = IntegerField(default=0)
    error = TextField(null=True)
    history_at = TextField(null=True)
    # 1 while this finished full run's neighbour marking is owed.
    neighbors_due = IntegerField(default=0)
    # The protocol version of the agent that claimed the refresh (NULL: claimed before schema v11).
    agent_version = IntegerField(null=True)
    # check_issues commands the neighbour marking enqueued (NULL: not marked yet, or before v11).
    checks_enqueued = IntegerField(null=True)


class AgentStatus(BaseModel):
    """An agent as last heard from; forgotten once unseen for ``HUB_AGENT_FORGET_HOURS``."""

    agent_id = TextField(primary_key=True)
    version = IntegerField(null=True)
    last_seen_at = TextField(index=True)
    state = TextField(null=True)
    detail = TextField(null=True)
    # The token whose heartbeat or claim last wrote the row (NULL: written before v9).
    token_id = IntegerField(null=True)


class Token(BaseModel):
    """An API token: only its sha256 is kept; requests find it by that index."""

    id = AutoField()
    name = TextField(unique=True)
    role = TextField()  # one of hub.vocabulary.TOKEN_ROLES: 'agent' | 'interface' | 'admin' | 'metrics'
    sha256 = TextField(unique=True)
    created_at = TextField()
    # An interface token granted writes to Jira (admin tokens may write regardless).
    may_write = IntegerField(default=0)


class SavedFilter(BaseModel):
    """A JQL query kept under a name by the token that saved it (``owner_token_id``; a revoked
    token's id stays, naming no token). A name is unique per owner."""

    id = AutoField()
    name = TextField()
    jql = TextField()
    owner_token_id = IntegerField(null=True)
    created_at = TextField()
    updated_at = TextField()

    class Meta:
        table_name = "saved_filter"
        indexes = ((("owner_token_id", "name"), True),)


class WebSession(BaseModel):
    """A signed-in browser: the sha256 of its session id (never the id itself), the token that
    signed in, and when it was made, last seen and expires."""

    id = AutoField()
    sha256 = TextField(unique=True)
    token_id = IntegerField(index=True)
    created_at = TextField()
    last_seen_at = TextField()
    expires_at = TextField(index=True)

    class Meta:
        table_name = "web_session"


class Write(BaseModel):
    """A write to Jira an interface asked for: who, what, the values its maker saw (``base``), its
    command and its outcome. ``status`` holds the outcome; whether a pending write is being applied
    is its command's (see :mod:`hub.services.writes`)."""

    id = AutoField()
    op = TextField()
    key = TextField(null=True)  # NULL for create_issue, whose project is in ``project``
    project = TextField(null=True)
    params = JSONField(default=dict)
    base = JSONField(null=True)
    token_id = IntegerField(null=True)
    requested_by = TextField()
    idempotency_key = TextField(null=True)
    status = TextField()
    error = TextField(null=True)
    conflict = JSONField(null=True)
    result = JSONField(null=True)
    command_id = IntegerField(null=True)
    file = TextField(null=True)  # an attachment's upload: its sha256 in the file store
    created_at = TextField()
    updated_at = TextField()

    class Meta:
        table_name = "write"
        indexes = ((("token_id", "idempotency_key"), True), (("key", "id"), False),
                   (("status", "id"), False))


class CreateMeta(BaseModel):
    """A project's create screen for one issue type, as an agent last read it."""

    project = TextField()
    issue_type = TextField()
    fields = JSONField(default=dict)
    updated_at = TextField()

    class Meta:
        table_name = "create_meta"
        primary_key = CompositeKey("project", "issue_type")


MODELS: tuple[type[BaseModel], ...] = (
    Setting,
    Issue,
    IssueLink,
    IssueNote,
    Batch,
    Command,
    SyncRun,
    AgentStatus,
    IssueComment,
    Project,
    IssueChange,
    IssueAttachment,
    AttachmentFile,
    Token,
    Sprint,
    IssueSprint,
    IssueWorklog,
    JiraCatalogue,
    JiraUser,
    IssueAlias,
    SavedFilter,
    WebSession,
    Write,
    CreateMeta,
)
