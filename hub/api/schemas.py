"""JSON Schemas of request bodies and query strings.

They validate requests (:mod:`hub.api.validation`) and describe them in
``/openapi.json``. Agent bodies allow properties they do not name, since newer
agents may send more; interface bodies do not, since an unknown property there
is most likely a typo that would otherwise be silently ignored.
"""

from __future__ import annotations

from typing import cast

from hub import vocabulary
from hub.clock import TIME_ZONE_PATTERN, UTC_TIME_PATTERN
from hub.roles import ACTIONS
from hub.services.access.tokens import NAME_PATTERN
from hub.services.commands.agents import MAX_DETAIL_CHARS, MAX_STATE_CHARS
from hub.services.commands.kinds import KINDS, Kind, enqueued_by_interfaces, names, spoken
from hub.services.mirror.catalogues import COLUMN_FIELDS
from hub.services.mirror.projects import LABEL_PATTERN
from hub.services.search.conditions import GONE_FILTERS, SORT_NAMES
from hub.services.search.facets import FACET_NAMES
from hub.services.search.jql.parser import MAX_LENGTH as MAX_JQL_LENGTH
from hub.vocabulary import (
    BOARD_TYPES,
    COMMAND_STATUSES,
    ISSUE_KEY_PATTERN,
    JIRA_ID_PATTERN,
    RUN_STATUSES,
    TOKEN_ROLES,
)

# SQLite stores integers in 64 bits; larger ones cannot be stored or compared.
INT64_MAX = 2**63 - 1
ID = {"type": "integer", "minimum": 1, "maximum": INT64_MAX}
NULLABLE_TEXT = {"type": ["string", "null"], "maxLength": 10_000_000}
SHORT = {"type": "string", "minLength": 1, "maxLength": 255}
NULLABLE_SHORT = {"type": ["string", "null"], "maxLength": 255}
# Keys and ids as Jira makes them (hub/vocabulary.py): anything else is no
# issue of Jira's, and taken in would sit beside the real one (a lower-case or
# look-alike key) or name another route once in a path (``AURORA-1/notes``).
ISSUE_KEY = {"type": "string", "maxLength": 255, "pattern": ISSUE_KEY_PATTERN}
NULLABLE_ISSUE_KEY = {**ISSUE_KEY, "type": ["string", "null"]}
# A project's key: an issue key's part before the dash.
PROJECT_KEY_PATTERN = r"^[A-Z][A-Z0-9_]*(?![\s\S])"
JIRA_ID = {"type": "string", "maxLength": 18, "pattern": JIRA_ID_PATTERN}
ATTACHMENT_ID = JIRA_ID
# An attachment's name as Jira can have made it: Jira refuses path separators
# in a file name, and no name holds control characters or is "." or "..".
# What else Jira allows (quotes, bidi controls, any script) is kept as sent
# and made harmless where it is served (hub/api/download.py).
FILENAME_PATTERN = (r"^(?!\.\.?(?![\s\S]))[^\u0000-\u001f\u007f-\u009f/\\]+(?![\s\S])")
FILENAME = {"type": "string", "minLength": 1, "maxLength": 1024, "pattern": FILENAME_PATTERN}
PROJECT_LABEL = {"type": "string", "minLength": 1, "maxLength": 255, "pattern": LABEL_PATTERN}
TOKEN_NAME = {"type": "string", "minLength": 1, "maxLength": 64, "pattern": NAME_PATTERN}
AGENT_ID = {"type": "string", "minLength": 1, "maxLength": 255}
PROTOCOL_VERSION = {"type": "integer", "minimum": 1, "maximum": 1000}
DELIVERY = ID
# Issues (matches and neighbours each) in one state page: a page is applied in
# one write transaction, and 100 rich issues hold the write lock for well under
# a second (see docs/agent-protocol.md).
MAX_PAGE_ISSUES = 100


def array(items: dict, max_items: int, **more) -> dict:
    """An array schema whose size is checked before its items.

    jsonschema-rs checks ``maxItems`` before ``items``, and the validator stops
    at the first error, so a million items are refused at once instead of each
    being validated; ``maxItems`` is also written first for readers.
    """
    return {"type": "array", "maxItems": max_items, **more, "items": items}


def nullable_array(items: dict, max_items: int) -> dict:
    """:func:`array` that may also be null."""
    return {**array(items, max_items), "type": ["array", "null"]}


