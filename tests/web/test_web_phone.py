"""The web interface on a phone (390 px wide, in Chromium) and its smaller fixes: the filters
folded behind one button (on every screen), the results as cards, no page wider than the screen; the nav bar gone
from the sign-in page (and from the Tab order); the title naming the page and the issue; a key
in lower case; a revoked token on an issue page back at the sign-in."""

from __future__ import annotations

import re

import pytest

from tests.support import call, prepared_hub, run_script, serving
from tests.support.browser import TIMEOUT_MS, check_page, expect
from tests.support.engine_rows import engine_database

pytestmark = pytest.mark.backends("sqlite", shared=True)  # one engine: see tests/web/__init__.py

PHONE = (390, 844)
AGENT_ID = "phone-agent"
HOSTILE = "<img src=x onerror=\"window.__injected = 'img'\"><script>window.__injected = 'script'</script>"
LONG_URL = "https://wiki.example.org/display/AURORA/" + "Very-Long-Page-Name-Without-Breaks-" * 6 + "end"
WIDE_TABLE = ("||" + "||".join(f"Column{n}WithAnUnbreakableHeader" for n in range(8)) + "||\n"
              "|" + "|".join(f"value{n}-that-is-also-rather-long" for n in range(8)) + "|")
DESCRIPTION = f"h2. Where\nSee {LONG_URL} and [the page|{LONG_URL}].\n\n{WIDE_TABLE}\n\n{{code}}{'x' * 300}{{code}}"


def state(key: str, **fields) -> dict:
    return {"key": key, "id": key.split("-")[1], "summary": f"Summary of {key}", "issue_type": "Task",
            "status": "Open", "updated": "2026-10-22T13:05:11.000+0300", **fields}


def seed(url: str, agent: str, interface: str) -> None:
    call(url, interface, "/api/v1/commands", {"type": "refresh"})
    [claimed] = call(url, agent, "/agent/v1/claim", {"agent_id": AGENT_ID, "version": 14})["commands"]
    issues = [state("AURORA-1", summary="Cards list", assignee="ivanov", description=DESCRIPTION),
              state("AURORA-2", summary=HOSTILE, status="Done", assignee="petrov"),
              *[state(f"AURORA-{n}", assignee="ivanov" if n % 2 else None) for n in range(10, 30)]]
    call(url, agent, f"/agent/v1/commands/{claimed['id']}/state",
         {"agent_id": AGENT_ID, "delivery": 1, "issues": issues})
    call(url, agent, f"/agent/v1/commands/{claimed['id']}/done",
         {"agent_id": AGENT_ID, "delivery": 1, "result": {"total": len(issues)}})


@pytest.fixture(scope="module")
def site(tmp_path_factory, browser, backend, request):
    with engine_database(request, backend) as database_url:
        data_dir = tmp_path_factory.mktemp("phone") / "data"
        agent, interface = prepared_hub(data_dir, database_url)
        made = run_script("token", "add", "ops", "--role", "admin", data_dir=data_dir, database_url=database_url)
        assert made.returncode == 0, made.stderr
        with serving(data_dir, database_url) as url:
            seed(url, agent, interface)
            yield {"url": url, "interface": interface, "admin": made.stdout.strip(), "data_dir": data_dir,
                   "database_url": database_url}


class Tab:
    """A fresh context and page of the given size, its console errors recorded."""

    def __init__(self, browser, site, viewport):
        self.site = site
        self.context = browser.new_context(viewport={"width": viewport[0], "height": viewport[1]})
        self.context.set_default_timeout(TIMEOUT_MS)
        self.page = self.context.new_page()
        self.errors: list[str] = []
        self.page.on("console", lambda message: message.type == "error" and self.errors.append(message.text))
        self.page.on("pageerror", lambda error: self.errors.append(f"uncaught: {error}"))

    def sign_in(self, token: str | None = None) -> None:
        self.page.goto(self.site["url"] + "/")
        self.page.get_by_label("Token").fill(token or self.site["interface"])
        self.page.get_by_role("button", name="Sign in").click()
        self.page.get_by_role("heading", name="Issues").wait_for()

    def width(self) -> int:
        return self.page.evaluate("document.documentElement.scrollWidth")


