"""The web interface in a real browser against a real hub on loopback.

Headless Chromium from the system's packages, driven by Playwright (never its
own browser download). Without Playwright or a browser these tests skip,
saying which is missing; with CI=true they fail instead. Each page and state is
checked by axe-core and leaves its screenshot among the test artifacts
(tests/support/browser.py's check_page).

The module's hub is a ``hub serve`` on SQLite, started once (tests/web/__init__.py says why
one engine): what the pages show is what the hub read from its database.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
import urllib.request
from pathlib import Path

import pytest

from tests.support import (
    PDF,
    call,
    next_second,
    prepared_hub,
    run_script,
    serving,
    wait_until,
)
from tests.support.browser import TIMEOUT_MS, check_page, expect

pytestmark = pytest.mark.backends("sqlite", shared=True)  # one engine: see tests/web/__init__.py

AGENT_ID = "web-agent"
SCRIPT = "<script>window.__injected = 'script'</script>"
IMAGE = "<img src=x onerror=\"window.__injected = 'img'\">"
DESCRIPTION = (f"h1. Setup\nRun *this* first, see [the guide|http://wiki/guide].\n{SCRIPT}\n{IMAGE}\n"
               "* step one\n* step two")


def issue_state(key: str, **fields) -> dict:
    return {"key": key, "id": key.split("-")[1], "summary": f"Summary of {key}", "issue_type": "Task",
            "status": "Open", "updated": "2026-10-22T13:05:11.000+0300", **fields}


def seed(url: str, agent: str, interface: str) -> None:
    """One refresh through the agent API: AURORA-1..3 related, and 30 more issues to page through."""
    command = call(url, interface, "/api/v1/commands", {"type": "refresh"})
    [claimed] = call(url, agent, "/agent/v1/claim", {"agent_id": AGENT_ID, "version": 14})["commands"]
    assert claimed["id"] == command["id"]
    first = issue_state(
        "AURORA-1", summary="Cards list", issue_type="Story", assignee="ivanov", description=DESCRIPTION,
        labels=["AWPCA"], links=[{"type": "Blocks", "outward": "AURORA-2"}, {"type": "Relates", "inward": "AURORA-3"}],
        comments=[{"id": "101", "author": "petrov", "created": "2026-10-22T13:05:11.000+0300",
                   "body": "Looks *fine* to me"}],
        changes=[{"id": "5001", "author": "ivanov", "created": "2026-10-22T13:05:11.000+0300",
                  "items": [{"field": "status", "from_string": "Open", "to_string": "In Progress"}]}],
        attachments=[{"id": "901", "filename": "spec.pdf", "size": len(PDF), "mime_type": "application/pdf"}])
    issues = [first, issue_state("AURORA-2", status="Done", summary="Export",
                                 attachments=[{"id": "904", "filename": "gone.pdf", "size": 10}]),
              issue_state("AURORA-3", summary="Filters", attachments=[
                  {"id": "902", "filename": "a.txt", "size": len(PDF)},
                  {"id": "903", "filename": "b.txt", "size": len(PDF)}])]
    issues += [issue_state(f"AURORA-{n}") for n in range(10, 40)]
    for start_at in range(0, len(issues), 100):
        call(url, agent, f"/agent/v1/commands/{claimed['id']}/state",
             {"agent_id": AGENT_ID, "delivery": 1, "issues": issues[start_at:start_at + 100]})
    call(url, agent, f"/agent/v1/commands/{claimed['id']}/done",
         {"agent_id": AGENT_ID, "delivery": 1, "result": {"total": len(issues)}})


@pytest.fixture(scope="module")
def site(tmp_path_factory, browser, module_database_url):
    """A seeded hub serving on loopback: its URL and tokens by role."""
    data_dir = tmp_path_factory.mktemp("web") / "data"
    agent, interface = prepared_hub(data_dir, module_database_url)
    made = run_script("token", "add", "ops", "--role", "admin", data_dir=data_dir, database_url=module_database_url)
    assert made.returncode == 0, made.stderr
    with serving(data_dir, module_database_url) as url:
        seed(url, agent, interface)
        yield {"url": url, "agent": agent, "interface": interface, "admin": made.stdout.strip()}


def open_filters(page) -> None:
    """Unfold the list's filters (folded behind "Filters (n)" on every screen)."""
    toggle = page.locator(".filters-toggle")
    if toggle.get_attribute("aria-expanded") != "true":
        toggle.click()


