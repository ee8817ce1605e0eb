"""What the fake Jira serves besides issues, in the shapes Jira Server/Data Center writes them:
``/rest/api/2/field`` (system fields and the custom fields of Jira Software and common plugins),
the catalogues (``/priority``, ``/status``, ``/resolution``, ``/issuetype``, ``/issueLinkType``),
and builders of field values (users, versions, components, options, sprints, worklogs).
"""

from __future__ import annotations

import zlib

SPRINT_FIELD, EPIC_FIELD, START_FIELD, END_FIELD = ("customfield_10100", "customfield_10101",
                                                     "customfield_10200", "customfield_10201")
TIME = "2026-10-22T13:05:11.000+0300"
_PLUGIN = "com.atlassian.jira.plugin.system.customfieldtypes:"
_AGILE = "com.pyxis.greenhopper.jira:"


def _system(fid: str, name: str, kind: str, items: str | None = None) -> dict:
    schema = {"type": kind, "system": fid}
    if items:
        schema["items"] = items
    return {"id": fid, "name": name, "custom": False, "orderable": True, "navigable": True,
            "searchable": True, "clauseNames": [fid], "schema": schema}


def _custom(number: int, name: str, kind: str, custom: str, items: str | None = None) -> dict:
    schema = {"type": kind, "custom": custom, "customId": number}
    if items:
        schema["items"] = items
    return {"id": f"customfield_{number}", "name": name, "custom": True, "orderable": True, "navigable": True,
            "searchable": True, "clauseNames": [f"cf[{number}]", name], "schema": schema}


# Custom fields a Jira Software team has, by a name the tests use: (id, name, schema type, custom type, items).
CUSTOM = {
    "story_points": _custom(10300, "Story Points", "number", _PLUGIN + "float"),
    "epic_name": _custom(10301, "Epic Name", "string", _AGILE + "gh-epic-label"),
    "rank": _custom(10302, "Rank", "any", _AGILE + "gh-lexo-rank"),
    "team": _custom(10303, "Team", "any", "com.atlassian.teams:rm-teams-custom-field-team"),
    "severity": _custom(10310, "Severity", "option", _PLUGIN + "select"),
    "platforms": _custom(10311, "Platforms", "array", _PLUGIN + "multiselect", "option"),
    "region": _custom(10312, "Region", "option-with-child", _PLUGIN + "cascadingselect"),
    "tester": _custom(10313, "Tester", "user", _PLUGIN + "userpicker"),
    "reviewers": _custom(10314, "Reviewers", "array", _PLUGIN + "multiuserpicker", "user"),
    "target_date": _custom(10315, "Target date", "date", _PLUGIN + "datepicker"),
    "deployed_at": _custom(10316, "Deployed at", "datetime", _PLUGIN + "datetime"),
    "acceptance": _custom(10317, "Acceptance criteria", "string", _PLUGIN + "textarea"),
    "customer": _custom(10318, "Customer", "string", _PLUGIN + "textfield"),
    "design_link": _custom(10319, "Design link", "string", _PLUGIN + "url"),
    "found_in": _custom(10320, "Found in build", "version", _PLUGIN + "version"),
    "target_releases": _custom(10321, "Target releases", "array", _PLUGIN + "multiversion", "version"),
    "owning_group": _custom(10322, "Owning group", "group", _PLUGIN + "grouppicker"),
    "notify_groups": _custom(10323, "Notify groups", "array", _PLUGIN + "multigrouppicker", "group"),
    "flagged": _custom(10324, "Flagged", "array", _PLUGIN + "multicheckboxes", "option"),
    "risk": _custom(10325, "Risk", "option", _PLUGIN + "radiobuttons"),
    "tags": _custom(10326, "Tags", "array", _PLUGIN + "labels", "string"),
    "health": _custom(10327, "Health check", "any", "com.example.jira.health:health-check"),
    "epic_status": _custom(10328, "Epic Status", "option", _AGILE + "gh-epic-status"),
}
FIELDS = [
    _system("summary", "Summary", "string"),
    _system("labels", "Labels", "array", "string"),
    _system("issuetype", "Issue Type", "issuetype"),
    _system("status", "Status", "status"),
    _system("priority", "Priority", "priority"),
    _system("resolution", "Resolution", "resolution"),
    _system("resolutiondate", "Resolved", "datetime"),
    _system("components", "Component/s", "array", "component"),
    _system("fixVersions", "Fix Version/s", "array", "version"),
    _system("versions", "Affects Version/s", "array", "version"),
    _system("environment", "Environment", "string"),
    _system("creator", "Creator", "user"),
    _system("votes", "Votes", "votes"),
    _system("watches", "Watchers", "watches"),
    _system("progress", "Progress", "progress"),
    _system("workratio", "Work Ratio", "number"),
    _system("timespent", "Time Spent", "number"),
    _system("worklog", "Log Work", "array", "worklog"),
    {"id": SPRINT_FIELD, "name": "Sprint", "custom": True,
     "schema": {"type": "array", "items": "string", "custom": "com.pyxis.greenhopper.jira:gh-sprint",
                "customId": 10100}},
    {"id": EPIC_FIELD, "name": "Epic Link", "custom": True,
     "schema": {"type": "any", "custom": "com.pyxis.greenhopper.jira:gh-epic-link", "customId": 10101}},
    {"id": "customfield_10199", "name": "Planned start (old)", "custom": True,
     "schema": {"type": "date", "custom": "com.atlassian.jira.plugin.system.customfieldtypes:datepicker"}},
    {"id": START_FIELD, "name": "Planned start", "custom": True,
     "schema": {"type": "date", "custom": "com.atlassian.jira.plugin.system.customfieldtypes:datepicker"}},
    {"id": END_FIELD, "name": "Planned end", "custom": True,
     "schema": {"type": "date", "custom": "com.atlassian.jira.plugin.system.customfieldtypes:datepicker"}},
    *CUSTOM.values(),
]
CUSTOM_IDS = [f["id"] for f in FIELDS if f["custom"]]

