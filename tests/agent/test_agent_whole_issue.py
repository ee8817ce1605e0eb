"""The whole of a Jira issue through the agent's runner, the fake Jira and a real hub: every field,
every sprint, worklogs, Jira's catalogues and users, neighbours as fully as matches — and what a
run costs in Jira requests."""

from __future__ import annotations

import json
import math

import pytest

from agent import mapping
from agent.config import AgentConfig
from agent.handlers.issue_states import issue_state
from agent.handlers.refresh import handle as run_refresh
from agent.hub_client import Command
from agent.jira_client import SEARCH_EXPAND, SEARCH_FIELDS, JiraClient
from agent.runner import Runner
from demo.fakejira import (
    CUSTOM,
    END_FIELD,
    EPIC_FIELD,
    ISSUE_TYPES,
    LINK_TYPES,
    PRIORITIES,
    RESOLUTIONS,
    SPRINT_FIELD,
    START_FIELD,
    STATUSES,
    TIME,
    FakeJira,
    component,
    group,
    legacy_sprint,
    named,
    object_sprint,
    option,
    user,
    version,
)
from hub.clock import jira_to_utc
from hub.config import Config
from tests.support import call, db_records, hub_config, prepared_hub, quick_runner, start, stop, wait_for_line
from tests.support.engine_rows import rows

pytestmark = pytest.mark.backends("sqlite", "postgresql")

RESOLVED = "2026-10-22T13:05:11.000+0300"
SPRINTS = [legacy_sprint(20, "AURORA Sprint 13", "CLOSED", 13, goal="Cards, then [lists]", board=3,
                         end="2026-10-14T09:00:00.000+03:00", complete="2026-10-14T18:00:00.000+03:00"),
           legacy_sprint(21, "AURORA Sprint 14", "ACTIVE", 14, board=3),
           object_sprint(22, "AURORA Sprint 15", "future", board=3, goal="Search")]
C = {name: f["id"] for name, f in CUSTOM.items()}


def rich_jira(max_results: int = 3, embedded: int = 2) -> FakeJira:
    """Seven AURORA issues (three search pages of three): AURORA-1 as rich as Jira makes one, AURORA-2
    its sub-task; OTHER-1 a neighbour with more comments, changes and worklogs than search embeds,
    an attachment and a link of its own."""
    jira = FakeJira(max_results=max_results, embedded=embedded).start()
    jira.add_issue("AURORA-1", labels=["AWPCA"], status="Done", resolution=named("Fixed"), resolutiondate=RESOLVED,
                   components=[component("10200", "Backend"), component("10201", "Agent")],
                   fixVersions=[version("10101", "2.3", False, "2026-12-20")],
                   versions=[version("10100", "2.2", True, "2026-09-30")],
                   environment="Ubuntu 24.04\r\n*Chromium* 131", timeoriginalestimate=28800, timeestimate=3600,
                   **{SPRINT_FIELD: SPRINTS, EPIC_FIELD: "AURORA-9", C["story_points"]: 5.0,
                      C["severity"]: option("10400", "S2"),
                      C["region"]: option("10420", "EMEA", option("10421", "Moscow")),
                      C["tester"]: user("sidorova"), C["reviewers"]: [user("kuznetsov"), user("smirnova")],
                      C["acceptance"]: "Карточка открывается", C["target_releases"]: [version("10101", "2.3")],
                      C["notify_groups"]: [group("qa")], C["flagged"]: [option("10430", "Impediment")],
                      C["health"]: {"score": 3}})
    jira.add_issue("AURORA-2", labels=["AWPCA"], parent="AURORA-1",
                   **{SPRINT_FIELD: [object_sprint(21, "AURORA Sprint 14", "active", board=3)]})
    for n in range(3, 8):
        jira.add_issue(f"AURORA-{n}", labels=["AWPCA"])
    for n in range(3):  # more than search embeds: the third is read from /worklog
        jira.add_worklog("AURORA-1", str(40001 + n), 3600 * (n + 1), author=("ivanov", "petrov", "orlova")[n],
                         comment=f"day {n + 1}")
    # Jira writes user keys in a user field's change: the users the page sends read them as logins.
    jira.add_history("AURORA-1", "5001", "assignee", "Ivanov", "Orlova", from_value=user("ivanov")["key"],
                     to_value=user("orlova")["key"])
    jira.add_issue("OTHER-1", summary="Another team's blocker", status="In Progress")
    jira.add_issue("OTHER-2")
    jira.link("OTHER-1", "AURORA-1", "Blocks")
    jira.link("OTHER-1", "OTHER-2", "Relates")  # the neighbour's own link
    jira.link("AURORA-1", "AURORA-7", "Cloners")  # a match on a later page: not a neighbour
    for n in range(3):
        jira.add_comment("OTHER-1", str(201 + n), f"neighbour comment {n}", author="volkov")
        jira.add_history("OTHER-1", str(6001 + n), "status", "Open", "In Progress", author="volkov")
        jira.add_worklog("OTHER-1", str(41001 + n), 1800, author="volkov")
    jira.add_attachment("OTHER-1", "31400", "схема.png", b"\x89PNG x", mime_type="image/png")
    return jira


