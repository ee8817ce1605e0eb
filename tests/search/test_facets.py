"""Filters that help: the facets of the list's query (``GET /api/v1/issues/facets``), filters
that match in any case, and the list sorted by any column, both ways, paged."""

from __future__ import annotations

import pytest

from tests.support import issue, load, with_projects

pytestmark = pytest.mark.backends("sqlite", "postgresql")

T = "2026-10-22T13:05:11.000+0300"
CATALOGUES = {
    "priorities": [{"id": "1", "name": "Blocker"}, {"id": "2", "name": "Critical"}, {"id": "3", "name": "Major"},
                   {"id": "4", "name": "Minor"}],
    "statuses": [{"id": "1", "name": "Open", "category": "To Do", "category_key": "new"},
                 {"id": "3", "name": "In Progress", "category": "In Progress", "category_key": "indeterminate"},
                 {"id": "6", "name": "Done", "category": "Done", "category_key": "done"},
                 {"id": "7", "name": "Готово", "category": "Done", "category_key": "done"}],
    "resolutions": [{"id": "1", "name": "Fixed"}, {"id": "2", "name": "Won't Fix"}],
    "issue_types": [{"id": "1", "name": "Bug", "subtask": False}, {"id": "3", "name": "Task", "subtask": False}],
    "users": [{"name": "ivanov", "key": "JIRAUSER10100", "display_name": "Ivan Ivanov"},
              {"name": "petrov", "key": "JIRAUSER10101", "display_name": "Pyotr Petrov"},
              {"name": "sidorova", "key": "JIRAUSER10102", "display_name": "Анна Сидорова"}],
}
SPRINT_13 = {"id": 23, "name": "AURORA Sprint 13", "state": "closed", "board_id": 3}
SPRINT_14 = {"id": 24, "name": "AURORA Sprint 14", "state": "active", "board_id": 3}
V23 = {"id": "10100", "name": "2.3", "released": False, "release_date": "2026-12-20"}


def mirror(hub) -> None:
    """Twelve issues of two types, four statuses, three people, sprints, labels, components."""
    with_projects()
    people = ["ivanov", "petrov", "sidorova", None]
    statuses = ["Open", "In Progress", "Done", "Готово"]
    priorities = ["Blocker", "Critical", "Major", "Minor", "Trivial", None]
    issues = []
    for n in range(1, 13):
        issues.append(issue(
            f"AURORA-{n}", summary=f"{'Card' if n % 2 else 'api'} task number {13 - n}",
            issue_type="Bug" if n % 3 else "Task", status=statuses[n % 4], priority=priorities[n % 6],
            assignee=people[n % 4], reporter=people[(n + 1) % 3],
            labels=["AWPCA", *(["KPI"] if n % 2 else ["kpi-2"])], components=["API"] if n <= 6 else ["Cards"],
            fix_versions=[V23] if n % 4 == 0 else [], resolution="Fixed" if statuses[n % 4] == "Done" else None,
            created=f"2026-10-{n:02d}T10:00:00.000+0300", updated=f"2026-11-{13 - n:02d}T10:00:00.000+0300",
            duedate=f"2026-12-{(n * 5) % 28 + 1:02d}" if n % 5 else None,
            sprint="AURORA Sprint 14" if n <= 4 else None,
            sprints=[SPRINT_13, SPRINT_14] if n <= 4 else [SPRINT_13] if n <= 8 else []))
    load(hub, issues, version=16, catalogues=CATALOGUES)


def get(hub, path: str, **params) -> dict:
    resp = hub.api("GET", path, params=params)
    assert resp.status_code == 200, resp.json
    return resp.json


def keys(hub, **params) -> list[str]:
    return [item["key"] for item in get(hub, "/api/v1/issues", limit=100, **params)["items"]]


def values(facet: dict) -> dict:
    return {item["value"]: item["count"] for item in facet["values"]}


