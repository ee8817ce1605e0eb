"""JQL in the search box and the saved filters of the web interface, in a real browser against a
real hub: a query's issues listed, its address bookmarkable, its error shown with the character
marked, and filters saved, run and deleted. Headless Chromium from the system's packages (the ``browser``
fixture); each page and state is checked by axe-core and leaves its screenshot (tests/support/browser.py).
The module's hub is started once, on SQLite (tests/web/__init__.py says why one engine).
"""

from __future__ import annotations

import urllib.parse

import pytest

from tests.support import call, prepared_hub, run_script, serving
from tests.support.browser import TIMEOUT_MS, check_page

pytestmark = pytest.mark.backends("sqlite", shared=True)  # one engine: see tests/web/__init__.py

AGENT_ID = "web-agent-jql"


def seed(url: str, agent: str, interface: str) -> None:
    """AURORA-12 (Done), AURORA-13 and AURORA-14 (Open, ivanov's), through the agent protocol."""
    command = call(url, interface, "/api/v1/commands", {"type": "refresh"})
    [claimed] = call(url, agent, "/agent/v1/claim", {"agent_id": AGENT_ID, "version": 15})["commands"]
    assert claimed["id"] == command["id"]
    issues = [{"key": f"AURORA-{n}", "id": f"100{n}", "summary": summary, "status": state, "assignee": who,
               "issue_type": "Task"}
              for n, summary, state, who in ((12, "Cards list", "Done", "petrov"),
                                             (13, "Card detail", "Open", "ivanov"),
                                             (14, "Card export", "Open", "ivanov"))]
    call(url, agent, f"/agent/v1/commands/{claimed['id']}/state",
         {"agent_id": AGENT_ID, "delivery": 1, "issues": issues})
    call(url, agent, f"/agent/v1/commands/{claimed['id']}/done",
         {"agent_id": AGENT_ID, "delivery": 1, "result": {"total": len(issues)}})
    # The Jira user's zone, as a v17 agent reports it.
    call(url, agent, "/agent/v1/heartbeat", {"agent_id": AGENT_ID, "version": 17, "jira_time_zone": "Europe/Moscow"})


@pytest.fixture(scope="module")
def site(tmp_path_factory, browser, module_database_url):
    """A hub serving on loopback with the issues above (on each engine): its URL and two interface tokens."""
    data_dir = tmp_path_factory.mktemp("web-jql") / "data"
    agent, interface = prepared_hub(data_dir, module_database_url)
    other = run_script("token", "add", "someone-else", "--role", "interface", data_dir=data_dir,
                       database_url=module_database_url)
    assert other.returncode == 0, other.stderr
    with serving(data_dir, module_database_url) as url:
        seed(url, agent, interface)
        yield {"url": url, "interface": interface, "other": other.stdout.strip()}


@pytest.fixture
def web(browser, site):
    from playwright.sync_api import expect

    expect.set_options(timeout=TIMEOUT_MS)
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(TIMEOUT_MS)
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda message: message.type == "error" and errors.append(message.text))
    page.on("pageerror", lambda error: errors.append(f"uncaught: {error}"))
    page.goto(site["url"] + "/")
    page.get_by_label("Token").fill(site["interface"])
    page.get_by_role("button", name="Sign in").click()
    page.get_by_role("heading", name="Issues").wait_for()
    yield page, errors
    context.close()
    # The hub's 422s of refused queries are the only errors the browser itself logs here.
    assert [error for error in errors if "422" not in error] == [], f"console errors: {errors}"


def shot(page, name: str, state: str) -> None:
    """The page's screenshot, ``<name>-<state>.png``, and its accessibility check."""
    check_page(page, name, state)


def keys(page) -> list[str]:
    return page.locator("#results tbody tr td:first-child").all_inner_texts()


def test_a_query_lists_its_issues_in_its_order_and_the_address_carries_it(web, site):
    from playwright.sync_api import expect

    page, _ = web
    page.get_by_label("Search").fill("  assignee = IVANOV AND status = open ORDER BY key ASC ")
    page.get_by_role("button", name="Search").click()
    expect(page.locator("#results tbody tr")).to_have_count(2)
    assert keys(page) == ["AURORA-13", "AURORA-14"]
    expect(page.get_by_text("Order: the query's ORDER BY")).to_be_visible()
    query = "assignee = IVANOV AND status = open ORDER BY key ASC"
    assert page.evaluate("location.hash") == "#/issues?" + urllib.parse.urlencode({"jql": query})
    shot(page, "issues", "jql")

    # The address alone, as a bookmark opens it: the box holds the query, the list its issues.
    page.goto(site["url"] + "/#/issues?" + urllib.parse.urlencode({"jql": "status = Done"}))
    expect(page.get_by_label("Search")).to_have_value("status = Done")
    expect(page.locator("#results tbody tr")).to_have_count(1)
    assert keys(page) == ["AURORA-12"]
    page.go_back()
    expect(page.get_by_label("Search")).to_have_value(query)