@pytest.fixture
def world(tmp_path, database_url):
    data_dir = tmp_path / "data"
    agent_token, interface = prepared_hub(data_dir, database_url)
    hub = start("serve", data_dir=data_dir, database_url=database_url)
    jira = rich_jira()
    try:
        url = wait_for_line(hub, r"serving on (http://\S+)").group(1)
        runner = quick_runner(url, agent_token, jira, "agent-whole")
        yield url, interface, jira, runner, hub_config(data_dir, database_url)
    finally:
        jira.stop()
        assert stop(hub) == 0


def refreshed(runner: Runner, url: str, interface: str) -> Command:
    """One full refresh, enqueued through the interface API and run by the runner to its done."""
    call(url, interface, "/api/v1/commands", {"type": "refresh"})
    [command] = runner.hub.claim(limit=1, wait=0).commands
    run_refresh(runner, command)
    assert call(url, interface, f"/api/v1/commands/{command.id}")["status"] == "done"
    return command


def issue_row(db: Config, key: str) -> dict:
    [row] = db_records(db, "SELECT * FROM issue WHERE key = ?", key)
    return row


def test_a_full_refresh_mirrors_every_field_of_the_whole_issue(world):
    url, interface, _jira, runner, db = world
    refreshed(runner, url, interface)

    one = issue_row(db, "AURORA-1")
    assert {k: one[k] for k in ("resolution", "resolved", "resolved_at", "environment", "parent_key",
                                "time_original_estimate", "time_estimate", "time_spent", "sprint")} == {
        "resolution": "Fixed", "resolved": RESOLVED, "resolved_at": jira_to_utc(RESOLVED),
        "environment": "Ubuntu 24.04\r\n*Chromium* 131", "parent_key": None, "time_original_estimate": 28800,
        "time_estimate": 3600, "time_spent": 3600 + 7200 + 10800, "sprint": "AURORA Sprint 14"}
    assert json.loads(one["components"]) == ["Backend", "Agent"]
    assert json.loads(one["fix_versions"]) == [{"id": "10101", "name": "2.3", "released": False,
                                                "release_date": "2026-12-20"}]
    assert json.loads(one["affects_versions"]) == [{"id": "10100", "name": "2.2", "released": True,
                                                    "release_date": "2026-09-30"}]
    custom = json.loads(one["custom_fields"])
    assert {fid: f["value"] for fid, f in custom.items()} == {
        C["story_points"]: 5.0, C["severity"]: "S2", C["region"]: {"parent": "EMEA", "child": "Moscow"},
        C["tester"]: "sidorova", C["reviewers"]: ["kuznetsov", "smirnova"],
        C["acceptance"]: "Карточка открывается", C["target_releases"]: ["2.3"], C["notify_groups"]: ["qa"],
        C["flagged"]: ["Impediment"], C["health"]: {"score": 3},
        "creator": "petrov", "votes": 0, "watches": 1, "workratio": -1}
    assert custom[C["story_points"]]["name"] == "Story Points" and custom[C["story_points"]]["type"] == "number"
    assert issue_row(db, "AURORA-2")["parent_key"] == "AURORA-1"

    assert rows(db, "SELECT key, sprint_id FROM issue_sprint ORDER BY key, sprint_id") == \
        [("AURORA-1", 20), ("AURORA-1", 21), ("AURORA-1", 22), ("AURORA-2", 21)]
    assert rows(db, "SELECT sprint_id, name, state, start_date, end_date, complete_date, board_id, goal "
                    "FROM sprint ORDER BY sprint_id") == [
        (20, "AURORA Sprint 13", "closed", "2026-10-01T09:00:00.000+03:00", "2026-10-14T09:00:00.000+03:00",
         "2026-10-14T18:00:00.000+03:00", 3, "Cards, then [lists]"),
        # AURORA-2's object form came last in the run: the last sending wins, with its dates.
        (21, "AURORA Sprint 14", "active", "2026-11-02T09:00:00.000+03:00", "2026-11-16T09:00:00.000+03:00",
         None, 3, None),
        (22, "AURORA Sprint 15", "future", "2026-11-02T09:00:00.000+03:00", "2026-11-16T09:00:00.000+03:00",
         None, 3, "Search")]

    # Three worklogs where search embedded two: the third came from /worklog.
    assert rows(db, "SELECT worklog_id, author, started, started_at, time_spent, comment, created, updated "
                    "FROM issue_worklog WHERE key = 'AURORA-1' ORDER BY worklog_id") == [
        (str(40001 + n), ("ivanov", "petrov", "orlova")[n], TIME, jira_to_utc(TIME), 3600 * (n + 1),
         f"day {n + 1}", TIME, TIME) for n in range(3)]

    catalogue = rows(db, "SELECT kind, jira_id, name, position, detail FROM jira_catalogue "
                         "ORDER BY kind, position")
    assert [(r[1], r[2]) for r in catalogue if r[0] == "priority"] == [(p["id"], p["name"]) for p in PRIORITIES]
    assert [(r[2], json.loads(r[4])) for r in catalogue if r[0] == "link_type"] == \
        [(t["name"], {"outward": t["outward"], "inward": t["inward"]}) for t in LINK_TYPES]
    assert [(r[2], json.loads(r[4])["category_key"]) for r in catalogue if r[0] == "status"] == \
        [(s["name"], s["statusCategory"]["key"]) for s in STATUSES]
    assert {r[0] for r in catalogue} == {"priority", "status", "resolution", "issue_type", "link_type", "field"}
    # The custom fields kept in columns, by the instance's ids: what JQL's cf[N] of them reads.
    assert {json.loads(r[4])["column"]: r[1] for r in catalogue if r[0] == "field"} == {
        "sprint": SPRINT_FIELD, "epic_key": EPIC_FIELD, "planned_start": START_FIELD, "planned_end": END_FIELD}
    people = {name: (key, display) for name, key, display in rows(db, "SELECT name, user_key, display_name "
                                                                      "FROM jira_user")}
    named_people = ("ivanov", "petrov", "sidorova", "kuznetsov", "smirnova", "orlova", "volkov")
    assert people == {name: (user(name)["key"], user(name)["displayName"]) for name in named_people}
    [change] = call(url, interface, "/api/v1/issues/AURORA-1/changes")["items"]
    assert (change["field"], change["from_name"], change["to_name"]) == ("assignee", "ivanov", "orlova")