class Page:
    """A fresh browser context and page that records console errors."""

    def __init__(self, browser, site, viewport=(1280, 900)):
        self.site = site
        self.context = browser.new_context(viewport={"width": viewport[0], "height": viewport[1]},
                                           accept_downloads=True)
        self.context.set_default_timeout(TIMEOUT_MS)
        self.page = self.context.new_page()
        self.errors: list[str] = []
        self.page.on("console", lambda message: message.type == "error" and self.errors.append(message.text))
        self.page.on("pageerror", lambda error: self.errors.append(f"uncaught: {error}"))

    def sign_in(self, role: str = "interface") -> None:
        self.page.goto(self.site["url"] + "/")
        self.page.get_by_label("Token").fill(self.site[role])
        self.page.get_by_role("button", name="Sign in").click()
        self.page.get_by_role("heading", name="Issues").wait_for()

    def screenshot(self, name: str, state: str = "shown") -> None:
        """The page's screenshot, ``<name>-<state>.png``, and its accessibility check."""
        check_page(self.page, name, state)

    def close(self) -> None:
        self.context.close()


@pytest.fixture
def web(browser, site):
    page = Page(browser, site)
    yield page
    errors = page.errors
    page.close()
    assert errors == [], f"console errors: {errors}"



def test_a_wrong_token_is_refused_clearly_then_the_right_one_signs_in(web):
    page = web.page
    page.goto(web.site["url"] + "/")
    expect(page.get_by_label("Token")).to_be_focused()
    web.screenshot("sign-in", "start")
    page.get_by_label("Token").fill("not-a-token")
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("alert")).to_contain_text("Wrong token")
    web.screenshot("sign-in", "wrong-token")
    # The hub's 401 is the one error the browser itself logs here.
    assert all("401" in error for error in web.errors), web.errors
    web.errors.clear()
    assert page.evaluate("sessionStorage.length") == 0
    page.get_by_label("Token").fill(web.site["interface"])
    page.get_by_label("Token").press("Enter")
    expect(page.get_by_role("heading", name="Issues")).to_be_visible()
    page.get_by_role("button", name="Sign out").click()
    expect(page.get_by_role("heading", name="Sign in")).to_be_visible()
    assert page.evaluate("sessionStorage.length") == 0


def test_issues_filter_and_page_by_cursor(web):
    web.sign_in()
    page = web.page
    rows = page.locator("#results tbody tr")
    expect(rows).to_have_count(25)
    expect(page.get_by_role("status").first).to_contain_text("Page 1")
    page.get_by_role("button", name="Next page").click()
    expect(rows).to_have_count(8)
    expect(page.get_by_role("button", name="Next page")).to_be_disabled()
    page.get_by_role("button", name="Previous page").click()
    expect(rows).to_have_count(25)
    expect(page.get_by_role("button", name="Previous page")).to_be_disabled()
    web.screenshot("issues", "first-page")

    page.get_by_label("Search").fill("cards")
    page.get_by_role("button", name="Search").click()
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("AURORA-1")
    expect(rows.first.locator(".snippet mark")).to_have_text("Cards")  # the hub's [[ ]] as a highlight
    expect(page.get_by_text("Order: best match first.")).to_be_visible()
    web.screenshot("issues", "search")
    page.get_by_role("button", name="Clear").click()
    expect(rows).to_have_count(25)
    open_filters(page)
    page.get_by_label("Status").fill("Done")
    page.get_by_label("Assignee").fill("")
    page.get_by_role("button", name=re.compile("Apply filters|Search")).click()
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("AURORA-2")
    web.screenshot("issues", "filtered")
    page.get_by_label("Status").fill("")
    page.get_by_label("Assignee").fill("ivanov")
    page.get_by_label("Assignee").press("Enter")
    expect(rows).to_have_count(1)
    page.get_by_role("link", name="AURORA-1").click()
    expect(page.get_by_role("heading", name="AURORA-1 Cards list")).to_be_visible()


