"""The whole of a Jira issue in the web interface, in a real browser against a real hub.

A protocol v15 page (with Jira's catalogues and users) loads issues as rich as a
team's — resolution, versions, components, a parent and sub-tasks, time
tracking, several sprints, worklogs, custom fields of many types, an
environment — and the pages show every one of them; hostile text in a custom
field or the environment shows as text; the list's new filters narrow it and
stay in the address. Headless Chromium from the system's packages (the
``browser`` fixture); each page and state is checked by axe-core and leaves its screenshot
(tests/support/browser.py).
"""

from __future__ import annotations

import pytest

from tests.support import call, prepared_hub, serving
from tests.support.browser import TIMEOUT_MS, check_page, expect
from tests.support.engine_rows import engine_database

pytestmark = pytest.mark.backends("sqlite", shared=True)  # one engine: see tests/web/__init__.py

AGENT_ID = "web-agent-15"
SCRIPT = "<script>window.__injected = 'script'</script>"
IMAGE = "<img src=x onerror=\"window.__injected = 'img'\">"
TEXTAREA = "com.atlassian.jira.plugin.system.customfieldtypes:textarea"

CATALOGUES = {
    "priorities": [{"id": "1", "name": "Blocker"}, {"id": "2", "name": "Critical"},
                   {"id": "3", "name": "Major"}, {"id": "4", "name": "Minor"}],
    "statuses": [{"id": "1", "name": "Open", "category": "To Do", "category_key": "new"},
                 {"id": "3", "name": "In Progress", "category": "In Progress", "category_key": "indeterminate"},
                 {"id": "10001", "name": "Done", "category": "Done", "category_key": "done"}],
    "resolutions": [{"id": "1", "name": "Fixed"}, {"id": "2", "name": "Won't Fix"}],
    "issue_types": [{"id": "1", "name": "Bug", "subtask": False}, {"id": "10003", "name": "Sub-task", "subtask": True},
                    {"id": "10001", "name": "Story", "subtask": False}],
    "link_types": [{"id": "10000", "name": "Blocks", "outward": "blocks", "inward": "is blocked by"}],
    "users": [{"name": "ivanov", "key": "JIRAUSER10100", "display_name": "Ivan Ivanov"},
              {"name": "petrov", "key": "JIRAUSER10101", "display_name": "Pyotr Petrov"}],
}
SPRINT_13 = {"id": 23, "name": "AURORA Sprint 13", "state": "closed", "start": "2026-10-01T09:00:00.000+03:00",
             "end": "2026-10-14T18:00:00.000+03:00", "complete": "2026-10-14T17:00:00.000+03:00", "board_id": 3,
             "goal": "Cards"}
SPRINT_14 = {"id": 24, "name": "AURORA Sprint 14", "state": "active", "start": "2026-10-15T09:00:00.000+03:00",
             "end": "2026-10-28T18:00:00.000+03:00", "complete": None, "board_id": 3, "goal": "Export"}
SPRINT_15 = {"id": 25, "name": "AURORA Sprint 15", "state": "future", "board_id": 3}
CUSTOM_FIELDS = {
    "customfield_10002": {"name": "Story Points", "type": "number",
                          "custom": "com.atlassian.jira.plugin.system.customfieldtypes:float", "value": 5},
    "customfield_10100": {"name": "Team", "type": "option",
                          "custom": "com.atlassian.jira.plugin.system.customfieldtypes:select", "value": "Aurora"},
    "customfield_10101": {"name": "Platforms", "type": "array",
                          "custom": "com.atlassian.jira.plugin.system.customfieldtypes:multicheckboxes",
                          "value": ["Android", "iOS"]},
    "customfield_10102": {"name": "Region", "type": "option-with-child",
                          "custom": "com.atlassian.jira.plugin.system.customfieldtypes:cascadingselect",
                          "value": {"parent": "Europe", "child": "Berlin"}},
    "customfield_10103": {"name": "Reviewer", "type": "user",
                          "custom": "com.atlassian.jira.plugin.system.customfieldtypes:userpicker",
                          "value": "petrov"},
    "customfield_10104": {"name": "Checklist", "type": "any", "custom": "com.example.checklist:items",
                          "value": {"done": 2, "of": 3}},
    "customfield_10105": {"name": "Release notes", "type": "string", "custom": TEXTAREA,
                          "value": f"h3. Notes\n{SCRIPT}\n* first"},
    "customfield_10106": {"name": "Customer", "type": "string",
                          "custom": "com.atlassian.jira.plugin.system.customfieldtypes:textfield", "value": IMAGE},
}


