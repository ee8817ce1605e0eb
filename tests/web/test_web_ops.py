"""The operations page in a real browser against a real hub on loopback: it keeps itself live
(a run goes from running to done on screen by itself), shows failed commands with their errors and
retries them, shows what each agent holds and whether its Jira answers, offers actions only to the
roles that may use them, and shows hostile text from agents and Jira as text. Headless Chromium
from the system's packages (the ``browser`` fixture); each state is checked by axe-core and
leaves its screenshot (tests/support/browser.py).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest

from hub.config import Config
from tests.support import call, engine_rows, prepared_hub, run_script, serving
from tests.support.browser import TIMEOUT_MS, check_page, expect
from tests.support.engine_rows import engine_database

pytestmark = pytest.mark.backends("sqlite", shared=True)  # one engine: see tests/web/__init__.py

# The page reads again every 5 s (ops.js's LIVE_MS); a change is waited on well past that.
LIVE_MS = 5000
AGENT_ID = "web-agent-ops"
OLD_AGENT = "agent-retired"
SCRIPT = "<script>window.__injected = 'script'</script>"
IMAGE = "<img src=x onerror=\"window.__injected = 'img'\">"


@pytest.fixture(scope="module")
def site(tmp_path_factory, browser, backend, request):
    with engine_database(request, backend) as database_url:
        data_dir = tmp_path_factory.mktemp("web-ops") / "data"
        agent, interface = prepared_hub(data_dir, database_url)
        admin = run_script("token", "add", "ops-admin", "--role", "admin", data_dir=data_dir,
                           database_url=database_url)
        assert admin.returncode == 0, admin.stderr
        # An agent last heard from ten minutes ago: offline, and only an admin may forget it.
        seen = (datetime.now(UTC) - timedelta(minutes=10)).replace(microsecond=0).isoformat()
        engine_rows.execute(Config(data_dir=data_dir, database_url=database_url),
                               "INSERT INTO agent_status (agent_id, version, last_seen_at, state)"
                               " VALUES (?, 17, ?, 'idle')", OLD_AGENT, seen)
        with serving(data_dir, database_url) as url:
            yield {"url": url, "agent": agent, "interface": interface, "admin": admin.stdout.strip()}


class Page:
    """A fresh browser context and page that records console errors."""

    def __init__(self, browser, site):
        self.site = site
        self.context = browser.new_context(viewport={"width": 1280, "height": 900})
        self.context.set_default_timeout(TIMEOUT_MS)
        self.page = self.context.new_page()
        self.errors: list[str] = []
        self.page.on("console", lambda message: message.type == "error" and self.errors.append(message.text))
        self.page.on("pageerror", lambda error: self.errors.append(f"uncaught: {error}"))

    def operations(self, role: str) -> None:
        self.page.goto(self.site["url"] + "/#/ops")
        self.page.get_by_label("Token").fill(self.site[role])
        self.page.get_by_role("button", name="Sign in").click()
        self.page.get_by_role("heading", name="Operations").wait_for()
        self.page.locator("#ops-updated").filter(has_text="Updated").wait_for()

    def check(self, state: str) -> None:
        """The operations page as it is now: its screenshot kept, and axe-core's check."""
        check_page(self.page, "ops", state)


@pytest.fixture
def web(browser, site):
    page = Page(browser, site)
    yield page
    errors = page.errors
    injected = page.page.evaluate("window.__injected ?? null")
    page.context.close()
    assert errors == [], f"console errors: {errors}"
    assert injected is None, f"text from the hub ran as script: {injected}"



def agent_call(site, path: str, body: dict) -> dict:
    return call(site["url"], site["agent"], path, {"agent_id": AGENT_ID, **body})


def claimed(site, jql: str) -> dict:
    """A refresh of ``jql`` enqueued by the interface and claimed by the agent."""
    command = call(site["url"], site["interface"], "/api/v1/commands", {"type": "refresh", "params": {"jql": jql}})
    [held] = agent_call(site, "/agent/v1/claim", {"version": 18})["commands"]
    assert held["id"] == command["id"]
    return held


def runs(page):
    return page.locator("section[aria-labelledby=o-recent-sync-runs] tbody tr")


def test_a_run_goes_from_running_to_done_on_screen_by_itself(web):
    site = web.site
    command = claimed(site, "key = AURORA-12")
    web.operations("admin")
    page = web.page
    row = runs(page).filter(has=page.get_by_role("cell", name=str(command["id"]), exact=True))
    expect(row).to_contain_text("running for")
    expect(row).to_contain_text("other query")
    holder = page.locator("section[aria-labelledby=o-agents] tbody tr").filter(has_text=AGENT_ID)
    expect(holder).to_contain_text(f"refresh {command['id']}: key = AURORA-12; since")
    web.check("running")

    agent_call(site, f"/agent/v1/commands/{command['id']}/state",
               {"delivery": 1, "issues": [{"key": "AURORA-12", "id": "10012", "summary": "Cards list"}]})
    agent_call(site, f"/agent/v1/commands/{command['id']}/done", {"delivery": 1, "result": {"total": 1}})

    # No click, no reload: the page reads the hub again on its own.
    expect(row).to_contain_text("done", timeout=LIVE_MS * 4)
    expect(row.locator("td").nth(5)).to_have_text(re.compile(r"^\d+(\.\d)? s$|^\d+ min \d\d s$"))
    expect(row.locator("td").nth(6)).to_have_text("1")
    expect(holder).not_to_contain_text(f"refresh {command['id']}")
    web.check("done")