LINK = {
    "type": "object",
    "properties": {"type": SHORT, "outward": ISSUE_KEY, "inward": ISSUE_KEY},
    "required": ["type"],
    "oneOf": [{"required": ["outward"]}, {"required": ["inward"]}],
}
COMMENT = {
    "type": "object",
    "properties": {
        "id": JIRA_ID,
        "author": NULLABLE_SHORT,
        "created": NULLABLE_SHORT,
        "updated": NULLABLE_SHORT,
        "body": NULLABLE_TEXT,
    },
    "required": ["id"],
}
CHANGE_ITEM = {
    "type": "object",
    "properties": {
        "field": SHORT,
        "field_type": NULLABLE_SHORT,
        "from": NULLABLE_TEXT,
        "from_string": NULLABLE_TEXT,
        "to": NULLABLE_TEXT,
        "to_string": NULLABLE_TEXT,
    },
    "required": ["field"],
}
CHANGE = {
    "type": "object",
    "properties": {
        "id": JIRA_ID,
        "author": NULLABLE_SHORT,
        "created": SHORT,
        "items": array(CHANGE_ITEM, 10_000),
    },
    "required": ["id", "created", "items"],
}
ATTACHMENT = {
    "type": "object",
    "properties": {
        "id": ATTACHMENT_ID,
        "filename": FILENAME,
        "size": {"type": ["integer", "null"], "minimum": 0, "maximum": INT64_MAX},
        "mime_type": NULLABLE_SHORT,
        "author": NULLABLE_SHORT,
        "created": NULLABLE_SHORT,
    },
    "required": ["id", "filename"],
}
SECONDS = {"type": ["integer", "null"], "minimum": 0, "maximum": INT64_MAX}
VERSION = {
    "type": "object",
    "properties": {
        "id": JIRA_ID,
        "name": SHORT,
        "released": {"type": ["boolean", "null"]},
        "release_date": NULLABLE_SHORT,
    },
    "required": ["id", "name"],
}
SPRINT = {
    "type": "object",
    "properties": {
        "id": ID,
        "name": {"type": "string", "minLength": 1, "maxLength": 1000},
        "state": NULLABLE_SHORT,
        "start": NULLABLE_SHORT,
        "end": NULLABLE_SHORT,
        "complete": NULLABLE_SHORT,
        "board_id": {"type": ["integer", "null"], "minimum": 1, "maximum": INT64_MAX},
        "goal": NULLABLE_TEXT,
    },
    "required": ["id", "name"],
}
WORKLOG = {
    "type": "object",
    "properties": {
        "id": JIRA_ID,
        "author": NULLABLE_SHORT,
        "started": NULLABLE_SHORT,
        "time_spent": SECONDS,
        "comment": NULLABLE_TEXT,
        "created": NULLABLE_SHORT,
        "updated": NULLABLE_SHORT,
    },
    "required": ["id"],
}
# A field id as Jira names one (customfield_10002, environment, votes, ...).
FIELD_ID_PATTERN = r"^[A-Za-z][A-Za-z0-9_.:\-]{0,254}(?![\s\S])"
CUSTOM_FIELD = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "maxLength": 1000},
        "type": NULLABLE_SHORT,
        "custom": NULLABLE_SHORT,
        "value": {"description": "the value as a person reads it (see docs/agent-protocol.md); any JSON"},
    },
    "required": ["name"],
}
# v19: one field of a Jira screen (an issue's edit screen, a transition's, a create screen), as
# agent/meta.py sends it: its name, whether it is required, its schema's type (items, custom) and
# the names of its allowedValues (absent when Jira lists none).
# The most values, and the longest value, of a screen field's ``allowed`` (agent/meta.py's bounds).
ALLOWED_VALUES, ALLOWED_CHARS = 1000, 255
SCREEN_FIELD = {
    "type": "object",
    "properties": {
        "name": {"type": ["string", "null"], "maxLength": 1000},
        "required": {"type": "boolean"},
        "type": NULLABLE_SHORT,
        "items": NULLABLE_SHORT,
        "custom": NULLABLE_SHORT,
        # Bounded so that a page past the bounds is still a body the hub reads (and refuses by name);
        # an agent leaves out a longer list (then Jira alone checks the value).
        "allowed": array({"type": "string", "maxLength": ALLOWED_CHARS}, ALLOWED_VALUES),
        "operations": array(SHORT, 100),
    },
}
# A screen's fields, by Jira's field id.
SCREEN = {"type": ["object", "null"], "maxProperties": 10_000, "propertyNames": {"pattern": FIELD_ID_PATTERN},
          "additionalProperties": SCREEN_FIELD}
