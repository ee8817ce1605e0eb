"""The whole of a Jira issue through ``/api/v1``: every field of the state, sprints, worklogs,
sub-tasks, Jira's catalogues and users, as agents load them (protocol v15)."""

from __future__ import annotations

import pytest

from tests.support import comment, issue, load

pytestmark = pytest.mark.backends("sqlite", "postgresql")

T = "2026-10-22T13:05:11.000+0300"
CATALOGUES = {
    "priorities": [{"id": "1", "name": "Blocker"}, {"id": "2", "name": "Critical"}, {"id": "3", "name": "Major"},
                   {"id": "4", "name": "Minor"}],
    "statuses": [{"id": "1", "name": "Open", "category": "To Do", "category_key": "new"},
                 {"id": "6", "name": "Closed", "category": "Done", "category_key": "done"}],
    "resolutions": [{"id": "1", "name": "Fixed"}, {"id": "2", "name": "Won't Fix"}],
    "issue_types": [{"id": "1", "name": "Bug", "subtask": False}, {"id": "5", "name": "Sub-task", "subtask": True}],
    "link_types": [{"id": "10000", "name": "Blocks", "outward": "blocks", "inward": "is blocked by"}],
    "users": [{"name": "ivanov", "key": "JIRAUSER10100", "display_name": "Ivan Ivanov"},
              {"name": "petrov", "key": "JIRAUSER10101", "display_name": "Pyotr Petrov"}],
}
SPRINT_13 = {"id": 23, "name": "AURORA Sprint 13", "state": "closed", "start": "2026-09-28T09:00:00.000+03:00",
             "end": "2026-10-09T18:00:00.000+03:00", "complete": "2026-10-09T17:00:00.000+03:00",
             "board_id": 3, "goal": "Cards"}
SPRINT_14 = {"id": 24, "name": "AURORA Sprint 14", "state": "active", "start": "2026-10-12T09:00:00.000+03:00",
             "end": "2026-10-23T18:00:00.000+03:00", "complete": None, "board_id": 3, "goal": None}
SPRINT_15 = {"id": 25, "name": "AURORA Sprint 15", "state": "future", "board_id": 3}
OTHER_BOARD = {"id": 40, "name": "OTHER Sprint 1", "state": "active", "start": "2026-10-01T09:00:00.000+03:00",
               "board_id": 7}
V23 = {"id": "10100", "name": "2.3", "released": False, "release_date": "2026-12-20"}
V22 = {"id": "10099", "name": "2.2", "released": True, "release_date": "2026-09-01"}
STORY_POINTS = {"customfield_10002": {"name": "Story Points", "type": "number",
                                      "custom": "com.atlassian.jira.plugin.system.customfieldtypes:float",
                                      "value": 5.0}}
CUSTOM = {**STORY_POINTS,
          "customfield_10300": {"name": "Acceptance", "type": "string",
                                "custom": "com.atlassian.jira.plugin.system.customfieldtypes:textarea",
                                "value": "the zephyrine checklist passes"}}


def worklog(wid: str, started: str, seconds: int, author: str = "ivanov") -> dict:
    return {"id": wid, "author": author, "started": started, "time_spent": seconds, "comment": f"work {wid}",
            "created": started, "updated": started}


def rich(key: str, **fields) -> dict:
    """An issue of protocol v15 with every new field."""
    return issue(key, **{
        "status": "Open", "priority": "Major", "assignee": "ivanov", "reporter": "petrov",
        "resolution": "Fixed", "resolved": T, "components": ["Cards", "API"], "fix_versions": [V23],
        "affects_versions": [V22], "environment": "Chrome 120 on the quartzite cluster",
        "time_original_estimate": 28800, "time_estimate": 7200, "time_spent": 21600,
        "custom_fields": CUSTOM, "sprint": "AURORA Sprint 14", "sprints": [SPRINT_13, SPRINT_14],
        "worklogs": [worklog("40002", "2026-10-21T10:00:00.000+0300", 3600),
                     worklog("40001", "2026-10-20T10:00:00.000+0300", 18000, author="petrov")],
        **fields})


def load_v15(hub, issues, neighbors=(), catalogues=None):
    """One refresh by an agent of protocol v15, its page with ``catalogues`` if given."""
    load(hub, issues, neighbors, version=15, catalogues=catalogues)


def get(hub, path, **params):
    resp = hub.api("GET", path, params=params or None)
    assert resp.status_code == 200, resp.json
    return resp.json


