"""Jira's issue JSON flattened into the hub's issue state object (docs/agent-protocol.md).

Users are their login ``name`` (stable, what JQL and mentions use; ``key`` is internal and display
names change); times are kept exactly as Jira wrote them, so the mirror compares with Jira's own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from agent.flatten import flatten
from agent.meta import issue_meta

SPRINT_TYPE = "com.pyxis.greenhopper.jira:gh-sprint"
EPIC_LINK_TYPE = "com.pyxis.greenhopper.jira:gh-epic-link"


@dataclass(frozen=True)
class CustomFields:
    """The ids (``customfield_10100``, ...) of the custom fields the mirror reads; None where absent."""

    sprint: str | None = None
    epic_link: str | None = None
    planned_start: str | None = None
    planned_end: str | None = None
    # Every field of ``/rest/api/2/field`` by id: its name and schema, for ``custom_fields``.
    described: dict[str, dict] = field(default_factory=dict, compare=False, repr=False)

    def ids(self) -> list[str]:
        return [f for f in (self.sprint, self.epic_link, self.planned_start, self.planned_end) if f]


def find_custom_fields(fields: list[dict], planned_start: str = "Planned start",
                       planned_end: str = "Planned end") -> CustomFields:
    """Pick the fields out of ``/rest/api/2/field``: Sprint and Epic Link by their schema's custom type
    (names are translated and renamed), planned dates by exact name (similar names exist)."""

    def by_type(custom: str) -> str | None:
        return next((f["id"] for f in fields if (f.get("schema") or {}).get("custom") == custom), None)

    def by_name(name: str) -> str | None:
        exact = next((f["id"] for f in fields if f.get("name") == name), None)
        return exact or next((f["id"] for f in fields if (f.get("name") or "").casefold() == name.casefold()), None)

    return CustomFields(sprint=by_type(SPRINT_TYPE), epic_link=by_type(EPIC_LINK_TYPE),
                        planned_start=by_name(planned_start), planned_end=by_name(planned_end),
                        described={f["id"]: f for f in fields if f.get("id")})


_CUSTOM_FIELD_ID = re.compile(r"customfield_[1-9][0-9]{0,17}")


def column_fields(custom: CustomFields) -> list[dict]:
    """The page's ``catalogues.fields``: the custom fields the state object carries in fields of
    its own (Sprint, Epic Link, the planned dates), each with this instance's id, so the hub can
    answer JQL's ``cf[10510]`` as it answers ``"Epic Link"``."""
    columns = (("sprint", custom.sprint), ("epic_key", custom.epic_link),
               ("planned_start", custom.planned_start), ("planned_end", custom.planned_end))
    return [{"id": fid, "name": (custom.described.get(fid) or {}).get("name") or fid, "column": column}
            for column, fid in columns if fid and _CUSTOM_FIELD_ID.fullmatch(fid)]


# The keys GreenHopper writes in a sprint's toString(); a split only before one of them lets names
# and goals hold commas, brackets and "=".
SPRINT_KEYS = ("id", "rapidViewId", "state", "name", "goal", "startDate", "endDate", "completeDate",
               "activatedDate", "sequence", "autoStartStop", "synced", "incompleteIssuesDestinationId")
_SPRINT_SPLIT = re.compile(rf",(?=(?:{'|'.join(SPRINT_KEYS)})=)")


def parse_sprint(value: str | dict) -> dict:
    """One sprint from the legacy string form (``…Sprint@1a2b[id=24,…,name=…,…]``) or the object form."""
    if isinstance(value, dict):
        return dict(value)
    start, end = value.find("["), value.rfind("]")
    if start < 0 or end < start:
        return {"name": value}
    sprint = {}
    for part in _SPRINT_SPLIT.split(value[start + 1:end]):
        name, _, text = part.partition("=")
        sprint[name] = None if text == "<null>" else text
    return sprint


def _number(value) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return -1


def current_sprint(values) -> str | None:
    """The active sprint's name, else the latest by ``sequence`` (then id): the one the team works in now."""
    if not values:
        return None
    sprints = [parse_sprint(v) for v in (values if isinstance(values, list) else [values])]

    def order(s: dict) -> tuple:
        return (str(s.get("state") or "").upper() == "ACTIVE", _number(s.get("sequence")), _number(s.get("id")))

    return max(sprints, key=order).get("name")


