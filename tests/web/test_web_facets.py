"""The issues list as a place to work, in a real browser against a real hub: filters (folded
behind "Filters (n)") offer the values the query's issues hold with their counts, headers sort
both ways, columns are chosen and remembered, and the whole list (search, filters, order, page)
lives in the address, so reload, Back/Forward and a pasted link restore it. Mirrored values in the facets show as text.
Headless Chromium from the system's packages (the ``browser`` fixture); each state is checked
with axe-core and its screenshot kept (``tests/support/browser.py``'s ``check_page``). The
module's hub is started once, on SQLite (tests/web/__init__.py says why one engine).
"""

from __future__ import annotations

import re
import urllib.parse

import pytest

from tests.support import call, prepared_hub, serving
from tests.support.browser import TIMEOUT_MS, check_page

pytestmark = pytest.mark.backends("sqlite", shared=True)  # one engine: see tests/web/__init__.py

AGENT_ID = "web-agent-facets"
HOSTILE = '<img src=x onerror="window.__injected=1">'
PRIORITIES = ["Blocker", "Critical", "Major", "Minor"]
CATALOGUES = {
    "priorities": [{"id": str(n + 1), "name": name} for n, name in enumerate(PRIORITIES)],
    "statuses": [{"id": "1", "name": "Open", "category": "To Do", "category_key": "new"},
                 {"id": "6", "name": "Done", "category": "Done", "category_key": "done"}],
    "users": [{"name": "ivanov", "key": "JIRAUSER10100", "display_name": "Ivan Ivanov"},
              {"name": "petrov", "key": "JIRAUSER10101", "display_name": "Pyotr Petrov"}],
}


def issue_state(n: int) -> dict:
    """AURORA-n: Done every fifth, priorities in turn, ivanov's when odd, updated on 2026-11-n."""
    return {"key": f"AURORA-{n}", "id": str(10000 + n), "summary": f"Card task {n}", "issue_type": "Task",
            "status": "Done" if n % 5 == 0 else "Open", "priority": PRIORITIES[n % 4],
            "assignee": "ivanov" if n % 2 else "petrov", "labels": ["cards"],
            "updated": f"2026-11-{n:02d}T10:00:00.000+0300",
            "custom_fields": {"customfield_10002": {
                "name": "Story Points", "type": "number",
                "custom": "com.atlassian.jira.plugin.system.customfieldtypes:float", "value": float(n)}}}


def seed(url: str, agent: str, interface: str) -> None:
    """AURORA-1…30, and AURORA-31 whose label, component and status are markup and a script link."""
    command = call(url, interface, "/api/v1/commands", {"type": "refresh"})
    [claimed] = call(url, agent, "/agent/v1/claim", {"agent_id": AGENT_ID, "version": 16})["commands"]
    assert claimed["id"] == command["id"]
    issues = [issue_state(n) for n in range(1, 31)]
    issues.append({"key": "AURORA-31", "id": "10031", "summary": "Hostile", "status": f"<b>{HOSTILE}</b>",
                   "labels": [HOSTILE, "javascript:alert(1)"], "components": [HOSTILE],
                   "updated": "2026-10-01T10:00:00.000+0300"})
    call(url, agent, f"/agent/v1/commands/{claimed['id']}/state",
         {"agent_id": AGENT_ID, "delivery": 1, "issues": issues, "catalogues": CATALOGUES})
    call(url, agent, f"/agent/v1/commands/{claimed['id']}/done",
         {"agent_id": AGENT_ID, "delivery": 1, "result": {"total": len(issues)}})


@pytest.fixture(scope="module")
def site(tmp_path_factory, browser, module_database_url):
    """A hub serving on loopback with the issues above (on each engine): its URL and interface token."""
    data_dir = tmp_path_factory.mktemp("web-facets") / "data"
    agent, interface = prepared_hub(data_dir, module_database_url)
    with serving(data_dir, module_database_url) as url:
        seed(url, agent, interface)
        yield {"url": url, "interface": interface}


def signed_in(page, site, address: str = "/") -> None:
    """Open address; sign in if the hub asks (a tab that holds no session yet)."""
    page.goto(site["url"] + address)
    first = page.get_by_role("heading", name=re.compile("^(Issues|Sign in)$"))
    first.wait_for()
    if first.inner_text() == "Sign in":
        page.get_by_label("Token").fill(site["interface"])
        page.get_by_role("button", name="Sign in").click()
    page.get_by_role("heading", name="Issues").wait_for()


