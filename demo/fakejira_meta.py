"""The screens of the fake Jira's writes, as Jira Server/DC 9 describes and checks them: the workflow
(transitions and their screens), the edit screen (``editmeta``), the create screens (``createmeta``)
and the reading of a field's value from a request into the value Jira stores and shows.

The workflow is Jira's classic one, plus a review step whose screen requires logged work:

    Open / Reopened --Start Progress (4)--> In Progress --Stop Progress (301)--> Open
    Open / In Progress / Reopened --Resolve Issue (5)--> Resolved    (resolution required)
    Open / In Progress / Reopened --Close Issue (2)--> Closed        (resolution required)
    Resolved --Close Issue (701)--> Closed;  Resolved / Closed / Done --Reopen Issue (3)--> Reopened
    In Progress --Request Review (711)--> Review                     (Log Work required)
    Review --Approve (721)--> Done (resolution "Done");  Review --Reject (731)--> In Progress

A transition with a screen takes a comment (``update.comment``), though its ``fields`` never list one; a
transition without a screen ("Start Progress") drops a comment sent with it, answering 204 all the
same, as Jira does. A closed issue is not editable (``jira.issue.editable = false`` on that step): its
edit screen is empty.
"""

from __future__ import annotations

import re
from datetime import date, datetime
from typing import Any
from zoneinfo import ZoneInfo

from demo.jirashapes import CUSTOM, ISSUE_TYPES, PRIORITIES, RESOLUTIONS, STATUSES, component, option, user, version


class FieldError(Exception):
    """A value Jira refuses: ``field`` is the key of ``errors``, the message Jira's words."""

    def __init__(self, field: str, message: str):
        super().__init__(message)
        self.field, self.message = field, message


def cannot_set(field: str) -> FieldError:
    return FieldError(field, f"Field '{field}' cannot be set. It is not on the appropriate screen, or unknown.")


class Refusal(Exception):
    """Jira's refusal of a request: its status and body."""

    def __init__(self, status: int, payload: Any):
        super().__init__(status)
        self.status, self.payload = status, payload


def errors(field_errors: dict[str, str], messages: list[str] | None = None) -> Refusal:
    """A 400 in Jira's shape: ``errorMessages`` and ``errors`` by field."""
    return Refusal(400, {"errorMessages": messages or [], "errors": field_errors})


def now() -> str:
    """The time as Jira writes it, in the user's zone (the fake's, Europe/Moscow), with milliseconds."""
    moment = datetime.now(ZoneInfo("Europe/Moscow"))
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}" + moment.strftime("%z")


def expands(raw) -> set[str]:
    """``expand`` (or ``properties``) as a query string (comma-separated) or a search body's list."""
    if not raw:
        return set()
    parts = raw if isinstance(raw, (list, set, tuple)) else str(raw).split(",")
    return {p.strip() for p in parts if p.strip()}


# --- statuses and the workflow ------------------------------------------------------------------

_STATUS = {s["name"]: s for s in STATUSES}


def status_bean(name: str) -> dict:
    """A status as an issue's ``status`` field and a transition's ``to`` write it."""
    known = _STATUS.get(name) or {"id": "1", "name": name, "description": "",
                                  "statusCategory": _STATUS["Open"]["statusCategory"]}
    return {"self": f"/rest/api/2/status/{known['id']}", "description": known["description"],
            "iconUrl": f"/images/icons/statuses/{known['id']}.png", "name": known["name"], "id": known["id"],
            "statusCategory": known["statusCategory"]}


# (id, name, from statuses, to status, screen: {field id: required}, resolution the post-function sets)
_ANY_OPEN = ("Open", "In Progress", "Reopened")
_RESOLVE_SCREEN = {"resolution": True, "fixVersions": False, "assignee": False, "worklog": False}
WORKFLOW = [
    ("4", "Start Progress", ("Open", "Reopened"), "In Progress", None, None),
    ("301", "Stop Progress", ("In Progress",), "Open", None, None),
    ("5", "Resolve Issue", _ANY_OPEN, "Resolved", _RESOLVE_SCREEN, None),
    ("2", "Close Issue", _ANY_OPEN, "Closed", _RESOLVE_SCREEN, None),
    ("701", "Close Issue", ("Resolved",), "Closed", None, None),
    ("3", "Reopen Issue", ("Resolved", "Closed", "Done"), "Reopened", {"assignee": False}, "-"),
    ("711", "Request Review", ("In Progress",), "Review", {"worklog": True}, None),
    ("721", "Approve", ("Review",), "Done", None, "Done"),
    ("731", "Reject", ("Review",), "In Progress", None, None),
]