def test_facets_count_what_the_matching_issues_hold_and_agree_with_the_lists_total(hub):
    mirror(hub)
    found = get(hub, "/api/v1/issues/facets")
    assert found["total"] == 12 == get(hub, "/api/v1/issues")["total"]
    facets = found["facets"]
    assert set(facets) == {"status", "assignee", "reporter", "issue_type", "priority", "sprint", "label",
                           "component", "fix_version", "resolution", "project"}
    assert values(facets["status"]) == {"Open": 3, "In Progress": 3, "Done": 3, "Готово": 3}
    assert values(facets["issue_type"]) == {"Bug": 8, "Task": 4}
    assert facets["issue_type"]["values"][0] == {"value": "Bug", "count": 8} and not facets["issue_type"]["more"]
    # People with their display names; the issues without an assignee as null.
    assert {item["value"]: (item.get("name"), item["count"]) for item in facets["assignee"]["values"]} == {
        "ivanov": ("Ivan Ivanov", 3), "petrov": ("Pyotr Petrov", 3), "sidorova": ("Анна Сидорова", 3),
        None: (None, 3)}
    assert values(facets["resolution"]) == {None: 9, "Fixed": 3}
    assert values(facets["sprint"]) == {"AURORA Sprint 13": 8, "AURORA Sprint 14": 4}
    assert {item["id"] for item in facets["sprint"]["values"]} == {23, 24}
    assert values(facets["label"]) == {"AWPCA": 12, "KPI": 6, "kpi-2": 6}
    assert values(facets["project"]) == {"AWPCA": 12}
    assert values(facets["component"]) == {"API": 6, "Cards": 6}
    assert values(facets["fix_version"]) == {"2.3": 3}
    # Every facet of one value per issue sums to the total; each value picked as a filter lists its count.
    for name in ("status", "assignee", "issue_type", "priority", "resolution", "reporter"):
        assert sum(values(facets[name]).values()) == 12, name
    for name in ("status", "assignee", "issue_type", "priority", "sprint", "label", "component", "fix_version"):
        for item in facets[name]["values"]:
            if item["value"] is not None:
                page = get(hub, "/api/v1/issues", **{name: item["value"]})
                assert page["total"] == item["count"], (name, item)


def test_facets_answer_for_the_same_query_as_the_list(hub):
    mirror(hub)
    for query in ({"status": "Open"}, {"q": "card"}, {"q": "card", "assignee": "petrov"},
                  {"jql": "type = Bug AND priority >= Major"}, {"component": "API", "sprint": "23"}):
        found = get(hub, "/api/v1/issues/facets", **query)
        listed = get(hub, "/api/v1/issues", **query)
        assert found["total"] == listed["total"], query
        assert sum(values(found["facets"]["status"]).values()) == listed["total"], query
    some = get(hub, "/api/v1/issues/facets", fields="status,assignee", status="open")
    assert set(some["facets"]) == {"status", "assignee"} and values(some["facets"]["status"]) == {"Open": 3}


def test_facets_is_a_route_of_its_own_and_refuses_what_it_does_not_know(hub):
    mirror(hub)
    # Not read as an issue key (a key is uppercase letters, a dash and digits), nor its lower case.
    assert hub.api("GET", "/api/v1/issues/FACETS").status_code == 404
    assert "facets" in get(hub, "/api/v1/issues/facets")
    # Under an issue's routes, "facets" is no key: the path guard refuses it as Jira never makes one.
    for path in ("/api/v1/issues/facets/comments", "/api/v1/issues/facets/notes"):
        resp = hub.api("GET", path)
        assert resp.status_code in (400, 404), (path, resp.status_code)
    for params, field in (({"fields": "status,nope"}, "fields"), ({"sort": "key"}, "sort"),
                          ({"limit": 5}, "limit"), ({"jql": "status = "}, "jql"),
                          ({"q": "card", "jql": "type = Bug"}, "jql"), ({"project": "NOPE"}, "project")):
        resp = hub.api("GET", "/api/v1/issues/facets", params=params)
        assert resp.status_code == 422 and resp.json["field"] == field, (params, resp.json)
    doc = get(hub, "/openapi.json")
    assert "fields" in {p["name"] for p in doc["paths"]["/api/v1/issues/facets"]["get"]["parameters"]}


