"""Jira's issue JSON flattened into the hub's issue state object (docs/agent-protocol.md).

Users are their login ``name`` (stable, what JQL and mentions use; ``key`` is internal and display
names change); times are kept exactly as Jira wrote them, so the mirror compares with Jira's own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

SPRINT_TYPE = "com.pyxis.greenhopper.jira:gh-sprint"
EPIC_LINK_TYPE = "com.pyxis.greenhopper.jira:gh-epic-link"


@dataclass(frozen=True)
class CustomFields:
    """The ids (``customfield_10100``, ...) of the custom fields the mirror reads; None where absent."""

    sprint: str | None = None
    epic_link: str | None = None
    planned_start: str | None = None
    planned_end: str | None = None

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
                        planned_start=by_name(planned_start), planned_end=by_name(planned_end))


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


def fields_of(issue: dict, custom: CustomFields) -> dict:
    """The plain fields of the state object: everything but links, comments, changes and attachments."""
    f = issue.get("fields") or {}
    return {
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


def state(issue: dict, custom: CustomFields, comments: list[dict] | None = None,
          histories: list[dict] | None = None) -> dict:
    """The full state object of an issue the query matched; ``comments``/``histories`` replace what
    search embedded when it was cut short."""
    f = issue.get("fields") or {}
    if comments is None:
        comments = (f.get("comment") or {}).get("comments") or []
    if histories is None:
        histories = (issue.get("changelog") or {}).get("histories") or []
    return {**fields_of(issue, custom), "links": links(f.get("issuelinks")),
            "comments": [comment(c) for c in comments], "changes": [change(h) for h in histories],
            "attachments": [attachment(a) for a in f.get("attachment") or []]}


def neighbour(issue: dict, custom: CustomFields) -> dict:
    """A linked issue outside the query: its fields only. Links, comments and the rest are left out, so the
    mirror keeps what a run that matched it loaded (an absent field is kept)."""
    return fields_of(issue, custom)


def truncated(container: dict | None, embedded_key: str) -> bool:
    """Whether a search-embedded container (``comment``, ``changelog``) holds fewer than its ``total``."""
    if not container:
        return False
    return int(container.get("total") or 0) > len(container.get(embedded_key) or [])
