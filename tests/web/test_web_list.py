"""The issues list leads with the work, in a real browser against a real hub: by default the scope's
issues (neighbours on request), most recently updated first; one search box that runs words as a
search and a JQL query as JQL, saying which; a JQL error said once, with no stale pager; the filters
and facets folded behind "Filters (n)"; statuses as lozenges of their category, people by display
name (login on hover), times in the reader's zone; the first row on the first screen at 1366×900
and on a 390 px phone; "New issue" for a token that may write; the list read again while shown,
the reader's typing kept. Headless Chromium from the system's packages (the ``browser`` fixture);
each new state checked by axe-core with its screenshot kept (tests/support/browser.py). The
module's hub is started once, on SQLite (tests/web/__init__.py says why one engine).
"""

from __future__ import annotations

import re
import urllib.parse

import pytest

from tests.support import call, prepared_hub, run_script, serving
from tests.support.browser import TIMEOUT_MS, check_page, expect

pytestmark = pytest.mark.backends("sqlite", shared=True)  # one engine: see tests/web/__init__.py

AGENT_ID = "web-agent-list"
LONG_LABEL = "a-label-long-enough-to-fill-its-facet-column-on-a-phone"
CATALOGUES = {
    "statuses": [{"id": "1", "name": "Open", "category": "To Do", "category_key": "new"},
                 {"id": "3", "name": "In Progress", "category": "In Progress", "category_key": "indeterminate"},
                 {"id": "6", "name": "Done", "category": "Done", "category_key": "done"}],
    "users": [{"name": "ivanov", "key": "JIRAUSER10100", "display_name": "Ivan Ivanov"},
              {"name": "petrov", "key": "JIRAUSER10101", "display_name": "Pyotr Petrov"}],
}
STATUSES = ["Open", "In Progress", "Done"]


def scope_issue(n: int) -> dict:
    """AURORA-n: updated on 2026-11-n (the higher, the more recent), statuses and people in turn."""
    return {"key": f"AURORA-{n}", "id": str(10000 + n), "summary": f"Card task {n}", "issue_type": "Task",
            "status": STATUSES[n % 3], "assignee": "ivanov" if n % 2 else "petrov", "labels": [LONG_LABEL],
            "updated": f"2026-11-{n:02d}T10:00:00.000+0300"}


def neighbour(n: int) -> dict:
    """OTHER-n: outside the scope, updated later than every AURORA issue, added to the mirror last."""
    return {"key": f"OTHER-{n}", "id": str(20000 + n), "summary": f"Neighbour {n}", "issue_type": "Task",
            "status": "Open", "updated": "2026-12-01T10:00:00.000+0300"}


def refresh(url: str, agent: str, interface: str, issues: list[dict], jql: str | None = None) -> None:
    """One refresh through the agent API: a full run, or (jql) an other query's, whose new issues are neighbours."""
    body = {"type": "refresh", "params": {"jql": jql}} if jql else {"type": "refresh"}
    command = call(url, interface, "/api/v1/commands", body)
    [claimed] = call(url, agent, "/agent/v1/claim", {"agent_id": AGENT_ID, "version": 16})["commands"]
    assert claimed["id"] == command["id"]
    call(url, agent, f"/agent/v1/commands/{claimed['id']}/state",
         {"agent_id": AGENT_ID, "delivery": 1, "issues": issues, "catalogues": CATALOGUES})
    call(url, agent, f"/agent/v1/commands/{claimed['id']}/done",
         {"agent_id": AGENT_ID, "delivery": 1, "result": {"total": len(issues)}})


@pytest.fixture(scope="module")
def site(tmp_path_factory, browser, module_database_url):
    """A hub serving on loopback: AURORA-1…30 in the scope, OTHER-1…5 neighbours; its URL and tokens."""
    data_dir = tmp_path_factory.mktemp("web-list") / "data"
    agent, interface = prepared_hub(data_dir, module_database_url)
    made = run_script("token", "add", "lead", "--role", "admin", data_dir=data_dir, database_url=module_database_url)
    assert made.returncode == 0, made.stderr
    with serving(data_dir, module_database_url) as url:
        refresh(url, agent, interface, [scope_issue(n) for n in range(1, 31)])
        refresh(url, agent, interface, [neighbour(n) for n in range(1, 6)], jql="key in (OTHER-1, OTHER-5)")
        yield {"url": url, "agent": agent, "interface": interface, "admin": made.stdout.strip()}


