"""The mirror's flattened field values turned back into the shapes Jira's REST API v2 takes, and
Jira's values flattened again to compare with a write's ``base``.

A field is named as the mirror names it (``priority``, ``fix_versions``, ``original_estimate``), by
its Jira id (``customfield_10010``, ``fixVersions``) or by its Jira name (``Story Points``); its value
is what a person reads (``"Major"``, ``"ivanov"``, ``["1.0"]``) and is shaped by the field's schema:
a name ``{"name": ...}``, an option ``{"value": ...}``, a version list ``[{"name": ...}]``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from agent.flatten import CASCADING_TYPE, NAMED_TYPES, OPTION_TYPES, flatten

# The mirror's names of Jira's system fields -> (Jira's id, its schema).
SYSTEM: dict[str, tuple[str, dict]] = {
    "summary": ("summary", {"type": "string"}),
    "description": ("description", {"type": "string"}),
    "environment": ("environment", {"type": "string"}),
    "duedate": ("duedate", {"type": "date"}),
    "priority": ("priority", {"type": "priority"}),
    "assignee": ("assignee", {"type": "user"}),
    "reporter": ("reporter", {"type": "user"}),
    "resolution": ("resolution", {"type": "resolution"}),
    "labels": ("labels", {"type": "array", "items": "string"}),
    "components": ("components", {"type": "array", "items": "component"}),
    "fix_versions": ("fixVersions", {"type": "array", "items": "version"}),
    "affects_versions": ("versions", {"type": "array", "items": "version"}),
    "issue_type": ("issuetype", {"type": "issuetype"}),
    "security": ("security", {"type": "securitylevel"}),
}
# The estimates, written as members of Jira's ``timetracking`` field.
ESTIMATES = {"original_estimate": "originalEstimate", "remaining_estimate": "remainingEstimate"}
ESTIMATE_SECONDS = {"originalEstimate": "originalEstimateSeconds", "remainingEstimate": "remainingEstimateSeconds"}
# Jira's default time tracking: a day of 8 hours, a week of 5 days.
_UNITS = {"w": 5 * 8 * 3600, "d": 8 * 3600, "h": 3600, "m": 60, "s": 1}
_DURATION = re.compile(r"\s*(\d+(?:\.\d+)?)\s*([wdhms])\s*", re.I)


class FieldError(ValueError):
    """A field the write names is not one Jira knows, or its value cannot be written; ``field`` names it."""

    def __init__(self, name: str, message: str):
        super().__init__(message)
        self.field = name


def duration(value: object) -> str:
    """A time as Jira's time tracking writes it: seconds become whole minutes (``90m``), text stays."""
    if isinstance(value, bool):
        raise ValueError("a duration is text like 1h 30m or a number of seconds")
    if isinstance(value, int | float):
        return f"{max(1, round(value / 60))}m"
    if isinstance(value, str) and value.strip():
        return value.strip()
    raise ValueError("a duration is text like 1h 30m or a number of seconds")