def test_the_issue_object_carries_every_field_in_the_list_and_the_detail(hub):
    load_v15(hub, [rich("AURORA-1", links=[{"type": "Blocks", "outward": "AURORA-2"},
                                           {"type": "Relates", "inward": "AURORA-3"}]),
                   issue("AURORA-2", parent_key="AURORA-1", status="Open", summary="Second task"),
                   issue("AURORA-10", parent_key="AURORA-1", status="Closed"),
                   issue("AURORA-3")], catalogues=CATALOGUES)
    listed = {item["key"]: item for item in get(hub, "/api/v1/issues")["items"]}
    one = listed["AURORA-1"]
    expected = {"resolution": "Fixed", "resolved": T, "resolved_at": "2026-10-22T10:05:11+00:00",
                "components": ["Cards", "API"], "fix_versions": [V23], "affects_versions": [V22],
                "parent_key": None, "time_original_estimate": 28800, "time_estimate": 7200,
                "time_spent": 21600, "custom_fields": CUSTOM, "sprint": "AURORA Sprint 14",
                "sprints": [{"id": 23, "name": "AURORA Sprint 13", "state": "closed"},
                            {"id": 24, "name": "AURORA Sprint 14", "state": "active"}]}
    assert {k: one[k] for k in expected} == expected
    assert "environment" not in one and "subtasks" not in one and "people" not in one
    assert listed["AURORA-2"]["parent_key"] == "AURORA-1" and listed["AURORA-2"]["sprints"] == []
    # A search's items carry the same fields.
    [hit] = get(hub, "/api/v1/issues", q="zephyrine")["items"]
    assert {k: hit[k] for k in expected} == expected

    detail = get(hub, "/api/v1/issues/AURORA-1")
    assert {k: detail[k] for k in expected} == expected
    assert detail["environment"] == "Chrome 120 on the quartzite cluster"
    assert detail["subtasks"] == [{"key": "AURORA-2", "summary": "Second task", "status": "Open",
                                   "assignee": None, "gone": False},
                                  {"key": "AURORA-10", "summary": "Summary AURORA-10", "status": "Closed",
                                   "assignee": None, "gone": False}]
    assert detail["people"] == {"ivanov": "Ivan Ivanov", "petrov": "Pyotr Petrov"}
    # Links are worded as Jira words them; a type the catalogue does not name, by its name.
    assert [(link["type"], link["phrase"], link["key"]) for link in detail["links"]["outward"]] == \
        [("Blocks", "blocks", "AURORA-2")]
    assert [(link["type"], link["phrase"], link["key"]) for link in detail["links"]["inward"]] == \
        [("Relates", "Relates", "AURORA-3")]
    two = get(hub, "/api/v1/issues/AURORA-2")
    assert [(link["phrase"], link["key"]) for link in two["links"]["inward"]] == [("is blocked by", "AURORA-1")]
    assert two["subtasks"] == [] and two["people"] == {}


def test_issues_of_older_agents_read_as_before_with_the_new_fields_empty(hub):
    load(hub, [issue("AURORA-1", status="Open", sprint="AURORA Sprint 14", comments=[comment("101")])])
    one = get(hub, "/api/v1/issues/AURORA-1")
    assert {k: one[k] for k in ("resolution", "resolved", "resolved_at", "parent_key", "environment",
                                "time_original_estimate", "time_estimate", "time_spent")} == dict.fromkeys(
        ("resolution", "resolved", "resolved_at", "parent_key", "environment", "time_original_estimate",
         "time_estimate", "time_spent"))
    assert (one["components"], one["fix_versions"], one["affects_versions"], one["custom_fields"]) == ([], [], [], {})
    assert (one["sprint"], one["sprints"], one["subtasks"], one["people"]) == ("AURORA Sprint 14", [], [], {})
    [item] = get(hub, "/api/v1/issues/AURORA-1/comments")["items"]
    assert item["author"] == "ivanov" and item["author_display"] is None


def test_a_list_page_reads_its_sprints_in_one_query(hub, caplog):
    load_v15(hub, [rich(f"AURORA-{n}") for n in range(1, 41)])

    def queries(limit: int) -> int:
        caplog.clear()
        with caplog.at_level("DEBUG", logger="peewee"):
            page = get(hub, "/api/v1/issues", limit=limit)
        assert all(len(item["sprints"]) == 2 for item in page["items"])
        return sum(1 for record in caplog.records if record.name == "peewee")

    assert queries(2) == queries(40)


