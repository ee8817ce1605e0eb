"""The fixture mirror of the JQL tests (tests/test_jql.py, tests/test_jql_reference.py) and a
slow, obviously correct evaluator of JQL over the same issues, in plain Python.

The mirror: AURORA and OTHER issues with every field JQL reads, Cyrillic names, empty fields,
a neighbour (OTHER-3) and a gone issue (AURORA-7), read at a fixed clock in UTC.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

from hub.clock import jira_to_utc

NOW = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)  # a Monday


class FixedClock:
    def now(self) -> datetime:
        return NOW


V22 = {"id": "10090", "name": "2.2", "released": True, "release_date": "2026-10-01"}
V23 = {"id": "10100", "name": "2.3", "released": False, "release_date": "2026-12-20"}
SPRINTS = {
    23: {"id": 23, "name": "AURORA Sprint 13", "state": "closed", "start": "2026-09-24T09:00:00.000+03:00",
         "end": "2026-10-08T18:00:00.000+03:00", "complete": "2026-10-08T17:40:00.000+03:00", "board_id": 3},
    24: {"id": 24, "name": "AURORA Sprint 14", "state": "active", "start": "2026-10-09T09:00:00.000+03:00",
         "end": "2026-10-23T18:00:00.000+03:00", "complete": None, "board_id": 3},
    25: {"id": 25, "name": "Спринт 2", "state": "future", "start": None, "end": None, "complete": None,
         "board_id": 7},
}
_FLOAT = "com.atlassian.jira.plugin.system.customfieldtypes:float"
_TEXTAREA = "com.atlassian.jira.plugin.system.customfieldtypes:textarea"


def _custom(points=None, team=None, platforms=None, notes=None, reviewer=None, start=None) -> dict:
    fields = {}
    if points is not None:
        fields["customfield_10002"] = {"name": "Story Points", "type": "number", "custom": _FLOAT, "value": points}
    if team is not None:
        fields["customfield_10100"] = {"name": "Team", "type": "option", "custom": None, "value": team}
    if platforms is not None:
        fields["customfield_10200"] = {"name": "Platforms", "type": "array", "custom": None, "value": platforms}
    if notes is not None:
        fields["customfield_10500"] = {"name": "Release notes", "type": "string", "custom": _TEXTAREA,
                                       "value": notes}
    if reviewer is not None:
        fields["customfield_10400"] = {"name": "Reviewer", "type": "user", "custom": None, "value": reviewer}
    if start is not None:
        fields["customfield_10600"] = {"name": "Start date", "type": "date", "custom": None, "value": start}
    return fields


def _comment(cid: str, body: str) -> dict:
    return {"id": cid, "author": "ivanov", "created": "2026-10-22T13:05:11.000+0300",
            "updated": "2026-10-22T13:05:11.000+0300", "body": body}


def _issue(key: str, number_id: str, **fields) -> dict:
    base = {"key": key, "id": number_id, "summary": f"Summary of {key}", "status": "Open", "labels": [],
            "components": [], "fix_versions": [], "affects_versions": [], "custom_fields": {}}
    return {**base, **fields}


ISSUES = [
    _issue("AURORA-1", "10001", issue_type="Bug", summary="Login fails on Safari", status="Open",
           priority="Blocker", assignee="ivanov", reporter="petrov", labels=["backend", "Срочно"],
           components=["Web"], fix_versions=[V23], affects_versions=[V22], sprint="AURORA Sprint 14",
           sprints=[SPRINTS[24], SPRINTS[23]], created="2026-10-01T10:00:00.000+0300",
           updated="2026-11-01T12:00:00.000+0000", duedate="2026-11-05",
           description="Safari 17 shows a blank page", environment="macOS 14",
           custom_fields=_custom(points=5, team="Platform", platforms=["iOS", "Android"], reviewer="petrov",
                                 start="2026-10-01"),
           links=[{"type": "Blocks", "outward": "AURORA-2"}]),
    _issue("AURORA-2", "10002", issue_type="Story", summary="Checkout flow", status="In Progress",
           priority="Major", assignee="petrov", reporter="ivanov", labels=["frontend"],
           components=["Web", "Payments"], fix_versions=[V23], sprint="AURORA Sprint 14", sprints=[SPRINTS[24]],
           created="2026-10-15T09:00:00.000+0300", updated="2026-10-30T08:00:00.000+0000", duedate="2026-11-01",
           epic_key="AURORA-10", description="Кнопка оплаты не нажимается",
           custom_fields=_custom(points=3, team="Core", notes="Ships with the new receipts")),
    _issue("AURORA-3", "10003", issue_type="Task", summary="Receipts", status="Done", resolution="Fixed",
           resolved="2026-10-20T15:00:00.000+0300", priority="Minor", reporter="ivanov", fix_versions=[V22],
           sprint="AURORA Sprint 13", sprints=[SPRINTS[23]], created="2026-09-01T12:00:00.000+0300",
           updated="2026-10-20T15:00:00.000+0300", comments=[_comment("30001", "Fixed in build 42")],
           custom_fields=_custom(points=8), links=[{"type": "Relates", "outward": "AURORA-1"}]),
    _issue("AURORA-4", "10004", issue_type="Bug", summary="Отчёт не строится", status="Сделать",
           priority="Critical", assignee="sidorova", reporter="sidorova", labels=["срочно"],
           created="2026-10-31T23:30:00.000+0300", updated="2026-11-02T08:00:00.000+0000",
           comments=[_comment("30002", "Проверено на стенде")], custom_fields=_custom(team="platform")),
    _issue("AURORA-5", "10005", issue_type="Sub-task", summary="Pay button", status="Review", priority="Major",
           assignee="ivanov", reporter="ivanov", labels=["backend"], parent_key="AURORA-2",
           created="2026-11-02T01:00:00.000+0300", updated="2026-11-02T08:30:00.000+0000", duedate="2026-11-02"),
    _issue("AURORA-7", "10007", issue_type="Bug", summary="Gone from Jira", status="Open", priority="Major",
           assignee="ivanov", created="2026-10-02T10:00:00.000+0000", updated="2026-10-02T10:00:00.000+0000"),
    _issue("AURORA-9", "10009", issue_type="Story", summary="Legacy export", status="Done",
           resolution="Won't Fix", resolved="2026-08-10T10:00:00.000+0000", created="2026-08-01T10:00:00.000+0000",
           updated="2026-08-10T10:00:00.000+0000"),
    _issue("AURORA-10", "10010", issue_type="Epic", summary="Payments epic", status="Open", priority="Minor",
           assignee="petrov", reporter="petrov", components=["Payments"], created="2026-07-01T10:00:00.000+0000",
           updated="2026-10-01T10:00:00.000+0000"),
    _issue("AURORA-100", "10100", issue_type="Task", summary="Big number export", status="Open",
           priority="Trivial", reporter="ivanov", labels=["backend", "frontend"],
           created="2026-10-10T10:00:00.000+0000", updated="2026-10-10T10:00:00.000+0000",
           custom_fields=_custom(points=13, platforms=["Android"])),
    _issue("AURORA-101", "10101", issue_type="Bug", summary="Crash on start", status="Open", priority="Blocker",
           assignee="ivanov", reporter="petrov", sprint="Спринт 2", sprints=[SPRINTS[25]],
           created="2026-10-11T10:00:00.000+0000", updated="2026-10-12T10:00:00.000+0000",
           environment="Android 14"),
    _issue("OTHER-1", "20001", issue_type="Bug", summary="Safari crash elsewhere", status="Open", priority="Major",
           assignee="ivanov", reporter="sidorova", sprint="Спринт 2", sprints=[SPRINTS[25]],
           created="2026-10-05T10:00:00.000+0000", updated="2026-10-06T10:00:00.000+0000", duedate="2026-10-30"),
    _issue("OTHER-2", "20002", issue_type="Task", summary="Годовой отчёт", status="Done", resolution="Готово",
           resolved="2026-11-01T10:00:00.000+0000", priority="Minor", assignee="sidorova", reporter="sidorova",
           created="2026-10-07T10:00:00.000+0000", updated="2026-11-01T10:00:00.000+0000"),
]
NEIGHBOURS = [
    _issue("OTHER-3", "20003", issue_type="Task", summary="A neighbour", status="Open", priority="Minor",
           created="2026-10-08T10:00:00.000+0000", updated="2026-10-08T10:00:00.000+0000"),
]
GONE = ("AURORA-7",)
CATALOGUES = {
    "priorities": [{"id": str(n), "name": name} for n, name in
                   enumerate(("Blocker", "Critical", "Major", "Minor", "Trivial"), 1)],
    "statuses": [{"id": str(n), "name": name, "category": None, "category_key": None} for n, name in
                 enumerate(("Open", "In Progress", "Сделать", "Review", "Done"), 1)],
    "resolutions": [{"id": str(n), "name": name} for n, name in enumerate(("Fixed", "Won't Fix", "Готово"), 1)],
    "issue_types": [{"id": str(n), "name": name, "subtask": name == "Sub-task"} for n, name in
                    enumerate(("Bug", "Story", "Task", "Epic", "Sub-task"), 1)],
    "link_types": [{"id": "10000", "name": "Blocks", "outward": "blocks", "inward": "is blocked by"},
                   {"id": "10001", "name": "Relates", "outward": "relates to", "inward": "relates to"}],
    "users": [{"name": "ivanov", "key": "JIRAUSER10100", "display_name": "Ivan Ivanov"},
              {"name": "petrov", "key": "JIRAUSER10101", "display_name": "Пётр Петров"},
              {"name": "sidorova", "key": "JIRAUSER10102", "display_name": "Анна Сидорова"}],
}
ALL = [*ISSUES, *NEIGHBOURS]


def utc(text: str | None) -> datetime | None:
    """A Jira time as an aware UTC datetime."""
    value = jira_to_utc(text)
    return None if value is None else datetime.fromisoformat(value)


def day(text: str | None) -> date | None:
    return None if text is None else date.fromisoformat(text)


def minutes(n: int) -> timedelta:
    return timedelta(minutes=n)