def state(key: str, **fields) -> dict:
    return {"key": key, "id": str(10000 + int(key.split("-")[1])), "summary": f"Summary of {key}",
            "issue_type": "Task", "status": "Open", "updated": "2026-10-22T13:05:11.000+0300", **fields}


RICH = state(
    "AURORA-12", summary="Export to PDF", issue_type="Story", status="Done", priority="Major",
    assignee="ivanov", reporter="petrov", resolution="Fixed", resolved="2026-10-22T13:05:11.000+0300",
    components=["Backend", "UI"],
    fix_versions=[{"id": "10100", "name": "2.3", "released": False, "release_date": "2026-12-20"}],
    affects_versions=[{"id": "10090", "name": "2.2", "released": True, "release_date": "2026-09-01"}],
    environment=f"h2. Staging\nFirefox *128*\n{SCRIPT}\n{IMAGE}",
    time_original_estimate=57600, time_estimate=9000, time_spent=12600,
    sprint="AURORA Sprint 14", sprints=[SPRINT_13, SPRINT_14],
    worklogs=[{"id": "40001", "author": "ivanov", "started": "2026-10-20T10:00:00.000+0300", "time_spent": 3600,
               "comment": f"Reviewed {SCRIPT}", "created": "2026-10-20T11:00:00.000+0300",
               "updated": "2026-10-20T11:00:00.000+0300"},
              {"id": "40002", "author": "petrov", "started": "2026-10-21T10:00:00.000+0300", "time_spent": 9000,
               "comment": "Fixed the *export*", "created": "2026-10-21T13:00:00.000+0300",
               "updated": "2026-10-21T13:00:00.000+0300"}],
    custom_fields=CUSTOM_FIELDS,
    links=[{"type": "Blocks", "outward": "AURORA-14"}],
    comments=[{"id": "101", "author": "petrov", "created": "2026-10-22T13:05:11.000+0300", "body": "Done *now*"}])
ISSUES = [
    RICH,
    state("AURORA-13", summary="Layout of the PDF", issue_type="Sub-task", status="In Progress",
          priority="Minor", parent_key="AURORA-12", sprint="AURORA Sprint 14", sprints=[SPRINT_14]),
    state("AURORA-14", summary="Print preview", issue_type="Bug", priority="Blocker", components=["UI"],
          fix_versions=[{"id": "10101", "name": "2.4", "released": False}], sprint=None, sprints=[SPRINT_13]),
    state("AURORA-15", summary="Won't do", issue_type="Bug", status="Done", priority="Critical",
          resolution="Won't Fix", resolved="2026-10-21T10:00:00.000+0300", sprints=[SPRINT_15]),
    # More worklogs than one page of the panel.
    state("AURORA-16", summary="Many small logs", priority="Minor", resolution="Fixed",
          resolved="2026-10-21T10:00:00.000+0300",
          worklogs=[{"id": str(50000 + n), "author": "ivanov", "started": f"2026-10-{n % 28 + 1:02d}T10:00:00.000+0300",
                     "time_spent": 60} for n in range(55)]),
]


def seed(url: str, agent: str, interface: str) -> None:
    """One refresh by an agent of protocol v15, the catalogues with its first page."""
    command = call(url, interface, "/api/v1/commands", {"type": "refresh"})
    [claimed] = call(url, agent, "/agent/v1/claim", {"agent_id": AGENT_ID, "version": 15})["commands"]
    assert claimed["id"] == command["id"]
    call(url, agent, f"/agent/v1/commands/{claimed['id']}/state",
         {"agent_id": AGENT_ID, "delivery": 1, "issues": ISSUES, "catalogues": CATALOGUES})
    call(url, agent, f"/agent/v1/commands/{claimed['id']}/done",
         {"agent_id": AGENT_ID, "delivery": 1, "result": {"total": len(ISSUES)}})


@pytest.fixture(scope="module")
def site(tmp_path_factory, browser, backend, request):
    """A hub serving on loopback with the rich mirror: its URL and tokens."""
    with engine_database(request, backend) as database_url:
        data_dir = tmp_path_factory.mktemp("web-whole") / "data"
        agent, interface = prepared_hub(data_dir, database_url)
        with serving(data_dir, database_url) as url:
            seed(url, agent, interface)
            yield {"url": url, "agent": agent, "interface": interface}