def test_a_failed_command_shows_its_error_as_text_and_retry_enqueues_it_again(web):
    site = web.site
    jql = f"key = AURORA-13 {IMAGE}"
    command = claimed(site, jql)
    error = f"Jira answered 400: {SCRIPT} {IMAGE}"
    agent_call(site, f"/agent/v1/commands/{command['id']}/failed", {"delivery": 1, "error": error})
    web.operations("interface")
    page = web.page
    section = page.locator("section[aria-labelledby=o-failed-and-cancelled-commands]")
    row = section.locator("tbody tr").filter(has=page.get_by_role("cell", name=str(command["id"]), exact=True))
    expect(row).to_contain_text(error)
    expect(row).to_contain_text(jql)
    expect(row).to_contain_text("failed")
    assert section.locator("img, script").count() == 0
    web.check("failed")

    page.get_by_role("button", name=f"Retry command {command['id']}").click()

    expect(page.get_by_role("status").first).to_contain_text(f"Command {command['id']} retried: command")
    again = int(re.search(r"retried: command (\d+)", page.get_by_role("status").first.text_content()).group(1))
    retried = call(site["url"], site["interface"], f"/api/v1/commands/{again}")
    assert (retried["type"], retried["params"], retried["status"]) == ("refresh", {"jql": jql}, "queued")
    open_rows = page.locator("section[aria-labelledby=o-open-commands] tbody tr")
    expect(open_rows.filter(has=page.get_by_role("cell", name=str(again), exact=True))).to_contain_text("queued")
    # Out of the way for the next test: the retried command is cancelled.
    call(site["url"], site["interface"], f"/api/v1/commands/{again}/cancel", {})


def test_an_agent_holding_a_command_and_unable_to_reach_jira_says_so(web):
    site = web.site
    command = claimed(site, "key = AURORA-14")
    agent_call(site, "/agent/v1/heartbeat", {
        "version": 18, "state": "idle", "detail": f"waiting on Jira {SCRIPT}",
        "jira": {"reachable": False, "checked_at": datetime.now(UTC).replace(microsecond=0).isoformat(),
                 "error": f"ConnectError: refused {IMAGE}"}})
    web.operations("admin")
    page = web.page
    row = page.locator("section[aria-labelledby=o-agents] tbody tr").filter(has_text=AGENT_ID)
    expect(row).to_contain_text("online, Jira unreachable since")
    expect(row).to_contain_text(f"ConnectError: refused {IMAGE}")
    expect(row).to_contain_text(f"waiting on Jira {SCRIPT}")
    # It holds a command: not shown idle, whatever its state word says.
    expect(row).to_contain_text(f"refresh {command['id']}: key = AURORA-14; since")
    expect(row).to_contain_text("lease until")
    assert row.locator("img, script").count() == 0
    web.check("jira-unreachable")

    agent_call(site, "/agent/v1/heartbeat", {"version": 18, "jira": {"reachable": True}})
    expect(row).to_contain_text("online; Jira reachable", timeout=LIVE_MS * 4)
    call(site["url"], site["interface"], f"/api/v1/commands/{command['id']}/cancel", {})


def test_an_interface_token_is_offered_no_admin_only_action(web):
    web.operations("interface")
    page = web.page
    old = page.locator("section[aria-labelledby=o-agents] tbody tr").filter(has_text=OLD_AGENT)
    expect(old).to_contain_text("offline")
    # An interface token may enqueue, cancel and retry (the routes' roles), but not forget an agent.
    expect(page.get_by_role("button", name="Enqueue a full refresh")).to_be_visible()
    expect(page.get_by_role("button", name=re.compile("^Forget agent"))).to_have_count(0)
    web.check("interface")


def test_an_admin_forgets_an_offline_agent(web):
    web.operations("admin")
    page = web.page
    forget = page.get_by_role("button", name=f"Forget agent {OLD_AGENT}")
    expect(forget).to_be_visible()
    forget.click()
    expect(page.get_by_role("status").first).to_contain_text(f"Agent {OLD_AGENT} forgotten")
    expect(page.locator("section[aria-labelledby=o-agents] tbody tr").filter(has_text=OLD_AGENT)).to_have_count(0)


def test_the_page_stops_reading_once_left(web):
    web.operations("interface")
    page = web.page
    asked: list[str] = []
    page.on("request", lambda request: "/api/v1/overview" in request.url and asked.append(request.url))
    page.get_by_role("link", name="Issues").click()
    page.get_by_role("heading", name="Issues").wait_for()
    # Absence can only be waited out: more than one period of the page's timer.
    page.wait_for_timeout(LIVE_MS * 1.5)
    assert asked == []