@pytest.fixture
def context(browser):
    from playwright.sync_api import expect

    expect.set_options(timeout=TIMEOUT_MS)
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(TIMEOUT_MS)
    errors: list[str] = []
    context.on("page", lambda page: watch(page, errors))
    yield context
    context.close()
    # The hub's 422 of a refused date is the only error the browser itself logs here.
    assert [error for error in errors if "422" not in error] == [], f"console errors: {errors}"


def watch(page, errors: list[str]) -> None:
    page.on("console", lambda message: message.type == "error" and errors.append(message.text))
    page.on("pageerror", lambda error: errors.append(f"uncaught: {error}"))


def open_filters(page) -> None:
    """Unfold the list's filters and facets (folded behind "Filters (n)" on every screen)."""
    toggle = page.locator(".filters-toggle")
    if toggle.get_attribute("aria-expanded") != "true":
        toggle.click()


@pytest.fixture
def page(context, site):
    page = context.new_page()
    signed_in(page, site)
    open_filters(page)
    return page


def keys(page) -> list[str]:
    return page.locator("#results tbody tr td:first-child").all_inner_texts()


def facet(page, name: str):
    return page.locator(f'#facets .facet[data-facet="{name}"]')


def test_a_status_is_picked_from_the_values_offered_with_their_counts(page):
    from playwright.sync_api import expect

    status = facet(page, "status")
    expect(status.get_by_role("button", name="Done 6")).to_be_visible()
    expect(status.get_by_role("button", name="Open 24")).to_be_visible()
    # The same values, counted, under the typeable field.
    options = page.locator("#dl-status option")
    expect(options).to_have_count(3)
    assert options.evaluate_all("(all) => all.map((o) => [o.value, o.label])")[:2] == [
        ["Open", "24 issues"], ["Done", "6 issues"]]
    assignee = facet(page, "assignee")
    expect(assignee.get_by_role("button", name="Ivan Ivanov 15")).to_be_visible()
    check_page(page, "issues", "facets")

    status.get_by_role("button", name="Done 6").click()
    expect(page.locator("#results tbody tr")).to_have_count(6)
    assert page.evaluate("location.hash") == "#/issues?status=Done"
    expect(page.get_by_label("Status")).to_have_value("Done")
    expect(facet(page, "status").get_by_role("button", name="Done 6")).to_have_attribute("aria-pressed", "true")
    # The other facets count the issues of this query now.
    expect(facet(page, "assignee").get_by_role("button", name="Ivan Ivanov 3")).to_be_visible()
    expect(page.get_by_role("status").first).to_contain_text("Page 1 of 1: 6 issues of 6.")
    check_page(page, "issues", "facet-picked")

    # Typed in any case, it matches as well; pressed again, the value is let go.
    page.get_by_label("Status").fill("done")
    page.get_by_label("Status").press("Enter")
    page.wait_for_function("location.hash === '#/issues?status=done'")
    expect(page.locator("#results tbody tr")).to_have_count(6)
    facet(page, "status").get_by_role("button", name="Done 6").click()
    expect(page.locator("#results tbody tr")).to_have_count(25)
    assert page.evaluate("location.hash") == "#/issues"