@pytest.fixture
def page(browser, site):
    """A signed-in page of a fresh context; it must log no console error."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(TIMEOUT_MS)
    tab = context.new_page()
    errors: list[str] = []
    tab.on("console", lambda message: message.type == "error" and errors.append(message.text))
    tab.on("pageerror", lambda error: errors.append(f"uncaught: {error}"))
    tab.goto(site["url"] + "/")
    tab.get_by_label("Token").fill(site["interface"])
    tab.get_by_role("button", name="Sign in").click()
    tab.get_by_role("heading", name="Issues").wait_for()
    yield tab
    context.close()
    assert errors == [], f"console errors: {errors}"



def screenshot(tab, name: str, state: str) -> None:
    """The page's screenshot, ``<name>-<state>.png``, and its accessibility check."""
    check_page(tab, name, state)


def field(tab, label: str):
    """The side panel's value for label."""
    return tab.locator(f"dl.fields dt:text-is('{label}') + dd")


def test_the_issue_page_shows_every_field_of_the_whole_issue(page, site):
    page.goto(site["url"] + "/#/issue/AURORA-12")
    expect(page.get_by_role("heading", name="AURORA-12 Export to PDF")).to_be_visible()
    expect(field(page, "Resolution")).to_contain_text("Fixed")
    expect(field(page, "Resolution").locator("time")).to_have_attribute("datetime", "2026-10-22T10:05:11+00:00")
    expect(field(page, "Components").locator("li")).to_have_text(["Backend", "UI"])
    # A release date is a day, with no time or zone (the browser's locale is en-US here).
    expect(field(page, "Fix versions")).to_contain_text("2.3 unreleased Dec 20, 2026")
    expect(field(page, "Fix versions").locator("time")).to_have_attribute("datetime", "2026-12-20")
    expect(field(page, "Affects versions")).to_contain_text("2.2 released Sep 1, 2026")
    # People by display name, the login on hover; an empty field is left out.
    expect(field(page, "Assignee")).to_have_text("Ivan Ivanov")
    expect(field(page, "Assignee").locator(".person")).to_have_attribute("title", "ivanov")
    expect(field(page, "Reporter")).to_have_text("Pyotr Petrov")
    expect(field(page, "Parent")).to_have_count(0)
    subtasks = page.locator("section[aria-labelledby=s-sub-tasks] tbody tr")
    expect(subtasks).to_have_count(1)
    expect(subtasks.first.locator("td")).to_have_text(["AURORA-13", "Layout of the PDF", "In Progress", "—"])
    # Jira's way: an 8-hour day, a 5-day week.
    expect(field(page, "Original estimate")).to_have_text("2d")
    expect(field(page, "Remaining")).to_have_text("2h 30m")
    expect(field(page, "Logged")).to_have_text("3h 30m")
    sprints = field(page, "Sprint").locator("li")
    expect(sprints).to_have_text(["AURORA Sprint 13 closed", "AURORA Sprint 14 active current"])
    expect(page.locator("#environment").get_by_role("heading", name="Staging")).to_be_visible()
    expect(page.locator("#environment")).to_contain_text("Firefox 128")
    worklogs = page.locator("section[aria-labelledby=s-worklogs]")
    expect(worklogs.locator("#worklog-total")).to_have_text("2 worklogs, 3h 30m logged in all.")
    expect(worklogs.locator("tbody tr")).to_have_count(2)
    expect(worklogs.locator("tbody tr").first).to_contain_text("Ivan Ivanov")
    expect(worklogs.locator("tbody tr").first).to_contain_text("1h")
    expect(worklogs.locator("tbody tr").nth(1)).to_contain_text("2h 30m")
    expect(worklogs.locator("tbody tr").nth(1)).to_contain_text("Fixed the export")
    links = page.locator("section[aria-labelledby=s-links] .link-group")
    expect(links).to_have_count(1)
    expect(links.first.locator("h3")).to_have_text("blocks")
    expect(links.first.locator("tbody td")).to_have_text(["AURORA-14", "Print preview", "Open"])
    expect(page.locator("section[aria-labelledby=s-comments]")).to_contain_text("Pyotr Petrov")
    screenshot(page, "issue", "whole")
    # The sub-task names its parent, and the blocked issue words the link the other way.
    page.get_by_role("link", name="AURORA-13").click()
    expect(page.get_by_role("heading", name="AURORA-13 Layout of the PDF")).to_be_visible()
    expect(field(page, "Parent")).to_have_text("AURORA-12")
    expect(field(page, "Resolution")).to_have_text("Unresolved")
    page.goto(site["url"] + "/#/issue/AURORA-14")
    expect(page.locator("section[aria-labelledby=s-links] h3").first).to_have_text("is blocked by")
    expect(page.locator("#worklog-total")).to_have_text("No work logged.")


