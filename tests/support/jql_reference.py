"""The fixture mirror of the JQL tests (tests/search/test_jql.py, tests/search/test_jql_reference.py) and a
slow, obviously correct evaluator of JQL over the same issues, in plain Python.

The mirror: AURORA and OTHER issues with every field JQL reads, Cyrillic names, empty fields,
a neighbour (OTHER-3) and a gone issue (AURORA-7), read at a fixed clock in UTC. Each of the two
modules loads it once per engine (:func:`engine_database`: a database of its own on PostgreSQL).
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

from hub.clock import jira_to_utc

NOW = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)  # a Monday


class FixedClock:
    def now(self) -> datetime:
        return NOW


def mark_gone(keys, reason: str | None = None) -> None:
    """Mark ``keys`` gone, as a check after a full run does: written straight in, for speed."""
    from hub.db import database

    with database.atomic():
        for key in keys:
            database.execute_sql("UPDATE issue SET gone_at = '2026-11-02T08:00:00+00:00', gone_reason = ? "
                                 "WHERE key = ?", [reason, key])


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


def _custom(points=None, team=None, platforms=None, notes=None, reviewer=None, start=None, region=None,
            deployed=None) -> dict:
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
    if region is not None:
        fields["customfield_10300"] = {"name": "Region", "type": "option-with-child", "custom": None,
                                       "value": region}
    if deployed is not None:
        fields["customfield_10700"] = {"name": "Deployed", "type": "datetime", "custom": None, "value": deployed}
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
                                 start="2026-10-01", region={"parent": "EMEA", "child": "Kazan"}),
           links=[{"type": "Blocks", "outward": "AURORA-2"}]),
    _issue("AURORA-2", "10002", issue_type="Story", summary="Checkout flow", status="In Progress",
           priority="Major", assignee="petrov", reporter="ivanov", labels=["frontend"],
           components=["Web", "Payments"], fix_versions=[V23], sprint="AURORA Sprint 14", sprints=[SPRINTS[24]],
           created="2026-10-15T09:00:00.000+0300", updated="2026-10-30T08:00:00.000+0000", duedate="2026-11-01",
           epic_key="AURORA-10", description="Кнопка оплаты не нажимается",
           custom_fields=_custom(points=3, team="Core", notes="Ships with the new receipts",
                                 deployed="2026-10-20T15:00:00.000+0300")),
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
    # The custom fields the mirror keeps in its own columns, by this instance's ids (cf[10510] …).
    "fields": [{"id": "customfield_10510", "name": "Epic Link", "column": "epic_key"},
               {"id": "customfield_11902", "name": "Sprint", "column": "sprint"},
               {"id": "customfield_12000", "name": "Planned start", "column": "planned_start"}],
    "users": [{"name": "ivanov", "key": "JIRAUSER10100", "display_name": "Ivan Ivanov"},
              {"name": "petrov", "key": "JIRAUSER10101", "display_name": "Пётр Петров"},
              {"name": "sidorova", "key": "JIRAUSER10102", "display_name": "Анна Сидорова"}],
}
ALL = [*ISSUES, *NEIGHBOURS]


def utc(text: str | None) -> datetime | None:
    """A Jira time as an aware UTC datetime."""
    value = jira_to_utc(text)
    return None if value is None else datetime.fromisoformat(value)


def _second(instant: datetime) -> datetime:
    """An instant as Jira's index keeps one: whole seconds."""
    return instant.replace(microsecond=0)


def day(text: str | None) -> date | None:
    return None if text is None else date.fromisoformat(text)


def minutes(n: int) -> timedelta:
    return timedelta(minutes=n)


# -- the evaluator -------------------------------------------------------------------------------

_PRIORITY = {entry["name"]: n for n, entry in enumerate(CATALOGUES["priorities"])}
_STATUS = {entry["name"]: n for n, entry in enumerate(CATALOGUES["statuses"])}
_DISPLAY = {user["name"]: user["display_name"] for user in CATALOGUES["users"]}
_SPRINT_STATE = {"opensprints": "active", "closedsprints": "closed", "futuresprints": "future"}


