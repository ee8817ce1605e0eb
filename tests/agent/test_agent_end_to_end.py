"""hub-agent as a process between the fake Jira and a real hub on loopback, end to end."""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
import urllib.request

import pytest

from demo.fakejira import (
    CUSTOM,
    END_FIELD,
    EPIC_FIELD,
    PRIORITIES,
    SPRINT_FIELD,
    START_FIELD,
    TIME,
    FakeJira,
    component,
    legacy_sprint,
    named,
    option,
    version,
)
from tests.support import call, prepared_hub, start, stop, wait_for_line, wait_until

pytestmark = [pytest.mark.backends("sqlite", "postgresql"), pytest.mark.long]

AGENT = shutil.which("hub-agent", path=os.path.dirname(sys.executable)) or "hub-agent"
CYRILLIC = "Техническое задание №1 (итог).pdf"


def get(url: str, token: str, path: str) -> dict:
    return call(url, token, path)


def content(url: str, token: str, path: str) -> bytes:
    request = urllib.request.Request(url + path, headers={"Authorization": f"Bearer {token}"})
    with urllib.request.urlopen(request, timeout=30) as resp:
        return resp.read()


def sample_jira() -> tuple[FakeJira, bytes]:
    """AURORA issues labelled AWPCA (the base JQL), more than a clamped page, with everything Jira has."""
    jira = FakeJira(max_results=4, embedded=2).start()
    jira.add_issue("AURORA-1", labels=["AWPCA", "KPI"], status="In Progress", duedate="2026-12-01",
                   **{SPRINT_FIELD: [legacy_sprint(20, "Sprint 13", "CLOSED", 13),
                                     legacy_sprint(24, "AURORA Sprint 14, [hot]", "ACTIVE", 14, goal="a, b]")],
                      EPIC_FIELD: "AURORA-9", START_FIELD: "2026-11-02", END_FIELD: "2026-12-20"})
    jira.add_issue("AURORA-2", labels=["AWPCA"], assignee="petrov",
                   **{SPRINT_FIELD: [{"id": 30, "name": "Next", "state": "future", "boardId": 7}]})
    for n in range(3, 11):
        jira.add_issue(f"AURORA-{n}", labels=["AWPCA"])
    jira.add_issue("AURORA-50", labels=[])  # outside the base JQL: a neighbour
    jira.add_issue("OTHER-1")
    jira.link("AURORA-1", "AURORA-2", "Blocks")
    jira.link("OTHER-1", "AURORA-1", "Relates")
    jira.link("AURORA-3", "AURORA-50", "Cloners")
    for n in range(5):  # more than search embeds: the rest is read from the issue
        jira.add_comment("AURORA-1", str(101 + n), f"comment {n}", author="petrov" if n % 2 else "ivanov")
    for n in range(4):
        jira.add_history("AURORA-1", str(5001 + n), "status", "Open", "In Progress")
    data = random.Random(9).randbytes(300_000)
    jira.add_attachment("AURORA-1", "31337", CYRILLIC, data)
    jira.add_attachment("AURORA-2", "31338", "report.pdf", b"%PDF-1.7 trap")
    jira.traps.add("31338")
    one = jira.issues["AURORA-1"]["fields"]
    one.update(resolution=named("Fixed"), resolutiondate=TIME, fixVersions=[version("10101", "2.3", False)],
               components=[component("10200", "Backend")], timeoriginalestimate=28800,
               **{CUSTOM["story_points"]["id"]: 5.0, CUSTOM["severity"]["id"]: option("10400", "S2")})
    for n in range(3):  # more than search embeds: the rest is read from /worklog
        jira.add_worklog("AURORA-1", str(40001 + n), 3600, author="sidorova")
    jira.add_issue("AURORA-60", labels=["AWPCA"], parent="AURORA-1")
    return jira, data