def seconds(value: object) -> int | None:
    """Seconds of a duration (``3600``, ``"1h 30m"``, ``"2d"``); None where it is none."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        return int(value)
    text = str(value).strip()
    if text.isdigit():
        return int(text)
    total, at = 0.0, 0
    for match in _DURATION.finditer(text):
        if match.start() != at:
            return None
        total += float(match[1]) * _UNITS[match[2].lower()]
        at = match.end()
    return int(total) if at == len(text) and at else None


@dataclass
class Resolved:
    """A field a write names, found: Jira's id, the schema its value is shaped by, the mirror's name."""

    name: str
    jira_id: str
    schema: dict = field(default_factory=dict)


def resolve(name: str, described: dict[str, dict], screen: dict | None = None) -> Resolved:
    """The field ``name`` names: a mirror name of a system field, a Jira id, or a Jira field's name
    (exact, then ignoring case), looked up in the screen's fields first, then in ``/field``'s."""
    if name in SYSTEM:
        jira_id, schema = SYSTEM[name]
        return Resolved(name, jira_id, dict(schema))
    screen = screen or {}
    for source in (screen, described):
        if name in source:
            return Resolved(name, name, dict(source[name].get("schema") or {}))
    for source in (screen, described):
        for matches in (lambda n: n == name, lambda n: n.casefold() == name.casefold()):
            for fid, meta in source.items():
                if isinstance(meta.get("name"), str) and matches(meta["name"]):
                    return Resolved(name, fid, dict(meta.get("schema") or {}))
    raise FieldError(name, f"Jira has no field {name!r}")


def _one(value: object, kind: str | None) -> object:
    """One value as Jira takes it, by its kind (``schema.type``, or ``schema.items`` of an array)."""
    if isinstance(value, dict) or value is None:
        return value  # already in Jira's shape
    if kind in OPTION_TYPES:
        return {"value": value}
    if kind == "user" or kind in NAMED_TYPES:
        return {"name": value}
    return value


def shaped(value: object, schema: dict) -> object:
    """A flattened value in the shape Jira takes for a field of ``schema``."""
    kind = schema.get("type")
    if schema.get("custom") == CASCADING_TYPE and isinstance(value, dict) and "parent" in value:
        child = value.get("child")
        return {"value": value["parent"], **({"child": {"value": child}} if child is not None else {})}
    if kind == "array":
        items = value if isinstance(value, list) else ([] if value is None else [value])
        return [_one(v, schema.get("items")) for v in items]
    return _one(value, kind)


def is_add_remove(value: object) -> bool:
    """Whether a value is the ``{"add": [...], "remove": [...]}`` form of a list field."""
    return isinstance(value, dict) and bool(value) and set(value) <= {"add", "remove"}


def to_jira(values: dict, described: dict[str, dict], screen: dict | None = None) -> tuple[dict, dict]:
    """A write's ``fields`` as Jira's ``(fields, update)`` members: set values, and the add/remove
    operations of list fields, the estimates in ``timetracking`` and a ``time_spent`` (a transition
    screen's work log) as a worklog ``add``. FieldError names a field that cannot be written."""
    out: dict = {}
    update: dict = {}
    tracking: dict = {}
    for name, value in values.items():
        try:
            if name in ESTIMATES:
                tracking[ESTIMATES[name]] = duration(value)
                continue
            if name == "time_spent":
                update.setdefault("worklog", []).append({"add": {"timeSpent": duration(value)}})
                continue
        except ValueError as exc:
            raise FieldError(name, f"{name}: {exc}") from None
        found = resolve(name, described, screen)
        if is_add_remove(value):
            if found.schema.get("type") != "array":
                raise FieldError(name, f"{name} is no list: add and remove are for lists")
            kind = found.schema.get("items")
            update[found.jira_id] = ([{"add": _one(v, kind)} for v in value.get("add") or []]
                                     + [{"remove": _one(v, kind)} for v in value.get("remove") or []])
        else:
            out[found.jira_id] = shaped(value, found.schema)
    if tracking:
        out["timetracking"] = tracking
    return out, update


def jira_ids(values: dict, described: dict[str, dict], screen: dict | None = None) -> dict[str, Resolved]:
    """The fields a write names, by the write's own name (the estimates are ``timetracking``'s)."""
    found = {}
    for name in values:
        if name in ESTIMATES:
            found[name] = Resolved(name, "timetracking", {"type": "timetracking"})
        elif name != "time_spent":
            found[name] = resolve(name, described, screen)
    return found


def current(issue: dict, resolved: Resolved) -> object:
    """A field's value on a Jira issue, flattened as the mirror holds it (names, options, seconds)."""
    value = (issue.get("fields") or {}).get(resolved.jira_id)
    if resolved.jira_id == "timetracking":
        return (value or {}).get(ESTIMATE_SECONDS[ESTIMATES[resolved.name]])
    return flatten(value, resolved.schema)


def _plain(value: object) -> object:
    if isinstance(value, dict):
        if "name" in value:
            return _plain(value["name"])
        if "value" in value:
            return _plain(value["value"])
        return {k: _plain(v) for k, v in sorted(value.items())}
    if isinstance(value, list):
        items = [_plain(v) for v in value]
        return sorted(items, key=repr) or None
    if isinstance(value, str):
        text = value.replace("\r\n", "\n").strip()
        return text or None
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def same(a: object, b: object, *, estimate: bool = False) -> bool:
    """Whether two values are the same as a person reads them: names for named values, lists in any
    order, empty text, an empty list and null alike, CRLF as LF; estimates as seconds."""
    if estimate:
        return seconds(a) == seconds(b)
    left, right = _plain(a), _plain(b)
    if {type(left), type(right)} in ({int, str}, {float, str}):
        return str(left) == str(right)
    return left == right


def holds(now: object, wanted: object, *, estimate: bool = False) -> bool:
    """Whether a field's value ``now`` already is what the write wants: equal, or for the add/remove
    form every added value present and every removed one absent."""
    if is_add_remove(wanted):
        assert isinstance(wanted, dict)
        have = {repr(_plain(v)) for v in (now if isinstance(now, list) else [])}
        return (all(repr(_plain(v)) in have for v in wanted.get("add") or [])
                and not any(repr(_plain(v)) in have for v in wanted.get("remove") or []))
    return same(now, wanted, estimate=estimate)
