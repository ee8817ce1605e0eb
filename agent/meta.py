"""Jira's screens as the mirror keeps them (protocol v19): an issue's transitions and edit screen,
and a project's create screens, each field in the one ``{FIELD}`` shape docs/agent-protocol.md gives:
``{"name", "required", "type", "items"?, "custom"?, "allowed"?, "operations"}``."""

from __future__ import annotations

# The hub's bounds on a field's ``allowed`` (hub/api/schemas.py): the most values, the longest one.
ALLOWED_VALUES, ALLOWED_CHARS = 1000, 255


def allowed_name(value: object) -> str | None:
    """What a person calls one of a field's ``allowedValues``: an option's ``value``, else its
    ``name`` (versions, components, priorities, resolutions, issue types), else its ``key``."""
    if not isinstance(value, dict):
        return str(value) if isinstance(value, str | int | float) else None
    for member in ("value", "name", "key"):
        if isinstance(value.get(member), str):
            return value[member]
    return None


def field(meta: dict) -> dict:
    """One field of a Jira screen (editmeta's, a transition's, createmeta's) in the ``{FIELD}`` shape."""
    schema = meta.get("schema") or {}
    out: dict = {"name": meta.get("name"), "required": bool(meta.get("required")), "type": schema.get("type")}
    if schema.get("items"):
        out["items"] = schema["items"]
    if schema.get("custom"):
        out["custom"] = schema["custom"]
    values = meta.get("allowedValues")
    if isinstance(values, list):
        names = [name for name in map(allowed_name, values) if name is not None]
        # Past the hub's bounds the list is left out, not cut: a cut list would refuse values Jira takes.
        if len(names) <= ALLOWED_VALUES and all(len(name) <= ALLOWED_CHARS for name in names):
            out["allowed"] = names
    out["operations"] = [op for op in meta.get("operations") or [] if isinstance(op, str)]
    return out


def fields(screen: dict | None) -> dict:
    """A screen's fields (``{field id: Jira's meta}``) in the ``{FIELD}`` shape, by field id."""
    return {fid: field(meta) for fid, meta in (screen or {}).items() if isinstance(meta, dict)}


def transitions(listed: list[dict] | None) -> list[dict]:
    """An issue's transitions: ``[{"id", "name", "to", "fields"}]``, ``to`` the target status's name."""
    return [{"id": str(t.get("id")), "name": t.get("name"), "to": (t.get("to") or {}).get("name"),
             "fields": fields(t.get("fields"))}
            for t in listed or [] if isinstance(t, dict) and t.get("id") is not None]


def issue_meta(issue: dict) -> dict:
    """The state's ``transitions`` and ``edit_fields`` from an issue Jira expanded with ``transitions``
    and ``editmeta``; each left out when Jira did not send it, so the mirror keeps what it has."""
    out: dict = {}
    if isinstance(issue.get("transitions"), list):
        out["transitions"] = transitions(issue["transitions"])
    if isinstance(issue.get("editmeta"), dict):
        out["edit_fields"] = fields(issue["editmeta"].get("fields"))
    return out


def create_meta(project: str, issue_types: list[dict]) -> list[dict]:
    """A state page's ``create_meta`` for ``project``: one entry per issue type with its create screen."""
    return [{"project": project, "issue_type": t["name"], "fields": fields(t.get("fields"))}
            for t in issue_types if t.get("name")]
