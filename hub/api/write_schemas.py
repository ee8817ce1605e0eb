"""The JSON Schemas of the writes' routes (hub/api/writes.py): each operation's body as the API
takes it (docs/writes.md), the write object, and the writes' queries.

Kept beside :mod:`hub.api.schemas` (whose shared pieces they use) so that neither grows past what
one reads in a sitting. Every body refuses members it does not know, and every text is bounded: a
comment's or a description's as Jira's default limit (32,767 characters), names as Jira's 255.
"""

from __future__ import annotations

from hub.api.schemas import ID, ISSUE_KEY, JIRA_ID, SHORT, array
from hub.vocabulary import WRITE_OPS, WRITE_STATUSES

# Jira's default jira.text.field.character.limit: a longer comment or description it refuses.
MAX_TEXT_CHARS = 32_767
# The most fields one edit, transition screen or new issue sets.
MAX_FIELDS = 100
TEXT = {"type": "string", "minLength": 1, "maxLength": MAX_TEXT_CHARS}
OPTIONAL_TEXT = {"type": "string", "maxLength": MAX_TEXT_CHARS}
FORMAT = {"enum": ["wiki", "markdown"],
          "description": "the text's markup: Jira's wiki (as given, the default) or Markdown (converted)"}
FIELDS = {"type": "object", "minProperties": 1, "maxProperties": MAX_FIELDS,
          "propertyNames": {"minLength": 1, "maxLength": 255},
          "description": "fields by the mirror's names (summary, priority, fix_versions, ...) or a custom "
                         "field's id or name, in the issue object's flattened form"}
BASE = {"type": "object", "maxProperties": MAX_FIELDS, "propertyNames": {"minLength": 1, "maxLength": 255},
        "description": "the values the maker saw, by field; the mirror's values now where absent"}
DURATION = {"oneOf": [{"type": "string", "minLength": 1, "maxLength": 100, "description": "Jira's form: 1h 30m"},
                      {"type": "integer", "minimum": 60, "maximum": 2**31 - 1, "description": "seconds"}]}

COMMENT = {
    "type": "object",
    "properties": {
        "body": TEXT,
        "visibility": {"type": "object", "properties": {"type": {"enum": ["group", "role"]}, "value": SHORT},
                       "required": ["type", "value"], "additionalProperties": False},
        "format": FORMAT,
    },
    "required": ["body"],
    "additionalProperties": False,
}
EDIT_COMMENT = {
    "type": "object",
    "properties": {"body": TEXT, "format": FORMAT},
    "required": ["body"],
    "additionalProperties": False,
}
TRANSITION = {
    "type": "object",
    "properties": {
        "to": {**SHORT, "description": "a target status name, a transition name or a transition id, "
                                       "matched in that order"},
        "fields": FIELDS,
        "comment": TEXT,
        "format": FORMAT,
        "base": BASE,
    },
    "required": ["to"],
    "additionalProperties": False,
}
EDIT = {
    "type": "object",
    "properties": {"fields": FIELDS, "base": BASE, "format": FORMAT},
    "required": ["fields"],
    "additionalProperties": False,
}
LOG_WORK = {
    "type": "object",
    "properties": {
        "time_spent": DURATION,
        "started": {"type": "string", "format": "date-time", "maxLength": 64},
        "comment": OPTIONAL_TEXT,
        "adjust_estimate": {"enum": ["auto", "leave", "new", "manual"]},
        "new_estimate": {"type": "string", "minLength": 1, "maxLength": 100},
        "reduce_by": {"type": "string", "minLength": 1, "maxLength": 100},
        "format": FORMAT,
    },
    "required": ["time_spent"],
    "additionalProperties": False,
}
CREATE_ISSUE = {
    "type": "object",
    "properties": {
        "project": {"type": "string", "minLength": 1, "maxLength": 255, "pattern": "^[A-Z][A-Z0-9_]*(?![\\s\\S])",
                    "description": "the project's key"},
        "issue_type": SHORT,
        "summary": {"type": "string", "minLength": 1, "maxLength": 255},
        "description": OPTIONAL_TEXT,
        "fields": FIELDS,
        "parent": ISSUE_KEY,
        "format": FORMAT,
    },
    "required": ["project", "issue_type", "summary"],
    "additionalProperties": False,
}
LINK = {
    "type": "object",
    "properties": {"type": {**SHORT, "description": "the link type's name (Blocks), or its phrase"},
                   "outward": ISSUE_KEY, "inward": ISSUE_KEY},
    "required": ["type"],
    "oneOf": [{"required": ["outward"]}, {"required": ["inward"]}],
    "additionalProperties": False,
}
# A link named by its type and the other issue, as the mirror shows it (its id is Jira's alone).
LINK_QUERY = LINK
ATTACH_QUERY = {
    "type": "object",
    "properties": {"filename": {"type": "string", "minLength": 1, "maxLength": 255,
                                "pattern": "^[^/\\\\\\x00-\\x1f]+(?![\\s\\S])",
                                "description": "the file's name in Jira: no '/' or '\\\\' or control characters"}},
    "required": ["filename"],
    "additionalProperties": False,
}
RETRY = {
    "type": "object",
    "properties": {"base": BASE},
    "additionalProperties": False,
}
WRITE_LIST = {
    "type": "object",
    "properties": {"key": ISSUE_KEY, "status": {"enum": list(WRITE_STATUSES)}, "op": {"enum": list(WRITE_OPS)},
                   "cursor": ID, "limit": {"type": "integer", "minimum": 1, "maximum": 500}},
    "additionalProperties": False,
}
WRITE_QUERY = {
    "type": "object",
    "properties": {"wait": {"type": "integer", "minimum": 0, "maximum": 30},
                   "known": {"enum": list(WRITE_STATUSES)}},
    "additionalProperties": False,
}
_NULLABLE_OBJECT = {"type": ["object", "null"]}
WRITE = {
    "type": "object",
    "properties": {
        "id": ID, "op": {"enum": list(WRITE_OPS)}, "key": {"type": ["string", "null"]},
        "params": {"type": "object"}, "status": {"enum": list(WRITE_STATUSES)},
        "requested_by": {"type": "string"}, "created_at": {"type": "string"}, "updated_at": {"type": "string"},
        "error": {"type": ["string", "null"]}, "conflict": _NULLABLE_OBJECT, "result": _NULLABLE_OBJECT,
        "command_id": {"type": ["integer", "null"]},
    },
    "required": ["id", "op", "key", "params", "status", "requested_by", "created_at", "updated_at",
                 "error", "conflict", "result", "command_id"],
}
WRITE_PAGE = {"type": "object",
              "properties": {"items": array(WRITE, 500), "next_cursor": {"type": ["integer", "null"]}},
              "required": ["items", "next_cursor"]}
# Path parameters of the writes' routes (hub/api/openapi.py's PATH_SCHEMAS).
COMMENT_ID = JIRA_ID
LINK_ID = JIRA_ID