@pytest.fixture
def tab(browser, site):
    """Open a signed-in tab: tab(viewport=(w, h), token=None, **context options) -> page."""
    contexts, errors = [], []

    def open_tab(viewport=(1366, 900), token=None, **options):
        context = browser.new_context(viewport={"width": viewport[0], "height": viewport[1]}, **options)
        context.set_default_timeout(TIMEOUT_MS)
        contexts.append(context)
        page = context.new_page()
        page.on("console", lambda message: message.type == "error" and errors.append(message.text))
        page.on("pageerror", lambda error: errors.append(f"uncaught: {error}"))
        page.goto(site["url"] + "/")
        page.get_by_label("Token").fill(token or site["interface"])
        page.get_by_role("button", name="Sign in").click()
        page.get_by_role("heading", name="Issues").wait_for()
        return page

    yield open_tab
    for context in contexts:
        context.close()
    # The hub's 422s of refused queries are the only errors the browser itself logs here.
    assert [error for error in errors if "422" not in error] == [], f"console errors: {errors}"


def keys(page) -> list[str]:
    return page.locator("#results tbody tr td:first-child").all_inner_texts()


def open_filters(page) -> None:
    toggle = page.locator(".filters-toggle")
    if toggle.get_attribute("aria-expanded") != "true":
        toggle.click()
    expect(page.locator("#filter-panel")).to_be_visible()


def first_row_on_first_screen(page, height: int) -> None:
    row = page.locator("#results tbody tr").first
    expect(row).to_be_visible()
    box = row.bounding_box()
    assert box is not None and box["y"] >= 0 and box["y"] + min(box["height"], 40) <= height, box


def test_the_list_leads_with_the_scopes_issues_most_recently_updated_first(tab):
    page = tab()
    rows = page.locator("#results tbody tr")
    expect(rows).to_have_count(25)
    # OTHER-1…5 came last to the mirror and were updated last: neighbours, left out by default.
    assert keys(page)[:3] == ["AURORA-30", "AURORA-29", "AURORA-28"]
    assert not any(key.startswith("OTHER") for key in keys(page))
    expect(page.get_by_text("Order: recently updated first.")).to_be_visible()
    expect(page.get_by_role("status").first).to_contain_text("Page 1 of 2: 25 issues of 30.")
    expect(page.locator("#results thead th[aria-sort=descending]")).to_have_text(re.compile("^Updated in Jira"))
    check_page(page, "list", "scope-first")

    # Neighbours on request, in the address; then no issue matches in the scope but there.
    open_filters(page)
    page.get_by_label("Neighbour").select_option(label="the scope and neighbours")
    page.get_by_role("button", name="Search").click()
    expect(page.get_by_role("status").first).to_contain_text("25 issues of 35.")
    # Updated at the same time: ties by key, in the order's direction.
    assert keys(page)[:6] == ["OTHER-5", "OTHER-4", "OTHER-3", "OTHER-2", "OTHER-1", "AURORA-30"]
    expect(rows.first.locator(".tag")).to_have_text("neighbour")
    assert page.evaluate("location.hash") == "#/issues?neighbor=any"
    expect(page.get_by_role("button", name="Filters (1)")).to_be_visible()
    check_page(page, "list", "with-neighbours")
    page.goto(page.url.split("#")[0] + "#/issues?q=Neighbour")
    expect(page.get_by_text("No issues match.").first).to_be_visible()
    page.get_by_role("button", name="Look among the neighbours too").click()
    expect(rows).to_have_count(5)
    assert "neighbor=any" in page.evaluate("location.hash")


def test_the_order_choice_words_each_order_plainly(tab):
    page = tab()
    open_filters(page)
    options = page.get_by_label("Order").locator("option").all_inner_texts()
    assert "recently updated first" in options and "priority, highest first" in options
    assert not [option for option in options if "then key" in option or "going up" in option], options
    page.get_by_label("Order").select_option(label="oldest first")
    page.get_by_role("button", name="Search").click()
    expect(page.get_by_text("Order: oldest first.")).to_be_visible()
    assert page.evaluate("location.hash") == "#/issues?sort=created"


@pytest.mark.parametrize("viewport", [(1366, 900), (390, 844)], ids=["laptop", "phone"])
def test_the_first_row_shows_without_scrolling(tab, site, viewport):
    # A token that may write: the navigation and the list's heading carry "New issue" too.
    page = tab(viewport, token=site["admin"])
    first_row_on_first_screen(page, viewport[1])
    # With two filters set, folded and said, it still does.
    page.goto(page.url.split("#")[0] + "#/issues?assignee=ivanov&status=Open")
    expect(page.get_by_role("button", name="Filters (2)")).to_be_visible()
    expect(page.locator("#active-filters")).to_have_text("Filtered by Status: Open; Assignee: ivanov.")
    first_row_on_first_screen(page, viewport[1])
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    check_page(page, "list", f"first-row-{'phone' if viewport[0] < 400 else 'laptop'}")


