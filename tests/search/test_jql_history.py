"""JQL's history operators over a crafted, mirrored changelog: each query with the keys Jira
would return and why. The mirror is loaded as an agent loads it (states with ``changes`` and the
users catalogue); each clause's SQL runs on the hub's own database."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest

from hub.db import database
from hub.services.search.jql import dates
from hub.services.search.jql.history import compile_history, is_history
from hub.services.search.jql.tree import Clause, Empty, FieldRef, Function, JqlError, Predicate, Value, ValueList
from tests.support import issue, load

pytestmark = pytest.mark.backends("sqlite", "postgresql")

NOW = datetime(2026, 10, 22, 12, 0, tzinfo=UTC)
UTC_ZONE, MOSCOW = ZoneInfo("UTC"), ZoneInfo("Europe/Moscow")
USERS = [{"name": "ivanov", "key": "JIRAUSER10100", "display_name": "Иван Иванов"},
         {"name": "petrov", "key": "JIRAUSER10101", "display_name": "Пётр Петров"},
         {"name": "sidorov", "key": "sidorov", "display_name": "Сидор Сидоров"}]  # an older, named key
IVANOV, PETROV = "JIRAUSER10100", "JIRAUSER10101"
_history_ids = iter(range(20001, 30000))


def change(when: str, author: str, *items: tuple) -> dict:
    """A change history at ``when`` (UTC, as Jira writes it) with items (field, from, from
    string, to, to string)."""
    return {"id": str(next(_history_ids)), "author": author, "created": f"2026-{when}:00.000+0000",
            "items": [{"field": f, "field_type": "jira", "from": a, "from_string": b, "to": c, "to_string": d}
                      for f, a, b, c, d in items]}


def status(a: tuple[str, str], b: tuple[str, str]) -> tuple:
    return ("status", a[0], a[1], b[0], b[1])


OPEN, PROGRESS, DONE = ("1", "Open"), ("3", "In Progress"), ("10001", "Done")
WORKING, REOPENED = ("10100", "Разработка"), ("10101", "Открыта")
V22, V23, V24 = {"id": "10000", "name": "2.2"}, {"id": "10001", "name": "2.3"}, {"id": "10002", "name": "2.4"}

MIRROR = [
    # Opened, taken by ivanov on the 10th, done by petrov on the 15th; assigned to petrov on the 12th.
    issue("AURORA-1", status="Done", resolution="Fixed", assignee="petrov", reporter="sidorov", changes=[
        change("10-10T09:00", "ivanov", status(OPEN, PROGRESS)),
        change("10-12T09:00", "ivanov", ("assignee", None, None, PETROV, "Пётр Петров")),
        change("10-15T09:00", "petrov", status(PROGRESS, DONE), ("resolution", None, None, "1", "Fixed"))]),
    # Never changed: it has held what it holds now all along.
    issue("AURORA-2", status="Open", assignee="ivanov", priority="High", reporter="sidorov", changes=[]),
    # Taken by sidorov on the 20th; reassigned from ivanov to sidorov on the 19th; Medium→High on the 18th.
    issue("AURORA-3", status="In Progress", assignee="sidorov", priority="High", reporter="sidorov", changes=[
        change("10-18T09:00", "ivanov", ("priority", "3", "Medium", "2", "High")),
        change("10-19T10:00", "sidorov", ("assignee", IVANOV, "Иван Иванов", "sidorov", "Сидор Сидоров")),
        change("10-20T10:00", "sidorov", status(OPEN, PROGRESS))]),
    # Cyrillic statuses; a priority set late on the 21st in UTC, early on the 22nd in Moscow.
    issue("AURORA-4", status="Открыта", priority="Low", reporter="sidorov", changes=[
        change("10-21T11:00", "petrov", status(WORKING, REOPENED)),
        change("10-21T22:30", "petrov", ("priority", None, None, "4", "Low"))]),
    # fixVersion: 2.2 held until removed on the 1st, 2.3 added on the 5th and swapped for 2.4 on the 16th.
    issue("AURORA-5", status="Done", resolution="Fixed", reporter="sidorov", fix_versions=[V24], changes=[
        change("10-01T09:00", "ivanov", ("Fix Version", "10000", "2.2", None, None)),
        change("10-05T09:00", "ivanov", ("Fix Version", None, None, "10001", "2.3")),
        change("10-16T09:00", "petrov", ("Fix Version", "10001", "2.3", None, None),
               ("Fix Version", None, None, "10002", "2.4"))]),
    # Reported by ivanov, handed to petrov as reporter on the 11th; 2.3 since before the changelog.
    issue("AURORA-6", status="Open", reporter="petrov", fix_versions=[V23], changes=[
        change("10-11T09:00", "ivanov", ("reporter", IVANOV, "Иван Иванов", PETROV, "Пётр Петров"))]),
]


@pytest.fixture
def mirror(hub):
    load(hub, MIRROR, catalogues={"users": USERS})
    return hub


def v(text: str) -> Value:
    return Value(text, True, 20)


def clause(field: str, operator: str, operand=None, *predicates: tuple[str, object]) -> Clause:
    return Clause(FieldRef(field, 1), operator, operand, 1,
                  tuple(Predicate(word, op, 40 + i) for i, (word, op) in enumerate(predicates)))


def during(a: str, b: str) -> ValueList:
    return ValueList((Value(a, True, 48), Value(b, True, 60)), 47)


def keys(sql: str, params: list) -> list[str]:
    rows = database.execute_sql(f"SELECT key FROM issue WHERE {sql} ORDER BY key", params).fetchall()
    return [row[0].removeprefix("AURORA-") for row in rows]


# (clause, the issues it matches (AURORA-n), why)
WAS = [
    (clause("status", "was", v("In Progress")), "13", "1 on the 10th to 15th, 3 since the 20th"),
    (clause("status", "was", v("Open")), "1236", "1 and 3 from before their first change, 2 and 6 now"),
    (clause("STATUS", "was", v("open")), "1236", "names of fields and values in any case"),
    (clause("status", "was", v("рАзрАботкА")), "4", "Cyrillic folds too: 4's first status"),
    (clause("status", "was", v("3")), "13", "a status by its id"),
    (clause("status", "was in", ValueList((v("Done"), v("открыта")), 20)), "145", "any of a list"),
    (clause("status", "was not", v("Open")), "45", "never Open"),
    (clause("status", "was not in", ValueList((v("Open"), v("Done")), 20)), "4", "neither"),
    (clause("status", "was", v("Closed")), "", "a status no issue held: nothing, no error"),
    (clause("status", "was", v("In Progress"), ("before", v("2026/10/12"))), "1", "3 only from the 20th"),
    (clause("status", "was", v("In Progress"), ("after", v("2026/10/16"))), "3", "1 left it on the 15th"),
    (clause("status", "was", v("In Progress"), ("on", v("2026/10/15"))), "1", "until 09:00 that day"),
    (clause("status", "was", v("In Progress"), ("on", v("2026/10/16"))), "", "nobody on the 16th"),
    (clause("status", "was", v("In Progress"), ("during", during("2026/10/11", "2026/10/21"))), "13", "both"),
    (clause("status", "was", v("In Progress"), ("during", during("2026/10/16", "2026/10/19"))), "", "a gap"),
    (clause("status", "was", v("In Progress"), ("by", v("ivanov"))), "1", "ivanov set it on 1"),
    (clause("status", "was", v("In Progress"), ("by", v("SIDOROV"))), "3", "sidorov on 3, any case"),
    (clause("status", "was", v("Open"), ("by", v("ivanov"))), "", "a first value is set by no change"),
    (clause("status", "was", v("Open"), ("before", v("2026/10/01"))), "1236",
     "a first value is held from before the changelog's first change"),
    (clause("status", "was", v("Open"), ("after", v("2026/10/21"))), "26", "1 and 3 had left Open"),
    (clause("status", "was", v("In Progress"), ("after", v("2026/10/09")), ("before", v("2026/10/12"))), "1",
     "AFTER and BEFORE together: some moment between"),
    (clause("status", "was not", v("In Progress"), ("during", during("2026/10/11", "2026/10/12"))), "23456",
     "all but 1"),
    (clause("status", "was", v("Done"), ("before", v("-7d"))), "15", "1 Done since 09:00 on the 15th"),
    (clause("status", "was", v("Done"), ("before", v("-8d"))), "5", "before 12:00 on the 14th: 5 alone"),
    (clause("status", "was", v("Done"), ("before", Function("startOfDay", (Value("-6", False, 30),), 21))),
     "15", "before the 16th"),
    (clause("assignee", "was", v("petrov")), "1", "JIRAUSER10101 in the changelog, petrov now"),
    (clause("assignee", "was", v("ivanov")), "23", "2 now; 3's first, JIRAUSER10100"),
    (clause("assignee", "was", v("IVANOV")), "23", "login names in any case"),
    (clause("assignee", "was", v("sidorov")), "3", "a key that is the login name"),
    (clause("assignee", "was", Empty(20)), "1456", "1 before the 12th; 4, 5, 6 unassigned throughout"),
    (clause("assignee", "was not", Empty(20)), "23", "always assigned"),
    (clause("assignee", "was", v("ivanov"), ("before", v("2026/10/19"))), "23", "3's ivanov until the 19th"),
    (clause("assignee", "was", v("ivanov"), ("after", v("2026/10/19"))), "2", "3's ended on the 19th"),
    (clause("assignee", "was", v("sidorov"), ("by", v("sidorov"))), "3", "sidorov took it"),
    (clause("priority", "was", v("Medium")), "3", "3's first"),
    (clause("priority", "was", v("high")), "23", "2 now, 3 since the 18th"),
    (clause("priority", "was", Empty(20)), "1456", "1, 5, 6 never had one; 4 until the 21st"),
    (clause("resolution", "was", Empty(20)), "12346", "1 before the 15th; the rest unresolved"),
    (clause("resolution", "was", v("fixed")), "15", "1 since the 15th, 5 throughout"),
    (clause("resolution", "was not", Empty(20)), "5", "resolved throughout"),
    (clause("resolution", "was", v("Unresolved")), "12346", "Jira's Unresolved is no resolution"),
    (clause("resolution", "changed", None, ("from", v("unresolved"))), "1", "from no resolution"),
    (clause("fixVersion", "was", v("2.3")), "56", "5 from the 5th to the 16th, 6 throughout"),
    (clause("fixversion", "was", v("2.2")), "5", "removed on the 1st: held before"),
    (clause("fixVersion", "was", v("10002")), "5", "a version by its id"),
    (clause("fixVersion", "was", v("2.3"), ("before", v("2026/10/05"))), "6", "5 had it only from the 5th"),
    (clause("fixVersion", "was", v("2.3"), ("after", v("2026/10/16"))), "6", "5 lost it on the 16th"),
    (clause("fixVersion", "was", v("2.3"), ("on", v("2026/10/16"))), "56", "until 09:00 that day"),
    (clause("fixVersion", "was", v("2.3"), ("by", v("ivanov"))), "5", "ivanov added it"),
    (clause("fixVersion", "was in", ValueList((v("2.2"), v("2.4")), 20)), "5", "either"),
    (clause("fixVersion", "was not", v("2.3")), "1234", "never 2.3"),
    (clause("reporter", "was", v("ivanov")), "6", "6's first reporter, JIRAUSER10100"),
    (clause("reporter", "was", v("petrov")), "6", "and its reporter since the 11th"),
    (clause("reporter", "was", v("sidorov")), "12345", "reporters throughout"),
]

CHANGED = [
    (clause("status", "changed"), "134", "a status change on each"),
    (clause("status", "changed", None, ("from", v("Open")), ("to", v("In Progress"))), "13", "both"),
    (clause("status", "changed", None, ("from", v("in progress"))), "1", "1 left In Progress"),
    (clause("status", "changed", None, ("to", v("Done")), ("by", v("petrov"))), "1", "petrov did it"),
    (clause("status", "changed", None, ("to", v("Done")), ("by", v("ivanov"))), "", "not ivanov"),
    (clause("status", "changed", None, ("by", v("ivanov"))), "1", "ivanov changed 1's status"),
    (clause("status", "changed", None, ("by", ValueList((v("ivanov"), v("sidorov")), 40))), "13", "either"),
    (clause("status", "changed", None, ("from", ValueList((v("Open"), v("Разработка")), 40))), "134", "any of"),
    (clause("status", "changed", None, ("after", v("2026/10/15"))), "34", "after the day of 1's last"),
    (clause("status", "changed", None, ("on", v("2026/10/15"))), "1", "09:00 on the 15th"),
    (clause("status", "changed", None, ("before", v("2026/10/15"))), "1", "the 10th"),
    (clause("status", "changed", None, ("during", during("2026/10/11", "2026/10/20"))), "13",
     "the 15th and the 20th: the end date is a whole day"),
    (clause("status", "changed", None, ("after", v("-2d"))), "4", "after 12:00 on the 20th"),
    (clause("status", "changed", None, ("after", Function("startOfDay", (Value("-2", False, 30),), 21))), "34",
     "after midnight of the 20th"),
    (clause("status", "changed", None, ("after", v("2026/10/20 09:59"))), "34", "a minute is a whole minute"),
    (clause("status", "changed", None, ("after", v("2026/10/20 10:00"))), "4", "not within the minute"),
    (clause("assignee", "changed"), "13", "assignments"),
    (clause("assignee", "changed", None, ("from", Empty(45))), "1", "from unassigned"),
    (clause("assignee", "changed", None, ("to", v("petrov"))), "1", "to JIRAUSER10101"),
    (clause("assignee", "changed", None, ("from", v("ivanov")), ("to", v("sidorov"))), "3", "keys both"),
    (clause("assignee", "changed", None, ("by", v("SIDOROV"))), "3", "any case"),
    (clause("priority", "changed", None, ("from", v("medium")), ("to", v("HIGH"))), "3", "case"),
    (clause("priority", "changed", None, ("on", v("2026/10/21"))), "4", "22:30 UTC is the 21st"),
    (clause("resolution", "changed", None, ("to", v("Fixed"))), "1", "resolved on the 15th"),
    (clause("resolution", "changed", None, ("from", Empty(45))), "1", "from unresolved"),
    (clause("fixVersion", "changed"), "5", "three version changes"),
    (clause("fixVersion", "changed", None, ("to", v("2.4"))), "5", "2.4 added"),
    (clause("fixVersion", "changed", None, ("from", v("2.3")), ("by", v("petrov"))), "5", "2.3 removed"),
    (clause("fixVersion", "changed", None, ("from", v("2.3")), ("by", v("ivanov"))), "", "not by ivanov"),
    (clause("fixVersion", "changed", None, ("before", v("2026/10/02"))), "5", "2.2 removed on the 1st"),
    (clause("reporter", "changed", None, ("from", v("ivanov")), ("to", v("petrov")), ("by", v("ivanov"))), "6",
     "reporter handed over"),
    (clause("reporter", "changed", None, ("after", v("2026/10/11"))), "", "on the 11th, not after"),
]


@pytest.mark.parametrize(("query", "expected", "why"), WAS + CHANGED,
                         ids=[f"{c.field.name} {c.operator} {why}" for c, _, why in WAS + CHANGED])
def test_history_matches_what_jira_would(mirror, query, expected, why):
    assert is_history(query)
    sql, params = compile_history(query, now=NOW, zone=UTC_ZONE)
    assert keys(sql, params) == list(expected), why


@pytest.mark.parametrize(("query", "zone", "expected"), [
    (clause("priority", "changed", None, ("on", v("2026/10/21"))), UTC_ZONE, "4"),
    (clause("priority", "changed", None, ("on", v("2026/10/21"))), MOSCOW, ""),   # 01:30 on the 22nd there
    (clause("priority", "changed", None, ("on", v("2026/10/22"))), MOSCOW, "4"),
    (clause("status", "changed", None, ("on", v("2026/10/21"))), MOSCOW, "4"),    # 14:00 there
    (clause("priority", "was", Empty(20), ("on", v("2026/10/22"))), MOSCOW, "1456"),  # 4: none until 01:30
    (clause("priority", "was", Empty(20), ("on", v("2026/10/22"))), UTC_ZONE, "156"),  # 4: Low since the 21st
])
def test_history_dates_are_read_in_the_zone(mirror, query, zone, expected):
    sql, params = compile_history(query, now=NOW, zone=zone)
    assert keys(sql, params) == list(expected)


def test_the_query_text_reaches_sql_only_as_parameters(mirror):
    hostile = "x') OR 1=1 --"
    sql, params = compile_history(clause("status", "was", v(hostile), ("by", v(hostile))), now=NOW, zone=UTC_ZONE)
    assert hostile not in sql and hostile in params
    assert keys(sql, params) == []


# (clause, the message, the character it is at)
REFUSED = [
    (clause("labels", "was", v("x")), "History searches do not support the 'labels' field.", 1),
    (clause("summary", "changed"), "History searches do not support the 'summary' field.", 1),
    (Clause(FieldRef("cf[10012]", 1, 10012), "was", v("x"), 1),
     "History searches do not support the 'cf[10012]' field.", 1),
    (clause("status", "was", v("Open"), ("from", v("x"))),
     "The operator 'WAS' does not support the predicate 'FROM'.", 40),
    (clause("status", "was not in", ValueList((v("Open"),), 20), ("to", v("x"))),
     "The operator 'WAS NOT IN' does not support the predicate 'TO'.", 40),
    (clause("status", "was", ValueList((v("Open"), v("Done")), 20)),
     "The operator 'was' does not support the list value for field 'status'.", 20),
    (clause("status", "was in", v("Open")),
     "The operator 'was in' does not support the non-list value for field 'status'.", 20),
    (clause("assignee", "was", Function("currentUser", (), 20)),
     "The function 'currentUser' is not supported by the mirror in a history search.", 20),
    (clause("status", "changed", None, ("on", Value("soon", True, 45))),
     "Date value 'soon' for field 'status' is invalid. Valid formats include: 'yyyy/MM/dd HH:mm', "
     "'yyyy-MM-dd HH:mm', 'yyyy/MM/dd', 'yyyy-MM-dd', or a period format e.g. '-5d', '4w 2d'.", 45),
    (clause("status", "changed", None, ("during", ValueList((v("-1d"),), 44))),
     "DURING takes two dates: DURING (start, end).", 44),
    (clause("status", "changed", None, ("by", Empty(45))), "BY takes a user's login name, not EMPTY.", 45),
    (clause("fixVersion", "was", Empty(20)),
     "History searches for an empty 'fixVersion' are not supported by the mirror.", 20),
]


@pytest.mark.parametrize(("query", "message", "at"), REFUSED, ids=[m for _, m, _ in REFUSED])
def test_what_history_cannot_answer_is_refused_in_jiras_words(query, message, at):
    with pytest.raises(JqlError) as refused:
        compile_history(query, now=NOW, zone=UTC_ZONE)
    assert (refused.value.message, refused.value.at) == (message, at)


def test_only_the_history_operators_are_history():
    assert not is_history(clause("status", "=", v("Open")))
    assert not is_history(clause("status", "in", ValueList((v("Open"),), 20)))


# Jira's catalogues as the agent reports them: the names' spellings and ids. Status 3 has been
# renamed "In Work" since the changelog wrote "In Progress"; Jira matches a renamed status by id.
STATUSES = [{"id": "1", "name": "Open"}, {"id": "3", "name": "In Work"}, {"id": "10001", "name": "Done"},
            {"id": "10100", "name": "Разработка"}, {"id": "10101", "name": "Открыта"}]


@pytest.fixture
def catalogued(hub):
    load(hub, MIRROR, catalogues={"users": USERS, "statuses": STATUSES,
                                  "priorities": [{"id": "2", "name": "High"}, {"id": "3", "name": "Medium"},
                                                 {"id": "4", "name": "Low"}]})
    return hub


@pytest.mark.parametrize(("query", "expected", "why"), [
    (clause("status", "was", v("in work")), "13", "the renamed status, by its id"),
    (clause("status", "was", v("In Progress")), "13", "and by the name the changelog wrote"),
    (clause("status", "was", v("рАзрАботкА")), "4", "the catalogue's spelling, folded"),
    (clause("status", "was", v("1")), "1236", "an id: 2 and 6 hold Open (id 1) now"),
    (clause("status", "was", v("1"), ("after", v("2026/10/21"))), "26", "the id of what is held now"),
    (clause("status", "was not", v("open")), "45", "never Open"),
    (clause("priority", "was", v("MEDIUM")), "3", "3's first priority"),
    (clause("assignee", "was", v("иван иванов")), "23", "a display name, as Jira resolves one"),
    (clause("status", "changed", None, ("by", v("пётр петров"))), "14", "petrov, by his display name"),
    (clause("assignee", "changed", None, ("to", v("PETROV"))), "1", "a login name to its key"),
], ids=lambda x: x if isinstance(x, str) else None)
def test_history_uses_the_catalogues_spellings(catalogued, query, expected, why):
    sql, params = compile_history(query, now=NOW, zone=UTC_ZONE)
    assert "casefold(" not in sql or query.field.name == "fixVersion", "the spellings, not a fold per row"
    assert keys(sql, params) == list(expected), why


@pytest.mark.parametrize(("query", "expected"), [
    ('status WAS "In Progress" AFTER 2026/10/16', ["AURORA-3"]),
    ("status was open and not status changed", ["AURORA-6", "AURORA-2"]),
    ("assignee was ivanov or reporter changed by ivanov", ["AURORA-6", "AURORA-3", "AURORA-2"]),
    ('status changed from open to "in progress" during ("2026/10/01", "2026/10/12") or fixVersion was 2.2',
     ["AURORA-5", "AURORA-1"]),
    ("status was not in (Open, Done) order by key asc", ["AURORA-4"]),
])
def test_history_through_the_issue_list(mirror, query, expected):
    resp = mirror.api("GET", "/api/v1/issues", params={"jql": query, "limit": 100})
    assert resp.status_code == 200, resp.json
    assert [item["key"] for item in resp.json["items"]] == expected


def test_a_history_query_the_mirror_cannot_answer_is_a_422_at_its_place(mirror):
    resp = mirror.api("GET", "/api/v1/issues", params={"jql": "status = Open and fixVersion was EMPTY"})
    assert resp.status_code == 422, resp.json
    assert resp.json["position"] == {"line": 1, "character": 34}
    assert "empty 'fixVersion'" in resp.json["description"]


# -- random changelogs against an evaluator that walks each issue's history in Python -----------

_NAMES = ["Open", "In Progress", "Review", "Done"]
_USERS_RANDOM = ["ivanov", "petrov", "sidorov"]
_VERSIONS = [{"id": "10000", "name": "2.2"}, {"id": "10001", "name": "2.3"}, {"id": "10002", "name": "2.4"}]


def _random_mirror(rng) -> tuple[list[dict], dict]:
    """Issues with status and fixVersion changelogs that agree with their current values; several
    changes fall in the same second, ordered by their history ids. Also the histories, as the
    evaluator reads them: key -> field -> [(time, history id, item, author, from, to)]."""
    states, histories = [], {}
    history_id = 40000
    for n in range(1, 13):
        key = f"AURORA-{n}"
        held = rng.choice(_NAMES)
        versions = {v["id"] for v in _VERSIONS if rng.random() < 0.3}
        changes, rows = [], {"status": [], "Fix Version": []}
        # Jira's history ids grow with time; a second may hold several changes.
        times = sorted(f"10-{rng.randrange(5, 15):02d}T{rng.choice(['00:00', '09:00', '09:00', '17:30'])}"
                       for _ in range(rng.randrange(0, 7)))
        for when in times:
            history_id += rng.randrange(1, 3)
            author = rng.choice(_USERS_RANDOM)
            items = []
            if rng.random() < 0.6:
                new = rng.choice([name for name in _NAMES if name != held])
                items.append(("status", str(_NAMES.index(held) + 1), held, str(_NAMES.index(new) + 1), new))
                rows["status"].append((when, history_id, len(items) - 1, author, held, new))
                held = new
            else:
                version = rng.choice(_VERSIONS)
                name = version["name"]
                if version["id"] in versions:
                    versions.discard(version["id"])
                    items.append(("Fix Version", version["id"], name, None, None))
                    rows["Fix Version"].append((when, history_id, 0, author, name, None))
                else:
                    versions.add(version["id"])
                    items.append(("Fix Version", None, None, version["id"], name))
                    rows["Fix Version"].append((when, history_id, 0, author, None, name))
            changes.append({"id": str(history_id), "author": author, "created": f"2026-{when}:00.000+0000",
                            "items": [{"field": f, "field_type": "jira", "from": a, "from_string": b, "to": c,
                                       "to_string": d} for f, a, b, c, d in items]})
        states.append(issue(key, status=held, changes=changes,
                            fix_versions=[v for v in _VERSIONS if v["id"] in versions]))
        histories[key] = (held, {v["name"] for v in _VERSIONS if v["id"] in versions}, rows)
    return states, histories


def _segments(current, rows, multi: bool):
    """(value, start, end, author) of each value held, as the module's docstring defines them."""
    rows = sorted(rows, key=lambda r: (r[0], r[1], r[2]))
    if not multi:
        if not rows:
            return [(current, None, None, None)]
        out = [(rows[0][4], None, rows[0][0], None)]
        for i, (when, _, _, author, _, new) in enumerate(rows):
            out.append((new, when, rows[i + 1][0] if i + 1 < len(rows) else None, author))
        return out
    out = []
    for name in {v["name"] for v in _VERSIONS}:
        mine = [r for r in rows if name in (r[4], r[5])]
        if not mine:
            if name in current:
                out.append((name, None, None, None))
            continue
        if mine[0][5] is None:  # first removed it
            out.append((name, None, mine[0][0], None))
        for i, (when, _, _, author, _, added) in enumerate(mine):
            if added is not None:
                out.append((name, when, mine[i + 1][0] if i + 1 < len(mine) else None, author))
    return out