def test_a_query_that_does_not_parse_shows_its_error_with_the_character_marked(web):
    from playwright.sync_api import expect

    page, errors = web
    page.get_by_label("Search").fill("status = Open AND (")
    page.get_by_role("button", name="Search").click()
    alert = page.locator("#jql-error")
    expect(alert).to_be_visible()
    expect(alert).to_contain_text("Error in the JQL Query")
    # Past the end: the mark is a space after the query; in the box, the caret is there.
    expect(alert.locator(".jql-query")).to_have_text("status = Open AND (\u00a0")
    expect(alert.locator(".jql-at")).to_have_text("\u00a0")
    assert page.evaluate("document.activeElement.id") == "f-q"
    assert page.evaluate("document.getElementById('f-q').selectionStart") == 19

    page.get_by_label("Search").fill("status = Open OR priority foo Done")
    page.get_by_role("button", name="Search").click()
    expect(alert.locator(".jql-at")).to_have_text("f")
    expect(alert).to_contain_text("Expecting operator but got 'foo'")
    assert page.evaluate("[document.getElementById('f-q').selectionStart,"
                         " document.getElementById('f-q').selectionEnd]") == [26, 27]
    shot(page, "issues", "jql-error")
    assert errors and all("422" in error for error in errors), errors

    page.get_by_label("Search").fill("status = Done")
    page.get_by_role("button", name="Search").click()
    expect(page.locator("#results tbody tr")).to_have_count(1)
    expect(alert).to_be_hidden()


def test_filters_are_saved_run_and_deleted(web, site):
    from playwright.sync_api import expect

    page, _ = web
    # Another token's filter: listed and run, but not this token's to delete.
    theirs = call(site["url"], site["other"], "/api/v1/filters", {"name": "Their open ones", "jql": "status = Open"})
    page.reload()
    saved = page.locator("#saved-filters-list li")
    expect(saved).to_have_count(1)
    expect(saved.first).to_contain_text("saved by someone-else")
    expect(saved.first.get_by_role("button")).to_have_count(0)

    page.get_by_label("Search").fill("status = Done")
    page.get_by_label("Filter name").fill("Done ones")
    page.get_by_role("button", name="Save current query").click()
    expect(page.get_by_text('Saved the filter "Done ones".')).to_be_visible()
    expect(saved).to_have_count(2)
    shot(page, "issues", "saved-filters")

    page.get_by_role("link", name="Their open ones").click()
    expect(page.get_by_label("Search")).to_have_value("status = Open")
    expect(page.locator("#results tbody tr")).to_have_count(2)
    page.get_by_role("link", name="Done ones").click()
    expect(page.locator("#results tbody tr")).to_have_count(1)
    assert keys(page) == ["AURORA-12"]

    # A query that does not parse is not saved, and its place is shown.
    page.get_by_label("Search").fill("status in (Open")
    page.get_by_label("Filter name").fill("Broken")
    page.get_by_role("button", name="Save current query").click()
    expect(page.locator("#jql-error .jql-at")).to_be_visible()
    expect(page.get_by_text("Could not save the filter")).to_be_visible()
    expect(saved).to_have_count(2)

    page.get_by_role("button", name="Delete the filter Done ones").click()
    expect(page.get_by_text('Deleted the filter "Done ones".')).to_be_visible()
    expect(saved).to_have_count(1)
    assert call(site["url"], site["other"], f"/api/v1/filters/{theirs['id']}")["name"] == "Their open ones"


def test_the_operations_page_says_which_zone_jql_reads_dates_in(web, site):
    from playwright.sync_api import expect

    page, _ = web
    page.goto(site["url"] + "/#/ops")
    expect(page.locator("#jql-time-zone")).to_have_text(
        "JQL reads dates in Europe/Moscow: the Jira user's, as the agent reported it.")
    shot(page, "ops", "jql-time-zone")