@pytest.fixture
def tabs(browser, site):
    opened: list[Tab] = []

    def tab(viewport=PHONE) -> Tab:
        opened.append(Tab(browser, site, viewport))
        return opened[-1]

    yield tab
    errors = [error for one in opened for error in one.errors]
    for one in opened:
        one.context.close()
    # A revoked token's 401s are the browser's own console lines; nothing else may be.
    assert [error for error in errors if "401" not in error] == [], errors



def test_on_a_phone_no_page_scrolls_sideways(tabs, site):
    tab = tabs()
    page = tab.page
    page.goto(site["url"] + "/")
    page.get_by_role("heading", name="Sign in").wait_for()
    assert tab.width() <= PHONE[0]
    check_page(page, "phone", "sign-in")
    tab.sign_in()
    expect(page.locator("#results tbody tr")).to_have_count(22)
    assert tab.width() <= PHONE[0]
    check_page(page, "phone", "issues")
    page.goto(site["url"] + "/#/issue/AURORA-1")
    page.locator("#description").wait_for()
    assert tab.width() <= PHONE[0], "an issue with a long URL and a wide table in its description"
    check_page(page, "phone", "issue-wide-description")
    ops = tabs()
    ops.sign_in(site["admin"])
    ops.page.goto(site["url"] + "/#/ops")
    ops.page.get_by_role("heading", name="Operations").wait_for()
    ops.page.get_by_role("heading", name="Agents").wait_for()
    assert ops.width() <= PHONE[0]
    check_page(ops.page, "phone", "operations")


def test_on_a_phone_the_filters_fold_behind_one_button_that_counts_those_set(tabs, site):
    tab = tabs()
    tab.sign_in()
    page = tab.page
    page.goto(site["url"] + "/#/issues?assignee=ivanov&status=Open")
    toggle = page.get_by_role("button", name="Filters (2)")
    expect(toggle).to_have_attribute("aria-expanded", "false")
    # Folded: the search box and the buttons, then the results; no filter in the way.
    expect(page.get_by_label("Search")).to_be_visible()
    expect(page.get_by_label("Status")).to_be_hidden()
    expect(page.get_by_label("Assignee")).to_be_hidden()
    expect(page.locator("#results tbody tr").first).to_be_in_viewport()
    check_page(page, "phone", "filters-folded")
    toggle.click()
    expect(toggle).to_have_attribute("aria-expanded", "true")
    expect(page.get_by_label("Status")).to_be_visible()
    expect(page.get_by_label("Status")).to_have_value("Open")
    page.get_by_label("Label").fill("AWPCA")
    expect(page.get_by_role("button", name="Filters (3)")).to_be_visible()
    assert tab.width() <= PHONE[0]
    check_page(page, "phone", "filters-open")
    page.get_by_role("button", name="Filters (3)").click()
    expect(page.get_by_label("Label")).to_be_hidden()


def test_on_a_phone_the_results_are_cards_each_line_named(tabs, site):
    tab = tabs()
    tab.sign_in()
    page = tab.page
    page.goto(site["url"] + "/#/issues?q=Cards")
    card = page.locator("#results tbody tr").first
    expect(card).to_contain_text("AURORA-1")
    expect(page.locator("#results thead")).to_be_hidden()
    cells = card.locator("td")
    assert cells.evaluate_all("cells => cells.map(c => getComputedStyle(c).display)") == ["block"] * cells.count()
    # Each line after the key and the summary says what it is.
    status_cell = card.locator("td[data-label=Status]")
    assert status_cell.evaluate("c => getComputedStyle(c, '::before').content") == '"Status: "'
    box = card.bounding_box()
    assert box and box["x"] >= 0 and box["x"] + box["width"] <= PHONE[0]
    check_page(page, "phone", "cards")