TRANSITION = {
    "type": "object",
    "properties": {"id": JIRA_ID, "name": NULLABLE_SHORT, "to": NULLABLE_SHORT, "fields": SCREEN},
    "required": ["id"],
}
ISSUE_STATE = {
    "type": "object",
    "properties": {
        "key": ISSUE_KEY,
        "id": JIRA_ID,
        "issue_type": NULLABLE_SHORT,
        "summary": {"type": ["string", "null"], "maxLength": 100_000},
        "description": NULLABLE_TEXT,
        "status": NULLABLE_SHORT,
        "priority": NULLABLE_SHORT,
        "assignee": NULLABLE_SHORT,
        "reporter": NULLABLE_SHORT,
        "duedate": NULLABLE_SHORT,
        "planned_start": NULLABLE_SHORT,
        "planned_end": NULLABLE_SHORT,
        "epic_key": NULLABLE_ISSUE_KEY,
        "labels": nullable_array(SHORT, 1000),
        "sprint": {"type": ["string", "null"], "maxLength": 10_000},
        "created": NULLABLE_SHORT,
        "updated": NULLABLE_SHORT,
        "resolution": NULLABLE_SHORT,
        "resolved": NULLABLE_SHORT,
        "components": nullable_array(SHORT, 1000),
        "fix_versions": nullable_array(VERSION, 1000),
        "affects_versions": nullable_array(VERSION, 1000),
        "environment": NULLABLE_TEXT,
        "parent_key": NULLABLE_ISSUE_KEY,
        "time_original_estimate": SECONDS,
        "time_estimate": SECONDS,
        "time_spent": SECONDS,
        "sprints": array(SPRINT, 1000),
        "worklogs": array(WORKLOG, 100_000),
        "custom_fields": {"type": ["object", "null"], "maxProperties": 10_000,
                          "propertyNames": {"pattern": FIELD_ID_PATTERN},
                          "additionalProperties": CUSTOM_FIELD},
        "links": array(LINK, 10_000),
        "comments": array(COMMENT, 100_000),
        "changes": array(CHANGE, 100_000),
        "attachments": array(ATTACHMENT, 100_000),
        # v19: the transitions Jira offers from the issue's status, and its edit screen (null: not known).
        "transitions": nullable_array(TRANSITION, 1000),
        "edit_fields": SCREEN,
    },
    "required": ["key", "id"],
}

# A UTC time as the hub reads one: the pattern's shape, and a real date and
# time (no month 13, no second 60), which the hub checks (hub.clock.parse_utc)
# and answers 422 naming the field otherwise.
UTC_TIME = {"type": "string", "format": "date-time", "pattern": UTC_TIME_PATTERN,
            "description": "a UTC time at whole seconds, e.g. 2026-10-22T10:05:11Z or "
                           "2026-10-22T10:05:11+00:00, naming a real date and time "
                           "(checked by the hub: 422 naming the field otherwise)"}

# Jira's base URL as its serverInfo gives it (baseUrl): an http(s) URL, which the web page links to.
JIRA_BASE_URL = {"type": "string", "maxLength": 2000, "pattern": r"^https?://[^\s/?#@]+(/[^\s?#]*)?(?![\s\S])",
                 "description": "Jira's base URL (baseUrl of /rest/api/2/serverInfo): the base of the links to "
                                "its issues; optional, in any protocol version"}
HEARTBEAT = {
    "type": "object",
    "properties": {
        "agent_id": AGENT_ID,
        "version": PROTOCOL_VERSION,
        "state": {"type": ["string", "null"], "maxLength": MAX_STATE_CHARS,
                  "description": "what the agent is doing in a word, e.g. idle or working"},
        "detail": {"type": ["string", "null"], "maxLength": MAX_DETAIL_CHARS,
                   "description": "one line for the operations page; an agent cuts a longer one"},
        "jira_time_zone": {"type": ["string", "null"], "maxLength": 64, "pattern": TIME_ZONE_PATTERN,
                           "description": "v17: the Jira user's time zone (timeZone of /myself), an IANA "
                                          "name; JQL's dates are read in it unless HUB_JQL_TIME_ZONE is set"},
        "jira": {"type": ["object", "null"],
                 "description": "v18: whether the agent's last call to Jira was answered (reachable), "
                                "when it was made (checked_at, UTC) and, when it was not, the error",
                 "properties": {
                     "reachable": {"type": "boolean"},
                     "checked_at": UTC_TIME,
                     "error": {"type": ["string", "null"], "maxLength": MAX_DETAIL_CHARS},
                     "base_url": {**JIRA_BASE_URL, "type": ["string", "null"]},
                 },
                 "required": ["reachable"]},
        "holding": {"type": ["array", "null"], "maxItems": 1000, "uniqueItems": True,
                    "items": {"type": "integer", "minimum": 1, "maximum": INT64_MAX},
                    "description": "v19: the commands this agent process is running now; only their leases "
                                   "are extended (absent: every command claimed under this agent_id)"},
    },
    "required": ["agent_id", "version"],
}
CLAIM = {
    "type": "object",
    "properties": {
        "agent_id": AGENT_ID,
        "version": PROTOCOL_VERSION,
        "types": array({"enum": names()}, len(KINDS), uniqueItems=True),
        "limit": {"type": "integer", "minimum": 1, "maximum": 100, "default": 1},
        "wait": {"type": "number", "minimum": 0, "maximum": 30, "default": 0},
    },
    "required": ["agent_id", "version"],
}
_REPORT = {"agent_id": AGENT_ID, "delivery": DELIVERY}
MAX_CATALOGUE = 10_000
# A board's configuration as an agent reads it from Jira's agile API: its columns in order, each with
# the ids of the statuses mapped to it (Jira's ``columnConfig``). Bounds far past any board's.
MAX_BOARDS = 1000
BOARD_CONFIGURATION = {
    "type": "object",
    "properties": {
        "id": JIRA_ID,
        "name": SHORT,
        "type": {"enum": [*BOARD_TYPES, None]},
        "columns": array({"type": "object",
                          "properties": {"name": {"type": "string", "maxLength": 255},
                                         "statuses": array(JIRA_ID, 1000)},
                          "required": ["name", "statuses"]}, 200),
    },
    "required": ["id", "name", "columns"],
}