def test_a_state_left_before_its_answers_came_does_not_draw_over_the_newer_one(page):
    from playwright.sync_api import expect

    # The typed status's list and facets are held until the state after it is drawn: then
    # answered, they arrive last, as a slower query's answers may.
    held = []
    page.route(re.compile(r"/api/v1/issues(/facets)?\?.*status=done"), lambda route: held.append(route))
    rows = page.locator("#results tbody tr")
    expect(rows).to_have_count(25)
    page.get_by_label("Status").fill("done")
    page.get_by_label("Status").press("Enter")
    page.wait_for_function("location.hash === '#/issues?status=done'")
    for _ in range(TIMEOUT_MS // 20):
        if len(held) == 2:
            break
        page.wait_for_timeout(20)
    assert len(held) == 2, "the typed status's list and facets were never asked"
    page.get_by_label("Status").fill("Open")
    page.get_by_label("Status").press("Enter")
    expect(rows).to_have_count(24)
    expect(facet(page, "assignee").get_by_role("button", name="Ivan Ivanov 12")).to_be_visible()
    with page.expect_response(re.compile(r"/api/v1/issues/facets\?.*status=done")) as late:
        for route in held:
            route.continue_()
    late.value.finished()
    # What the late answers would have drawn comes in the tasks after them: let those run.
    page.evaluate("() => new Promise((done) => setTimeout(done, 200))")
    expect(rows).to_have_count(24)
    assert page.evaluate("location.hash") == "#/issues?status=Open"
    expect(facet(page, "assignee").get_by_role("button", name="Ivan Ivanov 12")).to_be_visible()
    expect(page.get_by_role("status").first).to_contain_text("24 issues of 24.")


def test_headers_sort_by_priority_both_ways_and_a_chosen_column_stays_after_reload(page):
    from playwright.sync_api import expect

    rows = page.locator("#results tbody tr")
    expect(rows).to_have_count(25)
    page.get_by_role("button", name="Columns").click()
    page.get_by_role("checkbox", name="Priority").check()
    page.get_by_role("checkbox", name="Story Points").check()
    page.get_by_role("button", name="Done", exact=True).click()
    headers = page.locator("#results thead th")
    # In the table's order of columns, whatever the order they were chosen in; the list's
    # default order (recently updated first) marked on its header.
    expect(headers).to_have_text(["Key", "Summary", "Type", "Status", "Priority", "Assignee", "Updated in Jira ▼",
                                  "Story Points"])
    page.reload()
    expect(headers).to_contain_text(["Priority", "Story Points"])
    thirtieth = rows.filter(has=page.get_by_role("link", name="AURORA-30", exact=True))
    expect(thirtieth.locator("td").nth(7)).to_have_text("30")
    check_page(page, "issues", "columns")

    priority = page.locator("#results thead th", has_text="Priority")
    priority.get_by_role("button").click()
    expect(priority).to_have_attribute("aria-sort", "ascending")
    cells = page.locator("#results tbody tr td:nth-child(5)")
    expect(cells.first).to_have_text("Blocker")
    assert "sort=priority" in page.evaluate("location.hash")
    # Jira's order, then key: AURORA-4, 8, 12 … are the Blockers.
    assert keys(page)[:3] == ["AURORA-4", "AURORA-8", "AURORA-12"]
    priority.get_by_role("button").click()
    expect(priority).to_have_attribute("aria-sort", "descending")
    expect(cells.first).to_have_text("Minor")
    assert page.evaluate("location.hash") == "#/issues?sort=-priority"
    expect(page.get_by_text("Order: priority, lowest first.")).to_be_visible()
    check_page(page, "issues", "sorted-down")
    # The order is kept in the address: Back returns to the one before.
    page.go_back()
    expect(page.locator("#results thead th", has_text="Priority")).to_have_attribute("aria-sort", "ascending")
    page.get_by_role("button", name="Columns").click()
    page.get_by_role("checkbox", name="Story Points").uncheck()
    page.keyboard.press("Escape")
    expect(headers).not_to_contain_text(["Story Points"])


def test_page_two_is_in_the_address_and_reload_back_and_a_pasted_link_restore_it(page, context, site):
    from playwright.sync_api import expect

    rows = page.locator("#results tbody tr")
    expect(page.get_by_role("status").first).to_contain_text("Page 1 of 2: 25 issues of 31.")
    first = keys(page)
    page.get_by_role("button", name="Next page").click()
    expect(rows).to_have_count(6)
    expect(page.get_by_role("status").first).to_contain_text("Page 2 of 2: 6 issues of 31.")
    second = keys(page)
    hash_ = page.evaluate("location.hash")
    assert re.fullmatch(r"#/issues\?cursor=\d+&page=2", hash_), hash_
    page.reload()
    expect(page.get_by_role("status").first).to_contain_text("Page 2 of 2")
    assert keys(page) == second
    open_filters(page)
    page.go_back()
    expect(page.get_by_role("status").first).to_contain_text("Page 1 of 2")
    assert keys(page) == first
    page.go_forward()
    expect(page.get_by_role("status").first).to_contain_text("Page 2 of 2")
    page.get_by_role("button", name="Previous page").click()
    expect(page.get_by_role("status").first).to_contain_text("Page 1 of 2")
    assert keys(page) == first

    # A search, an order and its second page, pasted into a new tab.
    page.get_by_label("Search").fill("card")
    page.get_by_label("Order").select_option("-priority")
    page.get_by_role("button", name="Search").click()
    expect(page.get_by_role("status").first).to_contain_text("Page 1 of 2: 25 issues of 30.")
    page.get_by_role("button", name="Next page").click()
    expect(page.get_by_role("status").first).to_contain_text("Page 2 of 2: 5 issues of 30.")
    link = page.url
    shown = keys(page)
    assert urllib.parse.parse_qs(link.split("?", 1)[1]) == {"q": ["card"], "sort": ["-priority"],
                                                            "cursor": ["25"], "page": ["2"]}
    other = context.new_page()
    signed_in(other, site, "/" + link.split("/", 3)[3])
    expect(other.get_by_role("status").first).to_contain_text("Page 2 of 2: 5 issues of 30.")
    assert keys(other) == shown
    expect(other.get_by_label("Search")).to_have_value("card")
    expect(other.get_by_label("Order")).to_have_value("-priority")
    # Previous from a pasted page: the page before, its offset computed.
    other.get_by_role("button", name="Previous page").click()
    expect(other.get_by_role("status").first).to_contain_text("Page 1 of 2: 25 issues of 30.")
    check_page(other, "issues", "pasted-link")


def test_dates_are_picked_as_dates_and_a_bad_one_is_told_in_words(page, site):
    from playwright.sync_api import expect

    since = page.get_by_label("Updated since")
    assert since.get_attribute("type") == "date"
    since.fill("2026-11-21")
    page.get_by_role("button", name="Search").click()
    expect(page.locator("#results tbody tr")).to_have_count(10)
    assert page.evaluate("location.hash") == "#/issues?updated_since=2026-11-21T00%3A00%3A00Z"
    page.reload()
    open_filters(page)
    expect(page.get_by_label("Updated since")).to_have_value("2026-11-21")
    expect(page.locator("#results tbody tr")).to_have_count(10)
    # A pasted address with a date that is no date: the field named, in words, no pattern.
    page.goto(site["url"] + "/#/issues?updated_since=yesterday")
    line = page.get_by_role("status").first
    expect(line).to_have_text("Updated since: give a date (day, month and year), e.g. 2026-11-01.")
    check_page(page, "issues", "bad-date")


def test_hostile_values_in_the_facets_show_as_text(page):
    from playwright.sync_api import expect

    label = facet(page, "label")
    expect(label.get_by_role("button", name=HOSTILE)).to_be_visible()
    expect(label.get_by_role("button", name="javascript:alert(1)")).to_be_visible()
    expect(facet(page, "component").get_by_role("button", name=HOSTILE)).to_be_visible()
    expect(facet(page, "status").get_by_role("button", name=f"<b>{HOSTILE}</b>")).to_be_visible()
    assert page.locator("#facets img, #facets b, #facets a, datalist img").count() == 0
    label.get_by_role("button", name=HOSTILE).click()
    expect(page.locator("#results tbody tr")).to_have_count(1)
    expect(page.locator("#results tbody tr td:first-child")).to_have_text("AURORA-31")
    assert page.locator("main img").count() == 0
    assert page.evaluate("window.__injected") is None
    check_page(page, "issues", "facets-hostile")


def test_on_a_phone_the_facets_fold_with_the_filters_so_the_results_come_first(browser, site):
    from playwright.sync_api import expect

    context = browser.new_context(viewport={"width": 390, "height": 844})
    context.set_default_timeout(TIMEOUT_MS)
    try:
        page = context.new_page()
        signed_in(page, site)
        panel = page.locator("#facets details.facets")
        expect(panel).to_have_count(1)
        expect(panel).to_be_hidden()
        expect(page.locator("#results tbody tr").first).to_be_in_viewport()
        page.get_by_role("button", name="Filters").click()
        expect(facet(page, "status").get_by_role("button", name="Done 6")).to_be_visible()
        # Its own summary folds it too.
        panel.locator("summary").click()
        expect(facet(page, "status")).to_be_hidden()
        panel.locator("summary").click()
        check_page(page, "issues", "facets-phone")
    finally:
        context.close()