def test_facets_cap_each_field_and_say_there_are_more(hub):
    with_projects()
    load(hub, [issue(f"AURORA-{n}", labels=[f"label-{n:03d}"]) for n in range(1, 61)], version=16)
    label = get(hub, "/api/v1/issues/facets", fields="label")["facets"]["label"]
    assert len(label["values"]) == 50 and label["more"] is True


def test_facets_run_no_longer_than_the_jql_bound(make_hub):
    hub = make_hub(jql_timeout_seconds=0.001)
    with_projects()
    load(hub, [issue(f"AURORA-{n}", labels=[f"l{m}" for m in range(30)], status="Open", description="word " * 50)
               for n in range(1, 101)], version=16)
    # Far more than a millisecond's work over every issue's labels and the index.
    heavy = " OR ".join(f'(labels != x{n} AND text ~ "word{n}*")' for n in range(100))
    resp = hub.api("GET", "/api/v1/issues/facets", params={"jql": heavy})
    assert resp.status_code == 503 and resp.headers["Retry-After"] == "1", resp.json
    assert "stopped" in resp.json["description"]
    assert hub.api("GET", "/api/v1/issues").status_code == 200


def test_list_filters_match_in_any_case_in_every_script(hub):
    mirror(hub)
    assert keys(hub, status="open") == keys(hub, status="OPEN") == keys(hub, status="Open") != []
    assert keys(hub, status="готово") == keys(hub, status="Готово") != []
    assert keys(hub, assignee="Petrov") == keys(hub, assignee="petrov") != []
    # A display name, as Jira resolves it to the login; Cyrillic folds too.
    assert keys(hub, assignee="анна сидорова") == keys(hub, assignee="sidorova") != []
    assert keys(hub, reporter="IVANOV") == keys(hub, reporter="ivanov") != []
    assert keys(hub, component="api") == keys(hub, component="API") != []
    assert keys(hub, label="kpi") == keys(hub, label="KPI") != []
    assert keys(hub, issue_type="bug") == keys(hub, issue_type="Bug") != []
    assert keys(hub, priority="blocker") == keys(hub, priority="Blocker") != []
    assert keys(hub, resolution="fixed") == keys(hub, resolution="Fixed") != []
    assert keys(hub, resolution="None") == keys(hub, resolution="none") != []
    assert keys(hub, sprint="aurora sprint 14") == keys(hub, sprint="24") != []
    assert keys(hub, fix_version="2.3") == keys(hub, fix_version="10100") != []
    assert keys(hub, project="awpca") == keys(hub, project="AWPCA") != []
    # With JQL too.
    assert keys(hub, jql="type = bug", assignee="PETROV") == keys(hub, jql="type = Bug", assignee="petrov") != []


def test_search_filters_match_in_any_case(hub):
    mirror(hub)
    assert keys(hub, q="card", status="in progress") == keys(hub, q="card", status="In Progress") != []


@pytest.mark.backends("sqlite")  # SQLite's query plan (EXPLAIN QUERY PLAN); PostgreSQL's is the next test
def test_filters_compare_the_catalogues_spellings_on_the_index(hub):
    """With the catalogue reported, a status in any case is looked up on the status index."""
    mirror(hub)
    from hub.db import database
    from hub.services.search.conditions import conditions

    [(sql, params)] = conditions(status="open", gone="any")
    assert "casefold" not in sql and params == ["Open", "open"]
    plan = database.execute_sql(f"EXPLAIN QUERY PLAN SELECT key FROM issue WHERE {sql}", params).fetchall()
    assert any("issue_status" in row[-1] for row in plan), plan


@pytest.mark.backends("postgresql")
def test_filters_on_postgresql_can_compare_the_catalogues_spellings_on_the_index(hub):
    """The condition is on the indexed column itself: with scans priced out, the status index is read
    (twelve issues are read faster by a scan, which the planner rightly prefers otherwise)."""
    mirror(hub)
    from hub.db import database
    from hub.services.search.conditions import conditions

    [(sql, params)] = conditions(status="open", gone="any")
    assert "casefold" not in sql and params == ["Open", "open"]
    with database.atomic():
        database.execute_sql("SET LOCAL enable_seqscan = off")
        plan = "\n".join(row[0] for row in database.execute_sql(f"EXPLAIN SELECT key FROM issue WHERE {sql}",
                                                                  params))
    assert "issue_status" in plan, plan