def _catalogue(**more: dict) -> dict:
    return array({"type": "object", "properties": {"id": JIRA_ID, "name": SHORT, **more},
                  "required": ["id", "name"]}, MAX_CATALOGUE)


CATALOGUES = {
    "type": "object",
    "description": "Jira's catalogues: each list but users replaces the one the hub holds, in "
                   "Jira's order; users are added or updated by login name",
    "properties": {
        "priorities": _catalogue(),
        "statuses": _catalogue(category=NULLABLE_SHORT, category_key=NULLABLE_SHORT),
        "resolutions": _catalogue(),
        "issue_types": _catalogue(subtask={"type": ["boolean", "null"]}),
        "link_types": _catalogue(outward=NULLABLE_SHORT, inward=NULLABLE_SHORT),
        # The custom fields the mirror keeps in columns of its own, by Jira's id (cf[N] in JQL).
        "fields": array({"type": "object",
                         "properties": {"id": {"type": "string", "pattern": r"^customfield_[1-9][0-9]{0,17}$"},
                                        "name": SHORT, "column": {"enum": list(COLUMN_FIELDS)}},
                         "required": ["id", "name", "column"]}, len(COLUMN_FIELDS), uniqueItems=True),
        "users": array({"type": "object",
                        "properties": {"name": SHORT, "key": NULLABLE_SHORT, "display_name": NULLABLE_SHORT},
                        "required": ["name"]}, MAX_CATALOGUE),
        # Agile boards' configurations, each replacing the one held of its id (the others kept).
        "boards": array(BOARD_CONFIGURATION, MAX_BOARDS),
    },
}
STATE_PAGE = {
    "type": "object",
    "properties": {
        **_REPORT,
        "issues": array(ISSUE_STATE, MAX_PAGE_ISSUES),
        "neighbors": array(ISSUE_STATE, MAX_PAGE_ISSUES),
        "catalogues": CATALOGUES,
        # v19: create screens, each replacing the one the hub holds of its project and issue type.
        "create_meta": array({"type": "object",
                              "properties": {"project": {**SHORT, "pattern": PROJECT_KEY_PATTERN}, "issue_type": SHORT,
                                             "fields": {**SCREEN, "type": "object"}},
                              "required": ["project", "issue_type", "fields"]}, 1000),
    },
}
# A done's result, by the type of its command (which the path names, not the
# body): each kind's, as its module says it.
DONE = {
    "type": "object",
    "properties": {**_REPORT, "result": {
        "type": "object", "anyOf": [k.result_schema for k in KINDS.values()],
        "description": f"{spoken([k.result_words for k in KINDS.values()], 'or')}; another type's "
                       "result is a 422 naming result"}},
    "required": ["result"],
}
FAILED = {
    "type": "object",
    "properties": {**_REPORT, "error": {"type": "string", "minLength": 1, "maxLength": 100_000}},
    "required": ["error"],
}

# A property that may not be there at all.
ABSENT: dict = {"not": {}}


def new_command(kinds: list[Kind]) -> dict:
    """The body of POST /api/v1/commands, for these kinds (those interfaces may enqueue).

    ``params`` names every member any of them takes; an ``if``/``then`` per kind says
    which it takes: those it needs are required (and so is params, when it needs any),
    and ABSENT refuses any value of a member it does not take, naming that member.
    """
    members = {name: schema for k in kinds for name, schema in k.params.items()}
    hub_only = [k.name for k in KINDS.values() if not k.by_interfaces]
    rules = []
    for k in kinds:
        then: dict = {"required": ["params"]} if k.required else {}
        params: dict = {"required": list(k.required)} if k.required else {}
        params["properties"] = {name: ABSENT for name in members if name not in k.params}
        then["properties"] = {"params": params}
        rules.append({"if": {"properties": {"type": {"const": k.name}}}, "then": then})
    type_: dict = {"enum": [k.name for k in kinds]}
    if hub_only:
        type_["description"] = (f"{spoken(hub_only)} {'is' if len(hub_only) == 1 else 'are'} the hub's own: "
                                "it enqueues them itself")
    return {
        "type": "object",
        "properties": {
            "type": type_,
            "params": {
                "type": "object",
                "properties": members,
                "additionalProperties": False,
            },
            "batch_id": {"type": ["integer", "null"], "minimum": 1, "maximum": INT64_MAX},
        },
        "required": ["type"],
        "additionalProperties": False,
        "allOf": rules,
    }


NEW_COMMAND = new_command([KINDS[name] for name in enqueued_by_interfaces()])

