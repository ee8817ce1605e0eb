"""The issue page as a team works in it, in a real browser against a real hub.

A mirror loaded through the agent API by an agent of protocol v16, with Jira's
catalogues and users: an epic and its issues, a parent and its sub-tasks, an
issue linked by three link types both ways (to a gone issue and to one the
mirror does not hold), and image and non-image attachments, some fetched. The
page groups the links under Jira's phrases with the other issue's summary and
status, lists the epic's issues and the sub-tasks with their assignees, shows
who attached each file, when, its type and size, previews a ready image, and
writes dates with their zone. Text from Jira (a linked issue's summary, a file's
name, a user's display name) shows as text and runs nothing. Headless Chromium
from the system's packages (the ``browser`` fixture); each page and state is
checked by axe-core and kept as a screenshot (tests/support/browser.py). The module's hub is started
once, on SQLite (tests/web/__init__.py says why one engine).
"""

from __future__ import annotations

import pytest

from tests.support import (
    PDF,
    PNG,
    call,
    next_second,
    prepared_hub,
    scripted_agent,
    serving,
    wait_until,
)
from tests.support.browser import TIMEOUT_MS, check_page, expect

pytestmark = pytest.mark.backends("sqlite", shared=True)  # one engine: see tests/web/__init__.py

AGENT_ID = "web-issue-agent"
IMAGE = "<img src=x onerror=\"window.__injected = 'img'\">"
LINKED = f"Card form {IMAGE}"
FILE = f"{IMAGE}.txt"
AUTHOR = "<img src=x onerror=\"window.__injected = 'author'\"> Mallory"
CREATED = "2026-10-22T13:05:11.000+0300"
COMMENTS = 120  # the page reads 50 at a time (comments.js)
MARKDOWN_LINK = "[click here](http://evil.example/phish) [x](/api/v1/attachments/9101/content)"

CATALOGUES = {
    "statuses": [{"id": "1", "name": "Open", "category": "To Do", "category_key": "new"},
                 {"id": "3", "name": "In Progress", "category": "In Progress", "category_key": "indeterminate"},
                 {"id": "10001", "name": "Done", "category": "Done", "category_key": "done"}],
    "issue_types": [{"id": "10000", "name": "Epic", "subtask": False},
                    {"id": "10001", "name": "Story", "subtask": False},
                    {"id": "10003", "name": "Sub-task", "subtask": True}],
    "link_types": [{"id": "10000", "name": "Blocks", "outward": "blocks", "inward": "is blocked by"},
                   {"id": "10001", "name": "Cloners", "outward": "clones", "inward": "is cloned by"},
                   {"id": "10003", "name": "Relates", "outward": "relates to", "inward": "relates to"}],
    "users": [{"name": "ivanov", "key": "JIRAUSER10100", "display_name": "Ivan Ivanov"},
              {"name": "petrov", "key": "JIRAUSER10101", "display_name": "Pyotr Petrov"},
              {"name": "mallory", "key": "JIRAUSER10102", "display_name": AUTHOR}],
}


def state(key: str, **fields) -> dict:
    return {"key": key, "id": str(10000 + int(key.split("-")[1])), "summary": f"Summary of {key}",
            "issue_type": "Story", "status": "Open", "updated": CREATED, "created": CREATED, **fields}


def attached(aid: str, filename: str, mime_type: str | None, size: int, author: str) -> dict:
    return {"id": aid, "filename": filename, "size": size, "mime_type": mime_type, "author": author,
            "created": CREATED}