PRIORITIES = [{"id": str(n), "name": name, "statusColor": colour, "iconUrl": f"/images/icons/priorities/{n}.svg"}
              for n, (name, colour) in enumerate([("Blocker", "#ce0000"), ("Critical", "#ff0000"),
                                                   ("Major", "#009900"), ("Minor", "#006600"),
                                                   ("Trivial", "#003300")], start=1)]
_CATEGORIES = {"new": (2, "To Do"), "indeterminate": (4, "In Progress"), "done": (3, "Done")}
STATUSES = [{"id": sid, "name": name, "description": "",
             "statusCategory": {"id": _CATEGORIES[cat][0], "key": cat, "colorName": "blue-gray",
                                "name": _CATEGORIES[cat][1]}}
            for sid, name, cat in [("1", "Open", "new"), ("3", "In Progress", "indeterminate"),
                                   ("10001", "Review", "indeterminate"), ("6", "Done", "done"),
                                   ("4", "Reopened", "new"), ("5", "Resolved", "done"), ("10002", "Closed", "done")]]
RESOLUTIONS = [{"id": rid, "name": name, "description": ""}
               for rid, name in [("1", "Fixed"), ("2", "Won't Fix"), ("3", "Duplicate"), ("10000", "Done")]]
ISSUE_TYPES = [{"id": tid, "name": name, "subtask": sub, "description": ""}
               for tid, name, sub in [("1", "Bug", False), ("10001", "Story", False), ("3", "Task", False),
                                      ("10000", "Epic", False), ("5", "Sub-task", True)]]