def test_the_address_sets_the_lists_page_size_and_a_search_keeps_it(web):
    web.sign_in()
    page = web.page
    rows = page.locator("#results tbody tr")
    page.goto(web.site["url"] + "/#/issues?limit=30")
    expect(rows).to_have_count(30)
    page.get_by_role("button", name="Next page").click()
    expect(rows).to_have_count(3)
    open_filters(page)
    page.get_by_label("Status").fill("Open")
    page.get_by_role("button", name="Search").click()
    expect(rows).to_have_count(30)
    assert page.evaluate("location.hash") == "#/issues?limit=30&status=Open"


def test_an_issue_shows_its_fields_links_comments_changelog_and_its_description_as_text(web):
    web.sign_in()
    page = web.page
    page.goto(web.site["url"] + "/#/issue/AURORA-1")
    expect(page.get_by_role("heading", name="AURORA-1 Cards list")).to_be_visible()
    description = page.locator("#description")
    expect(description).to_contain_text(SCRIPT)
    expect(description).to_contain_text(IMAGE)
    expect(description.get_by_role("heading", name="Setup")).to_be_visible()
    expect(description).to_contain_text("Run this first, see the guide.")
    expect(description.get_by_role("link", name="the guide")).to_have_attribute("href", "http://wiki/guide")
    expect(description.locator("li")).to_have_count(2)
    assert description.locator("script, img").count() == 0
    assert page.evaluate("window.__injected") is None
    expect(page.locator("dl.fields")).to_contain_text("Story")
    expect(page.get_by_text("Looks fine to me")).to_be_visible()
    changes = page.locator("section[aria-labelledby=s-changelog] tbody tr")
    expect(changes).to_have_count(1)
    expect(changes.first).to_contain_text("In Progress")
    web.screenshot("issue", "fields")
    page.get_by_role("link", name="AURORA-2").click()
    expect(page.get_by_role("heading", name="AURORA-2 Export")).to_be_visible()
    # The link from AURORA-1 shows on AURORA-2 as inward, and leads back.
    page.get_by_role("link", name="AURORA-1").click()
    expect(page.get_by_role("heading", name="AURORA-1 Cards list")).to_be_visible()
    page.goto(web.site["url"] + "/#/issue/AURORA-3")
    expect(page.locator("section[aria-labelledby=s-links]")).to_contain_text("Relates (outward)")


def test_notes_are_added_edited_and_deleted(web):
    web.sign_in()
    page = web.page
    page.goto(web.site["url"] + "/#/issue/AURORA-2")
    notes = page.locator(".notes .note-item")
    expect(page.get_by_text("No notes yet.")).to_be_visible()
    page.get_by_label("New note").fill("Check the <b>export</b> again")
    page.get_by_role("button", name="Add note").click()
    expect(notes).to_have_count(1)
    expect(notes.first).to_contain_text("Check the <b>export</b> again")
    expect(notes.first).to_contain_text("ui")
    notes.first.get_by_role("button", name="Edit").click()
    page.get_by_label("Edit note").fill("Export checked")
    page.get_by_role("button", name="Save").click()
    expect(notes.first).to_contain_text("Export checked")
    web.screenshot("issue", "note-edited")
    notes.first.get_by_role("button", name="Delete").click()
    web.screenshot("issue", "note-confirm-delete")
    page.get_by_role("button", name="Confirm delete").click()
    expect(page.get_by_text("No notes yet.")).to_be_visible()
    assert call(web.site["url"], web.site["interface"], "/api/v1/issues/AURORA-2/notes")["items"] == []