def _time_bounds(query: Clause) -> dict[str, tuple[str, str]]:
    """Each time predicate's first and last second, as "MM-DDTHH:MM:SS"."""
    bounds = {}
    for p in query.predicates:
        if p.word in ("after", "before", "on", "during"):
            a = p.operand.items[0] if p.word == "during" else p.operand
            b = p.operand.items[1] if p.word == "during" else p.operand
            first = dates.span(a, now=NOW, zone=UTC_ZONE)[0].strftime("%m-%dT%H:%M:%S")
            last = dates.span(b, now=NOW, zone=UTC_ZONE)[1].strftime("%m-%dT%H:%M:%S")
            bounds[p.word] = (first, last)
    return bounds


def _evaluate(query: Clause, histories) -> list[str]:
    multi = query.field.name == "fixVersion"
    field = "Fix Version" if multi else "status"
    bounds = _time_bounds(query)
    by = next((p.operand.text.casefold() for p in query.predicates if p.word == "by"), None)

    def in_time(s, e):  # times as "MM-DDTHH:MM" (+ ":00"), the same day format as the bounds
        s, e = s and s + ":00", e and e + ":00"
        for word, (first, last) in bounds.items():
            if word == "before" and not (s is None or s < first):
                return False
            if word == "after" and not (e is None or e > last):
                return False
            if word in ("on", "during") and not ((s is None or s <= last) and (e is None or e > first)):
                return False
        return True

    def at_time(t):  # a change's moment
        t = t + ":00"
        return all((t < first) if word == "before" else (t > last) if word == "after" else (first <= t <= last)
                   for word, (first, last) in bounds.items())

    matched = []
    for key, (status_now, versions_now, rows) in histories.items():
        if query.operator == "changed":
            wanted = {p.word: p.operand.text.casefold() for p in query.predicates if p.word in ("from", "to")}
            hit = any((wanted.get("from") in (None, (f or "").casefold()))
                      and (wanted.get("to") in (None, (t or "").casefold()))
                      and (by is None or author == by) and at_time(when)
                      for when, _, _, author, f, t in rows[field])
        else:
            values = ({i.text.casefold() for i in query.operand.items} if isinstance(query.operand, ValueList)
                      else {query.operand.text.casefold()})
            segments = _segments(versions_now if multi else status_now, rows[field], multi)
            hit = any(value is not None and value.casefold() in values and in_time(s, e)
                      and (by is None or (author or "") == by) for value, s, e, author in segments)
            if query.operator in ("was not", "was not in"):
                hit = not hit
        if hit:
            matched.append(key.removeprefix("AURORA-"))
    return sorted(matched)