def test_full_text_search_finds_words_of_the_environment_and_of_text_custom_fields(hub):
    load_v15(hub, [rich("AURORA-1"), issue("AURORA-2", summary="Nothing of the kind")])
    for word in ("quartzite", "zephyrine", "other:quartzite"):
        page = get(hub, "/api/v1/issues", q=word)
        assert [item["key"] for item in page["items"]] == ["AURORA-1"] and page["total"] == 1, word
    assert get(hub, "/api/v1/issues", q="summary:quartzite")["items"] == []
    # A number is no text: story points are not words of the index.
    assert get(hub, "/api/v1/issues", q="Story")["items"] == []


def test_comments_and_changes_name_the_people_the_agent_reported(hub):
    assign = {"id": "5001", "author": "ivanov", "created": T,
              "items": [{"field": "assignee", "field_type": "jira", "from": "JIRAUSER10101",
                         "from_string": "Pyotr Petrov", "to": "JIRAUSER10100", "to_string": "Ivan Ivanov"},
                        {"field": "reporter", "from": "JIRAUSER99999", "to": None},
                        {"field": "status", "from": "JIRAUSER10100", "to": "3"}]}
    unknown = {"id": "5002", "author": "sidorov", "created": T, "items": [{"field": "status"}]}
    load_v15(hub, [rich("AURORA-1", comments=[comment("101"), {**comment("102"), "author": "sidorov"}],
                        changes=[assign, unknown])], catalogues=CATALOGUES)
    comments = get(hub, "/api/v1/issues/AURORA-1/comments")["items"]
    assert [(c["author"], c["author_display"]) for c in comments] == [("ivanov", "Ivan Ivanov"), ("sidorov", None)]
    changes = get(hub, "/api/v1/issues/AURORA-1/changes")["items"]
    assert [(c["field"], c["author_display"], c["from_name"], c["to_name"]) for c in changes] == [
        ("assignee", "Ivan Ivanov", "petrov", "ivanov"),
        ("reporter", "Ivan Ivanov", None, None),  # a key the agent did not report; no one
        ("status", "Ivan Ivanov", None, None),  # not a user field: its values are no user keys
        ("status", None, None, None)]


def test_worklogs_are_paged_earliest_first_with_the_issues_totals(hub):
    logs = [worklog(str(40000 + n), f"2026-10-{n:02d}T10:00:00.000+0300", 600 * n, author="ivanov")
            for n in range(9, 0, -1)]
    logs.append({"id": "40100", "author": "nobody"})  # no start: last
    load_v15(hub, [rich("AURORA-1", worklogs=logs), rich("AURORA-2")], catalogues=CATALOGUES)
    first = get(hub, "/api/v1/issues/AURORA-1/worklogs", limit=4)
    assert [w["id"] for w in first["items"]] == ["40001", "40002", "40003", "40004"]
    assert (first["total"], first["time_spent"]) == (10, 600 * sum(range(1, 10)))
    assert first["items"][0] == {"id": "40001", "author": "ivanov", "author_display": "Ivan Ivanov",
                                 "started": "2026-10-01T10:00:00.000+0300",
                                 "started_at": "2026-10-01T07:00:00+00:00", "time_spent": 600,
                                 "comment": "work 40001", "created": "2026-10-01T10:00:00.000+0300",
                                 "updated": "2026-10-01T10:00:00.000+0300"}
    seen = [w["id"] for w in first["items"]]
    cursor = first["next_cursor"]
    while cursor is not None:
        page = get(hub, "/api/v1/issues/AURORA-1/worklogs", limit=4, cursor=cursor)
        assert (page["total"], page["time_spent"]) == (10, 600 * sum(range(1, 10)))
        seen += [w["id"] for w in page["items"]]
        cursor = page["next_cursor"]
    assert seen == [str(40000 + n) for n in range(1, 10)] + ["40100"]
    assert page["items"][-1]["author_display"] is None and page["items"][-1]["time_spent"] is None
    two = get(hub, "/api/v1/issues/AURORA-2/worklogs")
    assert [w["id"] for w in two["items"]] == ["40001", "40002"] and two["time_spent"] == 21600
    assert hub.api("GET", "/api/v1/issues/NOPE-1/worklogs").status_code == 404
    assert hub.api("GET", "/api/v1/issues/AURORA-1/worklogs", params={"limit": 0}).status_code == 422