def test_a_note_of_another_token_is_shown_without_edit_or_delete_and_an_admin_may_change_it(web):
    call(web.site["url"], web.site["admin"], "/api/v1/issues/AURORA-3/notes", {"body": "Ops checked the export"})
    web.sign_in()
    page = web.page
    page.goto(web.site["url"] + "/#/issue/AURORA-3")
    notes = page.locator(".notes .note-item")
    expect(notes).to_have_count(1)
    expect(notes.first).to_contain_text("Ops checked the export")
    expect(notes.first).to_contain_text("ops")
    # The hub answers 403 to any token but the author's or an admin's: the page offers neither.
    expect(notes.first.get_by_role("button")).to_have_count(0)
    web.page.context.clear_cookies()
    web.sign_in("admin")
    page.goto(web.site["url"] + "/#/issue/AURORA-3")
    notes.first.get_by_role("button", name="Delete").click()
    page.get_by_role("button", name="Confirm delete").click()
    expect(page.get_by_text("No notes yet.")).to_be_visible()


def scripted_agent(url: str, token: str, go: threading.Event, done: dict, count: int = 1) -> None:
    """An agent that claims ``count`` fetches, waits for ``go``, then uploads PDF for each and finishes them."""
    commands = []
    while len(commands) < count:
        commands += call(url, token, "/agent/v1/claim", {"agent_id": AGENT_ID, "version": 14, "wait": 10,
                                                         "limit": count - len(commands),
                                                         "types": ["fetch_attachment"]})["commands"]
    done["claimed"] = commands
    assert go.wait(60)
    for command in commands:
        deliver(url, token, command)
    done["uploaded"] = len(commands)


def deliver(url: str, token: str, command: dict) -> None:
    query = f"agent_id={AGENT_ID}&delivery={command['deliveries']}"
    put = urllib.request.Request(f"{url}/agent/v1/commands/{command['id']}/file?{query}", data=PDF, method="PUT",
                                 headers={"Authorization": f"Bearer {token}",
                                          "X-Content-SHA256": hashlib.sha256(PDF).hexdigest(),
                                          "Content-Type": "application/octet-stream"})
    with urllib.request.urlopen(put, timeout=30) as resp:
        stored = json.loads(resp.read())
    call(url, token, f"/agent/v1/commands/{command['id']}/done",
         {"agent_id": AGENT_ID, "delivery": command["deliveries"], "result": stored})


def test_an_attachment_is_fetched_live_and_downloaded(web):
    web.sign_in()
    page = web.page
    go, done = threading.Event(), {}
    agent = threading.Thread(target=scripted_agent, args=(web.site["url"], web.site["agent"], go, done), daemon=True)
    agent.start()
    try:
        page.goto(web.site["url"] + "/#/issue/AURORA-1")
        state = page.locator("section[aria-labelledby=s-attachments] .state")
        expect(state).to_have_text("none")
        page.get_by_role("button", name="Fetch spec.pdf").click()
        expect(state).to_have_text("fetching")
        web.screenshot("issue", "attachment-fetching")
    finally:
        go.set()
        agent.join(timeout=60)
    assert done.get("uploaded") == 1, done
    # The long-poll the page holds answers with the new state.
    expect(state).to_have_text("ready")
    web.screenshot("issue", "attachment-ready")
    with page.expect_download() as download:
        page.get_by_role("button", name="Download spec.pdf").click()
    assert download.value.suggested_filename == "spec.pdf"
    assert Path(download.value.path()).read_bytes() == PDF


def test_a_failed_fetch_shows_the_agents_error_and_offers_another(web):
    web.sign_in()
    page = web.page
    page.goto(web.site["url"] + "/#/issue/AURORA-2")
    state = page.locator("section[aria-labelledby=s-attachments] .state")
    page.get_by_role("button", name="Fetch gone.pdf").click()
    expect(state).to_have_text("fetching")
    url, token = web.site["url"], web.site["agent"]
    [command] = call(url, token, "/agent/v1/claim", {"agent_id": AGENT_ID, "version": 14,
                                                     "types": ["fetch_attachment"]})["commands"]
    call(url, token, f"/agent/v1/commands/{command['id']}/failed",
         {"agent_id": AGENT_ID, "delivery": command["deliveries"], "error": "Jira answered 404 for gone.pdf"})
    expect(state).to_have_text("failed: Jira answered 404 for gone.pdf")
    expect(page.get_by_role("button", name="Fetch gone.pdf again")).to_be_visible()
    web.screenshot("issue", "attachment-failed")


