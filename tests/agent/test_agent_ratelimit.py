"""Jira's rate limit and a proxy's sign-in page: the agent paces itself to the token bucket Data
Center announces (no 429 on a run of thousands of requests), still waits out a 429's Retry-After,
names its waits in the heartbeat, and fails a command that meets a sign-in page with the page's
address, against the fake Jira and a real hub on loopback."""

from __future__ import annotations

import itertools
import re
import threading
import time

import httpx
import pytest

from agent.config import AgentConfig
from agent.handlers.refresh import handle as run_refresh
from agent.hub_client import Command
from agent.jira_client import JiraClient, JiraError, JiraSignInPage
from agent.pacing import Pacer
from agent.retry import Backoff, GaveUp
from agent.runner import Runner, StartupError
from demo.fakejira import SIGN_IN_PATH, FakeJira
from tests.support import call, prepared_hub, start, stop, wait_for_line, wait_until

# long: the rate limits are waited out in real time, a minute or more.
# The hub's client is this module's subject, not the hub's engine: one engine will do (docs/architecture.md, Tests).
pytestmark = [pytest.mark.backends("sqlite"), pytest.mark.long]


@pytest.fixture
def jira():
    fake = FakeJira().start()
    try:
        yield fake
    finally:
        fake.stop()


@pytest.fixture
def world(tmp_path, database_url):
    data_dir = tmp_path / "data"
    agent_token, interface = prepared_hub(data_dir, database_url)
    hub = start("serve", data_dir=data_dir, database_url=database_url)
    fake = FakeJira(max_results=5, embedded=1).start()
    try:
        url = wait_for_line(hub, r"serving on (http://\S+)").group(1)
        config = AgentConfig(hub_url=url, hub_token=agent_token, jira_url=fake.url, jira_token=fake.token,
                             agent_id="agent-paced", claim_wait=0, page_size=5)
        runner = Runner(config)
        runner.start()
        runner.heartbeat_every = 0.1
        yield url, interface, fake, runner
    finally:
        runner.stopping.set()
        fake.stop()
        assert stop(hub) == 0


def claimed(runner: Runner, url: str, interface: str) -> Command:
    call(url, interface, "/api/v1/commands", {"type": "refresh"})
    [command] = runner.hub.claim(limit=1, wait=0).commands
    return command


def heartbeats(runner: Runner) -> threading.Thread:
    """The runner's heartbeat thread, as ``run()`` starts it; it ends when the runner stops."""
    beat = threading.Thread(target=runner._heartbeats, daemon=True)
    beat.start()
    return beat


def agent_detail(url: str, interface: str) -> str:
    [agent] = [a for a in call(url, interface, "/api/v1/agents")["items"] if a["agent_id"] == "agent-paced"]
    return agent["detail"] or ""


def test_the_fake_bucket_announces_itself_and_answers_429_when_empty(jira):
    bucket = jira.rate_limit(3, 2, interval=1)
    with httpx.Client(base_url=jira.url, headers={"Authorization": f"Bearer {jira.token}"}) as http:
        answers = [http.get("/rest/api/2/myself") for _ in range(4)]
    assert [a.status_code for a in answers] == [200, 200, 200, 429]
    assert [a.headers["X-RateLimit-Remaining"] for a in answers] == ["2", "1", "0", "0"]
    assert {(a.headers["X-RateLimit-Limit"], a.headers["X-RateLimit-FillRate"],
             a.headers["X-RateLimit-Interval-Seconds"]) for a in answers} == {("3", "2", "1")}
    assert answers[0].headers["Retry-After"] == "0" and answers[3].headers["Retry-After"] == "1"
    assert bucket.refused == 1