_PAGE = {
    "cursor": ID,
    "limit": {"type": "integer", "minimum": 1, "maximum": 500, "default": 50},
}
COMMAND_LIST = {
    "type": "object",
    "properties": {
        **_PAGE,
        "status": {"enum": list(COMMAND_STATUSES)},
        "type": {"enum": names()},
    },
    "additionalProperties": False,
}
AGENT_LIST = {
    "type": "object",
    "properties": {
        **_PAGE,
        "online": {"type": "string", "enum": ["true", "false"],
                   "description": "only the agents that are (true) or are not (false) online"},
    },
    "additionalProperties": False,
}
SYNC_RUN_LIST = {
    "type": "object",
    "properties": {**_PAGE, "status": {"enum": list(RUN_STATUSES)}},
    "additionalProperties": False,
}

ATTACHMENT_STATE = {"enum": list(vocabulary.ATTACHMENT_STATES)}
ATTACHMENT_QUERY = {
    "type": "object",
    "properties": {"wait": {"type": "integer", "minimum": 0, "maximum": 30}, "known": ATTACHMENT_STATE},
    "additionalProperties": False,
}
ATTACHMENT_STATES = {
    "type": "object",
    "properties": {"ids": array(ATTACHMENT_ID, 1000)},
    "required": ["ids"],
    "additionalProperties": False,
}
UPLOAD_QUERY = {
    "type": "object",
    "properties": {"agent_id": AGENT_ID, "delivery": DELIVERY},
    "additionalProperties": False,
}

# The longest ``q``: a search of a few dozen words and phrases (see docs/api.md).
MAX_QUERY_CHARS = 1000
# The longest ``jql``: the parser's own bound (hub.services.search.jql.parser.MAX_LENGTH).
MAX_JQL_CHARS = 10_000
# The list's filters added for the facets (issue 20): each facet's values can be picked as a filter.
ISSUE_FILTERS_MORE = {
    "reporter": {**SHORT, "description": "a reporter's login or display name, in any case"},
    "priority": {**SHORT, "description": "a priority's name, in any case"},
}
ISSUE_LIST = {
    "type": "object",
    "properties": {
        **_PAGE,
        "q": {"type": "string", "minLength": 1, "maxLength": MAX_QUERY_CHARS,
              "description": "words to search for in key, summary, description, comments and other "
                             "(the environment and text custom fields); "
                             "see the query language in docs/api.md. A search that runs past "
                             "HUB_JQL_TIMEOUT_SECONDS is a 503 with Retry-After"},
        "jql": {"type": "string", "maxLength": MAX_JQL_CHARS,
                "description": "a JQL query, evaluated over the mirror as Jira would (see docs/jql.md; "
                               "an empty one, as in Jira, is every issue); "
                               "ANDed with the other filters (gone issues only with gone=true or any), "
                               "not with q or sort; next_cursor is then an offset. A query that does not "
                               "parse or that the mirror cannot answer is a 422 with its position; one "
                               "that runs past HUB_JQL_TIMEOUT_SECONDS a 503 with Retry-After"},
        "status": SHORT, "assignee": SHORT, "epic_key": SHORT, "label": SHORT,
        "project": {**PROJECT_LABEL, "description": "a project's label, one of GET /api/v1/projects: "
                                                   "another is a 422 naming project"},
        "issue_type": SHORT,
        "sprint": {"type": "string", "minLength": 1, "maxLength": 10_000,
                   "description": "a sprint's id or name: the issues ever in it, past sprints included"},
        "neighbor": {"type": "integer", "enum": [0, 1]},
        "gone": {"enum": list(GONE_FILTERS), "default": "false",
                 "description": "false (the default): only issues Jira still returns; true: only the "
                                "gone ones (not found in Jira by a check after a full run); any: both"},
        "fetched_since": SHORT,
        "updated_since": UTC_TIME,
        "resolution": {**SHORT, "description": "a resolution's name, or none for the unresolved issues"},
        "component": {**SHORT, "description": "a component's name"},
        "fix_version": {**SHORT, "description": "a fix version's name or id"},
        "affects_version": {**SHORT, "description": "an affected version's name or id"},
        "parent": {**ISSUE_KEY, "description": "a parent's key: its sub-tasks"},
        "sort": {"enum": list(SORT_NAMES),
                 "description": "the order: a column's name going up, -name going down (key, summary, type, "
                                "status, resolution, priority, assignee, reporter, created, updated, resolved, "
                                "duedate); catalogued names (priority, status, type, resolution) in Jira's "
                                "configured order (priority: Highest first), people by display name; issues "
                                "without a value last either way, ties by key; next_cursor is then an offset"},
        **ISSUE_FILTERS_MORE,
    },
    "additionalProperties": False,
}
# Wiki text rendered by the hub (hub/services/markup/convert.py), beside the raw field.
RENDER = {"enum": ["html", "markdown"],
          "description": "html: also each wiki field as sanitised HTML (`description_html`, `environment_html`, "
                         "`body_html`, `comment_html`): images from the issue's attachments, mentions by display "
                         "name, nothing that can run script; markdown: the same as Markdown (`…_markdown`). "
                         "The raw fields stay as Jira holds them"}