def test_several_attachments_fetched_at_once_are_followed_through_the_states_endpoint(web):
    web.sign_in()
    page = web.page
    go, done = threading.Event(), {}
    agent = threading.Thread(target=scripted_agent, args=(web.site["url"], web.site["agent"], go, done, 2),
                             daemon=True)
    agent.start()
    try:
        page.goto(web.site["url"] + "/#/issue/AURORA-3")
        states = page.locator("section[aria-labelledby=s-attachments] .state")
        expect(states).to_have_text(["none", "none"])
        page.get_by_role("button", name="Fetch a.txt").click()
        expect(states.first).to_have_text("fetching")
        page.get_by_role("button", name="Fetch b.txt").click()
        expect(states).to_have_text(["fetching", "fetching"])
    finally:
        go.set()
        agent.join(timeout=60)
    assert done.get("uploaded") == 2, done
    expect(states).to_have_text(["ready", "ready"])
    with page.expect_download() as download:
        page.get_by_role("button", name="Download b.txt").click()
    assert Path(download.value.path()).read_bytes() == PDF


def test_operations_show_agents_queue_runs_and_store_and_enqueue_and_cancel(web):
    web.sign_in("admin")
    page = web.page
    page.get_by_role("link", name="Operations").click()
    expect(page.get_by_role("heading", name="Operations")).to_be_visible()
    agents = page.locator("section[aria-labelledby=o-agents] tbody tr")
    expect(agents.first).to_contain_text(AGENT_ID)
    # One bounded page of agents, beside the overview's totals of them all.
    expect(page.locator("#agents-shown")).to_contain_text("of 1 heard from")
    runs = page.locator("section[aria-labelledby=o-recent-sync-runs] tbody tr")
    expect(runs.first).to_contain_text("done")
    expect(runs.first).to_contain_text("33")
    expect(page.locator("#store")).to_contain_text("file")
    expect(page.locator("section[aria-labelledby=o-queue]")).to_contain_text("refresh")
    page.get_by_role("button", name="Enqueue a full refresh").click()
    expect(page.get_by_role("status").first).to_contain_text("Full refresh queued: command")
    command_id = re.search(r"command (\d+)", page.get_by_role("status").first.text_content()).group(1)
    # One full refresh at a time: asked again, the hub answers with the open one.
    page.get_by_role("button", name="Enqueue a full refresh").click()
    expect(page.get_by_role("status").first).to_contain_text(
        f"A full refresh is already open: command {command_id} is queued.")
    cancel = page.get_by_role("button", name=f"Cancel command {command_id}")
    expect(cancel).to_be_visible()
    web.screenshot("ops", "command-queued")
    cancel.click()
    expect(page.get_by_role("status").first).to_contain_text(f"Command {command_id} cancelled.")
    expect(cancel).to_have_count(0)
    assert call(web.site["url"], web.site["admin"], f"/api/v1/commands/{command_id}")["status"] == "cancelled"


def test_the_interface_works_by_keyboard_and_fits_a_phone(browser, site):
    phone = Page(browser, site, viewport=(390, 844))
    try:
        page = phone.page
        page.goto(site["url"] + "/")
        # The page asks the hub whether this browser is signed in before it offers the field.
        expect(page.get_by_label("Token")).to_be_focused()
        page.keyboard.type(site["interface"])
        page.keyboard.press("Enter")
        expect(page.get_by_role("heading", name="Issues")).to_be_visible()
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        phone.screenshot("issues", "phone")
        # From the page's content back to the navigation, by keyboard only.
        for _ in range(10):
            page.keyboard.press("Shift+Tab")
            if page.evaluate("document.activeElement.textContent") == "Operations":
                break
        assert page.evaluate("getComputedStyle(document.activeElement).outlineStyle") != "none"
        page.keyboard.press("Enter")
        expect(page.get_by_role("heading", name="Operations")).to_be_visible()
        phone.screenshot("ops", "phone")
        page.goto(site["url"] + "/#/issue/AURORA-1")
        expect(page.get_by_role("heading", name="AURORA-1 Cards list")).to_be_visible()
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        phone.screenshot("issue", "phone")
        assert phone.errors == []
    finally:
        phone.close()