def test_custom_fields_are_a_compact_list_by_display_name(page, site):
    page.goto(site["url"] + "/#/issue/AURORA-12")
    rows = page.locator("dl.custom-fields div.field")
    expect(rows).to_have_count(len(CUSTOM_FIELDS))
    # Sorted by display name, each value flattened as a person reads it.
    expect(rows.locator("dt")).to_have_text(
        ["Checklist", "Customer", "Platforms", "Region", "Release notes", "Reviewer", "Story Points", "Team"])
    by_name = {name: rows.filter(has=page.locator(f"dt:text-is('{name}')")).locator("dd")
               for name in ("Story Points", "Team", "Platforms", "Region", "Reviewer", "Checklist")}
    expect(by_name["Story Points"]).to_have_text("5")
    expect(by_name["Team"]).to_have_text("Aurora")
    expect(by_name["Platforms"]).to_have_text("Android, iOS")
    expect(by_name["Region"]).to_have_text("Europe → Berlin")
    # A user picker names its user as the side panel does.
    expect(by_name["Reviewer"]).to_have_text("Pyotr Petrov")
    # An object reads as its members, not as JSON.
    expect(by_name["Checklist"]).to_have_text("done: 2; of: 3")
    expect(page.locator("div[data-field=customfield_10002] dt")).to_have_attribute("title", "customfield_10002")


def test_hostile_text_in_custom_fields_environment_and_worklogs_shows_as_text(page, site):
    page.goto(site["url"] + "/#/issue/AURORA-12")
    expect(page.locator("#worklog-total")).to_contain_text("2 worklogs")
    environment = page.locator("#environment")
    expect(environment).to_contain_text(SCRIPT)
    expect(environment).to_contain_text(IMAGE)
    customer = page.locator("div[data-field=customfield_10106] dd")
    expect(customer).to_have_text(IMAGE)
    notes = page.locator("div[data-field=customfield_10105] dd")
    expect(notes.get_by_role("heading", name="Notes")).to_be_visible()  # a textarea field reads as wiki
    expect(notes).to_contain_text(SCRIPT)
    expect(page.locator("section[aria-labelledby=s-worklogs]")).to_contain_text(f"Reviewed {SCRIPT}")
    assert page.locator("main script, main img").count() == 0
    assert page.evaluate("window.__injected") is None


def rows_of(tab):
    return tab.locator("#results tbody tr td:first-child")


def open_filters(page) -> None:
    """Unfold the list's filters (folded behind "Filters (n)" on every screen)."""
    toggle = page.locator(".filters-toggle")
    if toggle.get_attribute("aria-expanded") != "true":
        toggle.click()


def test_the_list_filters_by_resolution_component_versions_sprint_and_parent(page, site):
    keys = rows_of(page)
    expect(keys).to_have_count(len(ISSUES))
    open_filters(page)
    page.get_by_label("Resolution").select_option(label="unresolved")
    page.get_by_role("button", name="Search").click()
    expect(keys).to_have_text(["AURORA-14", "AURORA-13"])
    assert "resolution=none" in page.url
    page.get_by_label("Resolution").select_option(label="Won't Fix")
    page.get_by_role("button", name="Search").click()
    expect(keys).to_have_text(["AURORA-15"])
    page.get_by_role("button", name="Clear").click()
    expect(keys).to_have_count(len(ISSUES))

    page.get_by_label("Component").fill("UI")
    page.get_by_label("Component").press("Enter")
    expect(keys).to_have_text(["AURORA-14", "AURORA-12"])
    page.get_by_label("Fix version").fill("2.3")
    page.get_by_label("Fix version").press("Enter")
    expect(keys).to_have_text(["AURORA-12"])
    page.get_by_role("button", name="Clear").click()
    page.get_by_label("Affects version").fill("10090")
    page.get_by_label("Affects version").press("Enter")
    expect(keys).to_have_text(["AURORA-12"])
    page.get_by_role("button", name="Clear").click()

    # Every sprint the hub knows is offered, past ones included, and an issue that
    # was ever in one is found by it.
    sprint = page.get_by_label("Sprint")
    expect(sprint.locator("option")).to_have_text(
        ["any", "AURORA Sprint 14 (active)", "AURORA Sprint 15 (future)", "AURORA Sprint 13 (closed)"])
    sprint.select_option(label="AURORA Sprint 13 (closed)")
    page.get_by_role("button", name="Search").click()
    expect(keys).to_have_text(["AURORA-14", "AURORA-12"])
    assert page.url.endswith("#/issues?sprint=23")
    screenshot(page, "issues", "filtered-whole")
    page.get_by_role("button", name="Clear").click()
    page.get_by_label("Parent").fill("AURORA-12")
    page.get_by_label("Parent").press("Enter")
    expect(keys).to_have_text(["AURORA-13"])