def _name(user: dict | None) -> str | None:
    return user.get("name") if user else None


def _named(value: dict | None) -> str | None:
    return value.get("name") if value else None


def _integer(value) -> int | None:
    """A positive integer from Jira's number or string; None for ``<null>``, blanks and the rest."""
    number = _number(value)
    return number if number >= 1 else None


def _seconds(value) -> int | None:
    """Whole seconds as Jira counts time (3600, or 3600.0), None where it holds none."""
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        return None
    return int(value)


def sprints(values) -> list[dict]:
    """Every sprint of the Sprint field, either form, as the state object's ``sprints``: ``state``
    lower-cased as the agile API writes it, dates as Jira wrote them; one without an id or a name
    (nothing the hub could key it by) is left out, one named twice is sent once."""
    if not values:
        return []
    out: dict[int, dict] = {}
    for value in values if isinstance(values, list) else [values]:
        s = parse_sprint(value)
        sid, name = _integer(s.get("id")), s.get("name")
        if sid is None or not name:
            continue
        board = s.get("rapidViewId") if s.get("rapidViewId") is not None else s.get("boardId", s.get("originBoardId"))
        out[sid] = {"id": sid, "name": str(name), "state": str(s["state"]).lower() if s.get("state") else None,
                    "start": s.get("startDate"), "end": s.get("endDate"), "complete": s.get("completeDate"),
                    "board_id": _integer(board), "goal": s.get("goal") or None}
    return list(out.values())


def links(issuelinks: list[dict] | None) -> list[dict]:
    """Jira's ``issuelinks`` (each with an ``outwardIssue`` or an ``inwardIssue``) as hub links."""
    out = []
    for link in issuelinks or []:
        kind = (link.get("type") or {}).get("name")
        if link.get("outwardIssue"):
            out.append({"type": kind, "outward": link["outwardIssue"]["key"]})
        if link.get("inwardIssue"):
            out.append({"type": kind, "inward": link["inwardIssue"]["key"]})
    return out


def linked_keys(issue: dict) -> set[str]:
    """The keys an issue links to, either way."""
    return {link.get("outward") or link["inward"] for link in links(issue["fields"].get("issuelinks"))}


def comment(c: dict) -> dict:
    return {"id": str(c["id"]), "author": _name(c.get("author")), "created": c.get("created"),
            "updated": c.get("updated"), "body": c.get("body")}


def change(history: dict) -> dict:
    return {"id": str(history["id"]), "author": _name(history.get("author")), "created": history.get("created"),
            "items": [{"field": i.get("field"), "field_type": i.get("fieldtype"), "from": i.get("from"),
                       "from_string": i.get("fromString"), "to": i.get("to"), "to_string": i.get("toString")}
                      for i in history.get("items") or []]}


def attachment(a: dict) -> dict:
    return {"id": str(a["id"]), "filename": a.get("filename"), "size": a.get("size"),
            "mime_type": a.get("mimeType"), "author": _name(a.get("author")), "created": a.get("created")}


def worklog(w: dict) -> dict:
    return {"id": str(w["id"]), "author": _name(w.get("author")), "started": w.get("started"),
            "time_spent": _seconds(w.get("timeSpentSeconds")), "comment": w.get("comment"), "created": w.get("created"),
            "updated": w.get("updated")}


def version(v: dict) -> dict:
    return {"id": str(v["id"]), "name": v["name"], "released": v.get("released"), "release_date": v.get("releaseDate")}