@pytest.fixture
def setup(tmp_path, database_url):
    data_dir = tmp_path / "data"
    agent_token, interface = prepared_hub(data_dir, database_url)
    hub = start("serve", data_dir=data_dir, database_url=database_url)
    jira, data = sample_jira()
    agent = None
    try:
        url = wait_for_line(hub, r"serving on (http://\S+)").group(1)
        agent = subprocess.Popen(
            [AGENT, "run", "--hub", url, "--token", agent_token, "--jira", jira.url, "--agent-id", "agent-test"],
            env={**os.environ, "JIRA_TOKEN": jira.token, "PYTHONUNBUFFERED": "1"},
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        wait_for_line(agent, r"running as agent-test")
        yield url, interface, jira, data, agent
    finally:
        if agent is not None and agent.poll() is None:
            stop(agent)
        jira.stop()
        assert stop(hub) == 0


def finished(url: str, interface: str, command_id: int) -> dict:
    return wait_until(lambda: (c := get(url, interface, f"/api/v1/commands/{command_id}"))["status"]
                      in ("done", "failed") and c, timeout=60, message=f"command {command_id} finishing")


def test_a_full_refresh_mirrors_what_jira_holds_and_an_attachment_comes_byte_exact(setup):
    url, interface, jira, data, agent = setup
    command = call(url, interface, "/api/v1/commands", {"type": "refresh"})
    result = finished(url, interface, command["id"])
    assert result["status"] == "done", result
    assert result["result"]["total"] == 11

    one = get(url, interface, "/api/v1/issues/AURORA-1")
    expected = {"key": "AURORA-1", "id": jira.issues["AURORA-1"]["id"], "issue_type": "Story",
                "summary": "Summary AURORA-1", "description": "h1. AURORA-1", "status": "In Progress",
                "priority": "Major", "assignee": "ivanov", "reporter": "petrov", "duedate": "2026-12-01",
                "planned_start": "2026-11-02", "planned_end": "2026-12-20", "epic_key": "AURORA-9",
                "labels": ["AWPCA", "KPI"], "sprint": "AURORA Sprint 14, [hot]",
                "created": "2026-10-01T09:00:00.000+0300", "jira_updated": TIME, "neighbor": False}
    assert {k: one[k] for k in expected} == expected
    # Both linked issues are mirrored (OTHER-1 as a neighbour): each link names its summary and status.
    two, other = (get(url, interface, f"/api/v1/issues/{key}") for key in ("AURORA-2", "OTHER-1"))
    # Worded as Jira words them: the agent sent Jira's link types with the run's first page.
    assert one["links"] == {"outward": [{"type": "Blocks", "phrase": "blocks", "key": "AURORA-2",
                                         "summary": two["summary"], "status": two["status"], "in_mirror": True,
                                         "gone": False}],
                            "inward": [{"type": "Relates", "phrase": "relates to", "key": "OTHER-1",
                                        "summary": other["summary"], "status": other["status"],
                                        "in_mirror": True, "gone": False}]}
    comments = get(url, interface, "/api/v1/issues/AURORA-1/comments")["items"]
    assert [(c["id"], c["author"], c["body"]) for c in comments] == \
        [(str(101 + n), "petrov" if n % 2 else "ivanov", f"comment {n}") for n in range(5)]
    changes = get(url, interface, "/api/v1/issues/AURORA-1/changes")["items"]
    assert [(c["history_id"], c["from_string"], c["to_string"]) for c in changes] == \
        [(str(5001 + n), "Open", "In Progress") for n in range(4)]
    listed = get(url, interface, "/api/v1/issues/AURORA-1/attachments")["items"]
    assert [(a["attachment_id"], a["filename"], a["size"], a["mime_type"]) for a in listed] == \
        [("31337", CYRILLIC, len(data), "application/pdf")]
    assert get(url, interface, "/api/v1/issues/AURORA-2")["sprint"] == "Next"
    # The whole issue: the fields of protocol v15, worklogs completed, sprints, catalogues.
    assert {k: one[k] for k in ("resolution", "resolved", "components", "time_original_estimate", "time_spent",
                                "parent_key")} == {"resolution": "Fixed", "resolved": TIME, "components": ["Backend"],
                                                   "time_original_estimate": 28800, "time_spent": 10800,
                                                   "parent_key": None}
    assert [v["name"] for v in one["fix_versions"]] == ["2.3"]
    assert one["custom_fields"][CUSTOM["story_points"]["id"]]["value"] == 5.0
    assert one["custom_fields"][CUSTOM["severity"]["id"]] == {
        "name": "Severity", "type": "option", "custom": CUSTOM["severity"]["schema"]["custom"], "value": "S2"}
    assert [s["key"] for s in one["subtasks"]] == ["AURORA-60"]
    assert one["people"] == {"ivanov": "Ivanov", "petrov": "Petrov"}
    logs = get(url, interface, "/api/v1/issues/AURORA-1/worklogs")
    assert (logs["total"], logs["time_spent"]) == (3, 10800)
    assert [(w["id"], w["author_display"]) for w in logs["items"]] == [(str(40001 + n), "Sidorova") for n in range(3)]
    sprints = get(url, interface, "/api/v1/sprints")["items"]
    assert {(s["id"], s["state"]) for s in sprints} == {(20, "closed"), (24, "active"), (30, "future")}
    catalogues = get(url, interface, "/api/v1/catalogues")
    assert [p["name"] for p in catalogues["priorities"]] == [p["name"] for p in PRIORITIES]

    issues = get(url, interface, "/api/v1/issues?limit=500")["items"]
    flags = {i["key"]: i["neighbor"] for i in issues}
    assert flags == {**{f"AURORA-{n}": False for n in (*range(1, 11), 60)}, "AURORA-50": True, "OTHER-1": True}
    searches = [body for method, path, body in jira.requests if path == "/rest/api/2/search"]
    neighbour_batches = [b for b in searches if b["jql"].startswith("key in")]
    assert neighbour_batches and all(b.get("validateQuery") is False for b in neighbour_batches)
    assert all(b["maxResults"] <= 100 and "changelog" in b.get("expand", []) for b in searches
               if not b["jql"].startswith("key in"))

    fetch = call(url, interface, "/api/v1/attachments/31337/fetch", {})
    assert finished(url, interface, fetch["command_id"])["status"] == "done"
    assert content(url, interface, "/api/v1/attachments/31337/content") == data

    trap = call(url, interface, "/api/v1/attachments/31338/fetch", {})
    failed = finished(url, interface, trap["command_id"])
    assert failed["status"] == "failed" and "HTML page" in failed["error"], failed
    assert get(url, interface, "/api/v1/attachments/31338")["state"] != "ready"

    assert stop(agent) == 0  # SIGTERM cuts the idle long-poll and exits cleanly


def test_a_wrong_token_is_one_line_and_exit_2(tmp_path, database_url):
    data_dir = tmp_path / "data"
    agent_token, _ = prepared_hub(data_dir, database_url)
    hub = start("serve", data_dir=data_dir, database_url=database_url)
    jira = FakeJira().start()
    try:
        url = wait_for_line(hub, r"serving on (http://\S+)").group(1)
        args = [AGENT, "run", "--hub", url, "--jira", jira.url]
        wrong_jira = subprocess.run([*args, "--token", agent_token, "--jira-token", "nope"],
                                    capture_output=True, text=True, timeout=60)
        assert wrong_jira.returncode == 2
        assert wrong_jira.stderr.strip().splitlines()[-1].startswith("hub-agent: Jira refused the credentials")
        wrong_hub = subprocess.run([*args, "--token", "nope", "--jira-token", jira.token],
                                   capture_output=True, text=True, timeout=60)
        assert wrong_hub.returncode == 2
        assert wrong_hub.stderr.strip().splitlines()[-1].startswith("hub-agent: the hub refused the token")
    finally:
        jira.stop()
        assert stop(hub) == 0


def test_sigterm_finishes_the_page_in_flight_and_exits(setup):
    url, interface, jira, _data, agent = setup
    jira.delay = 0.3
    command = call(url, interface, "/api/v1/commands", {"type": "refresh"})
    wait_until(lambda: get(url, interface, "/api/v1/issues?limit=500")["items"], timeout=30,
               message="the first page")
    assert stop(agent) == 0
    loaded = [i["key"] for i in get(url, interface, "/api/v1/issues?limit=500")["items"] if not i["neighbor"]]
    assert 0 < len(loaded) < 10 and len(loaded) % 4 == 0  # whole pages of 4, not all of them
    left = get(url, interface, f"/api/v1/commands/{command['id']}")
    assert left["status"] == "claimed"  # not done: its lease returns it to the queue for the next agent


def test_the_agent_shows_online_at_the_hub_once_started(setup):
    url, interface, _jira, _data, _agent = setup
    agents = get(url, interface, "/api/v1/agents")["items"]
    assert any(a["agent_id"] == "agent-test" and a["online"] and a["version"] == 19 for a in agents), \
        json.dumps(agents)
    # Its start asked Jira (/myself, /field): the first heartbeat says Jira answered (v18).
    [agent] = [a for a in agents if a["agent_id"] == "agent-test"]
    assert agent["jira"]["reachable"] is True and agent["jira"]["error"] is None, json.dumps(agent)
    # The Jira user's zone, from /myself, reported with the heartbeat: JQL reads dates in it.
    assert get(url, interface, "/api/v1/overview")["jql_time_zone"] == {"name": "Europe/Moscow", "source": "jira"}


def test_edits_in_jira_show_after_the_next_refresh(setup):
    url, interface, jira, _data, _agent = setup
    first = call(url, interface, "/api/v1/commands", {"type": "refresh"})
    assert finished(url, interface, first["id"])["status"] == "done"

    comments = jira.issues["AURORA-1"]["fields"]["comment"]["comments"]
    comments.pop(0)
    jira.add_comment("AURORA-1", "106", "added")
    jira.issues["AURORA-1"]["fields"]["attachment"].clear()
    jira.issues["AURORA-3"]["fields"]["status"] = {"name": "Done"}
    second = call(url, interface, "/api/v1/commands", {"type": "refresh"})
    assert finished(url, interface, second["id"])["status"] == "done"

    listed = get(url, interface, "/api/v1/issues/AURORA-1/comments")["items"]
    assert [c["id"] for c in listed] == ["102", "103", "104", "105", "106"]
    assert get(url, interface, "/api/v1/issues/AURORA-1/attachments")["items"] == []
    assert get(url, interface, "/api/v1/issues/AURORA-3")["status"] == "Done"


def test_an_incremental_refresh_asks_jira_only_for_what_changed(setup):
    url, interface, jira, _data, _agent = setup
    first = call(url, interface, "/api/v1/commands", {"type": "refresh"})
    assert finished(url, interface, first["id"])["status"] == "done"
    jira.issues["AURORA-5"]["fields"].update(summary="Changed", updated="2026-11-20T10:30:00.000+0300")
    jira.requests.clear()

    # 07:30 UTC is 10:30 in Moscow, the Jira user's zone: AURORA-5 qualifies, the rest (October) not.
    since = call(url, interface, "/api/v1/commands",
                 {"type": "refresh", "params": {"updated_since": "2026-11-20T07:30:40+00:00"}})
    result = finished(url, interface, since["id"])
    assert result["status"] == "done" and result["result"]["total"] == 1
    searches = [body["jql"] for _, path, body in jira.requests
                if path == "/rest/api/2/search" and not body["jql"].startswith("key in")]
    assert searches and all('updated >= "2026/11/20 10:30"' in jql for jql in searches)
    assert get(url, interface, "/api/v1/issues/AURORA-5")["summary"] == "Changed"
    assert get(url, interface, "/api/v1/issues/AURORA-4")["summary"] == "Summary AURORA-4"


def test_a_cancel_mid_run_stops_the_agent_between_pages(setup):
    url, interface, jira, _data, agent = setup
    for n in range(11, 41):  # 40 issues: 10 search pages of 4
        jira.add_issue(f"AURORA-{n}", labels=["AWPCA"])
    jira.delay = 0.2
    command = call(url, interface, "/api/v1/commands", {"type": "refresh"})
    wait_until(lambda: get(url, interface, "/api/v1/issues?limit=500")["items"], timeout=30,
               message="the first page")
    call(url, interface, f"/api/v1/commands/{command['id']}/cancel", {})
    wait_for_line(agent, rf"command {command['id']} (dropped|stopped)")

    pages = [b["startAt"] for _, path, b in jira.requests
             if path == "/rest/api/2/search" and not b["jql"].startswith("key in")]
    assert pages == sorted(pages) and len(pages) < 10  # the pages after the cancel were never asked for
    loaded = [i for i in get(url, interface, "/api/v1/issues?limit=500")["items"] if not i["neighbor"]]
    assert 0 < len(loaded) < 40
    assert get(url, interface, f"/api/v1/commands/{command['id']}")["status"] == "cancelled"

    jira.delay = 0
    again = call(url, interface, "/api/v1/commands", {"type": "refresh"})  # the agent goes on working
    assert finished(url, interface, again["id"])["status"] == "done"
    assert agent.poll() is None


def test_a_rate_limited_jira_is_waited_out_as_long_as_retry_after_says(setup):
    url, interface, jira, _data, _agent = setup
    jira.retry_after = 2  # longer than the agent's own first backoff (at most 1 s)
    jira.arrivals.clear()
    jira.throttle = 2
    command = call(url, interface, "/api/v1/commands", {"type": "refresh"})
    result = finished(url, interface, command["id"])
    assert result["status"] == "done" and result["result"]["total"] == 11

    assert [throttled for _, throttled in jira.arrivals[:3]] == [True, True, False]
    gaps = [later - earlier for (earlier, _), (later, _) in zip(jira.arrivals, jira.arrivals[1:3], strict=False)]
    assert all(gap >= 1.9 for gap in gaps), gaps  # each retry waited the Retry-After (less a clock tick)
    issues = get(url, interface, "/api/v1/issues?limit=500")["items"]
    assert len([i for i in issues if not i["neighbor"]]) == 11