def test_filters_live_in_the_address_and_back_returns_to_the_ones_before(page, site):
    page.goto(site["url"] + "/#/issues?component=UI&resolution=none")
    keys = rows_of(page)
    expect(keys).to_have_text(["AURORA-14"])
    open_filters(page)
    expect(page.get_by_label("Component")).to_have_value("UI")
    expect(page.get_by_label("Resolution")).to_have_value("none")
    page.get_by_label("Component").fill("")
    page.get_by_role("button", name="Search").click()
    expect(keys).to_have_text(["AURORA-14", "AURORA-13"])
    page.go_back()
    expect(keys).to_have_text(["AURORA-14"])
    expect(page.get_by_label("Component")).to_have_value("UI")
    # A sprint on the issue page leads to the list of that sprint.
    page.goto(site["url"] + "/#/issue/AURORA-12")
    page.get_by_role("link", name="AURORA Sprint 14").click()
    expect(keys).to_have_text(["AURORA-13", "AURORA-12"])
    expect(page.get_by_label("Sprint")).to_have_value("24")
    # A sprint by name in the address, as older agents' issues know theirs.
    page.goto(site["url"] + "/#/issues?sprint=AURORA%20Sprint%2013")
    expect(keys).to_have_text(["AURORA-14", "AURORA-12"])
    expect(page.get_by_label("Sprint")).to_have_value("23")


def test_the_list_orders_by_priority_as_jira_does(page, site):
    open_filters(page)
    order = page.get_by_label("Order")
    order.select_option(value="priority")
    page.get_by_role("button", name="Search").click()
    expect(page.get_by_text("Order: priority, highest first.")).to_be_visible()
    expect(rows_of(page)).to_have_text(["AURORA-14", "AURORA-15", "AURORA-12", "AURORA-13", "AURORA-16"])


def test_worklogs_page_with_show_more_and_the_total_is_the_whole_issues(page, site):
    page.goto(site["url"] + "/#/issue/AURORA-16")
    page.get_by_role("tab", name="Work log").click()
    worklogs = page.locator("section[aria-labelledby=s-worklogs]")
    expect(worklogs.locator("#worklog-total")).to_have_text("55 worklogs, 55m logged in all.")
    expect(worklogs.locator("tbody tr")).to_have_count(50)
    worklogs.get_by_role("button", name="Show more worklogs").click()
    expect(worklogs.locator("tbody tr")).to_have_count(55)
    expect(worklogs.get_by_role("button", name="Show more worklogs")).to_be_hidden()
    screenshot(page, "issue", "worklogs")
    expect(worklogs.locator("#worklog-total")).to_have_text("55 worklogs, 55m logged in all.")


def test_the_whole_issue_fits_a_phone(browser, site):
    context = browser.new_context(viewport={"width": 390, "height": 844})
    context.set_default_timeout(TIMEOUT_MS)
    try:
        tab = context.new_page()
        tab.goto(site["url"] + "/")
        tab.get_by_label("Token").fill(site["interface"])
        tab.get_by_label("Token").press("Enter")
        tab.get_by_role("heading", name="Issues").wait_for()
        tab.goto(site["url"] + "/#/issue/AURORA-12")
        expect(tab.locator("#worklog-total")).to_contain_text("2 worklogs")
        expect(tab.locator("dl.custom-fields div.field")).to_have_count(len(CUSTOM_FIELDS))
        assert tab.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        # On a phone the key facts come first, then the description, then the details.
        facts, description, side = (tab.locator(f".issue-layout {part}").bounding_box()
                                    for part in (".key-facts", "section.description", ".side"))
        assert facts["y"] + facts["height"] <= description["y"] + 1, (facts, description)
        assert description["y"] + description["height"] <= side["y"] + 1, (description, side)
        expect(tab.locator(".key-facts")).to_contain_text("Ivan Ivanov")
        screenshot(tab, "issue", "whole-phone")
    finally:
        context.close()