def test_thousands_of_requests_from_three_threads_meet_no_429_and_take_what_the_bucket_needs(jira):
    bucket = jira.rate_limit(200, 200, interval=1)
    client = JiraClient(jira.url, token=jira.token)
    each, threads = 800, 3
    began = time.monotonic()

    def work():
        for _ in range(each):
            client.myself()

    workers = [threading.Thread(target=work) for _ in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    took = time.monotonic() - began
    assert bucket.refused == 0 and bucket.granted == each * threads
    # A batch fills the bucket up to its limit at most: that many tokens an interval, past the first bucketful.
    needed = (each * threads - bucket.limit) / min(bucket.fill_rate, bucket.limit) * bucket.interval
    assert client.pacer.waited > 0
    # No faster than the bucket refills (less the batch that may have landed as the run began), and
    # not much slower than it: pacing that waited far too long would show here.
    assert needed - bucket.interval <= took < 3 * needed + 20


def test_a_429_with_retry_after_is_waited_out_when_someone_else_emptied_the_bucket(jira):
    bucket = jira.rate_limit(5, 5, interval=2)
    client = JiraClient(jira.url, token=jira.token, backoff=Backoff(first=0.05, longest=0.1, attempts=4))
    for _ in range(5):
        bucket.take()  # another client of the same Jira user spends the bucket
    waits = []
    client.on_wait = waits.append
    assert client.myself()["name"] == "ivanov"
    assert bucket.refused == 1 and waits == ["Jira answered 429"]
    told, answered = jira.arrivals[-2][0], jira.arrivals[-1][0]
    assert answered - told >= 0.9  # Retry-After says at least 1 s, much more than the backoff's 0.1 s


def test_a_long_refresh_meets_no_429_and_its_heartbeat_says_it_waits_on_the_rate_limit(world):
    url, interface, jira, runner = world
    for n in range(1, 601):
        jira.add_issue(f"AURORA-{n}", labels=["AWPCA"])
        jira.add_comment(f"AURORA-{n}", str(n * 10), "first")
        jira.add_comment(f"AURORA-{n}", str(n * 10 + 1), "second")  # past the one embedded: fetched alone
    bucket = jira.rate_limit(100, 100, interval=1)
    # Slow searches beside quick comment requests: a search's Remaining comes back older than theirs.
    jira.delay = 0.02
    command = claimed(runner, url, interface)
    heartbeats(runner)
    refresh = threading.Thread(target=run_refresh, args=(runner, command))
    refresh.start()
    seen = wait_until(lambda: re.search(r"waiting \d+ s on Jira's rate limit \(\d+ of 100 left\)",
                                        agent_detail(url, interface)), timeout=60, every=0.1)
    refresh.join(timeout=300)
    assert seen and not refresh.is_alive()
    done = call(url, interface, f"/api/v1/commands/{command.id}")
    assert done["status"] == "done" and done["result"]["total"] == 600
    assert bucket.refused == 0 and bucket.granted > 700  # a search a page of 5, a comment request an issue
    assert call(url, interface, "/api/v1/issues/AURORA-600/comments")["items"][1]["id"] == "6001"


def test_a_sign_in_page_after_a_redirect_fails_the_command_with_its_address_shown_in_the_heartbeat(world):
    url, interface, jira, runner = world
    jira.add_issue("AURORA-1", labels=["AWPCA"])
    command = claimed(runner, url, interface)
    jira.sign_in = "redirect"
    runner._execute(command, threading.Semaphore(0))
    failed = call(url, interface, f"/api/v1/commands/{command.id}")
    assert failed["status"] == "failed"
    assert "sign-in page" in failed["error"] and f"{jira.url}{SIGN_IN_PATH}?destination=" in failed["error"]
    assert "JSON" not in failed["error"] and "decode" not in failed["error"].lower()
    heartbeats(runner)
    assert wait_until(lambda: "sign-in page" in agent_detail(url, interface))


def test_a_sign_in_page_answered_straight_names_the_rest_call_it_answered(jira):
    client = JiraClient(jira.url, token=jira.token)
    jira.sign_in = "page"
    with pytest.raises(JiraSignInPage) as caught:
        client.fields()
    assert caught.value.url == f"{jira.url}/rest/api/2/field"
    assert isinstance(caught.value, JiraError) and "/field" in str(caught.value)


def test_a_sign_in_page_at_start_stops_the_agent_with_the_address(jira):
    jira.sign_in = "redirect"
    runner = Runner(AgentConfig(hub_url="http://127.0.0.1:9", hub_token="t", jira_url=jira.url,
                                jira_token=jira.token, agent_id="agent-paced"))
    with pytest.raises(StartupError) as caught:
        runner.start()
    assert caught.value.code == 1 and "sign-in page" in str(caught.value)
    assert f"{jira.url}{SIGN_IN_PATH}" in str(caught.value)


def test_a_sign_in_page_labelled_as_json_is_told_by_its_body(jira):
    client = JiraClient(jira.url, token=jira.token)
    jira.sign_in = "mislabelled"
    with pytest.raises(JiraSignInPage, match="sign-in page instead of /myself"):
        client.myself()


def test_a_stop_cuts_a_wait_on_the_rate_limit_short(jira):
    jira.rate_limit(3, 1, interval=60)
    client = JiraClient(jira.url, token=jira.token)
    told = []

    def waits(message):
        told.append(message)
        if message:
            client.pacer.stopping.set()  # the agent is told to stop as the wait begins

    client.pacer.on_wait = waits
    client.myself()  # learns the bucket: 2 left
    client.myself()
    client.myself()
    began = time.monotonic()
    with pytest.raises(GaveUp, match="stopping"):
        client.myself()
    assert time.monotonic() - began < 30  # not the minute the next batch is a minute away
    assert told[0].startswith("waiting ") and "on Jira's rate limit (0 of 3 left)" in told[0] and told[1] is None


def test_a_sign_in_address_with_kilobytes_of_query_is_named_without_them():
    long = "https://sso.example/adfs/ls/?SAMLRequest=" + "x" * 4000
    error = JiraSignInPage("search", long)
    assert error.url == long and "at https://sso.example/adfs/ls/?…:" in str(error) and len(str(error)) < 400


def test_a_429_whose_retry_after_is_0_is_backed_off_rather_than_tried_again_at_once(jira):
    jira.throttle, jira.retry_after = 3, 0
    client = JiraClient(jira.url, token=jira.token, backoff=Backoff(first=0.2, longest=0.4, attempts=5))
    assert client.myself()["name"] == "ivanov"
    times = [at for at, _ in jira.arrivals]
    assert min(later - earlier for earlier, later in itertools.pairwise(times)) >= 0.09  # half the first backoff


def test_a_refresh_through_a_proxy_that_limits_one_request_in_nine_finishes(world):
    url, interface, jira, runner = world
    for n in range(1, 31):
        jira.add_issue(f"AURORA-{n}", labels=["AWPCA"])
        jira.add_comment(f"AURORA-{n}", str(n * 10), "first")
        jira.add_comment(f"AURORA-{n}", str(n * 10 + 1), "second")  # fetched alone: a request an issue
    # One answer in nine a 429 announcing an empty bucket of 9 (1 a second); the others announce nothing.
    jira.spotty_limit(9, limit=9, fill_rate=1, interval=1, retry_after=1)
    for _ in range(2):  # the second run is the one that stalled, on the bucket of the first run's last 429
        command = claimed(runner, url, interface)
        refresh = threading.Thread(target=run_refresh, args=(runner, command), daemon=True)
        refresh.start()
        refresh.join(timeout=300)  # a guard against a hang, not a measure: the run takes seconds
        assert not refresh.is_alive()
        done = call(url, interface, f"/api/v1/commands/{command.id}")
        assert done["status"] == "done" and done["result"]["total"] == 30
    assert sum(throttled for _, throttled in jira.arrivals) >= 8  # a run makes some 45 requests


def test_a_refresh_whose_jira_changes_its_rate_limit_midway_finishes(world):
    url, interface, jira, runner = world
    for n in range(1, 61):
        jira.add_issue(f"AURORA-{n}", labels=["AWPCA"])
        jira.add_comment(f"AURORA-{n}", str(n * 10), "first")
        jira.add_comment(f"AURORA-{n}", str(n * 10 + 1), "second")
    searches = itertools.count(1)

    def change_the_limit(body):
        number = next(searches)
        if number == 1:
            jira.spotty_limit(9)  # a proxy's limit: one 429 in nine with an empty bucket's headers
        elif number == 3:
            jira.spotty, jira.throttle, jira.retry_after = None, 1, None  # a 429 that says nothing at all
        elif number == 5:
            jira.rate_limit(20, 20, interval=1)  # Jira's own bucket, announced in every answer
        elif number == 7:
            jira.rate_limit(6, 3, interval=1)  # configured anew: a smaller Limit and FillRate
        elif number == 9:
            jira.bucket, jira.throttle, jira.retry_after = None, 1, 2  # lifted; a 429 with Retry-After alone
        elif number == 11:
            jira.spotty_limit(9, retry_after=None)  # 429s announcing an empty bucket, without Retry-After

    jira.on_search = change_the_limit
    command = claimed(runner, url, interface)
    refresh = threading.Thread(target=run_refresh, args=(runner, command), daemon=True)
    refresh.start()
    refresh.join(timeout=300)  # a guard against a hang, not a measure
    assert not refresh.is_alive() and next(searches) > 12
    done = call(url, interface, f"/api/v1/commands/{command.id}")
    assert done["status"] == "done" and done["result"]["total"] == 60
    assert call(url, interface, "/api/v1/issues/AURORA-60/comments")["items"][1]["id"] == "601"


def test_an_answer_without_rate_limit_headers_ends_the_pacing_on_the_bucket_before_it(jira):
    jira.rate_limit(3, 1, interval=60)
    client = JiraClient(jira.url, token=jira.token)
    client.myself()
    client.myself()  # one token left: the third goes, a fourth would wait a minute on this bucket
    jira.bucket = None  # the user is exempted from rate limiting: Jira announces no bucket any more
    for _ in range(10):
        client.myself()
    assert client.pacer.waited == 0


def test_a_429_without_rate_limit_headers_ends_the_pacing_on_the_bucket_before_it(jira):
    jira.rate_limit(3, 1, interval=60)
    client = JiraClient(jira.url, token=jira.token, backoff=Backoff(first=0.05, longest=0.1, attempts=4))
    client.myself()
    client.myself()
    # A proxy in front of Jira now limits the rate: its 429 carries neither X-RateLimit-* nor Retry-After.
    jira.bucket, jira.throttle, jira.retry_after = None, 1, None
    for _ in range(10):
        client.myself()
    assert sum(throttled for _, throttled in jira.arrivals) == 1 and client.pacer.waited == 0


def test_no_wait_on_the_rate_limit_is_longer_than_the_retry_after_jira_said(jira):
    # A bucket of 9 refilled 1 token every 2 s: the pacer keeps one token aside, so its own estimate
    # would wait two batches (4 s) where Jira's Retry-After says the next token comes within 2 s.
    bucket = jira.rate_limit(9, 1, interval=2)
    client = JiraClient(jira.url, token=jira.token)
    told: list[str] = []
    client.pacer.on_wait = lambda message: told.append(message) if message else None
    for _ in range(13):
        client.myself()
    seconds = [int(re.match(r"waiting (\d+) s", message).group(1)) for message in told]
    assert len(seconds) >= 3 and max(seconds) <= 2
    assert bucket.refused == 0 and bucket.granted == 13


def test_requests_whose_answers_never_came_hold_no_wait_past_the_bucket_refill():
    pacer = Pacer()
    ticket = pacer.before()
    pacer.after(ticket, {"X-RateLimit-Limit": "2", "X-RateLimit-Remaining": "0", "X-RateLimit-FillRate": "1",
                         "X-RateLimit-Interval-Seconds": "0.2"})
    for _ in range(50):  # sent, and lost to network errors: counted as spent, never answered
        pacer.after(pacer.unpaced(), None)
    # Counted against the bucket they would keep it empty for ever; the bucket itself is full in 0.4 s.
    going = threading.Thread(target=pacer.before, daemon=True)
    going.start()
    going.join(timeout=30)  # a guard against a hang, not a measure
    assert not going.is_alive() and pacer.waited > 0


def test_a_wait_on_a_bucket_ends_when_an_answer_announces_it_configured_anew(jira):
    jira.rate_limit(3, 1, interval=3600)
    client = JiraClient(jira.url, token=jira.token)
    for _ in range(3):
        client.myself()  # the bucket is empty for an hour
    waiting = threading.Event()
    client.pacer.on_wait = lambda message: waiting.set() if message else None
    asked = threading.Thread(target=client.myself, daemon=True)
    asked.start()
    assert waiting.wait(30)
    raised = jira.rate_limit(50, 50, interval=1)  # the administrator raises the limit
    client.probe()  # what the heartbeat does once Jira has not been called for a minute
    asked.join(timeout=30)  # a guard against a hang, not a measure: the old bucket said an hour
    assert not asked.is_alive() and raised.granted == 2 and raised.refused == 0


def listed(url: str, interface: str) -> dict:
    [agent] = [a for a in call(url, interface, "/api/v1/agents")["items"] if a["agent_id"] == "agent-paced"]
    return agent


def test_a_wait_on_the_rate_limit_is_told_at_once_as_working_not_at_the_next_periodic_heartbeat(world):
    url, interface, jira, runner = world
    jira.add_issue("AURORA-1", labels=["AWPCA"])
    jira.rate_limit(3, 1, interval=3600)
    for _ in range(3):
        runner.jira.myself()  # the bucket is empty for an hour
    runner.heartbeat_every = 3600  # no periodic heartbeat within the test
    command = claimed(runner, url, interface)
    heartbeats(runner)
    running = threading.Thread(target=runner._execute, args=(command, threading.Semaphore(0)), daemon=True)
    running.start()  # its first request, /field, waits on the bucket before any page
    seen = wait_until(lambda: (lambda agent: agent if "on Jira's rate limit" in (agent["detail"] or "") else None)(
        listed(url, interface)), message="the wait told to the hub")
    assert seen["state"] == "working" and "(0 of 3 left)" in seen["detail"]
    runner.stop()
    running.join(timeout=30)
    assert not running.is_alive()
    assert call(url, interface, f"/api/v1/commands/{command.id}")["status"] == "claimed"  # its lease returns it


def test_a_sign_in_page_is_told_at_once_not_at_the_next_periodic_heartbeat(world):
    url, interface, jira, runner = world
    jira.add_issue("AURORA-1", labels=["AWPCA"])
    runner.heartbeat_every = 3600
    command = claimed(runner, url, interface)
    heartbeats(runner)
    jira.sign_in = "page"
    runner._execute(command, threading.Semaphore(0))
    assert wait_until(lambda: "sign-in page" in agent_detail(url, interface), message="the sign-in page told")