# System fields the state object carries under a name of its own (``fields_of``) or as a list.
MAPPED = frozenset({
    "summary", "description", "issuetype", "status", "priority", "assignee", "reporter", "duedate", "labels",
    "created", "updated", "issuelinks", "comment", "attachment", "worklog", "resolution", "resolutiondate",
    "components", "fixVersions", "versions", "environment", "parent", "timeoriginalestimate", "timeestimate",
    "timespent",
})
# Fields Jira returns that are no field of the issue's own: the project is the key's prefix,
# sub-tasks carry their parent_key, timetracking repeats the three seconds fields, and
# lastViewed is when the agent's own user last looked.
LEFT_OUT = frozenset({"project", "subtasks", "timetracking", "lastViewed"})
# The new fields by the Jira field they come from: each is sent only when Jira returned its
# field (``*all`` returns each, null when empty), so what an answer did not carry is kept by the hub.
_WHOLE_ISSUE = {
    "resolution": ("resolution", _named),
    "resolved": ("resolutiondate", lambda v: v),
    "components": ("components", lambda v: [c["name"] for c in v or [] if c.get("name")]),
    "fix_versions": ("fixVersions", lambda v: [version(x) for x in v or [] if x.get("id") and x.get("name")]),
    "affects_versions": ("versions", lambda v: [version(x) for x in v or [] if x.get("id") and x.get("name")]),
    "environment": ("environment", lambda v: v),
    "time_original_estimate": ("timeoriginalestimate", _seconds),
    "time_estimate": ("timeestimate", _seconds),
    "time_spent": ("timespent", _seconds),
}


# A field id as the protocol takes one (customfield_10002, environment, votes, ...).
_FIELD_ID = re.compile(r"[A-Za-z][A-Za-z0-9_.:\-]{0,254}")


def custom_fields(f: dict, custom: CustomFields) -> dict:
    """Every other field Jira returned with a value, by id: ``{"name", "type", "custom", "value"}``
    from ``/rest/api/2/field``, the value flattened (``agent.flatten``); a field the catalogue does
    not list is named by its id."""
    out = {}
    skip = MAPPED | LEFT_OUT | set(custom.ids())
    for fid, value in f.items():
        if value is None or fid in skip or not _FIELD_ID.fullmatch(fid):
            continue  # an id the protocol cannot carry (none of Jira's own) would cost the whole page
        described = custom.described.get(fid) or {}
        schema = described.get("schema") or {}
        out[fid] = {"name": described.get("name") or fid, "type": schema.get("type"), "custom": schema.get("custom"),
                    "value": flatten(value, schema)}
    return out


def fields_of(issue: dict, custom: CustomFields) -> dict:
    """The plain fields of the state object: everything but links, comments, changes, attachments, worklogs."""
    f = issue.get("fields") or {}
    out = {
        "key": issue["key"], "id": str(issue["id"]),
        "issue_type": _named(f.get("issuetype")), "summary": f.get("summary"), "description": f.get("description"),
        "status": _named(f.get("status")), "priority": _named(f.get("priority")),
        "assignee": _name(f.get("assignee")), "reporter": _name(f.get("reporter")), "duedate": f.get("duedate"),
        "planned_start": f.get(custom.planned_start) if custom.planned_start else None,
        "planned_end": f.get(custom.planned_end) if custom.planned_end else None,
        "epic_key": f.get(custom.epic_link) if custom.epic_link else None,
        "labels": list(f.get("labels") or []),
        "sprint": current_sprint(f.get(custom.sprint)) if custom.sprint else None,
        "created": f.get("created"), "updated": f.get("updated"),
    }
    out.update({name: read(f[jira]) for name, (jira, read) in _WHOLE_ISSUE.items() if jira in f})
    # Jira writes ``parent`` on sub-tasks alone: its absence is no parent, not an answer cut short.
    out["parent_key"] = (f.get("parent") or {}).get("key")
    if custom.sprint and custom.sprint in f:
        out["sprints"] = sprints(f[custom.sprint])
    out["custom_fields"] = custom_fields(f, custom)
    return out


def state(issue: dict, custom: CustomFields, comments: list[dict] | None = None,
          histories: list[dict] | None = None, worklogs: list[dict] | None = None) -> dict:
    """The full state object of an issue, a match or a neighbour; ``comments``/``histories``/``worklogs``
    replace what search embedded when it was cut short. ``worklogs`` are sent when Jira returned the
    field (or they were read whole), so an answer without it keeps the mirror's."""
    f = issue.get("fields") or {}
    if comments is None:
        comments = (f.get("comment") or {}).get("comments") or []
    if histories is None:
        histories = (issue.get("changelog") or {}).get("histories") or []
    if worklogs is None and "worklog" in f:
        worklogs = (f.get("worklog") or {}).get("worklogs") or []
    out = {**fields_of(issue, custom), "links": links(f.get("issuelinks")),
           "comments": [comment(c) for c in comments], "changes": [change(h) for h in histories],
           "attachments": [attachment(a) for a in f.get("attachment") or []]}
    if worklogs is not None:
        out["worklogs"] = [worklog(w) for w in worklogs]
    # v19: the transitions and edit screen, when the search expanded them.
    out.update(issue_meta(issue))
    return out


