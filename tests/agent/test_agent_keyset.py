"""Scopes of any size: the agent pages a search by id, so a Jira that refuses result windows past
10,000 (Data Center 9's ``jira.search.platform.max.result.window``) is read whole, every issue
once, even while issues are edited, added or leave the scope during the run."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from agent.config import AgentConfig
from agent.handlers.refresh import handle as run_refresh
from agent.jira_client import SEARCH_FIELDS, JiraClient, JiraError
from agent.retry import Backoff
from agent.runner import Runner
from demo.fakejira import CUSTOM_IDS, FakeJira
from tests.support import call, hub_config, prepared_hub, quick_runner, start, stop, wait_for_line
from tests.support.engine_rows import rows

# The hub's client is this module's subject, not the hub's engine: one engine will do (docs/architecture.md, Tests).
pytestmark = pytest.mark.backends("sqlite")

LATER = "2026-11-20T10:30:00.000+0300"
SCOPE = '(project = AURORA AND labels in ("AWPCA"))'  # the hub's scope and its one project's label
WINDOW = 10_000  # Data Center's default jira.search.platform.max.result.window


@pytest.fixture
def world(tmp_path, database_url):
    """A real hub, the fake Jira refusing pages past its window, and a runner in this process that
    counts the issues it sends the hub."""
    data_dir = tmp_path / "data"
    agent_token, interface = prepared_hub(data_dir, database_url)
    hub = start("serve", data_dir=data_dir, database_url=database_url)
    jira = FakeJira(max_results=100, embedded=1, max_result_window=WINDOW).start()
    try:
        url = wait_for_line(hub, r"serving on (http://\S+)").group(1)
        runner = quick_runner(url, agent_token, jira, "agent-keyset")
        sent: Counter = Counter()
        send_state = runner.hub.state

        def counting(command, issues, neighbors, catalogues=None, **more):
            sent.update(issue["key"] for issue in issues)
            return send_state(command, issues, neighbors, catalogues, **more)

        runner.hub.state = counting
        yield url, interface, jira, runner, sent, hub_config(data_dir, database_url)
    finally:
        jira.stop()
        assert stop(hub) == 0


def lean(jira: FakeJira, first: int, last: int, **fields) -> None:
    """Issues AURORA-first … AURORA-last without the custom fields, so a big scope stays quick to serve."""
    for n in range(first, last + 1):
        issue = jira.add_issue(f"AURORA-{n}", labels=["AWPCA"], **fields)
        for fid in CUSTOM_IDS:
            del issue["fields"][fid]


def refreshed(runner: Runner, url: str, interface: str, **params) -> dict:
    """Enqueue a refresh, run it in this process, and return the command as the hub has it after."""
    call(url, interface, "/api/v1/commands", {"type": "refresh"})
    [command] = runner.hub.claim(limit=1, wait=0).commands
    command.params.update(params)
    run_refresh(runner, command)
    return call(url, interface, f"/api/v1/commands/{command.id}")


def mirrored(config) -> dict[str, str]:
    return dict(rows(config, "SELECT key, summary FROM issue"))


def searches(jira: FakeJira) -> list[dict]:
    return [body for _, path, body in jira.requests if path == "/rest/api/2/search"]


def test_a_scope_of_25000_issues_is_read_whole_past_the_10000_window_every_issue_once(world):
    url, interface, jira, runner, sent, config = world
    jira.indexed = True  # nothing is edited in this run: pages by id come from the scope's kept matches
    lean(jira, 1, 25_000)

    done = refreshed(runner, url, interface)

    assert done["status"] == "done" and done["result"]["total"] == 25_000
    assert len(sent) == 25_000 and set(sent.values()) == {1}
    assert len(mirrored(config)) == 25_000
    pages = searches(jira)
    # 250 pages of 100 and no empty page after the last: the last page holds all Jira counted from it on.
    assert len(pages) == 250
    assert {page["startAt"] for page in pages} == {0}
    assert pages[0]["jql"] == f"{SCOPE} ORDER BY id ASC"
    assert pages[-1]["jql"] == f"{SCOPE} AND id > {jira.issues['AURORA-24900']['id']} ORDER BY id ASC"


def test_the_startat_paging_of_before_is_refused_past_the_window_and_the_refresh_is_not(world):
    url, interface, jira, runner, sent, _config = world
    jira.max_result_window = 250
    lean(jira, 1, 400)
    old = JiraClient(jira.url, token=jira.token)
    try:
        with pytest.raises(JiraError) as refused:
            for _page in old.search("project = AURORA ORDER BY key ASC", SEARCH_FIELDS, page_size=100):
                pass
    finally:
        old.close()
    assert refused.value.status == 400 and "max.result.window" in str(refused.value)

    done = refreshed(runner, url, interface)

    assert done["status"] == "done" and done["result"]["total"] == 400
    assert len(sent) == 400 and set(sent.values()) == {1}


def test_issues_edited_added_or_gone_from_the_scope_during_the_run_are_neither_skipped_nor_repeated(world):
    url, interface, jira, runner, sent, config = world
    jira.max_result_window = 250
    lean(jira, 1, 1_000)

    def edit_during_the_run(body):
        if len(searches(jira)) != 4:  # while the agent reads the fourth page
            return
        # One already read leaves the scope: paged by startAt, every later issue would shift back by one
        # and one would be skipped.
        jira.issues["AURORA-5"]["fields"]["project"] = {"key": "OTHER", "name": "Other"}
        jira.issues["AURORA-650"]["fields"].update(summary="Edited before its page", updated=LATER)
        jira.issues["AURORA-20"]["fields"].update(summary="Edited after its page", updated=LATER)
        lean(jira, 1_001, 1_001)

    jira.on_search = edit_during_the_run
    done = refreshed(runner, url, interface)

    assert done["status"] == "done" and done["result"]["total"] == 1_001
    assert sorted(sent) == sorted(f"AURORA-{n}" for n in range(1, 1_002))
    assert set(sent.values()) == {1}
    held = mirrored(config)
    assert held["AURORA-650"] == "Edited before its page"
    assert held["AURORA-20"] == "Summary AURORA-20"  # read before the edit; the next run brings it
    assert len(held) == 1_001


def test_an_incremental_run_past_the_window_reads_what_changed_every_issue_once(world):
    url, interface, jira, runner, sent, config = world
    jira.max_result_window = 250
    lean(jira, 1, 1_000)
    assert refreshed(runner, url, interface)["status"] == "done"
    for n in range(1, 1_001, 3):
        jira.issues[f"AURORA-{n}"]["fields"].update(summary=f"Changed {n}", updated=LATER)
    sent.clear()
    jira.requests.clear()

    # 07:30 UTC is 10:30 in Moscow, the Jira user's zone: the issues edited at 10:30 qualify.
    done = refreshed(runner, url, interface, updated_since="2026-11-20T07:30:40+00:00")

    changed = [f"AURORA-{n}" for n in range(1, 1_001, 3)]
    assert done["status"] == "done" and done["result"]["total"] == len(changed) == 334
    assert sorted(sent) == sorted(changed) and set(sent.values()) == {1}
    pages = searches(jira)
    assert len(pages) == 4 and {page["startAt"] for page in pages} == {0}
    assert pages[1]["jql"].startswith(f'({SCOPE} AND updated >= "2026/11/20 10:30") AND id > ')
    held = mirrored(config)
    assert all(held[key] == f"Changed {key.split('-')[1]}" for key in changed)
    assert held["AURORA-2"] == "Summary AURORA-2"


def test_a_scope_whose_jql_orders_and_ors_is_read_by_id_within_parentheses(world):
    url, interface, jira, runner, _sent, _config = world
    lean(jira, 1, 5)
    done = refreshed(runner, url, interface, jql="project = AURORA OR labels in (\"AWPCA\") ORDER BY rank DESC")

    assert done["status"] == "done" and done["result"]["total"] == 5
    assert [page["jql"] for page in searches(jira)] == [
        '(project = AURORA OR labels in ("AWPCA")) ORDER BY id ASC']


def test_the_fakes_kept_matches_answer_as_its_reading_of_every_issue_does():
    plain, indexed = FakeJira(), FakeJira(indexed=True)
    for jira in (plain, indexed):
        lean(jira, 1, 30)
        lean(jira, 31, 40, updated=LATER)
    for jql in (f"{SCOPE} ORDER BY id ASC", f"{SCOPE} AND id > 10012 ORDER BY id ASC", "id > 10035 ORDER BY id ASC",
                f'({SCOPE} AND updated >= "2026/11/20 10:30") AND id > 10033 ORDER BY id ASC'):
        assert [i["key"] for i in indexed.select(jql)] == [i["key"] for i in plain.select(jql)], jql
    assert [i["key"] for i in indexed.select("id > 10035 ORDER BY id ASC")] == [f"AURORA-{n}" for n in range(36, 41)]


class RefusingKeysets(FakeJira):
    """A Jira (or a proxy before it) that answers 400 to a JQL ordered or narrowed by id."""

    def select(self, jql: str, validate: bool = True, index: bool = True):
        if "id >" in jql or "ORDER BY id" in jql:
            return "Field 'id' does not support searching for this value."
        return super().select(jql, validate, index)


class IgnoringKeysets(FakeJira):
    """A Jira (or a replay of one) that reads the scope of a JQL but not its condition on the id."""

    def select(self, jql: str, validate: bool = True, index: bool = True):
        return super().select(re.sub(r" AND id > \d+", "", jql), validate, index)


@pytest.mark.parametrize("kind", [RefusingKeysets, IgnoringKeysets])
def test_a_jira_that_refuses_or_ignores_the_keyset_is_read_by_startat_every_issue_once(tmp_path, kind,
                                                                                         database_url):
    data_dir = tmp_path / "data"
    agent_token, interface = prepared_hub(data_dir, database_url)
    hub = start("serve", data_dir=data_dir, database_url=database_url)
    jira = kind(max_results=100, embedded=1).start()
    try:
        url = wait_for_line(hub, r"serving on (http://\S+)").group(1)
        runner = Runner(AgentConfig(hub_url=url, hub_token=agent_token, jira_url=jira.url,
                                    jira_token=jira.token, agent_id="agent-keyset", claim_wait=0))
        runner.jira.backoff = Backoff(first=0.05, longest=0.2, attempts=5)
        runner.start()
        sent: Counter = Counter()
        send_state = runner.hub.state

        def counting(command, issues, neighbors, catalogues=None, **more):
            sent.update(issue["key"] for issue in issues)
            return send_state(command, issues, neighbors, catalogues, **more)

        runner.hub.state = counting
        lean(jira, 1, 250)

        done = refreshed(runner, url, interface)

        assert done["status"] == "done"
        assert len(sent) == 250 and set(sent.values()) == {1}
        assert len(mirrored(hub_config(data_dir, database_url))) == 250
        # The pages after the first are read by startAt, as agents paged before the keyset.
        assert sorted({page["startAt"] for page in searches(jira)}) == [0, 100, 200]
    finally:
        jira.stop()
        assert stop(hub) == 0