def test_worklogs_of_an_issue_of_an_older_agent_are_none(hub):
    load(hub, [issue("AURORA-1")])
    assert get(hub, "/api/v1/issues/AURORA-1/worklogs") == {"items": [], "next_cursor": None, "total": 0,
                                                            "time_spent": 0}


def test_sprints_are_listed_active_future_closed_with_their_issues_counted(hub):
    load_v15(hub, [rich("AURORA-1"), rich("AURORA-2", sprints=[SPRINT_14, SPRINT_15]),
                   issue("OTHER-1", sprints=[OTHER_BOARD])])
    page = get(hub, "/api/v1/sprints")
    assert [(s["id"], s["issues"]) for s in page["items"]] == [(24, 2), (40, 1), (25, 1), (23, 1)]
    assert page["next_cursor"] is None
    assert page["items"][-1] == {"id": 23, "name": "AURORA Sprint 13", "state": "closed",
                                 "start_date": SPRINT_13["start"], "end_date": SPRINT_13["end"],
                                 "complete_date": SPRINT_13["complete"], "board_id": 3, "goal": "Cards",
                                 "issues": 1}
    assert [s["id"] for s in get(hub, "/api/v1/sprints", state="active")["items"]] == [24, 40]
    assert [s["id"] for s in get(hub, "/api/v1/sprints", board=3)["items"]] == [24, 25, 23]
    assert [s["id"] for s in get(hub, "/api/v1/sprints", board=3, state="future")["items"]] == [25]
    first = get(hub, "/api/v1/sprints", limit=3)
    rest = get(hub, "/api/v1/sprints", limit=3, cursor=first["next_cursor"])
    assert [s["id"] for s in first["items"] + rest["items"]] == [24, 40, 25, 23] and rest["next_cursor"] is None
    for params in ({"state": "Active"}, {"board": 0}, {"board": "three"}, {"sort": "name"}):
        resp = hub.api("GET", "/api/v1/sprints", params=params)
        assert resp.status_code == 422 and resp.json["field"] == next(iter(params)), params


def test_catalogues_are_read_in_jiras_order_as_the_agent_sent_them(hub):
    assert get(hub, "/api/v1/catalogues") == {"priorities": [], "statuses": [], "resolutions": [],
                                              "issue_types": [], "link_types": [], "fields": []}
    load_v15(hub, [rich("AURORA-1")], catalogues=CATALOGUES)
    expected = {"fields": [], **{name: entries for name, entries in CATALOGUES.items() if name != "users"}}
    assert get(hub, "/api/v1/catalogues") == expected
    # A catalogue sent again replaces the one held; one not sent is kept.
    load_v15(hub, [rich("AURORA-1")], catalogues={"priorities": [{"id": "9", "name": "Low"}]})
    assert get(hub, "/api/v1/catalogues") == {**expected, "priorities": [{"id": "9", "name": "Low"}]}


def keys(hub, **params) -> list[str]:
    return [item["key"] for item in get(hub, "/api/v1/issues", **params)["items"]]


def filtered_mirror(hub):
    """Issues of protocol v15 with what the filters read, and one of an older agent."""
    load_v15(hub, [
        rich("AURORA-1", priority="Minor"),
        rich("AURORA-2", resolution=None, resolved=None, components=["API"], fix_versions=[],
             affects_versions=[V23], sprints=[SPRINT_14, SPRINT_15], priority="Blocker", parent_key="AURORA-1"),
        rich("AURORA-3", resolution="Won't Fix", components=[], fix_versions=[V22, V23], affects_versions=[],
             sprints=[SPRINT_13], sprint="AURORA Sprint 13", priority="Critical", parent_key="AURORA-1",
             environment="Firefox"),
        rich("AURORA-10", priority="Trivial", custom_fields={}, environment=None, sprints=[]),
        rich("AURORA-9", priority=None, custom_fields={}, environment=None),
    ], catalogues=CATALOGUES)
    load(hub, [issue("OLD-1", sprint="AURORA Sprint 13", priority="Major")])