def test_one_search_box_runs_words_as_a_search_and_jql_as_jql_and_says_which(tab):
    page = tab()
    box = page.get_by_label("Search")
    mode = page.locator("#search-mode")
    box.fill("Card task 7")
    box.press("Enter")
    expect(mode).to_contain_text("Searched for these words.")
    expect(page.locator("#results tbody tr").first).to_contain_text("AURORA-7")
    assert page.evaluate("location.hash") == "#/issues?" + urllib.parse.urlencode({"q": "Card task 7"})

    box.fill("status = Done ORDER BY key ASC")
    page.get_by_role("button", name="Search").click()
    expect(mode).to_contain_text("Ran as a JQL query.")
    expect(page.locator("#results tbody tr")).to_have_count(10)
    assert keys(page)[:2] == ["AURORA-2", "AURORA-5"]
    query = urllib.parse.urlencode({"jql": "status = Done ORDER BY key ASC"})
    assert page.evaluate("location.hash") == "#/issues?" + query
    expect(page.get_by_text("Order: the query's ORDER BY")).to_be_visible()
    check_page(page, "list", "ran-as-jql")

    # Words that read as JQL can be searched as words, and back.
    page.get_by_role("button", name="Treat as words instead").click()
    expect(mode).to_contain_text("Searched for these words.")
    assert "q=" in page.evaluate("location.hash")
    page.get_by_role("button", name="Treat as JQL instead").click()
    expect(mode).to_contain_text("Ran as a JQL query.")
    expect(page.locator("#results tbody tr")).to_have_count(10)


def test_a_jql_error_is_shown_once_and_the_pager_is_cleared(tab):
    page = tab()
    pager = page.get_by_role("navigation", name="Pages")
    expect(pager).to_contain_text("Page 1 of 2")
    page.get_by_label("Search").fill("status = Open AND (")
    page.get_by_role("button", name="Search").click()
    alert = page.locator("#jql-error")
    expect(alert).to_be_visible()
    expect(alert.locator(".jql-at")).to_have_text("\u00a0")
    expect(page.get_by_text(re.compile("Error in the JQL Query"))).to_have_count(1)
    expect(pager).to_be_hidden()
    expect(page.get_by_text("Page 1 of 2")).to_have_count(0)
    expect(page.locator("#results tbody tr")).to_have_count(0)
    assert page.evaluate("document.activeElement.id") == "f-q"
    check_page(page, "list", "jql-error-once")
    page.get_by_label("Search").fill("status = Done")
    page.get_by_role("button", name="Search").click()
    expect(page.locator("#results tbody tr")).to_have_count(10)
    expect(alert).to_be_hidden()


def test_the_filters_and_facets_fold_behind_one_button_that_counts_those_set(tab):
    page = tab()
    toggle = page.locator(".filters-toggle")
    expect(toggle).to_have_text("Filters")
    expect(toggle).to_have_attribute("aria-expanded", "false")
    expect(page.get_by_label("Status")).to_be_hidden()
    expect(page.locator("#facets")).to_be_hidden()
    toggle.click()
    expect(toggle).to_have_attribute("aria-expanded", "true")
    expect(page.get_by_label("Project")).to_be_focused()
    status = page.locator('#facets .facet[data-facet="status"]')
    expect(status.get_by_role("button", name="Done 10")).to_be_visible()
    check_page(page, "list", "filters-open")
    status.get_by_role("button", name="Done 10").click()
    expect(page.get_by_role("button", name="Filters (1)")).to_be_visible()
    expect(page.locator("#results tbody tr")).to_have_count(10)
    page.get_by_label("Assignee").fill("ivanov")
    expect(page.get_by_role("button", name="Filters (2)")).to_be_visible()
    page.get_by_label("Assignee").press("Enter")
    expect(page.locator("#results tbody tr")).to_have_count(5)
    page.get_by_role("button", name="Filters (2)").click()
    expect(page.get_by_label("Status")).to_be_hidden()


def test_facet_counts_never_wrap_digit_by_digit(tab):
    page = tab((390, 844))
    open_filters(page)
    count = page.locator('#facets .facet[data-facet="label"] .count').first
    expect(count).to_have_text("30")
    # One line: the count's text lies on one line box, however long the value beside it.
    lines = count.evaluate("(c) => { const r = document.createRange(); r.selectNodeContents(c);"
                           " return new Set([...r.getClientRects()].map((box) => Math.round(box.top))).size; }")
    assert lines == 1, f"the count wraps over {lines} lines"
    check_page(page, "list", "facets-phone")