ISSUES = [
    state("AURORA-20", summary="Checkout", issue_type="Epic"),
    state("AURORA-21", summary="Pay by card", status="In Progress", assignee="ivanov", epic_key="AURORA-20"),
    state("AURORA-22", summary="Refunds", epic_key="AURORA-20"),
    state("AURORA-30", summary="Receipts"),
    state("AURORA-31", summary="Receipt layout", issue_type="Sub-task", parent_key="AURORA-30", assignee="petrov"),
    state("AURORA-32", summary="Receipt e-mail", issue_type="Sub-task", parent_key="AURORA-30", status="Done",
          assignee="ivanov"),
    state("AURORA-40", summary="Checkout page", epic_key="AURORA-20", duedate="2026-11-20",
          links=[{"type": "Blocks", "outward": "AURORA-41"}, {"type": "Blocks", "inward": "AURORA-42"},
                 {"type": "Relates", "outward": "AURORA-43"}, {"type": "Relates", "inward": "AURORA-21"},
                 {"type": "Cloners", "outward": "OTHER-9"}, {"type": "Cloners", "inward": "AURORA-44"}],
          attachments=[attached("9101", "screen.png", "image/png", len(PNG), "petrov"),
                       attached("9102", "sketch.png", "image/png", 2048, "ivanov"),
                       attached("9103", "spec.pdf", "application/pdf", len(PDF), "mallory"),
                       attached("9104", FILE, "text/plain", 12, "mallory")]),
    state("AURORA-41", summary=LINKED, status="Done"),
    # Hostile text in an epic's issue and in a sub-task.
    state("AURORA-60", summary="Hostile epic", issue_type="Epic"),
    state("AURORA-61", summary=f"Epic's {IMAGE}", status=f"<b>{IMAGE}</b>", epic_key="AURORA-60"),
    state("AURORA-62", summary=f"Task's {IMAGE}", issue_type="Sub-task", parent_key="AURORA-61",
          assignee="<script>window.__injected = 'assignee'</script>"),
    state("AURORA-42", summary="Card API"),
    state("AURORA-44", summary="Checkout page, copied"),
    # More comments than a page holds; the first is Markdown, which Jira shows as typed.
    state("AURORA-50", summary="Long discussion", comments=[
        {"id": str(20000 + n), "author": "petrov", "created": CREATED,
         "body": MARKDOWN_LINK if n == 0 else f"Reply *{n}*"} for n in range(COMMENTS)]),
]


def refresh(url: str, agent: str, interface: str, jql: str | None, issues: list[dict]) -> None:
    """One refresh by an agent of protocol v16, its page with Jira's catalogues."""
    body = {"type": "refresh", "params": {"jql": jql}} if jql else {"type": "refresh"}
    command = call(url, interface, "/api/v1/commands", body)
    [claimed] = call(url, agent, "/agent/v1/claim", {"agent_id": AGENT_ID, "version": 16})["commands"]
    assert claimed["id"] == command["id"]
    call(url, agent, f"/agent/v1/commands/{claimed['id']}/state",
         {"agent_id": AGENT_ID, "delivery": 1, "issues": issues, "catalogues": CATALOGUES})
    call(url, agent, f"/agent/v1/commands/{claimed['id']}/done",
         {"agent_id": AGENT_ID, "delivery": 1, "result": {"total": len(issues)}})


def seed(url: str, agent: str, interface: str) -> None:
    """AURORA-43 mirrored, then a full run without it and the check that finds it gone; then
    the ready attachments fetched by a scripted agent."""
    refresh(url, agent, interface, "key = AURORA-43", [state("AURORA-43", summary="Old checkout")])
    next_second()
    refresh(url, agent, interface, None, ISSUES)
    check = wait_until(lambda: call(url, agent, "/agent/v1/claim", {
        "agent_id": AGENT_ID, "version": 16, "types": ["check_issues"]})["commands"], timeout=30,
        message="the check after the full run")[0]
    assert check["params"]["keys"] == ["AURORA-43"]
    call(url, agent, f"/agent/v1/commands/{check['id']}/done",
         {"agent_id": AGENT_ID, "delivery": 1, "result": {"checked": 1, "missing": ["AURORA-43"]}})
    fetcher = scripted_agent(url, agent, {"9101": PNG, "9103": PDF}, 2)
    for aid in ("9101", "9103"):
        call(url, interface, f"/api/v1/attachments/{aid}/fetch", {})
    fetcher.join(timeout=60)
    assert [call(url, interface, f"/api/v1/attachments/{aid}")["state"] for aid in ("9101", "9103")] == \
        ["ready", "ready"]


@pytest.fixture(scope="module")
def site(tmp_path_factory, browser, module_database_url):
    """A hub serving on loopback with the mirror above (on each engine): its URL and tokens."""
    data_dir = tmp_path_factory.mktemp("web-issue") / "data"
    agent, interface = prepared_hub(data_dir, module_database_url)
    with serving(data_dir, module_database_url) as url:
        seed(url, agent, interface)
        yield {"url": url, "agent": agent, "interface": interface}


def open_page(browser, site, **context):
    """A signed-in page of a fresh context (``context``: Playwright's options) and its console errors."""
    made = browser.new_context(**{"viewport": {"width": 1280, "height": 900}, **context})
    made.set_default_timeout(TIMEOUT_MS)
    tab = made.new_page()
    errors: list[str] = []
    tab.on("console", lambda message: message.type == "error" and errors.append(message.text))
    tab.on("pageerror", lambda error: errors.append(f"uncaught: {error}"))
    tab.goto(site["url"] + "/")
    tab.get_by_label("Token").fill(site["interface"])
    tab.get_by_role("button", name="Sign in").click()
    tab.get_by_role("heading", name="Issues").wait_for()
    return made, tab, errors