def _random_clause(rng) -> Clause:
    multi = rng.random() < 0.35
    field, names = ("fixVersion", [v["name"] for v in _VERSIONS]) if multi else ("status", _NAMES)

    def day() -> Value:
        return Value(f"2026/10/{rng.randrange(4, 16):02d}", True, 50)

    def name() -> Value:
        text = rng.choice(names)
        return v(text.upper() if rng.random() < 0.3 else text)

    predicates = []
    if rng.random() < 0.3:
        operator = "changed"
        for word in rng.sample(["from", "to", "by", "after", "before", "on", "during"], rng.randrange(0, 3)):
            operand = (name() if word in ("from", "to") else v(rng.choice(_USERS_RANDOM)) if word == "by"
                       else ValueList((day(), day()), 47) if word == "during" else day())
            predicates.append((word, operand))
        return clause(field, operator, None, *predicates)
    operator = rng.choice(["was", "was in", "was not", "was not in"])
    operand = ValueList(tuple(name() for _ in range(rng.randrange(1, 3))), 20) if operator.endswith("in") else name()
    for word in rng.sample(["by", "after", "before", "on", "during"], rng.randrange(0, 3)):
        predicates.append((word, v(rng.choice(_USERS_RANDOM)) if word == "by"
                           else ValueList((day(), day()), 47) if word == "during" else day()))
    return clause(field, operator, operand, *predicates)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_history_agrees_with_walking_it(hub, seed):
    import random

    rng = random.Random(seed)
    states, histories = _random_mirror(rng)
    load(hub, states)
    for _ in range(150):
        query = _random_clause(rng)
        sql, params = compile_history(query, now=NOW, zone=UTC_ZONE)
        assert keys(sql, params) == _evaluate(query, histories), query