def test_a_neighbour_is_mirrored_as_fully_as_a_match(world):
    url, interface, _jira, runner, db = world
    refreshed(runner, url, interface)

    other = issue_row(db, "OTHER-1")
    assert other["neighbor"] == 1 and other["summary"] == "Another team's blocker"
    assert other["status"] == "In Progress" and other["time_spent"] == 5400
    # Each list longer than search embeds was completed from its own endpoint.
    assert rows(db, "SELECT comment_id, author, body FROM issue_comment WHERE key = 'OTHER-1' "
                    "ORDER BY comment_id") == [(str(201 + n), "volkov", f"neighbour comment {n}") for n in range(3)]
    assert rows(db, "SELECT history_id, author, to_string FROM issue_change WHERE key = 'OTHER-1' "
                    "ORDER BY history_id") == [(str(6001 + n), "volkov", "In Progress") for n in range(3)]
    assert rows(db, "SELECT worklog_id, time_spent FROM issue_worklog WHERE key = 'OTHER-1' "
                    "ORDER BY worklog_id") == [(str(41001 + n), 1800) for n in range(3)]
    assert rows(db, "SELECT attachment_id, filename, mime_type FROM issue_attachment WHERE key = 'OTHER-1'") == \
        [("31400", "схема.png", "image/png")]
    assert rows(db, "SELECT source_key, target_key, link_type FROM issue_link WHERE source_key = 'OTHER-1' "
                    "ORDER BY target_key") == [("OTHER-1", "AURORA-1", "Blocks"), ("OTHER-1", "OTHER-2", "Relates")]
    # The neighbour's own neighbour is not read: one hop from the scope, as before.
    assert rows(db, "SELECT count(*) FROM issue WHERE key = 'OTHER-2'") == [(0,)]