def _user(value: object, found: dict[str, dict]) -> None:
    if isinstance(value, dict) and "displayName" in value and isinstance(value.get("name"), str) and value["name"]:
        found[value["name"]] = {"name": value["name"], "key": value.get("key"),
                                "display_name": value.get("displayName")}


def users(issue: dict, *lists: list[dict] | None) -> dict[str, dict]:
    """Every user (``name``, ``key``, ``displayName``) an issue names, by login name, as the page's
    ``catalogues.users``: what lets interfaces show display names and read a changelog's user keys.

    Users stand where Jira puts them — a field's value (assignee, reporter, creator, user pickers,
    one or a list), the authors of comments, worklogs, attachments and changes — and ``lists`` are
    the entries read from an issue's own endpoints. Looked for there alone: walking the whole
    JSON would cost as much as mapping the issue."""
    found: dict[str, dict] = {}
    f = issue.get("fields") or {}
    entries = [*((f.get("comment") or {}).get("comments") or ()), *((f.get("worklog") or {}).get("worklogs") or ()),
               *(f.get("attachment") or ()), *((issue.get("changelog") or {}).get("histories") or ())]
    for listed in lists:
        entries.extend(listed or ())
    for value in f.values():
        if isinstance(value, list):
            for item in value:
                _user(item, found)
        else:
            _user(value, found)
    for entry in entries:
        _user(entry.get("author"), found)
        _user(entry.get("updateAuthor"), found)
    return found


_JIRA_ID = re.compile(r"[1-9][0-9]{0,17}")


def catalogue(name: str, entries: list[dict]) -> list[dict]:
    """One of Jira's catalogues (``priorities``, ``statuses``, ``resolutions``, ``issue_types``,
    ``link_types``) as the page's ``catalogues`` carries it, in Jira's order; an entry without a
    numeric id or a name (none in Jira's own) is left out rather than have the hub refuse the page."""
    out = []
    for entry in entries or []:
        if not isinstance(entry, dict) or not entry.get("name") or not _JIRA_ID.fullmatch(str(entry.get("id"))):
            continue
        item = {"id": str(entry["id"]), "name": entry["name"]}
        if name == "statuses":
            category = entry.get("statusCategory") or {}
            item.update(category=category.get("name"), category_key=category.get("key"))
        elif name == "issue_types":
            item["subtask"] = entry.get("subtask")
        elif name == "link_types":
            item.update(outward=entry.get("outward"), inward=entry.get("inward"))
        out.append(item)
    return out


def board(board_id: int, configuration: dict, board_type: str | None, name: str | None = None) -> dict:
    """A board's configuration (Jira's ``/board/{id}/configuration``) as the page's ``catalogues.boards``
    carries it: its columns in order, each with the ids of the statuses mapped to it. ``name`` stands in
    when the configuration names none; a status without a numeric id is left out."""
    columns = []
    for column in (configuration.get("columnConfig") or {}).get("columns") or ():
        if not isinstance(column, dict):
            continue
        statuses = [str(s["id"]) for s in column.get("statuses") or ()
                    if isinstance(s, dict) and _JIRA_ID.fullmatch(str(s.get("id")))]
        columns.append({"name": str(column.get("name") or "")[:255], "statuses": statuses})
    kind = configuration.get("type") if configuration.get("type") in ("scrum", "kanban") else board_type
    return {"id": str(board_id), "name": str(configuration.get("name") or name or f"Board {board_id}")[:255],
            "type": kind, "columns": columns}


def truncated(container: dict | None, embedded_key: str) -> bool:
    """Whether a search-embedded container (``comment``, ``changelog``, ``worklog``) holds fewer than its
    ``total``."""
    if not container:
        return False
    return int(container.get("total") or 0) > len(container.get(embedded_key) or [])