def _f(text):
    return None if text is None else text.casefold()


def _words(text: str | None) -> list[str]:
    import re

    return re.findall(r"\w+", (text or "").casefold().replace("ё", "е"))


class Reference:
    """JQL over the fixture's issues in plain Python, one issue and one clause at a time, for the
    fields, operators and functions the randomised test generates. ``gone`` issues are left out."""

    def __init__(self, now: datetime = NOW, zone=None):
        from zoneinfo import ZoneInfo

        self.now, self.zone = now, zone or ZoneInfo("UTC")
        self.issues = [issue for issue in ALL if issue["key"] not in GONE]

    def run(self, query) -> list[str]:
        hits = [issue for issue in self.issues if query.where is None or self.node(query.where, issue)]
        hits.sort(key=lambda issue: _key(issue["key"]), reverse=True)  # ties: key descending
        for order in reversed(query.order):
            name = order.field.name.casefold()
            descending = order.descending if order.descending is not None else name in ("priority", "created",
                                                                                          "updated")
            hits.sort(key=lambda issue, n=name: self.sort_key(n, issue), reverse=descending)
        return [issue["key"] for issue in hits]

    def node(self, node, issue) -> bool:
        from hub.services.search.jql.tree import And, Not, Or

        if isinstance(node, And):
            return all(self.node(operand, issue) for operand in node.operands)
        if isinstance(node, Or):
            return any(self.node(operand, issue) for operand in node.operands)
        if isinstance(node, Not):
            return not self.node(node.operand, issue)
        return self.clause(node, issue)

    # What an issue holds for each field the generator names: a list of values (empty: EMPTY).
    def held(self, name: str, issue) -> list:
        custom = issue.get("custom_fields") or {}
        if name in ("status", "priority", "resolution", "assignee", "reporter"):
            return [issue[name]] if issue.get(name) else []
        if name == "type":
            return [issue["issue_type"]] if issue.get("issue_type") else []
        if name == "labels":
            return list(issue["labels"])
        if name == "component":
            return list(issue["components"])
        if name == "fixversion":
            return list(issue["fix_versions"])
        if name == "sprint":
            return list(issue.get("sprints") or [])
        if name == "story points":
            value = (custom.get("customfield_10002") or {}).get("value")
            return [] if value is None else [value]
        if name == "created":
            return [utc(issue["created"])]
        if name == "updated":
            return [utc(issue["updated"])]
        if name == "duedate":
            return [day(issue["duedate"])] if issue.get("duedate") else []
        raise AssertionError(name)

    def matches(self, name: str, held, value) -> bool:
        """Whether one held value is the operand's ``value`` (a Value or a Function)."""
        from hub.services.search.jql import dates
        from hub.services.search.jql.tree import Function

        if isinstance(value, Function):
            fname = value.name.casefold()
            if fname in _SPRINT_STATE:
                return held["state"] == _SPRINT_STATE[fname]
            if fname == "releasedversions":
                return bool(held["released"])
            if fname == "unreleasedversions":
                return not held["released"]
        if name in ("created", "updated"):
            # Jira's = on a date-time is its index's term for the instant, in whole seconds
            # (DateEqualityQueryFactory, LuceneUtils.dateToString): a day is its midnight alone.
            return held == _second(dates.moment(value, now=self.now, zone=self.zone))
        if name == "duedate":
            return held == dates.day(value, now=self.now, zone=self.zone)
        text = value.text
        if name in ("assignee", "reporter"):
            return held.casefold() == text.casefold() or _f(_DISPLAY.get(held)) == text.casefold()
        if name == "fixversion":
            return held["name"].casefold() == text.casefold() or held["id"] == text
        if name == "sprint":
            return held["name"].casefold() == text.casefold() or str(held["id"]) == text
        if name == "story points":
            return float(held) == float(text)
        return held.casefold() == text.casefold()

    def clause(self, clause, issue) -> bool:
        from hub.services.search.jql.tree import Empty, ValueList

        custom = {10002: "story points", 11902: "sprint"}
        name = clause.field.name.casefold() if clause.field.custom_id is None else custom[clause.field.custom_id]
        op, operand = clause.operator, clause.operand
        if name == "summary":
            found = all(any(w.startswith(t.rstrip("*")) if t.endswith("*") else w == t
                            for w in _words(issue["summary"])) for t in operand.text.casefold().strip("\"").split())
            return found if op == "~" else not found
        if name == "project":
            values = operand.items if isinstance(operand, ValueList) else (operand,)
            inside = issue["key"].rpartition("-")[0] in {getattr(v, "text", "").upper() for v in values}
            return inside if op in ("=", "in") else not inside
        if name == "key":
            return self.key_clause(op, operand, issue)
        held = self.held(name, issue)
        if op in ("is", "is not") or isinstance(operand, Empty):
            return (not held) == (op in ("is", "="))
        if op in (">", ">=", "<", "<="):
            return bool(held) and self.compare(name, op, held[0], operand)
        items = operand.items if isinstance(operand, ValueList) else (operand,)
        values = [item for item in items if not isinstance(item, Empty)]
        hit = any(self.matches(name, h, v) for h in held for v in values)
        if name == "resolution" and not held:
            hit = any(getattr(v, "text", "").casefold() == "unresolved" for v in values)
        if op in ("=", "in"):
            return hit or (not held and len(values) < len(items))
        return bool(held) and not hit  # != and NOT IN never match an empty field

    def compare(self, name: str, op: str, held, operand) -> bool:
        import operator

        from hub.services.search.jql import dates

        test = {">": operator.gt, ">=": operator.ge, "<": operator.lt, "<=": operator.le}[op]
        if name == "priority":
            there = {k.casefold(): v for k, v in _PRIORITY.items()}.get(operand.text.casefold())
            # Above is earlier in the configured order.
            return there is not None and test(-_PRIORITY[held], -there)
        if name == "story points":
            return test(float(held), float(operand.text))
        if name == "duedate":
            return test(held, dates.day(operand, now=self.now, zone=self.zone))
        # Jira's <, <=, >, >= compare with the instant in whole seconds (DateRelationalQueryFactory):
        # only the history predicates read a day as the whole day (implied precision).
        return test(held, _second(dates.moment(operand, now=self.now, zone=self.zone)))

    @staticmethod
    def key_clause(op: str, operand, issue) -> bool:
        from hub.services.search.jql.tree import ValueList

        if op in (">", ">=", "<", "<="):
            project, _, number = operand.text.upper().rpartition("-")
            mine, _, my_number = issue["key"].rpartition("-")
            import operator

            test = {">": operator.gt, ">=": operator.ge, "<": operator.lt, "<=": operator.le}[op]
            return mine == project and test(int(my_number), int(number))
        values = operand.items if isinstance(operand, ValueList) else (operand,)
        hit = issue["key"] in {getattr(v, "text", "").upper() for v in values}
        return hit if op in ("=", "in") else not hit

    @staticmethod
    def sort_key(name: str, issue):
        if name == "key":
            return _key(issue["key"])
        if name == "priority":
            value = issue.get("priority")
            return (value is None, -_PRIORITY.get(value, 10**9) if value else 0)
        if name == "status":
            return (False, _STATUS.get(issue["status"], 10**9), issue["status"].casefold())
        if name == "assignee":
            login = issue.get("assignee")
            return (login is None, _f(_DISPLAY.get(login) or login) or "")
        if name in ("created", "updated"):
            return (False, utc(issue[name]))
        if name == "duedate":
            return (issue.get("duedate") is None, issue.get("duedate") or "")
        raise AssertionError(name)


def _key(key: str) -> tuple[str, int]:
    project, _, number = key.rpartition("-")
    return project + "-", int(number)