def test_statuses_are_lozenges_people_go_by_name_and_times_by_the_readers_zone(tab):
    page = tab(timezone_id="Europe/Moscow", locale="en-GB")
    row = page.locator("#results tbody tr").first  # AURORA-30: Open, petrov's, updated 30 Nov 10:00 +03:00
    expect(row.locator("td[data-label=Status] .lozenge")).to_have_text("Open")
    expect(row.locator("td[data-label=Status] .lozenge")).to_have_class(re.compile("lozenge-todo"))
    expect(page.locator("#results tbody tr").nth(1).locator(".lozenge")).to_have_class(re.compile("lozenge-done"))
    expect(page.locator("#results tbody tr").nth(2).locator(".lozenge")).to_have_class(re.compile("lozenge-doing"))
    person = row.locator("td[data-label=Assignee] .person")
    expect(person).to_have_text("Pyotr Petrov")
    expect(person).to_have_attribute("title", "petrov")
    expect(row.locator("td[data-label='Updated in Jira'] time")).to_have_text("30 Nov 2026, 10:00 UTC+03:00")
    check_page(page, "list", "lozenges-and-names")


def test_new_issue_is_offered_only_to_a_token_that_may_write(tab, site):
    page = tab()
    expect(page.get_by_role("heading", name="Issues")).to_be_visible()
    expect(page.locator("main").get_by_role("link", name="New issue")).to_have_count(0)
    lead = tab(token=site["admin"])
    link = lead.locator("main").get_by_role("link", name="New issue")
    expect(link).to_have_attribute("href", "#/create")
    check_page(lead, "list", "new-issue")


def test_the_list_is_read_again_while_shown_and_the_typing_is_kept(tab, site):
    page = tab()
    rows = page.locator("#results tbody tr")
    expect(rows.first).to_contain_text("AURORA-30")
    box = page.get_by_label("Search")
    box.click()
    box.type("half typ")
    # Jira changes AURORA-1: a new summary, updated after every other issue.
    changed = {**scope_issue(1), "summary": "Changed while the list was shown",
               "updated": "2026-12-02T10:00:00.000+0300"}
    refresh(site["url"], site["agent"], site["interface"], [changed], jql="key = AURORA-1")
    # Read again within a couple of reads (5 s apart), without a reload.
    expect(rows.first).to_contain_text("Changed while the list was shown", timeout=15_000)
    expect(rows.first).to_contain_text("AURORA-1")
    expect(box).to_have_value("half typ")
    expect(box).to_be_focused()
    assert page.evaluate("performance.getEntriesByType('navigation').length") == 1
    check_page(page, "list", "read-again")


JQL = ["status = Open", "project = AURORA order by key desc", "assignee in (ivanov, petrov)",
       "resolution is EMPTY", "labels is empty", "status was Open", "assignee = currentUser()",
       "project AURORA ORDER BY updated DESC", 'text ~ "cards"', "duedate < now()", "priority != Major",
       "status not in (Done)"]
WORDS = ["cards", "AURORA-12", "cart is empty", '"a=b"', "summary:export", "(cards OR export) list",
         "cards -export", "in order by date", "sorted in order by key of the card", "repo*", "cards AND export"]


def test_the_search_box_tells_a_jql_query_from_words(tab):
    page = tab()
    told = page.evaluate("""async (texts) => {
      const {looksLikeJql} = await import('/ui/jql.js');
      return texts.map((text) => looksLikeJql(text));
    }""", JQL + WORDS)
    assert dict(zip(JQL + WORDS, told, strict=True)) == {**dict.fromkeys(JQL, True), **dict.fromkeys(WORDS, False)}


@pytest.fixture
def epic_site(tmp_path, browser, database_url):
    """A hub of its own: the epic AURORA-100 and its 60 issues, AURORA-101…160, added in key order."""
    data_dir = tmp_path / "data"
    agent, interface = prepared_hub(data_dir, database_url)
    with serving(data_dir, database_url) as url:
        epic = {**scope_issue(100), "summary": "Checkout", "issue_type": "Epic"}
        refresh(url, agent, interface, [epic, *({**scope_issue(n), "epic_key": "AURORA-100"} for n in range(101, 161))])
        yield {"url": url, "interface": interface}


def test_an_epics_first_issues_are_the_first_by_key_not_the_last_added(browser, epic_site):
    context = browser.new_context(viewport={"width": 1366, "height": 900})
    context.set_default_timeout(TIMEOUT_MS)
    try:
        page = context.new_page()
        page.goto(epic_site["url"] + "/")
        page.get_by_label("Token").fill(epic_site["interface"])
        page.get_by_role("button", name="Sign in").click()
        page.get_by_role("heading", name="Issues").wait_for()
        page.goto(epic_site["url"] + "/#/issue/AURORA-100")
        epic = page.locator("section[aria-labelledby=s-issues-in-this-epic]")
        expect(epic.locator("#epic-total")).to_contain_text("60 issues (the first 50")
        expect(epic.locator("tbody tr").first).to_contain_text("AURORA-101")
        epic.get_by_role("button", name="Show all 50").click()
        expect(epic.locator("tbody tr").last).to_contain_text("AURORA-150")
    finally:
        context.close()