SORTS = {
    "key": lambda i: int(i["key"].split("-")[1]),
    "summary": lambda i: i["summary"].casefold(),
    "created": lambda i: i["created"],
    "updated": lambda i: i["jira_updated"],
}


@pytest.mark.parametrize("name", ["key", "summary", "type", "status", "priority", "assignee", "reporter",
                                  "created", "updated", "resolved", "duedate", "resolution"])
def test_the_list_sorts_by_every_column_both_ways_and_pages_through_it(hub, name):
    mirror(hub)
    for sort in (name, f"-{name}"):
        whole = get(hub, "/api/v1/issues", sort=sort, limit=100)
        order = [i["key"] for i in whole["items"]]
        assert whole["total"] == 12 and sorted(order) == sorted(f"AURORA-{n}" for n in range(1, 13))
        seen, cursor = [], None
        while True:
            page = get(hub, "/api/v1/issues", sort=sort, limit=5, **({"cursor": cursor} if cursor else {}))
            seen += [i["key"] for i in page["items"]]
            cursor = page["next_cursor"]
            if cursor is None:
                break
        assert seen == order, sort
        if name in SORTS:
            expected = sorted(whole["items"], key=SORTS[name], reverse=sort.startswith("-"))
            assert order == [i["key"] for i in expected], sort
    up = keys(hub, sort=name)
    down = keys(hub, sort=f"-{name}")
    if name == "key":
        assert down == list(reversed(up))


@pytest.mark.parametrize("name", ["key", "summary", "type", "status", "priority", "assignee", "reporter",
                                  "created", "updated", "resolved", "duedate", "resolution"])
def test_a_search_sorts_as_the_list_and_pages_through_it(hub, name):
    mirror(hub)
    for sort in (name, f"-{name}"):
        order = [i["key"] for i in get(hub, "/api/v1/issues", sort=sort, limit=100)["items"]]
        searched = get(hub, "/api/v1/issues", q="task", sort=sort, limit=5)
        rest = get(hub, "/api/v1/issues", q="task", sort=sort, limit=100, cursor=searched["next_cursor"])
        assert [i["key"] for i in searched["items"] + rest["items"]] == order, sort


def test_orders_follow_jiras_catalogues_and_leave_empty_values_last(hub):
    mirror(hub)
    by_priority = get(hub, "/api/v1/issues", sort="priority", limit=100)["items"]
    # Blocker, Critical, Major, Minor as Jira orders them; unknown (Trivial) and none last, then by key.
    assert [i["priority"] for i in by_priority] == (["Blocker"] * 2 + ["Critical"] * 2 + ["Major"] * 2
                                                    + ["Minor"] * 2 + ["Trivial", None] * 2)
    reverse = get(hub, "/api/v1/issues", sort="-priority", limit=100)["items"]
    assert [i["priority"] for i in reverse][:8] == ["Minor"] * 2 + ["Major"] * 2 + ["Critical"] * 2 + ["Blocker"] * 2
    assert {i["priority"] for i in reverse[8:]} == {None, "Trivial"}
    statuses = [i["status"] for i in get(hub, "/api/v1/issues", sort="status", limit=100)["items"]]
    assert statuses == ["Open"] * 3 + ["In Progress"] * 3 + ["Done"] * 3 + ["Готово"] * 3
    people = [i["assignee"] for i in get(hub, "/api/v1/issues", sort="-assignee", limit=100)["items"]]
    # By display name: Анна Сидорова (Cyrillic after Latin) first going down; the unassigned last.
    assert people == ["sidorova"] * 3 + ["petrov"] * 3 + ["ivanov"] * 3 + [None] * 3
    due = [i["duedate"] for i in get(hub, "/api/v1/issues", sort="-duedate", limit=100)["items"]]
    assert due[-2:] == [None, None] and due[:-2] == sorted(due[:-2], reverse=True)
    with_jql = hub.api("GET", "/api/v1/issues", params={"jql": "type = Bug", "sort": "key"})
    assert with_jql.status_code == 422 and with_jql.json["field"] == "sort"