LINK_TYPES = [{"id": "10000", "name": "Blocks", "inward": "is blocked by", "outward": "blocks"},
              {"id": "10001", "name": "Cloners", "inward": "is cloned by", "outward": "clones"},
              {"id": "10002", "name": "Duplicate", "inward": "is duplicated by", "outward": "duplicates"},
              {"id": "10003", "name": "Relates", "inward": "relates to", "outward": "relates to"}]


# The demo team's names (demo/sample.py), as a Russian team's Jira writes them, some in Cyrillic. Any
# other login's display name is the login titled ("ivanov" -> "Ivanov"), which the tests rely on.
DISPLAY_NAMES = {"a.volkova": "Анна Волкова", "o.kozlova": "Olga Kozlova", "d.sokolov": "Dmitry Sokolov",
                 "m.novikova": "Мария Новикова", "s.morozov": "Sergey Morozov", "e.lebedev": "Евгений Лебедев",
                 "n.orlov": "Nikita Orlov", "p.egorov": "Павел Егоров", "k.white": "Kate White"}


def user(name: str) -> dict:
    """A Jira user as the REST API writes it: ``name`` (login), ``key`` and ``displayName`` differ."""
    return {"name": name, "key": f"JIRAUSER{10000 + zlib.crc32(name.encode()) % 90000}",
            "displayName": DISPLAY_NAMES.get(name) or name.title(), "emailAddress": f"{name}@example.com",
            "active": True}


def named(name: str, number: str = "1") -> dict:
    """A resolution, priority or the like: Jira writes ``self``, ``id``, ``name``."""
    return {"self": f"/rest/api/2/x/{number}", "id": number, "name": name}


def version(vid: str, name: str, released: bool = False, release_date: str | None = None) -> dict:
    out = {"self": f"/rest/api/2/version/{vid}", "id": vid, "name": name, "archived": False, "released": released}
    if release_date:
        out["releaseDate"] = release_date
    return out


def component(cid: str, name: str) -> dict:
    return {"self": f"/rest/api/2/component/{cid}", "id": cid, "name": name}


def option(oid: str, value: str, child: dict | None = None) -> dict:
    out = {"self": f"/rest/api/2/customFieldOption/{oid}", "value": value, "id": oid}
    if child is not None:
        out["child"] = child
    return out


def group(name: str) -> dict:
    return {"name": name, "self": f"/rest/api/2/group?groupname={name}"}


def legacy_sprint(sid: int, name: str, state: str, sequence: int, goal: str = "", board: int = 7,
                  end: str | None = None, complete: str | None = None) -> str:
    """GreenHopper's toString() of a sprint, as Jira Server's REST API returns it in the Sprint field."""
    return (f"com.atlassian.greenhopper.service.sprint.Sprint@{sid:x}a2b[id={sid},rapidViewId={board},"
            f"state={state},name={name},goal={goal},startDate=2026-10-01T09:00:00.000+03:00,"
            f"endDate={end or '<null>'},completeDate={complete or '<null>'},sequence={sequence}]")


def object_sprint(sid: int, name: str, state: str, board: int = 7, goal: str | None = None) -> dict:
    """A sprint in the object form later Jira Data Center versions write."""
    return {"id": sid, "name": name, "state": state, "boardId": board, "goal": goal,
            "startDate": "2026-11-02T09:00:00.000+03:00", "endDate": "2026-11-16T09:00:00.000+03:00"}


def worklog(wid: str, seconds: int, author: str = "ivanov", comment: str = "", started: str = TIME) -> dict:
    """A worklog entry as ``/issue/{key}/worklog`` and search's ``worklog`` container write it."""
    hours, minutes = divmod(seconds // 60, 60)
    spent = " ".join(p for p in (f"{hours}h" if hours else "", f"{minutes}m" if minutes else "") if p) or "0m"
    return {"self": f"/rest/api/2/issue/x/worklog/{wid}", "id": wid, "author": user(author),
            "updateAuthor": user(author), "comment": comment, "created": TIME, "updated": TIME,
            "started": started, "timeSpent": spent, "timeSpentSeconds": seconds}