def test_on_a_wide_screen_the_filters_fold_too_and_the_results_are_a_table(tabs, site):
    tab = tabs((1280, 900))
    tab.sign_in()
    page = tab.page
    expect(page.get_by_label("Status")).to_be_hidden()
    page.locator(".filters-toggle").click()
    expect(page.get_by_label("Status")).to_be_visible()
    expect(page.locator("#results thead")).to_be_visible()


def test_the_nav_is_neither_shown_nor_reached_by_tab_on_the_sign_in_page(tabs, site):
    tab = tabs((1280, 900))
    page = tab.page
    page.goto(site["url"] + "/")
    page.get_by_role("heading", name="Sign in").wait_for()
    expect(page.get_by_role("navigation", name="Main")).to_be_hidden()
    expect(page.get_by_role("button", name="Sign out")).to_be_hidden()
    reached = []
    for _ in range(8):
        page.keyboard.press("Tab")
        reached.append(page.evaluate("document.activeElement.closest('nav') ? 'nav' : document.activeElement.id"))
    assert "nav" not in reached, reached
    tab.sign_in()
    expect(page.get_by_role("navigation", name="Main")).to_be_visible()


def test_the_title_names_the_page_and_the_issue_and_changes_on_leaving_it(tabs, site):
    tab = tabs((1280, 900))
    page = tab.page
    page.goto(site["url"] + "/")
    expect(page).to_have_title("Sign in · sdlc-hub")
    tab.sign_in()
    expect(page).to_have_title("Issues · sdlc-hub")
    page.get_by_role("link", name="AURORA-1", exact=True).click()
    expect(page).to_have_title("AURORA-1 · Cards list · sdlc-hub")
    page.go_back()
    expect(page).to_have_title("Issues · sdlc-hub")
    # A summary is text in the title too: nothing of it runs.
    page.goto(site["url"] + "/#/issue/AURORA-2")
    expect(page).to_have_title(f"AURORA-2 · {HOSTILE} · sdlc-hub")
    assert page.evaluate("window.__injected") is None
    page.get_by_role("link", name="Operations").click()
    expect(page).to_have_title("Operations · sdlc-hub")
    page.get_by_role("button", name="Sign out").click()
    expect(page).to_have_title("Sign in · sdlc-hub")


def test_an_issue_opened_by_its_key_in_lower_case_is_shown_under_its_key(tabs, site):
    tab = tabs((1280, 900))
    tab.sign_in()
    page = tab.page
    page.goto(site["url"] + "/#/issue/aurora-1")
    expect(page.get_by_role("heading", level=1)).to_contain_text("AURORA-1")
    expect(page.get_by_role("heading", level=1)).to_contain_text("Cards list")
    expect(page).to_have_url(re.compile(r"#/issue/AURORA-1$"))
    # And a search for it in lower case finds it.
    page.goto(site["url"] + "/#/issues?q=aurora-1")
    expect(page.locator("#results tbody tr").first).to_contain_text("AURORA-1")
    check_page(page, "issue", "lower-case-key")


def test_a_token_revoked_while_an_issue_is_open_leads_to_the_sign_in(tabs, site):
    made = run_script("token", "add", "soon-revoked", "--role", "interface", data_dir=site["data_dir"],
                      database_url=site["database_url"])
    assert made.returncode == 0, made.stderr
    tab = tabs((1280, 900))
    tab.sign_in(made.stdout.strip())
    page = tab.page
    page.get_by_role("link", name="AURORA-1", exact=True).click()
    page.locator("#description").wait_for()
    revoked = run_script("token", "revoke", "soon-revoked", data_dir=site["data_dir"],
                         database_url=site["database_url"])
    assert revoked.returncode == 0, revoked.stderr
    # The next issue's own requests meet the 401: the sign-in, not "Could not read AURORA-2".
    page.evaluate("location.hash = '#/issue/AURORA-2'")
    expect(page.get_by_role("heading", name="Sign in")).to_be_visible()
    expect(page.get_by_role("alert").first).to_contain_text(re.compile("sign in again", re.I))
    expect(page.get_by_text("Could not read")).to_have_count(0)
    check_page(page, "sign-in", "revoked")