def transitions_from(status: str) -> list[tuple]:
    """The workflow's transitions offered from a status, in the workflow's order."""
    return [t for t in WORKFLOW if status in t[2]]


# --- fields: their metadata -----------------------------------------------------------------------

def _schema(kind: str, fid: str, items: str | None = None) -> dict:
    out: dict = {"type": kind}
    if items:
        out["items"] = items
    if fid.startswith("customfield_"):
        number = int(fid.split("_")[1])
        custom = next(f for f in CUSTOM.values() if f["id"] == fid)
        out.update(custom=custom["schema"]["custom"], customId=number)
    else:
        out["system"] = fid
    return out


_ARRAY_OPS = ["add", "set", "remove"]
# field id -> (name, schema type, items, operations); what a screen may hold
SCREEN_FIELDS = {
    "summary": ("Summary", "string", None, ["set"]),
    "issuetype": ("Issue Type", "issuetype", None, []),
    "parent": ("Parent", "issuelink", None, ["set"]),
    "description": ("Description", "string", None, ["set"]),
    "environment": ("Environment", "string", None, ["set"]),
    "priority": ("Priority", "priority", None, ["set"]),
    "assignee": ("Assignee", "user", None, ["set"]),
    "reporter": ("Reporter", "user", None, ["set"]),
    "duedate": ("Due Date", "date", None, ["set"]),
    "labels": ("Labels", "array", "string", _ARRAY_OPS),
    "components": ("Component/s", "array", "component", _ARRAY_OPS),
    "fixVersions": ("Fix Version/s", "array", "version", _ARRAY_OPS),
    "versions": ("Affects Version/s", "array", "version", _ARRAY_OPS),
    "timetracking": ("Time Tracking", "timetracking", None, ["set", "edit"]),
    "resolution": ("Resolution", "resolution", None, ["set"]),
    "worklog": ("Log Work", "array", "worklog", ["add"]),
    "comment": ("Comment", "comment", None, ["add", "edit", "remove"]),
    CUSTOM["story_points"]["id"]: ("Story Points", "number", None, ["set"]),
    CUSTOM["epic_name"]["id"]: ("Epic Name", "string", None, ["set"]),
    CUSTOM["severity"]["id"]: ("Severity", "option", None, ["set"]),
    CUSTOM["platforms"]["id"]: ("Platforms", "array", "option", _ARRAY_OPS),
    CUSTOM["tester"]["id"]: ("Tester", "user", None, ["set"]),
    CUSTOM["target_date"]["id"]: ("Target date", "date", None, ["set"]),
    CUSTOM["customer"]["id"]: ("Customer", "string", None, ["set"]),
    CUSTOM["tags"]["id"]: ("Tags", "array", "string", _ARRAY_OPS),
}
OPTIONS = {CUSTOM["severity"]["id"]: [option("10400", "S1"), option("10401", "S2"), option("10402", "S3")],
           CUSTOM["platforms"]["id"]: [option("10410", "Linux"), option("10411", "Windows"),
                                       option("10412", "macOS")]}
# A project's versions and components: the sample project's, for every project.
VERSIONS = [version("10100", "2.2", True, "2026-09-30"), version("10101", "2.3", False, "2026-12-20"),
            version("10102", "2.4")]
COMPONENTS = [component("10200", "Backend"), component("10201", "Web"), component("10202", "Agent")]
EDIT_SCREEN = ["summary", "issuetype", "description", "environment", "priority", "assignee", "reporter", "duedate",
               "labels", "components", "fixVersions", "versions", "timetracking", "comment",
               CUSTOM["story_points"]["id"], CUSTOM["severity"]["id"], CUSTOM["platforms"]["id"],
               CUSTOM["tester"]["id"], CUSTOM["target_date"]["id"], CUSTOM["customer"]["id"], CUSTOM["tags"]["id"]]