RENDERED = {"type": "object", "properties": {"render": RENDER}, "additionalProperties": False}
WORKLOG_LIST = {"type": "object", "properties": {**_PAGE, "render": RENDER}, "additionalProperties": False}
# An issue's comments: a page of ``limit`` when asked (the web page asks 50), else all of them.
COMMENT_LIST = {"type": "object", "properties": {"cursor": ID, "limit": {"type": "integer", "minimum": 1,
                                                                         "maximum": 500},
                                                 "render": RENDER}, "additionalProperties": False}
# GET /api/v1/issues/facets: the list's query (q, jql, every filter), no page or order.
FACET_LIST_PATTERN = f"^({'|'.join(FACET_NAMES)})(,({'|'.join(FACET_NAMES)}))*$"
FACET_QUERY = {
    "type": "object",
    "properties": {
        **{name: value for name, value in cast(dict, ISSUE_LIST["properties"]).items()
           if name not in (*_PAGE, "sort")},
        "fields": {"type": "string", "maxLength": 1000, "pattern": FACET_LIST_PATTERN,
                   "description": "the facets to count, by name, comma-separated (by default all: "
                                  + ", ".join(FACET_NAMES) + ")"},
    },
    "additionalProperties": False,
}
_FACET_VALUE = {
    "type": "object",
    "properties": {"value": {"type": ["string", "null"],
                             "description": "as the list's filter of the same name takes it; null: the "
                                            "issues without one (resolution: the unresolved, resolution=none)"},
                   "count": {"type": "integer"},
                   "id": {"type": "integer", "description": "sprint: the sprint's id"},
                   "name": {"type": ["string", "null"], "description": "assignee, reporter: the display name"}},
    "required": ["value", "count"],
}
FACETS = {
    "type": "object",
    "properties": {
        "total": {"type": "integer", "description": "the issues matching, as the list's total"},
        "facets": {"type": "object", "additionalProperties": {
            "type": "object",
            "properties": {"values": {"type": "array", "items": _FACET_VALUE},
                           "more": {"type": "boolean", "description": "more values than those listed"}},
            "required": ["values", "more"]}},
    },
    "required": ["total", "facets"],
}
SPRINT_STATES = ("future", "active", "closed")
SPRINT_LIST = {
    "type": "object",
    "properties": {
        **_PAGE,
        "state": {"enum": list(SPRINT_STATES), "description": "the sprints in that state only"},
        "board": {**ID, "description": "the sprints of that agile board only (its id)"},
    },
    "additionalProperties": False,
}
NOTE = {
    "type": "object",
    "properties": {"body": {"type": "string", "minLength": 1, "maxLength": 100_000}},
    "required": ["body"],
    "additionalProperties": False,
}

# Saved filters (/api/v1/filters): a name, and JQL that parses, no longer than the parser reads.
FILTER_NAME = {"type": "string", "minLength": 1, "maxLength": 255, "pattern": r"\S",
               "description": "the filter's name: unique among the saving token's filters"}
FILTER_JQL = {"type": "string", "maxLength": MAX_JQL_LENGTH,
              "description": "a JQL query (docs/jql.md; empty: every issue); one that does not parse is a "
                             "422 naming jql, "
                             "with the character in at"}
NEW_FILTER = {
    "type": "object",
    "properties": {"name": FILTER_NAME, "jql": FILTER_JQL},
    "required": ["name", "jql"],
    "additionalProperties": False,
}
FILTER_EDIT = {
    "type": "object",
    "properties": {"name": FILTER_NAME, "jql": FILTER_JQL},
    "minProperties": 1,
    "additionalProperties": False,
}
FILTER_LIST = {"type": "object", "properties": {**_PAGE}, "additionalProperties": False}
SAVED_FILTER = {
    "type": "object",
    "properties": {"id": ID, "name": {"type": "string"}, "jql": {"type": "string"},
                   "owner": {"type": ["string", "null"],
                             "description": "the saving token's name; null once it is revoked"},
                   "created_at": {"type": "string"}, "updated_at": {"type": "string"}},
    "required": ["id", "name", "jql", "owner", "created_at", "updated_at"],
}
FILTER_PAGE = {
    "type": "object",
    "properties": {"items": {"type": "array", "items": SAVED_FILTER},
                   "next_cursor": {"type": ["integer", "null"]}},
    "required": ["items", "next_cursor"],
}