@pytest.fixture
def page(browser, site):
    """A signed-in page; it must log no console error."""
    context, tab, errors = open_page(browser, site)
    yield tab
    context.close()
    assert errors == [], f"console errors: {errors}"



def show(tab, site, key: str, title: str) -> None:
    tab.goto(site["url"] + f"/#/issue/{key}")
    expect(tab.get_by_role("heading", name=f"{key} {title}")).to_be_visible()


def group(tab, phrase: str):
    """The rows of the links grouped under phrase."""
    return tab.locator(".link-group").filter(has=tab.locator(f"h3:text-is('{phrase}')")).locator("tbody tr")


def cells(row):
    return row.locator("td")


def test_links_are_grouped_by_jiras_phrases_with_the_other_issues_summary_and_status(page, site):
    show(page, site, "AURORA-40", "Checkout page")
    # A hub that does not know Jira's address offers no "Open in Jira".
    expect(page.get_by_role("link", name="Open in Jira")).to_have_count(0)
    links = page.locator("section[aria-labelledby=s-links]")
    # Outward phrases first, then inward ones, each type in the hub's order.
    expect(links.locator("h3")).to_have_text(["blocks", "clones", "relates to", "is blocked by", "is cloned by"])
    expect(cells(group(page, "blocks"))).to_have_text(["AURORA-41", LINKED, "Done"])
    expect(cells(group(page, "is blocked by"))).to_have_text(["AURORA-42", "Card API", "Open"])
    expect(cells(group(page, "clones"))).to_have_text(["OTHER-9 not in the mirror", "—", "—"])
    expect(cells(group(page, "is cloned by"))).to_have_text(["AURORA-44", "Checkout page, copied", "Open"])
    # Relates words both sides alike: one group, this issue's own link first.
    relates = group(page, "relates to")
    expect(relates).to_have_count(2)
    expect(cells(relates.first)).to_have_text(["AURORA-43 gone", "Old checkout", "Open"])
    expect(cells(relates.nth(1))).to_have_text(["AURORA-21", "Pay by card", "In Progress"])
    # An issue the mirror does not hold is no link to a page that would say so.
    expect(links.get_by_role("link", name="OTHER-9")).to_have_count(0)
    check_page(page, "issue", "links")
    group(page, "is blocked by").get_by_role("link", name="AURORA-42").click()
    expect(page.get_by_role("heading", name="AURORA-42 Card API")).to_be_visible()
    expect(page.locator("section[aria-labelledby=s-links] h3")).to_have_text(["blocks"])
    expect(cells(group(page, "blocks"))).to_have_text(["AURORA-40", "Checkout page", "Open"])


def test_a_linked_issues_hostile_summary_shows_as_text(page, site):
    show(page, site, "AURORA-40", "Checkout page")
    expect(group(page, "blocks").locator("td").nth(1)).to_have_text(LINKED)
    assert page.locator("section[aria-labelledby=s-links] img").count() == 0
    assert page.evaluate("window.__injected") is None


def test_an_epic_lists_its_issues_with_the_total_and_a_link_to_the_list(page, site):
    show(page, site, "AURORA-20", "Checkout")
    epic = page.locator("section[aria-labelledby=s-issues-in-this-epic]")
    expect(epic.locator("#epic-total")).to_contain_text("3 issues")
    rows = epic.locator("tbody tr")
    expect(rows).to_have_count(3)
    expect(cells(rows.first)).to_have_text(["AURORA-21", "Pay by card", "In Progress", "Ivan Ivanov"])
    # A person by display name, the login on hover.
    expect(cells(rows.first).nth(3).locator(".person")).to_have_attribute("title", "ivanov")
    expect(cells(rows.nth(1))).to_have_text(["AURORA-22", "Refunds", "Open", "—"])
    expect(cells(rows.nth(2))).to_have_text(["AURORA-40", "Checkout page", "Open", "—"])
    check_page(page, "issue", "epic")
    epic.get_by_role("link", name="list them with the issues' filters").click()
    expect(page).to_have_url(site["url"] + "/#/issues?epic_key=AURORA-20")
    expect(page.locator("#results tbody tr")).to_have_count(3)
    # An issue no issue names as its epic has no such section.
    show(page, site, "AURORA-42", "Card API")
    expect(page.locator("section[aria-labelledby=s-issues-in-this-epic]")).to_be_hidden()