def test_a_page_of_an_older_agent_or_without_worklogs_keeps_what_the_mirror_has(world):
    url, interface, _jira, runner, db = world
    refreshed(runner, url, interface)
    before = issue_row(db, "AURORA-1")

    call(url, interface, "/api/v1/commands", {"type": "refresh"})
    [command] = runner.hub.claim(limit=1, wait=0).commands
    older = {"key": "AURORA-1", "id": before["id"], "summary": "Renamed", "status": "Done"}  # v14 fields only
    runner.hub.state(command, [older], [])
    runner.hub.done(command, {"total": 1})

    after = issue_row(db, "AURORA-1")
    assert after["summary"] == "Renamed"
    kept = ("resolution", "resolved", "resolved_at", "components", "fix_versions", "affects_versions", "environment",
            "time_original_estimate", "time_estimate", "time_spent", "custom_fields", "sprint")
    assert {k: after[k] for k in kept} == {k: before[k] for k in kept}
    assert rows(db, "SELECT count(*) FROM issue_worklog WHERE key = 'AURORA-1'") == [(3,)]
    assert rows(db, "SELECT count(*) FROM issue_sprint WHERE key = 'AURORA-1'") == [(3,)]


def test_a_catalogue_jira_refuses_is_left_out_and_the_hub_keeps_the_one_it_holds(world):
    url, interface, jira, runner, db = world
    refreshed(runner, url, interface)
    jira.linking = False  # Jira answers /issueLinkType 404 while issue linking is off
    jira.issues["AURORA-3"]["fields"]["summary"] = "Edited"
    refreshed(runner, url, interface)
    assert issue_row(db, "AURORA-3")["summary"] == "Edited"
    kinds = dict(rows(db, "SELECT kind, count(*) FROM jira_catalogue GROUP BY kind"))
    assert kinds == {"priority": len(PRIORITIES), "status": len(STATUSES), "resolution": len(RESOLUTIONS),
                     "issue_type": len(ISSUE_TYPES), "link_type": len(LINK_TYPES), "field": 4}


def state_sizes(jira: FakeJira, keys: list[str]) -> list[int]:
    """The bytes of each issue's state as the agent maps it (with its transitions and screens, v19)."""
    client = JiraClient(jira.url, token=jira.token)
    try:
        custom = mapping.find_custom_fields(client.fields())
        quoted = ", ".join(f'"{k}"' for k in keys)
        page = client.search_page(f"key in ({quoted})", 0, len(keys), SEARCH_FIELDS, expand=SEARCH_EXPAND)
        return [len(json.dumps(issue_state(client, issue, custom, {}))) for issue in page["issues"]]
    finally:
        client.close()


def test_a_page_past_the_hubs_body_limit_goes_in_halves(tmp_path, caplog, database_url):
    data_dir = tmp_path / "data"
    agent_token, interface = prepared_hub(data_dir, database_url)
    jira = rich_jira()
    # The run's first page (AURORA-1 to 3 with the catalogues and users) is past the limit; AURORA-1 alone is not.
    sizes = state_sizes(jira, ["AURORA-1", "AURORA-2", "AURORA-3"])
    limit = max(sizes) + 1500
    assert sum(sizes) > limit
    hub = start("serve", data_dir=data_dir, database_url=database_url, HUB_MAX_JSON_BYTES=str(limit))
    try:
        url = wait_for_line(hub, r"serving on (http://\S+)").group(1)
        runner = Runner(AgentConfig(hub_url=url, hub_token=agent_token, jira_url=jira.url, jira_token=jira.token,
                                    agent_id="agent-halves", claim_wait=0))
        runner.start()
        with caplog.at_level("INFO", logger="hub-agent"):
            refreshed(runner, url, interface)
        assert "sending it in halves" in caplog.text
        db = hub_config(data_dir, database_url)
        assert rows(db, "SELECT key FROM issue WHERE neighbor = 0 ORDER BY key") == \
            [(f"AURORA-{n}",) for n in range(1, 8)]
        assert rows(db, "SELECT count(*) FROM issue_worklog WHERE key = 'AURORA-1'") == [(3,)]
        assert rows(db, "SELECT count(DISTINCT kind) FROM jira_catalogue") == [(6,)]
    finally:
        jira.stop()
        assert stop(hub) == 0


def create_screens(jira: FakeJira) -> set[str]:
    """The create screens' lists a run asked for (each read whole, page by page, once)."""
    return {path for _, path, _ in jira.requests if path.startswith("/rest/api/2/issue/createmeta")}


