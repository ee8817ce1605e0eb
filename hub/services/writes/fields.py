"""The names a write gives fields, and Jira's field ids: one place for both directions.

A request names a field as the issue object shows it (``fix_versions``, ``original_estimate``) or
as Jira does (``fixVersions``, ``customfield_10010``), or a custom field by its name ("Story
Points"). Jira's screens (an issue's ``edit_fields``, a transition's ``fields``, a create screen)
are keyed by Jira's ids; :func:`on_screen` finds a request's field among them.
"""

from __future__ import annotations

# The mirror's name of a field → Jira's field id. Both estimates are Jira's one ``timetracking``;
# a transition screen's time spent is Jira's ``worklog`` field.
JIRA_IDS = {
    "summary": "summary", "description": "description", "priority": "priority", "assignee": "assignee",
    "reporter": "reporter", "duedate": "duedate", "labels": "labels", "components": "components",
    "fix_versions": "fixVersions", "affects_versions": "versions", "environment": "environment",
    "original_estimate": "timetracking", "remaining_estimate": "timetracking", "resolution": "resolution",
    "time_spent": "worklog", "issue_type": "issuetype", "parent": "parent", "project": "project",
}
# Jira's field id → the mirror's name (the first named above, for timetracking: original_estimate).
MIRROR_NAMES: dict[str, str] = {}
for _name, _jira in JIRA_IDS.items():
    MIRROR_NAMES.setdefault(_jira, _name)


def jira_id(name: str) -> str:
    """Jira's id of a field a request names by the mirror's name; any other name as given."""
    return JIRA_IDS.get(name, name)


def mirror_name(field_id: str) -> str:
    """The name a request gives Jira's field ``field_id``: the mirror's, else the id itself."""
    return MIRROR_NAMES.get(field_id, field_id)


def on_screen(screen: dict, name: str) -> tuple[str, dict] | None:
    """``(Jira's id, its {FIELD})`` of the field a request names ``name`` on ``screen`` (a
    screen's fields by Jira's id): by the mirror's name, by Jira's id, else by the field's own
    name in any case (a custom field's "Story Points"); None when the screen has no such field."""
    field_id = jira_id(name)
    if isinstance(screen.get(field_id), dict):
        return field_id, screen[field_id]
    folded = name.casefold()
    for field_id, meta in screen.items():
        if isinstance(meta, dict) and isinstance(meta.get("name"), str) and meta["name"].casefold() == folded:
            return field_id, meta
    return None


def given(fields: dict, field_id: str, meta: dict) -> bool:
    """Whether a request's ``fields`` set Jira's field ``field_id`` (``meta``: its {FIELD}), under
    any of the names :func:`on_screen` knows it by."""
    names = {field_id.casefold(), mirror_name(field_id).casefold()}
    names |= {name.casefold() for name, jira in JIRA_IDS.items() if jira == field_id}
    if isinstance(meta.get("name"), str):
        names.add(meta["name"].casefold())
    return any(name.casefold() in names and value is not None for name, value in fields.items())