# The lists' order is the issues' arrival: within one page, the page's own order.
def test_the_list_filters_by_resolution_component_versions_sprints_and_parent(hub):
    filtered_mirror(hub)
    assert keys(hub, resolution="Fixed") == ["AURORA-9", "AURORA-10", "AURORA-1"]
    assert keys(hub, resolution="none") == ["OLD-1", "AURORA-2"]
    assert keys(hub, component="API") == ["AURORA-9", "AURORA-10", "AURORA-2", "AURORA-1"]
    assert keys(hub, component="Cards") == ["AURORA-9", "AURORA-10", "AURORA-1"]
    assert keys(hub, fix_version="2.2") == ["AURORA-3"]
    assert keys(hub, fix_version="10100") == ["AURORA-9", "AURORA-10", "AURORA-3", "AURORA-1"]
    assert keys(hub, affects_version="2.3") == keys(hub, affects_version="10100") == ["AURORA-2"]
    assert keys(hub, affects_version="2.4") == []
    # Any sprint the issue was ever in, by id or name; an older agent's issue by its current sprint's name.
    assert keys(hub, sprint="AURORA Sprint 13") == ["OLD-1", "AURORA-9", "AURORA-3", "AURORA-1"]
    assert keys(hub, sprint="23") == ["AURORA-9", "AURORA-3", "AURORA-1"]
    assert keys(hub, sprint="25") == keys(hub, sprint="AURORA Sprint 15") == ["AURORA-2"]
    assert keys(hub, sprint="AURORA Sprint 14") == ["AURORA-9", "AURORA-10", "AURORA-2", "AURORA-1"]
    assert keys(hub, sprint="99") == []
    assert keys(hub, parent="AURORA-1") == ["AURORA-3", "AURORA-2"]
    # Each combines with the others, with the filters of before and with q.
    assert keys(hub, sprint="24", component="API", resolution="none") == ["AURORA-2"]
    assert keys(hub, parent="AURORA-1", fix_version="2.3", status="Open") == ["AURORA-3"]
    assert keys(hub, q="zephyrine", sprint="AURORA Sprint 13", fix_version="2.3") == ["AURORA-3", "AURORA-1"]
    assert keys(hub, q="Firefox", parent="AURORA-1") == ["AURORA-3"]
    assert keys(hub, q="quartzite", resolution="none") == ["AURORA-2"]
    page = get(hub, "/api/v1/issues", resolution="Fixed", limit=2)
    assert page["total"] == 3
    rest = get(hub, "/api/v1/issues", resolution="Fixed", limit=2, cursor=page["next_cursor"])
    assert [i["key"] for i in page["items"] + rest["items"]] == ["AURORA-9", "AURORA-10", "AURORA-1"]
    for name, value in (("parent", "not a key"), ("resolution", ""), ("fix_version", "x" * 256),
                        ("sort", "rank"), ("sprint", "")):
        resp = hub.api("GET", "/api/v1/issues", params={name: value})
        assert resp.status_code == 422 and resp.json["field"] == name, (name, resp.json)


def test_sort_by_priority_follows_jiras_order_then_key_and_pages(hub):
    filtered_mirror(hub)
    # Blocker, Critical, Major, Minor as Jira orders them; unknown ones (Trivial, none) last, then by key.
    order = ["AURORA-2", "AURORA-3", "OLD-1", "AURORA-1", "AURORA-9", "AURORA-10"]
    page = get(hub, "/api/v1/issues", sort="priority")
    assert [i["key"] for i in page["items"]] == order and page["total"] == 6
    seen, cursor = [], None
    while True:
        params = {"sort": "priority", "limit": 4, **({"cursor": cursor} if cursor else {})}
        page = get(hub, "/api/v1/issues", **params)
        seen += [i["key"] for i in page["items"]]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert seen == order
    assert keys(hub, sort="priority", resolution="Fixed") == ["AURORA-1", "AURORA-9", "AURORA-10"]


def test_a_search_sorted_by_priority_follows_jiras_order_then_key_and_pages(hub):
    filtered_mirror(hub)
    order = ["AURORA-2", "AURORA-3", "OLD-1", "AURORA-1", "AURORA-9", "AURORA-10"]
    # With q the matches are in that order too, each with its snippet.
    hits = get(hub, "/api/v1/issues", q="quartzite", sort="priority")
    assert [i["key"] for i in hits["items"]] == ["AURORA-2", "AURORA-1"] and hits["total"] == 2
    assert all("[[quartzite]]" in i["snippet"] for i in hits["items"])
    first = get(hub, "/api/v1/issues", q="Summary", sort="priority", limit=4)
    rest = get(hub, "/api/v1/issues", q="Summary", sort="priority", limit=4, cursor=first["next_cursor"])
    assert [i["key"] for i in first["items"] + rest["items"]] == order and rest["next_cursor"] is None