def jira_requests(jira: FakeJira) -> dict[str, int]:
    """The fake's requests by what they are: searches, the per-run reads, per-issue follow-ups."""
    counts: dict[str, int] = {}
    for _method, path, body in jira.requests:
        if path == "/rest/api/2/search":
            kind = "neighbour search" if body["jql"].startswith("key in") else "search"
        elif path.startswith("/rest/api/2/issue/createmeta"):
            kind = "create screen pages"
        elif path.startswith("/rest/api/2/issue/"):
            kind = path.rsplit("/", 1)[-1] if path.count("/") == 6 else "changelog"
        else:
            kind = "per run"
        counts[kind] = counts.get(kind, 0) + 1
    return counts


def test_a_run_costs_its_search_pages_six_reads_and_follow_ups_only_for_truncated_lists(world):
    url, interface, jira, runner, _db = world
    jira.requests.clear()
    refreshed(runner, url, interface)
    # 7 issues in pages of 3; one neighbour batch; /field and five catalogues; AURORA-1's worklogs and
    # OTHER-1's comments, changelog and worklogs, each longer than search embeds.
    counts = jira_requests(jira)
    # The create screens of AURORA, the one project of the matches: read once in the run, whatever
    # its number of pages (its types and each type's screen, paged as Jira pages them).
    assert len(create_screens(jira)) == 1 + len(ISSUE_TYPES)
    del counts["create screen pages"]
    assert counts == {"search": 3, "neighbour search": 1, "per run": 6, "worklog": 2, "comment": 1, "changelog": 1}
    searches = [body for _, path, body in jira.requests if path == "/rest/api/2/search"]
    # The transitions and the edit screen come with the search's issues: no request of their own.
    assert all(b["fields"] == ["*all"] and b["expand"] == SEARCH_EXPAND for b in searches)
    # Read after the last page: AURORA-7, linked from the first, came as a match and is not asked again.
    assert searches[-1]["jql"] == 'key in ("OTHER-1")'


def test_many_issues_cost_no_request_per_issue_when_nothing_is_cut_short(tmp_path, database_url):
    jira = FakeJira(max_results=50, embedded=20).start()
    data_dir = tmp_path / "data"
    agent_token, interface = prepared_hub(data_dir, database_url)
    hub = start("serve", data_dir=data_dir, database_url=database_url)
    try:
        for n in range(1, 121):
            jira.add_issue(f"AURORA-{n}", labels=["AWPCA"], **{SPRINT_FIELD: SPRINTS})
            jira.add_worklog(f"AURORA-{n}", str(40000 + n), 600)
            jira.add_comment(f"AURORA-{n}", str(100 + n), "a comment")
        for n in range(1, 4):
            jira.add_issue(f"OTHER-{n}")
            jira.link(f"AURORA-{n}", f"OTHER-{n}", "Relates")
        url = wait_for_line(hub, r"serving on (http://\S+)").group(1)
        runner = Runner(AgentConfig(hub_url=url, hub_token=agent_token, jira_url=jira.url, jira_token=jira.token,
                                    agent_id="agent-count", claim_wait=0))
        runner.start()
        jira.requests.clear()
        refreshed(runner, url, interface)
        counts = jira_requests(jira)
        assert len(create_screens(jira)) == 1 + len(ISSUE_TYPES)  # one project's, once in the run
        del counts["create screen pages"]
        assert counts == {"search": math.ceil(120 / 50), "neighbour search": 1, "per run": 6}
    finally:
        jira.stop()
        assert stop(hub) == 0


def test_a_jira_without_the_worklog_endpoint_keeps_the_mirrors_worklogs_and_the_run_goes_on(world):
    url, interface, jira, runner, db = world
    refreshed(runner, url, interface)
    assert rows(db, "SELECT count(*) FROM issue_worklog WHERE key = 'AURORA-1'") == [(3,)]
    route = jira._route

    def without_worklogs(method, path, query, body):
        if path.endswith("/worklog"):
            return 404, {"errorMessages": ["Not found"], "errors": {}}, []
        return route(method, path, query, body)

    jira._route = without_worklogs
    jira.issues["AURORA-1"]["fields"]["summary"] = "Edited"
    refreshed(runner, url, interface)
    assert issue_row(db, "AURORA-1")["summary"] == "Edited"
    # Search embedded two of the three: the mirror keeps the three it had, not the two.
    assert rows(db, "SELECT count(*) FROM issue_worklog WHERE key = 'AURORA-1'") == [(3,)]
