"""A thousand writes through a real hub and the reference agent, with Jira's answers lost, dropped
and late, Jira away for a while and the agent killed mid-run: every write reaches Jira once, none is
lost, and every conflict is found (docs/writes.md, exactly once)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter

import pytest

from demo.fakejira import FakeJira
from demo.fakejira_writes import Fault
from hub.clock import Clock
from hub.config import Config
from hub.db import open_hub_database
from hub.models import Command
from hub.services.access.tokens import Principal
from hub.services.writes.service import WriteService
from tests.support import call, prepared_hub, start, stop, wait_for_line, wait_until
from tests.support.hubs import built_services

# long: a thousand writes, each a claim, a few Jira requests, a state page and a done.
pytestmark = [pytest.mark.backends("sqlite"), pytest.mark.long]

AGENT = shutil.which("hub-agent", path=os.path.dirname(sys.executable)) or "hub-agent"
ISSUES = 40
COMMENTS, WORKLOGS = 16, 5
MARKER = "sdlc-hub.write"
ALICE = Principal(token_id=None, name="alice", role="interface")  # type: ignore[arg-type]
# Faults on the write requests, each firing a number of times as the writes go: the answer lost
# after Jira applied the request, a proxy's 504 after it applied it, the connection dropped before.
FAULTS = [Fault("lose_answer", "POST", r"/comment$", 25), Fault("drop", "POST", r"/comment$", 15),
          Fault("gateway_timeout", "POST", r"/worklog$", 10), Fault("lose_answer", "PUT", r"/properties/", 8),
          Fault("lose_answer", "POST", r"/transitions$", 8), Fault("lose_answer", "PUT", r"/issue/[A-Z]+-\d+$", 8),
          Fault("lose_answer", "POST", r"/issueLink$", 6), Fault("unavailable", "POST", r"/comment$", 10)]


def agent_process(url: str, token: str, jira: FakeJira, log) -> subprocess.Popen:
    return subprocess.Popen(
        [AGENT, "run", "--hub", url, "--token", token, "--jira", jira.url, "--agent-id", "agent-writes",
         "--concurrency", "4"],
        env={**os.environ, "JIRA_TOKEN": jira.token, "PYTHONUNBUFFERED": "1"},
        stdout=log, stderr=subprocess.STDOUT, text=True)


def requested(service: WriteService) -> dict[str, list[int]]:
    """The thousand writes, by what each is expected to end as: 40 issues, each with 16 comments,
    5 work logs, a transition, a link, an edit and an edit made from a stale view."""
    ids: dict[str, list[int]] = {"comment": [], "log_work": [], "transition": [], "link": [], "edit": [],
                                 "stale": []}
    for n in range(1, ISSUES + 1):
        key = f"AURORA-{n}"
        for c in range(COMMENTS):
            ids["comment"].append(service.request("comment", key, {"body": f"comment {c} on {key}"}, ALICE)[0].id)
            if c % 3 == 0 and len(ids["log_work"]) < n * WORKLOGS:
                ids["log_work"].append(service.request("log_work", key, {"time_spent": "1h"}, ALICE)[0].id)
        while len(ids["log_work"]) < n * WORKLOGS:
            ids["log_work"].append(service.request("log_work", key, {"time_spent": "30m"}, ALICE)[0].id)
        ids["stale"].append(service.request("edit", key, {"fields": {"summary": f"Stale {key}"}}, ALICE,
                                            base={"summary": "Not what Jira has"})[0].id)
        ids["edit"].append(service.request("edit", key, {"fields": {"summary": f"Edited {key}"}}, ALICE)[0].id)
        ids["transition"].append(service.request("transition", key, {"to": "In Progress"}, ALICE)[0].id)
        other = f"AURORA-{n % ISSUES + 1}"
        ids["link"].append(service.request("link", key, {"type": "Blocks", "outward": other}, ALICE)[0].id)
    return ids


def test_a_thousand_writes_under_lost_answers_an_outage_and_a_killed_agent_reach_jira_once_each(
        tmp_path, database_url):
    data_dir = tmp_path / "data"
    agent_token, interface = prepared_hub(data_dir, database_url)
    hub = start("serve", data_dir=data_dir, database_url=database_url, HUB_LEASE_SECONDS="4")
    jira = FakeJira().start()
    for n in range(1, ISSUES + 1):
        jira.add_issue(f"AURORA-{n}", labels=["AWPCA"], status="Open")
    log = open(tmp_path / "agent.log", "w")  # noqa: SIM115 (the agents write it until the end)
    agents: list[subprocess.Popen] = []
    try:
        url = wait_for_line(hub, r"serving on (http://\S+)").group(1)
        agents.append(agent_process(url, agent_token, jira, log))
        refresh = call(url, interface, "/api/v1/commands", {"type": "refresh"})
        wait_until(lambda: call(url, interface, f"/api/v1/commands/{refresh['id']}")["status"] == "done",
                   timeout=60, message="the first refresh")

        config = Config(data_dir=data_dir, database_url=database_url)
        open_hub_database(config)
        service = WriteService(built_services(config).commands, Clock())
        jira.faults = list(FAULTS)
        ids = requested(service)
        total = sum(len(v) for v in ids.values())
        assert total == 1000

        def ended() -> int:
            return sum(service.list(status=s, limit=1000)["items"].__len__() for s in ("done", "conflict", "failed"))

        # The agent killed with writes in hand, once a third are through; another takes over.
        wait_until(lambda: ended() >= 330, timeout=300, every=0.5, message="a third of the writes")
        agents[0].send_signal(signal.SIGKILL)
        agents[0].wait()
        jira.down = True  # and Jira away for a while: the writes wait, none fails
        agents.append(agent_process(url, agent_token, jira, log))
        time.sleep(3)
        assert service.list(status="failed")["items"] == []
        jira.down = False
        wait_until(lambda: ended() == total, timeout=600, every=1, message="every write ended")
    finally:
        for agent in agents:
            if agent.poll() is None:
                stop(agent)
        log.close()
        jira.stop()
        assert stop(hub) == 0

    statuses = {w.id: (w.status, w.error) for s in ("done", "conflict", "failed")
                for w in service.list(status=s, limit=1000)["items"]}
    # Every conflict found, and nothing else ended otherwise than done.
    assert {i for i, (status, _) in statuses.items() if status == "conflict"} == set(ids["stale"])
    assert {i: e for i, (status, e) in statuses.items() if status == "failed"} == {}
    assert len(statuses) == total
    assert {kind for kind, _m, _p in jira.writes.fired} >= {"lose_answer", "drop", "gateway_timeout"}
    # The killed agent's writes came back to its successor with their leases.
    redelivered = Command.select().where(Command.type == "write", Command.deliveries > 1).count()
    assert redelivered >= 1

    # Once each in Jira: every comment and work log carries its write's marker, no marker twice.
    comments = Counter(jira.writes.comment_properties[c["id"]][MARKER]["write"]
                       for issue in jira.issues.values() for c in issue["fields"]["comment"]["comments"])
    assert sorted(comments) == sorted(ids["comment"]) and set(comments.values()) == {1}
    worklogs = Counter(jira.writes.worklog_properties.get(w["id"], {}).get(MARKER, {}).get("write")
                       for issue in jira.issues.values() for w in issue["fields"]["worklog"]["worklogs"])
    assert sorted(worklogs) == sorted(ids["log_work"]) and set(worklogs.values()) == {1}
    for n in range(1, ISSUES + 1):
        issue = jira.issues[f"AURORA-{n}"]
        assert issue["fields"]["status"]["name"] == "In Progress"
        assert issue["fields"]["summary"] == f"Edited AURORA-{n}"
        histories = [item["field"] for h in issue["changelog"]["histories"] for item in h["items"]]
        assert Counter(histories)["status"] == 1 and Counter(histories)["summary"] == 1
        outward = [link for link in issue["fields"]["issuelinks"] if "outwardIssue" in link]
        assert [link["outwardIssue"]["key"] for link in outward] == [f"AURORA-{n % ISSUES + 1}"]