@pytest.fixture
def gone_site(tmp_path, browser, database_url):
    """A hub of its own (the shared one keeps every issue): AURORA-7 mirrored, then a full run by a
    v16 agent that leaves it out (AURORA-1 links to it), and the check that finds it gone."""
    data_dir = tmp_path / "data"
    agent, interface = prepared_hub(data_dir, database_url)
    with serving(data_dir, database_url) as url:

        def refresh(jql, issues):
            body = {"type": "refresh", "params": {"jql": jql}} if jql else {"type": "refresh"}
            command = call(url, interface, "/api/v1/commands", body)
            [claimed] = call(url, agent, "/agent/v1/claim", {"agent_id": AGENT_ID, "version": 16})["commands"]
            assert claimed["id"] == command["id"]
            call(url, agent, f"/agent/v1/commands/{claimed['id']}/state",
                 {"agent_id": AGENT_ID, "delivery": 1, "issues": issues})
            call(url, agent, f"/agent/v1/commands/{claimed['id']}/done",
                 {"agent_id": AGENT_ID, "delivery": 1, "result": {"total": len(issues)}})

        refresh("key = AURORA-7", [issue_state("AURORA-7", summary="Old export")])
        next_second()
        refresh(None, [issue_state("AURORA-1", summary="Cards list",
                                   links=[{"type": "Blocks", "outward": "AURORA-7"}])])
        # The worker enqueues the check after the run; the agent finds AURORA-7 missing.
        check = wait_until(lambda: call(url, agent, "/agent/v1/claim", {
            "agent_id": AGENT_ID, "version": 16, "types": ["check_issues"]})["commands"], timeout=30,
            message="the check after the full run")[0]
        assert check["params"]["keys"] == ["AURORA-7"]
        call(url, agent, f"/agent/v1/commands/{check['id']}/done",
             {"agent_id": AGENT_ID, "delivery": 1, "result": {"checked": 1, "missing": ["AURORA-7"]}})
        yield {"url": url, "agent": agent, "interface": interface}


def test_a_gone_issue_shows_a_banner_and_the_list_finds_it_only_when_asked(browser, gone_site):
    web = Page(browser, gone_site)
    try:
        web.sign_in()
        page = web.page
        rows = page.locator("#results tbody tr")
        expect(rows).to_have_count(1)
        expect(rows.first).to_contain_text("AURORA-1")
        open_filters(page)
        page.get_by_label("Gone").select_option("true")
        page.get_by_role("button", name=re.compile("Apply filters|Search")).click()
        expect(rows).to_have_count(1)
        expect(rows.first).to_contain_text("AURORA-7")
        expect(rows.first.locator(".tag.gone")).to_have_text("gone")
        web.screenshot("issues", "gone")
        page.get_by_role("link", name="AURORA-7").click()
        expect(page.get_by_role("heading", name="AURORA-7 Old export")).to_be_visible()
        banner = page.locator(".gone-banner")
        expect(banner).to_be_visible()
        expect(banner).to_contain_text("Gone from Jira")
        expect(banner).to_contain_text("not found in Jira — deleted, or no longer visible to the agent's user")
        web.screenshot("issue", "gone")
        page.goto(gone_site["url"] + "/#/issue/AURORA-1")
        expect(page.get_by_role("heading", name="AURORA-1 Cards list")).to_be_visible()
        expect(page.locator(".gone-banner")).to_have_count(0)
        expect(page.locator("section[aria-labelledby=s-links] .tag.gone")).to_have_text("gone")
        # The operations page counts them, and a check in the queue is told by its keys' number.
        page.get_by_role("link", name="Operations").click()
        expect(page.locator("#gone-issues")).to_contain_text("1 issue no longer returned by Jira")
        web.screenshot("ops", "gone-issues")
        page.locator("#gone-issues").get_by_role("link", name="(list them)").click()
        expect(rows).to_have_count(1)
        expect(rows.first).to_contain_text("AURORA-7")
        assert web.errors == []
    finally:
        web.close()