NEW_BATCH = {
    "type": "object",
    "properties": {"title": {"type": "string", "minLength": 1, "maxLength": 1000},
                   "project": {"type": ["string", "null"], "minLength": 1, "maxLength": 255}},
    "required": ["title"],
    "additionalProperties": False,
}
BATCH_LIST = {"type": "object", "properties": {**_PAGE}, "additionalProperties": False}
NEW_PROJECT = {
    "type": "object",
    "properties": {"label": PROJECT_LABEL, "name": SHORT,
                   "board_id": {"type": ["integer", "null"], "minimum": 1, "maximum": INT64_MAX},
                   "board_type": {"enum": [*BOARD_TYPES, None]}},
    "required": ["label", "name"],
    "additionalProperties": False,
    # A board is its id and its type: one without the other is no board,
    # whether the other is left out or sent as null.
    "dependentRequired": {"board_id": ["board_type"], "board_type": ["board_id"]},
    "allOf": [
        {"if": {"required": ["board_id"], "properties": {"board_id": {"type": "integer"}}},
         "then": {"properties": {"board_type": {"enum": list(BOARD_TYPES)}}}},
        {"if": {"required": ["board_type"], "properties": {"board_type": {"enum": list(BOARD_TYPES)}}},
         "then": {"properties": {"board_id": {"type": "integer"}}}},
    ],
}
SCOPE = {
    "type": "object",
    "properties": {"jql": {"type": "string", "maxLength": 100_000}},
    "required": ["jql"],
    "additionalProperties": False,
}
# The answer of GET /api/v1/whoami: the calling token's name and role.
WHOAMI = {
    "type": "object",
    # Any string: a token named before NAME_PATTERN existed keeps its name.
    "properties": {"name": {"type": "string"}, "role": {"enum": list(TOKEN_ROLES)}},
    "required": ["name", "role"],
}
# The answer of GET /api/v1/me: whoami's, and the actions the token's role may use
# (hub.roles.ACTIONS, each allowed by its route's roles).
ME = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "role": {"enum": list(TOKEN_ROLES)},
                   "may": {"type": "array", "uniqueItems": True,
                           "items": {"enum": list(ACTIONS)},
                           "description": "the actions the token's role may use, each the name of a route's "
                                          "method the role may call"}},
    "required": ["name", "role", "may"],
}
# POST /api/v1/session: the web page signs in with a token (hub.api.session).
NEW_SESSION = {
    "type": "object",
    "properties": {"token": {"type": "string", "minLength": 1, "maxLength": 1000,
                             "description": "an interface or admin token; never kept, only its session"}},
    "required": ["token"],
    "additionalProperties": False,
}
SESSION = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "role": {"enum": list(TOKEN_ROLES)},
                   "expires_at": {"type": "string", "format": "date-time",
                                  "description": "when the session ends (HUB_SESSION_HOURS after the sign-in)"}},
    "required": ["name", "role", "expires_at"],
}
# GET /api/v1/session: the session the cookie names, or null and (when a cookie was sent) why it ended.
SESSION_STATE = {
    "type": "object",
    "properties": {"session": {"oneOf": [SESSION, {"type": "null"}]},
                   "ended": {"type": ["string", "null"],
                             "description": "why the cookie sent signs nobody in any more; null without one"}},
    "required": ["session", "ended"],
}
NEW_TOKEN = {
    "type": "object",
    "properties": {"name": TOKEN_NAME, "role": {"enum": list(TOKEN_ROLES)},
                   "write": {"type": "boolean", "description": "grant an interface token writes to Jira "
                             "(docs/writes.md); an admin token may write regardless"}},
    "required": ["name", "role"],
    "additionalProperties": False,
}
# What an issue object says of moves (GET /api/v1/issues, /api/v1/issues/{key}); the issue's
# other fields are described in docs/api.md.
MOVED_FROM = {"type": "array", "items": {"type": "string"},
              "description": "the keys the issue had before Jira moved it, oldest first; "
                             "empty if it never moved"}
# Display names by login, of the Jira users the mirror knows among those an answer names.
PEOPLE = {"type": "object", "additionalProperties": {"type": ["string", "null"]},
          "description": "the display name of each login the items name (assignee, reporter) that the mirror "
                         "knows as one of Jira's users, by login"}