def test_hostile_text_in_an_epics_issues_and_in_sub_tasks_shows_as_text(page, site):
    show(page, site, "AURORA-60", "Hostile epic")
    row = page.locator("section[aria-labelledby=s-issues-in-this-epic] tbody tr")
    expect(row).to_have_count(1)
    expect(cells(row)).to_have_text(["AURORA-61", f"Epic's {IMAGE}", f"<b>{IMAGE}</b>", "—"])
    row.get_by_role("link", name="AURORA-61").click()
    expect(page.get_by_role("heading", name=f"AURORA-61 Epic's {IMAGE}")).to_be_visible()
    subtask = page.locator("section[aria-labelledby=s-sub-tasks] tbody tr")
    expect(cells(subtask)).to_have_text(["AURORA-62", f"Task's {IMAGE}", "Open",
                                         "<script>window.__injected = 'assignee'</script>"])
    assert page.locator("main img, main script, main b").count() == 0
    assert page.evaluate("window.__injected") is None
    check_page(page, "issue", "hostile-epic-and-sub-tasks")


def test_a_parent_lists_its_sub_tasks_with_status_and_assignee(page, site):
    show(page, site, "AURORA-30", "Receipts")
    rows = page.locator("section[aria-labelledby=s-sub-tasks] tbody tr")
    expect(rows).to_have_count(2)
    expect(cells(rows.first)).to_have_text(["AURORA-31", "Receipt layout", "Open", "Pyotr Petrov"])
    expect(cells(rows.nth(1))).to_have_text(["AURORA-32", "Receipt e-mail", "Done", "Ivan Ivanov"])
    # Each status a lozenge of its category.
    expect(cells(rows.nth(1)).nth(2).locator(".lozenge")).to_have_class("lozenge lozenge-done")
    check_page(page, "issue", "subtasks")
    rows.first.get_by_role("link", name="AURORA-31").click()
    expect(page.get_by_role("heading", name="AURORA-31 Receipt layout")).to_be_visible()
    expect(page.locator("dl.fields dt:text-is('Parent') + dd")).to_have_text("AURORA-30")
    expect(page.locator("section[aria-labelledby=s-sub-tasks]")).to_be_hidden()


def test_attachments_show_author_date_type_and_size(page, site):
    show(page, site, "AURORA-40", "Checkout page")
    section = page.locator("section[aria-labelledby=s-attachments]")
    expect(section.locator("thead th")).to_have_text(
        ["File", "Type", "Size", "Attached by", "Attached", "State", "Actions"])
    rows = section.locator("tbody tr")
    expect(rows).to_have_count(4)
    pdf = rows.nth(2)
    expect(cells(pdf).nth(0)).to_have_text("spec.pdf")
    expect(cells(pdf).nth(1)).to_have_text("application/pdf")
    expect(cells(pdf).nth(2)).to_have_text("16.0 KiB")
    expect(cells(pdf).nth(3)).to_have_text(AUTHOR)
    expect(cells(pdf).nth(3).locator(".person")).to_have_attribute("title", "mallory")
    expect(cells(pdf).nth(4).locator("time")).to_have_attribute("datetime", "2026-10-22T10:05:11+00:00")
    expect(cells(pdf).nth(5)).to_have_text("ready")
    sketch = rows.nth(1)
    expect(cells(sketch).nth(1)).to_have_text("image/png")
    expect(cells(sketch).nth(2)).to_have_text("2.0 KiB")
    expect(cells(sketch).nth(3)).to_have_text("Ivan Ivanov")
    expect(cells(sketch).nth(5)).to_have_text("none")
    # A hostile file name and display name are text, nowhere an element.
    expect(cells(rows.nth(3)).nth(0)).to_have_text(FILE)
    expect(page.get_by_role("button", name=f"Fetch {FILE}")).to_be_visible()
    assert section.locator("img:not(.thumb img)").count() == 0
    assert page.evaluate("window.__injected") is None
    check_page(page, "issue", "attachments")


