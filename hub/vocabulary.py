"""The hub's vocabularies, each written once; schemas, services, the CLI and the
models' readers import them from here.

The values are part of the contract (docs/api.md, docs/agent-protocol.md) and of
the database: changing one is a schema and protocol change, not a refactoring.
"""

from __future__ import annotations

# Commands: what agents are asked to do. Each type is a kind (hub/services/commands/kinds/),
# which says who enqueues it and which agents are given it; these names are the ones the
# storage's SQL (hub/dialect, the migrations) and the MCP server speak of too.
REFRESH = "refresh"
FETCH_ATTACHMENT = "fetch_attachment"
# Asks Jira whether issues a full run did not load still exist; the hub alone enqueues it.
CHECK_ISSUES = "check_issues"
# What a check's done marks an issue gone with.
GONE_REASON = "not found in Jira — deleted, or no longer visible to the agent's user"

# A command's life: queued -> claimed -> done | failed, or cancelled from either.
QUEUED, CLAIMED, DONE, FAILED, CANCELLED = "queued", "claimed", "done", "failed", "cancelled"
COMMAND_STATUSES = (QUEUED, CLAIMED, DONE, FAILED, CANCELLED)
OPEN_STATUSES = (QUEUED, CLAIMED)
FINAL_STATUSES = (DONE, FAILED, CANCELLED)
GIVEN_UP_STATUSES = (FAILED, CANCELLED)

# A write to Jira an interface asked for (docs/writes.md); the hub enqueues it for the write.
WRITE = "write"
# What Jira is asked to do, one operation to a write.
COMMENT, EDIT_COMMENT, TRANSITION, EDIT, LOG_WORK = "comment", "edit_comment", "transition", "edit", "log_work"
CREATE_ISSUE, LINK, REMOVE_LINK, ATTACH = "create_issue", "link", "remove_link", "attach"
WRITE_OPS = (COMMENT, EDIT_COMMENT, TRANSITION, EDIT, LOG_WORK, CREATE_ISSUE, LINK, REMOVE_LINK, ATTACH)
# A write's life, as shown: pending -> applying -> done | failed | conflict, or cancelled while
# pending. The table keeps the outcome; ``applying`` is its command's being claimed.
PENDING, APPLYING, CONFLICT = "pending", "applying", "conflict"
WRITE_STATUSES = (PENDING, APPLYING, DONE, FAILED, CONFLICT, CANCELLED)
# What the agent reports a write's outcome as (its done's ``outcome``).
WRITE_OUTCOMES = (DONE, FAILED, CONFLICT)

# A sync run: one delivery of a refresh.
RUNNING = "running"
RUN_STATUSES = (RUNNING, DONE, FAILED)

# An attachment's state, computed at read time (docs/attachments.md says what each means).
READY, FETCHING, NONE = "ready", "fetching", "none"
ATTACHMENT_STATES = (READY, FETCHING, FAILED, NONE)

# Who a token speaks for. ``metrics`` may read GET /metrics and nothing else:
# the token a Prometheus server holds.
AGENT, INTERFACE, ADMIN, METRICS = "agent", "interface", "admin", "metrics"
TOKEN_ROLES = (AGENT, INTERFACE, ADMIN, METRICS)

# A project's agile board.
BOARD_TYPES = ("scrum", "kanban")

# What Jira's own keys and ids look like (written so that they mean the same in
# ECMA-262, the dialect of JSON Schema, and in Python's re: (?![\s\S]) for the
# end of the string, since Python's $ also matches before a final newline).
# An issue key is a project key (an ASCII capital, then capitals, digits or _)
# and the issue's number: Jira upper-cases keys and allows no other letters, so
# a look-alike (a Cyrillic А, a lower-case key) in what agents report is refused,
# never a second issue. A key asked for (a path, q, JQL) is upper-cased first
# when it is ASCII, as Jira reads keys in any case (hub/api/paths.py).
ISSUE_KEY_PATTERN = r"^[A-Z][A-Z0-9_]*-[1-9][0-9]{0,17}(?![\s\S])"
# Issue, comment, changelog and attachment ids are Jira's database ids: digits.
JIRA_ID_PATTERN = r"^[1-9][0-9]{0,17}(?![\s\S])"