ISSUE = {
    "type": "object",
    "properties": {"key": {"type": "string", "description": "the key the issue has now"},
                   "moved_from": MOVED_FROM},
    "required": ["key", "moved_from"],
}
ISSUE_PAGE = {
    "type": "object",
    "properties": {"items": {"type": "array", "items": ISSUE},
                   "next_cursor": {"type": ["integer", "null"]}, "total": {"type": "integer"},
                   "total_estimated": {"type": "boolean",
                                       "description": "present (true) when a search's total is an estimate"},
                   "people": PEOPLE},
    "required": ["items", "next_cursor", "people"],
}
# POST /api/v1/issues/{key}/refresh: the refresh of one issue, queued or found open.
ISSUE_REFRESH = {
    "type": "object",
    "properties": {"command": {"type": "object", "description": "the refresh command (as GET /api/v1/commands/{id} "
                               "answers it): type refresh, params {\"jql\": \"key = KEY\"}",
                               "properties": {"id": {"type": "integer"}, "type": {"const": "refresh"},
                                              "params": {"type": "object"}, "status": {"type": "string"}},
                               "required": ["id", "type", "params", "status"]}},
    "required": ["command"],
}
# GET /api/v1/users: the typeahead over the Jira users the mirror knows.
USER_QUERY = {
    "type": "object",
    "properties": {
        "q": {"type": "string", "maxLength": 255,
              "description": "text in the login or the display name, in any case; none: every user"},
        "limit": {"type": "integer", "minimum": 1, "maximum": 100, "default": 20},
    },
    "additionalProperties": False,
}
USERS = {
    "type": "object",
    "properties": {"items": {"type": "array", "description": "best first: a login or display name that is q, "
                             "then those starting with it, then a word starting with it, then the rest",
                             "items": {"type": "object",
                                       "properties": {"name": {"type": "string", "description": "the login"},
                                                      "display_name": {"type": ["string", "null"]}},
                                       "required": ["name", "display_name"]}}},
    "required": ["items"],
}
TRANSITIONS = {
    "type": "object",
    "properties": {"items": {"type": "array", "items": TRANSITION,
                             "description": "the transitions Jira offers from the issue's status: id, name, "
                                            "to (the target status) and fields (its screen)"},
                   "known": {"type": "boolean",
                             "description": "false until an agent of protocol v19 loaded the issue: then "
                                            "items is empty and a transition is checked by Jira alone"}},
    "required": ["items", "known"],
}
CREATE_META_QUERY = {
    "type": "object",
    "properties": {"project": {**SHORT, "pattern": PROJECT_KEY_PATTERN, "description": "a project's key"},
                   "issue_type": {**SHORT, "description": "an issue type's name, in any case"}},
    "additionalProperties": False,
}
CREATE_META = {
    "type": "object",
    "properties": {"items": {"type": "array", "items": {
        "type": "object",
        "properties": {"project": {"type": "string"}, "issue_type": {"type": "string"},
                       "fields": {**SCREEN, "type": "object"}, "updated_at": {"type": "string"}},
        "required": ["project", "issue_type", "fields", "updated_at"]}}},
    "required": ["items"],
}
# GET /api/v1/boards and /api/v1/boards/{id} (docs/api.md, "Boards").
_LISTED_BOARD = {
    "id": {"type": "integer"},
    "name": {"type": ["string", "null"], "description": "the board's name in Jira; null until an agent has "
                                                        "sent its configuration"},
    "type": {"enum": [*BOARD_TYPES, None]},
    "project": {"type": "string", "description": "the label of the project that names the board"},
    "configured": {"type": "boolean", "description": "whether an agent has sent the board's configuration"},
}
BOARDS = {
    "type": "object",
    "properties": {"items": {"type": "array", "items": {"type": "object", "properties": _LISTED_BOARD,
                                                        "required": list(_LISTED_BOARD)}}},
    "required": ["items"],
}
_NULLABLE = {"type": ["string", "null"]}
BOARD_CARD = {
    "type": "object",
    "properties": {
        "key": {"type": "string"}, "summary": {"type": "string"}, "issue_type": _NULLABLE, "priority": _NULLABLE,
        "status": _NULLABLE, "assignee": {**_NULLABLE, "description": "a login; people names it"},
        "flagged": {"type": "boolean", "description": "Jira's Flagged field holds a value"},
        "column": {"type": ["integer", "null"], "description": "the index of the column the status is on"},
        "transitions": {"type": ["array", "null"], "items": TRANSITION,
                        "description": "the transitions Jira offers from the issue's status (null: not known)"},
        "rank": {**_NULLABLE, "description": "Jira's Rank, the cards' order"},
    },
    "required": ["key", "summary", "issue_type", "priority", "status", "assignee", "flagged", "column",
                 "transitions", "rank"],
}
BOARD = {
    "type": "object",
    "properties": {
        **_LISTED_BOARD,
        "columns": {"type": "array", "items": {
            "type": "object",
            "properties": {"name": {"type": "string"},
                           "statuses": {"type": "array", "items": {
                               "type": "object",
                               "properties": {"id": {"type": "string"}, "name": _NULLABLE, "category_key": _NULLABLE},
                               "required": ["id", "name", "category_key"]}}},
            "required": ["name", "statuses"]}},
        "sprint": {"type": ["object", "null"], "description": "a scrum board's active sprint",
                   "properties": {"id": {"type": "integer"}, "name": {"type": "string"}, "state": _NULLABLE,
                                  "start_date": _NULLABLE, "end_date": _NULLABLE, "goal": _NULLABLE}},
        "issues": {"type": "array", "items": BOARD_CARD, "description": "the cards, by rank then key"},
        "total": {"type": "integer", "description": "the cards in all (at most 500 are listed)"},
        "people": {"type": "object", "additionalProperties": _NULLABLE,
                   "description": "the display names of the cards' assignees, by login"},
    },
    "required": [*_LISTED_BOARD, "columns", "sprint", "issues", "total", "people"],
}
# Asked by an old key, an issue answers under its new one and names it here.
MOVED_LOCATION = {"description": "present when the key asked is an old key of a moved issue, or the key "
                                 "in another case (aurora-12): the issue's path under its key as Jira writes "
                                 "it now",
                  "required": False, "schema": {"type": "string"}}