_CREATE_COMMON = ["summary", "issuetype", "description", "priority", "labels", "assignee", "reporter",
                  "components", "fixVersions", "duedate", "timetracking"]
CREATE_SCREENS = {  # issue type -> {field id: required}
    "Bug": {**dict.fromkeys(_CREATE_COMMON, False), "versions": False, "environment": False,
            CUSTOM["severity"]["id"]: False},
    "Story": {**dict.fromkeys(_CREATE_COMMON, False), CUSTOM["story_points"]["id"]: False},
    "Task": dict.fromkeys(_CREATE_COMMON, False),
    "Epic": {**dict.fromkeys(_CREATE_COMMON, False), CUSTOM["epic_name"]["id"]: True},
    "Sub-task": {**dict.fromkeys(_CREATE_COMMON, False), "parent": True},
}
for _screen in CREATE_SCREENS.values():
    _screen.update(summary=True, issuetype=True, reporter=True)


def allowed_values(fid: str, issue_type: str | None = None) -> list[dict] | None:
    """What Jira lists as a field's ``allowedValues``; None where it lists none."""
    if fid == "priority":
        return PRIORITIES
    if fid == "resolution":
        return [{"self": f"/rest/api/2/resolution/{r['id']}", **r} for r in RESOLUTIONS]
    if fid in ("fixVersions", "versions"):
        return VERSIONS
    if fid == "components":
        return COMPONENTS
    if fid == "issuetype":
        return [t for t in ISSUE_TYPES if issue_type is None or t["name"] == issue_type]
    return OPTIONS.get(fid)


def field_meta(fid: str, required: bool = False, *, with_id: bool = False, issue_type: str | None = None) -> dict:
    """One field of a screen as editmeta, transitions' ``fields`` and createmeta describe it."""
    name, kind, items, operations = SCREEN_FIELDS[fid]
    out: dict = {"required": required, "schema": _schema(kind, fid, items), "name": name}
    if with_id:  # createmeta (8.4+) names each field; editmeta keys them by id
        out["fieldId"] = fid
        out["hasDefaultValue"] = fid in ("priority", "reporter")
    if kind == "user":
        out["autoCompleteUrl"] = "/rest/api/latest/user/search?username="
    out["operations"] = operations
    allowed = allowed_values(fid, issue_type)
    if allowed is not None:
        out["allowedValues"] = allowed
    return out


def edit_meta(issue: dict) -> dict:
    """``GET /issue/{key}/editmeta``: the edit screen, empty for a closed issue."""
    if issue["fields"]["status"]["name"] == "Closed":
        return {"fields": {}}
    return {"fields": {fid: field_meta(fid, fid in ("summary", "issuetype", "reporter")) for fid in EDIT_SCREEN}}


def transition_bean(t: tuple, with_fields: bool) -> dict:
    """A transition as ``GET /issue/{key}/transitions`` lists it (``fields`` with ``transitions.fields``)."""
    tid, name, _, to, screen, _ = t
    out = {"id": tid, "name": name, "to": status_bean(to)}
    if with_fields:
        out["fields"] = {fid: field_meta(fid, required) for fid, required in (screen or {}).items()}
    return out


# --- values: from a request to what Jira stores --------------------------------------------------

_DURATION = re.compile(r"(\d+(?:\.\d+)?)\s*([wdhm])")
_UNIT = {"w": 5 * 8 * 3600, "d": 8 * 3600, "h": 3600, "m": 60}  # Jira's defaults: 8h days, 5d weeks


def seconds(text, field: str = "timeLogged") -> int:
    """A Jira duration ("1w 2d 3h 30m", "1.5h", a bare number of minutes) in seconds."""
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        return int(text) * 60
    spoken = str(text).strip().lower()
    if re.fullmatch(r"\d+", spoken):
        return int(spoken) * 60
    if not spoken or _DURATION.sub("", spoken).strip():
        raise FieldError(field, "Invalid time duration entered.")
    return int(sum(float(n) * _UNIT[u] for n, u in _DURATION.findall(spoken)))


def pretty(total: int) -> str:
    """Seconds as Jira writes a duration: "1w 2d 3h 30m" (8h days, 5d weeks)."""
    parts = []
    for unit in "wdhm":
        count, total = divmod(total, _UNIT[unit])
        if count:
            parts.append(f"{count}{unit}")
    return " ".join(parts) or "0m"


