"""Jira field values as a person reads them, for the state object's ``custom_fields``.

A value is flattened by its field's schema in ``/rest/api/2/field`` (``schema.type``, and
``schema.items`` for arrays): users become their login name, options their value (a cascading
select ``{"parent", "child"}``), versions, components, groups and the like their name; numbers,
dates and text stay as Jira wrote them. A type the agent does not know (a plugin's ``any``) is
kept as Jira gave it, since only its plugin knows what its members mean.
"""

from __future__ import annotations

CASCADING_TYPE = "com.atlassian.jira.plugin.system.customfieldtypes:cascadingselect"
# schema.type (or schema.items) of values named by their ``name``.
NAMED_TYPES = frozenset({"user", "group", "version", "component", "project", "priority", "status",
                         "resolution", "issuetype", "securitylevel"})
OPTION_TYPES = frozenset({"option", "option2"})
PLAIN_TYPES = frozenset({"string", "number", "date", "datetime"})


def cascading(value: object) -> object:
    """``{"value": A, "child": {"value": B}}`` → ``{"parent": A, "child": B}`` (child None if none)."""
    if not isinstance(value, dict):
        return value
    child = value.get("child")
    return {"parent": value.get("value"), "child": child.get("value") if isinstance(child, dict) else None}


def _one(value: object, kind: str | None) -> object:
    """One value (not a list) of a field whose values are of ``kind``."""
    if not isinstance(value, dict):
        return value  # a number, a string (dates, text, a url, a label) or a value of unknown shape
    if kind in OPTION_TYPES:
        return value.get("value")
    if kind == "option-with-child":
        return cascading(value)
    if kind in NAMED_TYPES:
        return value.get("name") if kind != "user" else value.get("name") or value.get("key")
    if kind == "votes":
        return value.get("votes")
    if kind == "watches":
        return value.get("watchCount")  # isWatching is the agent's own user's, not the issue's
    return value


def flatten(value: object, schema: dict | None) -> object:
    """A field's value as a person reads it, by the field's ``schema`` (None: kept as given)."""
    schema = schema or {}
    kind, custom = schema.get("type"), schema.get("custom")
    if custom == CASCADING_TYPE:
        return cascading(value)
    if kind == "array" and isinstance(value, list):
        return [_one(v, schema.get("items")) for v in value]
    if kind in PLAIN_TYPES:
        return value
    return _one(value, kind)