def test_a_ready_image_is_previewed_and_opens_full_size(page, site):
    # The <img> goes with the session cookie: the page keeps no token.
    assert page.evaluate("sessionStorage.length") == 0
    show(page, site, "AURORA-40", "Checkout page")
    section = page.locator("section[aria-labelledby=s-attachments]")
    thumbs = section.locator("button.thumb img")
    # One preview: the ready image; the image not fetched yet and the PDF have none.
    expect(thumbs).to_have_count(1)
    expect(thumbs.first).to_have_attribute("src", "/api/v1/attachments/9101/content")
    # Loaded (a 1×1 PNG). Asked through expect: the page's CSP forbids the eval a string
    # predicate of wait_for_function needs.
    expect(thumbs.first).to_have_js_property("naturalWidth", 1)
    check_page(page, "issue", "preview")
    opener = section.get_by_role("button", name="Show screen.png full size")
    opener.click()
    dialog = page.get_by_role("dialog", name="screen.png")
    expect(dialog).to_be_visible()
    expect(dialog.locator("img")).to_have_attribute("src", "/api/v1/attachments/9101/content")
    check_page(page, "issue", "preview-full-size")
    page.keyboard.press("Escape")
    expect(dialog).to_have_count(0)
    expect(opener).to_be_focused()


def test_dates_read_with_their_zone_and_their_iso_time_as_a_tooltip(browser, site):
    context, tab, errors = open_page(browser, site, locale="en-GB", timezone_id="Europe/Moscow")
    try:
        show(tab, site, "AURORA-40", "Checkout page")
        created = tab.locator("dl.fields dt:text-is('Created') + dd time")
        expect(created).to_have_text("22 Oct 2026, 13:05 UTC+03:00")
        expect(created).to_have_attribute("title", "2026-10-22T10:05:11.000Z")
        # A due date is a day: no time, no zone.
        expect(tab.locator("dl.fields dt:text-is('Due') + dd")).to_have_text("20 Nov 2026")
        check_page(tab, "issue", "dates-utc-plus-3")
        expect(tab.locator("dl.fields dt:text-is('Fetched by the hub') + dd")).to_contain_text(" ago)")
        attached_at = tab.locator("section[aria-labelledby=s-attachments] tbody tr").first.locator("time")
        expect(attached_at).to_have_text("22 Oct 2026, 13:05 UTC+03:00")
        # The list writes its dates the same way.
        tab.goto(site["url"] + "/#/issues?epic_key=AURORA-20")
        expect(tab.locator("#results tbody tr").first.locator("time")).to_have_text("22 Oct 2026, 13:05 UTC+03:00")
        assert errors == [], errors
    finally:
        context.close()
    context, tab, errors = open_page(browser, site, locale="en-US", timezone_id="America/New_York")
    try:
        show(tab, site, "AURORA-40", "Checkout page")
        expect(tab.locator("dl.fields dt:text-is('Created') + dd time")).to_have_text("Oct 22, 2026, 06:05 UTC-04:00")
        assert errors == [], errors
    finally:
        context.close()


def test_the_issue_page_fits_a_phone_with_its_links_sub_tasks_and_attachments(browser, site):
    context, tab, errors = open_page(browser, site, viewport={"width": 390, "height": 844})
    try:
        pages = (("AURORA-40", "Checkout page", "links-phone", "s-attachments"),
                 ("AURORA-30", "Receipts", "subtasks-phone", "s-sub-tasks"),
                 ("AURORA-20", "Checkout", "epic-phone", "s-issues-in-this-epic"))
        for key, title, state, section in pages:
            show(tab, site, key, title)
            expect(tab.locator(f"section[aria-labelledby={section}] tbody tr").first).to_be_visible()
            # Wide tables scroll inside their own box; the page itself never sideways.
            assert tab.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), key
            check_page(tab, "issue", state)
        assert errors == [], errors
    finally:
        context.close()


def test_comments_come_fifty_at_a_time_and_show_more_reads_the_next(page, site):
    show(page, site, "AURORA-50", "Long discussion")
    comments = page.locator("#comments > li")
    more = page.get_by_role("button", name="Show more comments")
    expect(comments).to_have_count(50)
    expect(page.locator("#comment-count")).to_have_text(f"{COMMENTS} comments, 50 shown.")
    # Markdown in Jira's text is text: no link, as Jira shows it.
    expect(comments.first.locator(".wiki")).to_have_text(MARKDOWN_LINK)
    expect(comments.first.get_by_role("link", name="click here")).to_have_count(0)
    expect(comments.first.locator("a[href*='/api/v1/attachments/']")).to_have_count(0)
    check_page(page, "issue", "comments-first-page")
    more.click()
    expect(comments).to_have_count(100)
    expect(comments.nth(99).locator(".wiki strong")).to_have_text("99")
    more.click()
    expect(comments).to_have_count(COMMENTS)
    expect(page.locator("#comment-count")).to_have_text(f"{COMMENTS} comments.")
    expect(more).to_be_hidden()
    expect(comments.last.locator(".wiki")).to_have_text(f"Reply {COMMENTS - 1}")
