"""What each operation of a write takes from the mirror: the values its maker saw (``base``), and
its text made Jira's wiki markup.

``base`` is what the agent compares with Jira's current values before it writes (docs/writes.md,
conflicts): for an edit, each field it sets, as the mirror holds it (the request's own ``base``
wins, field by field); for a transition, the status it starts from. Adding or removing labels,
components or versions, comments, work logs, links and attachments never conflict: no base.
"""

from __future__ import annotations

from typing import Any

from hub.errors import ContractError
from hub.models import Issue
from hub.services.markup.markdown_wiki import to_wiki
from hub.vocabulary import COMMENT, CREATE_ISSUE, EDIT, EDIT_COMMENT, LOG_WORK, TRANSITION

# The edit's fields that are issue columns, by the name a request gives them.
COLUMNS = {
    "summary": "summary", "description": "description", "priority": "priority", "assignee": "assignee",
    "duedate": "duedate", "labels": "labels", "components": "components", "fix_versions": "fix_versions",
    "affects_versions": "affects_versions", "environment": "environment",
    "original_estimate": "time_original_estimate", "remaining_estimate": "time_estimate",
}
# The fields whose value may be {add, remove} rather than a whole list.
LISTS = ("labels", "components", "fix_versions", "affects_versions")
# Where each operation holds wiki text: the params' members, and an edit's or a new issue's fields.
_TEXTS = {COMMENT: ("body",), EDIT_COMMENT: ("body",), TRANSITION: ("comment",), LOG_WORK: ("comment",),
          CREATE_ISSUE: ("description",)}
_TEXT_FIELDS = ("description", "environment")
FORMATS = ("wiki", "markdown")


def as_wiki(op: str, params: dict) -> dict:
    """``params`` with their text as Jira's wiki markup: converted when ``format`` is ``markdown``,
    left exactly as written otherwise; ``format`` itself is not passed on."""
    params = dict(params)
    form = params.pop("format", "wiki")
    if form not in FORMATS:
        raise ContractError(f"format must be wiki or markdown, got {form!r}", "format")
    if form == "wiki":
        return params
    for name in _TEXTS.get(op, ()):
        if isinstance(params.get(name), str):
            params[name] = to_wiki(params[name])
    if op in (EDIT, CREATE_ISSUE) and isinstance(params.get("fields"), dict):
        fields = dict(params["fields"])
        for name in _TEXT_FIELDS:
            if isinstance(fields.get(name), str):
                fields[name] = to_wiki(fields[name])
        params["fields"] = fields
    return params


def mirror_value(issue: Issue, field: str) -> Any:
    """The mirror's value of an edit's field: an issue column, or a custom field by id or by name
    in the flattened form the issue object shows it (None when the mirror holds none)."""
    column = COLUMNS.get(field)
    if column is not None:
        return getattr(issue, column)
    custom = issue.custom_fields or {}
    if field in custom:
        return (custom[field] or {}).get("value")
    for entry in custom.values():
        if isinstance(entry, dict) and entry.get("name") == field:
            return entry.get("value")
    return None


def base_of(op: str, issue: Issue | None, params: dict, given: dict | None) -> dict | None:
    """What the write's maker saw: ``given`` (the request's ``base``) over the mirror's values."""
    if issue is None:
        return None
    if op == TRANSITION:
        return {"status": issue.status, **(given or {})}
    if op != EDIT:
        return None
    base: dict[str, Any] = {}
    for field, value in (params.get("fields") or {}).items():
        if field in LISTS and isinstance(value, dict):
            continue  # add / remove: never a conflict
        base[field] = mirror_value(issue, field)
    base.update({field: value for field, value in (given or {}).items() if field in base})
    return base or None