def _named(fid: str, raw, choices: list[dict], key: str = "name", what: str | None = None) -> dict:
    if not isinstance(raw, dict) or not (raw.get("id") or raw.get(key)):
        raise FieldError(fid, f"Could not find valid 'id' or '{key}' in {what or fid} object.")
    for choice in choices:
        if (raw.get("id") and str(raw["id"]) == choice["id"]) or (raw.get(key) and raw[key] == choice[key]):
            return choice
    if raw.get("id"):
        raise FieldError(fid, f"{(what or fid).title()} with id '{raw['id']}' does not exist")
    raise FieldError(fid, f"{(what or fid).title()} name '{raw[key]}' is not valid")


def _string(fid: str, raw):
    if not isinstance(raw, str):
        raise FieldError(fid, "Operation value must be a string")
    if fid == "summary" and not raw.strip():
        raise FieldError(fid, "You must specify a summary of the issue.")
    return raw


def _number(fid: str, raw):
    if isinstance(raw, bool) or not isinstance(raw, (int, float)):
        raise FieldError(fid, "Operation value must be a number")
    return float(raw)


def _date(fid: str, raw):
    try:
        date.fromisoformat(raw)
    except (TypeError, ValueError):
        raise FieldError(fid, f"Error parsing date string: {raw}") from None
    return raw


def _user(fid: str, raw):
    if not isinstance(raw, dict) or not raw.get("name"):
        raise FieldError(fid, f"Could not find valid 'name' in {fid} object.")
    return user(raw["name"])


def _array(fid: str, raw):
    if not isinstance(raw, list):
        raise FieldError(fid, "data was not an array")
    return [item_value(fid, SCREEN_FIELDS[fid][2], one) for one in raw]


_READERS = {
    "string": _string, "number": _number, "date": _date, "user": _user, "array": _array,
    "priority": lambda fid, raw: dict(_named(fid, raw, PRIORITIES, what="priority")),
    "resolution": lambda fid, raw: dict(_named(fid, raw, allowed_values("resolution") or [], what="resolution")),
    "option": lambda fid, raw: dict(_named(fid, raw, OPTIONS[fid], key="value", what="option")),
}


def value(fid: str, raw):
    """The value Jira stores for a field set to ``raw`` (a REST request's form); FieldError if refused."""
    kind = SCREEN_FIELDS[fid][1]
    if raw is None and fid != "summary":
        return [] if kind == "array" else None
    if kind not in _READERS:
        raise cannot_set(fid)
    return _READERS[kind](fid, raw)


def item_value(fid: str, items: str | None, raw):
    """One member of an array field (a label, a version, a component, an option)."""
    if items == "string":
        if not isinstance(raw, str):
            raise FieldError(fid, "Operation value must be a string")
        if " " in raw:
            raise FieldError(fid, f"The label '{raw}' contains spaces which is invalid.")
        return raw
    if items == "version":
        return dict(_named(fid, raw, VERSIONS, what="version"))
    if items == "component":
        return dict(_named(fid, raw, COMPONENTS, what="component"))
    if items == "option":
        return dict(_named(fid, raw, OPTIONS[fid], key="value", what="option"))
    raise cannot_set(fid)


def shown(stored) -> str | None:
    """A value as a changelog item's ``fromString``/``toString`` writes it."""
    if stored is None or stored == []:
        return None
    if isinstance(stored, list):
        return " ".join(str(shown(one)) for one in stored) if all(isinstance(s, str) for s in stored) \
            else ", ".join(str(shown(one)) for one in stored)
    if isinstance(stored, dict):
        return stored.get("displayName") or stored.get("name") or stored.get("value")
    return str(stored)


def history_name(fid: str) -> tuple[str, str]:
    """A field as a changelog item names it: (``field``, ``fieldtype``)."""
    if fid.startswith("customfield_"):
        return SCREEN_FIELDS[fid][0], "custom"
    return {"components": "Component", "fixVersions": "Fix Version", "versions": "Version",
            "timeoriginalestimate": "timeoriginalestimate"}.get(fid, fid), "jira"
