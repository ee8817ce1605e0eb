"""The agent's Jira client against the fake Jira on loopback: paging, auth, rate limits, batches."""

from __future__ import annotations

import time

import pytest

from agent.jira_client import JiraAuthError, JiraClient, JiraError
from agent.retry import Backoff
from demo.fakejira import FakeJira

pytestmark = pytest.mark.backends("sqlite", "postgresql")


@pytest.fixture
def jira():
    fake = FakeJira(max_results=7, embedded=2).start()
    for n in range(1, 24):
        fake.add_issue(f"AURORA-{n}", labels=["AWPCA"] if n % 2 else [])
    yield fake
    fake.stop()


def client(fake: FakeJira, **kwargs) -> JiraClient:
    kwargs.setdefault("token", fake.token)
    return JiraClient(fake.url, backoff=Backoff(first=0.05, longest=0.2, attempts=4), **kwargs)


def test_search_follows_the_paging_jira_returns_when_it_clamps_max_results(jira):
    pages = list(client(jira).search("project = AURORA ORDER BY key ASC", ["summary"], page_size=100))
    assert [len(page["issues"]) for page, _ in pages] == [7, 7, 7, 2]
    assert {total for _, total in pages} == {23}
    keys = [i["key"] for page, _ in pages for i in page["issues"]]
    assert keys == [f"AURORA-{n}" for n in range(1, 24)]
    asked = [body["startAt"] for method, path, body in jira.requests if path == "/rest/api/2/search"]
    assert asked == [0, 7, 14, 21]


def test_search_of_nothing_is_one_empty_page(jira):
    assert [(p["issues"], t) for p, t in client(jira).search("project = NONE", ["summary"])] == [([], 0)]


def test_comments_beyond_what_search_embedded_are_paged_from_the_issue(jira):
    for n in range(17):
        jira.add_comment("AURORA-1", str(100 + n), f"comment {n}")
    comments = client(jira).comments("AURORA-1")
    assert [c["id"] for c in comments] == [str(100 + n) for n in range(17)]


def test_worklogs_beyond_what_search_embedded_are_paged_from_the_issue(jira):
    for n in range(17):
        jira.add_worklog("AURORA-1", str(40000 + n), 60 * (n + 1))
    [(page, _)] = list(client(jira).search('key in ("AURORA-1")', ["*all"]))
    embedded = page["issues"][0]["fields"]["worklog"]
    assert len(embedded["worklogs"]) == 2 and embedded["total"] == 17
    worklogs = client(jira).worklogs("AURORA-1")
    assert [(w["id"], w["timeSpentSeconds"]) for w in worklogs] == [(str(40000 + n), 60 * (n + 1)) for n in range(17)]
    assert page["issues"][0]["fields"]["timespent"] == sum(60 * (n + 1) for n in range(17))


def test_all_fields_return_every_field_and_an_explicit_list_only_those(jira):
    [(every, _)] = list(client(jira).search('key in ("AURORA-1")', ["*all"]))
    [(some, _)] = list(client(jira).search('key in ("AURORA-1")', ["summary", "resolution", "customfield_10300"]))
    fields = every["issues"][0]["fields"]
    assert {"resolution", "fixVersions", "environment", "worklog", "timetracking", "customfield_10300"} <= set(fields)
    assert fields["resolution"] is None and fields["customfield_10300"] is None  # null where empty, as Jira has it
    assert set(some["issues"][0]["fields"]) == {"summary", "resolution", "customfield_10300"}


def test_the_catalogues_are_read_in_jiras_order(jira):
    jira_client = client(jira)
    assert [p["name"] for p in jira_client.catalogue("priorities")] == ["Blocker", "Critical", "Major", "Minor",
                                                                        "Trivial"]
    assert jira_client.catalogue("link_types")[0]["outward"] == "blocks"  # unwrapped from issueLinkTypes
    assert all(s["statusCategory"]["key"] for s in jira_client.catalogue("statuses"))
    assert [t["subtask"] for t in jira_client.catalogue("issue_types")].count(True) == 1
    assert jira_client.catalogue("resolutions")[0]["name"] == "Fixed"


def test_the_changelog_is_read_whole_from_the_issue(jira):
    for n in range(5):
        jira.add_history("AURORA-2", str(5000 + n), "status", "Open", "Done")
    assert [h["id"] for h in client(jira).changelog("AURORA-2")] == [str(5000 + n) for n in range(5)]


def test_a_deleted_key_fails_a_validated_batch_but_not_one_with_validate_query_false(jira):
    jql = 'key in ("AURORA-1", "AURORA-99", "AURORA-3")'
    with pytest.raises(JiraError, match="AURORA-99"):
        list(client(jira).search(jql, ["summary"]))
    [(page, total)] = list(client(jira).search(jql, ["summary"], validate=False))
    assert [i["key"] for i in page["issues"]] == ["AURORA-1", "AURORA-3"] and total == 2


def test_a_pat_goes_as_bearer_and_a_user_as_basic_auth(jira):
    assert client(jira).myself()["timeZone"] == "Europe/Moscow"
    assert client(jira, token=None, user="jira-user", password="secret").myself()["name"] == "ivanov"
    with pytest.raises(JiraAuthError, match="401"):
        client(jira, token="wrong").myself()
    with pytest.raises(JiraAuthError):
        client(jira, token=None, user="jira-user", password="nope").fields()


def test_429_waits_as_long_as_retry_after_says_then_answers(jira):
    jira.throttle = 2
    waits = []
    started = time.monotonic()
    me = client(jira, on_wait=waits.append).myself()
    assert me["name"] == "ivanov"
    assert time.monotonic() - started >= 1.9  # two answers of Retry-After: 1, not the 0.05 s backoff
    assert waits == ["Jira answered 429", "Jira answered 429"]


def test_retries_are_bounded(jira):
    jira.throttle = 10
    with pytest.raises(JiraError, match="429"):
        JiraClient(jira.url, token=jira.token, backoff=Backoff(first=0.01, longest=0.01, attempts=2)).myself()


def test_each_retry_is_logged_so_a_waiting_agent_does_not_look_hung(jira, caplog):
    jira.throttle = 1
    with caplog.at_level("WARNING", logger="agent.retry"):
        JiraClient(jira.url, token=jira.token, backoff=Backoff(first=0.01, longest=0.01, attempts=3)).myself()
    assert [r.getMessage().split(";")[0] for r in caplog.records] == ["Jira answered 429"]
    assert "trying again in" in caplog.records[0].getMessage()
