"""``make demo`` runs the whole flow and prints its summary; ``make demo-keep`` keeps it running to browse.
Its sample project reads like a team's, and each issue's history agrees with its fields."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import urllib.request
from collections import Counter
from datetime import datetime
from itertools import pairwise
from pathlib import Path

import pytest

from demo.fakejira import FakeJira
from demo.fakejira_meta import WORKFLOW, transitions_from
from demo.jirashapes import CUSTOM, DISPLAY_NAMES, EPIC_FIELD, SPRINT_FIELD
from demo.sample import COLUMNS, NOW, sample_project
from tests.support import call, rest_of_output, wait_for_line

ROOT = Path(__file__).resolve().parents[2]


def test_the_demo_refreshes_fetches_and_summarises():
    run = subprocess.run([sys.executable, str(ROOT / "demo" / "run.py")], capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "refresh: done" in run.stdout and "issues 120, neighbours 10" in run.stdout
    assert "fetch of attachment 31337: done" in run.stdout and "2097152 bytes, sha256 " in run.stdout
    assert "active sprint AURORA Sprint 14 with " in run.stdout and "on board 1 (scrum)" in run.stdout


def test_the_kept_demo_serves_for_browsing_until_sigterm_then_leaves_nothing_running():
    proc = subprocess.Popen([sys.executable, str(ROOT / "demo" / "run.py"), "--keep"], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        url = wait_for_line(proc, r"Open (http://\S+)/ and sign in", timeout=120).group(1)
        token = wait_for_line(proc, r"^  (\S+)$").group(1)
        wait_for_line(proc, r"Ctrl-C stops")
        # Still serving after the summary: the mirror is there to browse with the token it printed.
        assert len(call(url, token, "/api/v1/issues?limit=5")["items"]) == 5
        # AURORA-2 is in progress, as its changelog says, and people have their names.
        story = call(url, token, "/api/v1/issues/AURORA-2")
        assert (story["status"], story["issue_type"]) == ("In Progress", "Story")
        assert story["people"][story["assignee"]] == DISPLAY_NAMES[story["assignee"]]
        with urllib.request.urlopen(url + "/", timeout=30) as page:
            assert b"sdlc-hub" in page.read()
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
    assert "demo stopped" in rest_of_output(proc)
    # The hub it kept is gone with it.
    with pytest.raises(OSError):
        urllib.request.urlopen(url + "/healthz", timeout=5)


def _statuses(issue: dict) -> list[tuple[str, str]]:
    return [(item["fromString"], item["toString"]) for history in issue["changelog"]["histories"]
            for item in history["items"] if item["field"] == "status"]


def _jira_time(text: str) -> datetime:
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%f%z")


def test_each_sample_issue_s_changelog_leads_to_its_status_assignee_and_resolution():
    jira = sample_project(FakeJira())
    moves = {(source, to) for _, _, sources, to, _, _ in WORKFLOW for source in sources}
    for key, issue in jira.issues.items():
        fields = issue["fields"]
        changes = _statuses(issue)
        # A chain of the workflow's own transitions from Open to the status the issue has.
        assert [to for _, to in changes][-1:] == ([fields["status"]["name"]] if changes else []), key
        assert all(move in moves for move in changes), (key, changes)
        assert all(a[1] == b[0] for a, b in pairwise(changes)) and (not changes or changes[0][0] == "Open")
        if not changes:
            assert fields["status"]["name"] == "Open", key
        assignees = [item for history in issue["changelog"]["histories"] for item in history["items"]
                     if item["field"] == "assignee"]
        if assignees:
            assert assignees[-1]["to"] == (fields["assignee"] or {}).get("key"), key
        done = fields["status"]["statusCategory"]["key"] == "done"
        assert bool(fields["resolution"]) == done == bool(fields["resolutiondate"]), key
        # Everything after the issue's creation and before the demo's now; updated the last of it.
        created = _jira_time(fields["created"])
        moments = [_jira_time(h["created"]) for h in issue["changelog"]["histories"]]
        moments += [_jira_time(c["created"]) for c in fields["comment"]["comments"]]
        moments += [_jira_time(w["started"]) for w in fields["worklog"]["worklogs"]]
        assert all(created <= moment <= NOW for moment in moments), key
        assert _jira_time(fields["updated"]) == max([created, *moments, *(
            _jira_time(w["updated"]) for w in fields["worklog"]["worklogs"])]), key
        # A review's screen asks for logged work: work was logged before each.
        reviews = [_jira_time(h["created"]) for h in issue["changelog"]["histories"] for item in h["items"]
                   if item["field"] == "status" and item["toString"] == "Review"]
        assert all(any(_jira_time(w["started"]) < review for w in fields["worklog"]["worklogs"])
                   for review in reviews), key
        assert fields["timespent"] == (sum(w["timeSpentSeconds"] for w in fields["worklog"]["worklogs"]) or None)


def test_the_sample_project_reads_like_a_team_s():
    jira = sample_project(FakeJira())
    aurora = {k: i["fields"] for k, i in jira.issues.items() if k.startswith("AURORA-")}
    assert len(aurora) == 120 and len(jira.issues) == 130
    kinds = Counter(f["issuetype"]["name"] for f in aurora.values())
    assert set(kinds) == {"Epic", "Story", "Task", "Bug", "Sub-task"} and 3 <= kinds["Epic"] <= 5
    assert len({f["priority"]["name"] for f in aurora.values()}) == 5
    assert {"Open", "In Progress", "Review", "Done"} <= {f["status"]["name"] for f in aurora.values()}
    assert len({(f["assignee"] or {}).get("displayName") for f in aurora.values()} - {None}) >= 5
    assert len({f["summary"] for f in aurora.values()}) == 120
    assert not any(f["summary"].startswith("Summary ") for f in aurora.values())
    descriptions = "\n".join(f["description"] or "" for f in aurora.values())
    for markup in ("h2. ", "\n* ", "\n# ", "||", "{code", "{panel", "{quote}", "[~", "|https://"):
        assert markup in descriptions, markup
    assert any("\u0400" <= ch <= "\u04ff" for ch in descriptions)  # some of it in Russian
    # Epics hold issues and are in none; sub-tasks hang under their parents.
    epics = {k for k, f in aurora.items() if f["issuetype"]["name"] == "Epic"}
    assert aurora["AURORA-1"][EPIC_FIELD] is None and "AURORA-1" in epics
    linked = [f[EPIC_FIELD] for f in aurora.values() if f[EPIC_FIELD]]
    assert set(linked) <= epics and all(linked.count(e) >= 5 for e in epics - {"AURORA-91"})
    subtasks = [f for f in aurora.values() if f["issuetype"]["name"] == "Sub-task"]
    assert subtasks and all(f["parent"]["key"] in aurora and f[EPIC_FIELD] is None for f in subtasks)
    # Spread over six weeks; an active sprint of board 1; a few flagged issues only.
    days = {f["updated"][:10] for f in aurora.values()}
    assert min(days) < "2026-11-01" and max(days) == NOW.date().isoformat() and len(days) >= 15
    active = [f for f in aurora.values() if any("state=ACTIVE" in str(s) and "rapidViewId=1," in str(s)
                                                for s in f[SPRINT_FIELD] or [])]
    assert len({f["status"]["name"] for f in active}) >= 4
    assert 1 <= sum(1 for f in aurora.values() if f[CUSTOM["flagged"]["id"]]) <= 4
    # What the demo showed before stays: the PDFs, the neighbours linked from some issues.
    assert [a["size"] for a in aurora["AURORA-1"]["attachment"]] == [2 * 1024 * 1024]
    assert [a["filename"] for a in aurora["AURORA-2"]["attachment"]] == ["spec.pdf"]
    assert aurora["AURORA-2"]["status"]["name"] == "In Progress"
    assert any(link.get("outwardIssue", link.get("inwardIssue"))["key"].startswith("OTHER-")
               for f in aurora.values() for link in f["issuelinks"])


def test_the_demo_workflow_moves_each_board_column_s_issues_to_the_next_column():
    statuses = {i["fields"]["status"]["name"] for i in sample_project(FakeJira()).issues.values()}
    assert statuses <= {status for _, column in COLUMNS for status in column}
    assert all(transitions_from(status) for status in statuses)  # every card can move on
    for (_, here), (_, there) in pairwise(COLUMNS):
        assert any(t[3] in there for status in here for t in transitions_from(status)), (here, there)


def test_the_sample_project_is_the_same_every_time():
    assert json.dumps(sample_project(FakeJira()).issues) == json.dumps(sample_project(FakeJira()).issues)
