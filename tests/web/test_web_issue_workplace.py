"""The issue page as a team's workplace, in a real browser against a real hub.

An issue as full as a team's (25 custom fields of every common type and Jira's internals, an
epic of 50 issues, a parent of 7 sub-tasks) loaded through the agent API as an agent of
protocol v16 loads it. The page leads with the work: at 1366×900 the comments start on the first
screen, beside the details; on a 390 px phone the description starts on the first screen, after
the key facts. Values read by their type (no raw date-time, JSON, rank or work ratio), the
activity's tabs work by keyboard, long lists fold to five. The page stays current: a change the
agent brings shows within a couple of seconds, without a reload, and leaves what the reader is
typing, the field being edited, the open tab and the scroll position as they were; "Refresh from
Jira" asks for a one-issue refresh and the page shows its outcome by itself. Each state is
checked by axe-core and kept as a screenshot (tests/support/browser.py).
"""

from __future__ import annotations

import pytest

from tests.support import call, next_second, prepared_hub, serving, wait_until
from tests.support.browser import check_page, expect, signed_in_page

pytestmark = pytest.mark.backends("sqlite", shared=True)  # one engine: see tests/web/__init__.py

AGENT_ID = "web-workplace-agent"
CREATED = "2026-10-22T13:05:11.000+0300"
RAW_TIME = "2026-10-21T18:00:00.000+0300"
PLUGIN = "com.atlassian.jira.plugin.system.customfieldtypes:"
AGILE = "com.pyxis.greenhopper.jira:"
JIRA = "https://jira.example.com"
# The time a live change has to show in (the page reads every 2 s; a loaded machine is slow).
LIVE_MS = 8000

CATALOGUES = {
    "statuses": [{"id": "1", "name": "Open", "category": "To Do", "category_key": "new"},
                 {"id": "3", "name": "In Progress", "category": "In Progress", "category_key": "indeterminate"},
                 {"id": "10001", "name": "Done", "category": "Done", "category_key": "done"}],
    "issue_types": [{"id": "10000", "name": "Epic", "subtask": False},
                    {"id": "10001", "name": "Story", "subtask": False},
                    {"id": "10003", "name": "Sub-task", "subtask": True}],
    "priorities": [{"id": "2", "name": "Critical"}, {"id": "3", "name": "Major"}],
    "users": [{"name": "ivanov", "key": "JIRAUSER10100", "display_name": "Ivan Ivanov"},
              {"name": "petrov", "key": "JIRAUSER10101", "display_name": "Pyotr Petrov"},
              {"name": "sidorova", "key": "JIRAUSER10102", "display_name": "Anna Sidorova"}],
}


def custom(name: str, kind: str | None, custom_type: str | None, value) -> dict:
    return {"name": name, "type": kind, "custom": custom_type, "value": value}


# 25 custom fields: what a team reads, and Jira's internals, which the page leaves out.
CUSTOM_FIELDS = {
    "customfield_10300": custom("Story Points", "number", PLUGIN + "float", 5.0),
    "customfield_10302": custom("Rank", "any", AGILE + "gh-lexo-rank", "0|i00001:"),
    "workratio": custom("Work Ratio", "number", None, -1),
    "customfield_10000": custom("Development", "any",
                                "com.atlassian.jira.plugins.jira-development-integration-plugin:devsummarycf",
                                "{summaryBean=com.atlassian.jira.plugin.devstatus.rest.SummaryBean@1}"),
    "customfield_10100": custom("Sprint", "array", AGILE + "gh-sprint",
                                ["com.atlassian.greenhopper.service.sprint.Sprint@5[id=21,state=ACTIVE]"]),
    "customfield_10316": custom("Deployed at", "datetime", PLUGIN + "datetime", RAW_TIME),
    "customfield_10315": custom("Target date", "date", PLUGIN + "datepicker", "2026-12-01"),
    "customfield_10327": custom("Health check", "any", "com.example.jira.health:health-check",
                                {"score": 1, "checks": ["build", "deploy"]}),
    "customfield_10319": custom("Design link", "string", PLUGIN + "url", "https://design.example/aurora"),
    "customfield_10329": custom("Runbook", "string", PLUGIN + "url", "javascript:alert(1)"),
    "customfield_10313": custom("Tester", "user", PLUGIN + "userpicker", "petrov"),
    "customfield_10314": custom("Reviewers", "array", PLUGIN + "multiuserpicker", ["ivanov", "sidorova"]),
    "customfield_10310": custom("Severity", "option", PLUGIN + "select", "S1"),
    "customfield_10311": custom("Platforms", "array", PLUGIN + "multiselect", ["Linux", "Windows"]),
    "customfield_10312": custom("Region", "option-with-child", PLUGIN + "cascadingselect",
                                {"parent": "EMEA", "child": "Moscow"}),
    "customfield_10318": custom("Customer", "string", PLUGIN + "textfield", "Аврора"),
    "customfield_10320": custom("Found in build", "version", PLUGIN + "version", "2.2"),
    "customfield_10321": custom("Target releases", "array", PLUGIN + "multiversion", ["2.3"]),
    "customfield_10322": custom("Owning group", "group", PLUGIN + "grouppicker", "aurora-devs"),
    "customfield_10323": custom("Notify groups", "array", PLUGIN + "multigrouppicker", ["aurora-devs", "qa"]),
    "customfield_10325": custom("Risk", "option", PLUGIN + "radiobuttons", "Low"),
    "customfield_10326": custom("Tags", "array", PLUGIN + "labels", ["ui", "mirror"]),
    "customfield_10328": custom("Epic Status", "option", AGILE + "gh-epic-status", "To Do"),
    "customfield_10330": custom("Budget", "number", PLUGIN + "float", 1234.5),
    "customfield_10331": custom("Notes for QA", "string", PLUGIN + "textfield", ""),
}
INTERNAL = ("Rank", "Work Ratio", "Development", "Sprint", "Notes for QA")
SHOWN = sorted(field["name"] for field in CUSTOM_FIELDS.values() if field["name"] not in INTERNAL)
DESCRIPTION = "\n\n".join(["h2. What", "Cards list the issues of a sprint, *each* with its status.",
                           "h2. Why", "The team reads the board every morning.", "* one\n* two\n* three"])


def state(key: str, **fields) -> dict:
    return {"key": key, "id": str(10000 + int(key.split("-")[1])), "summary": f"Summary of {key}",
            "issue_type": "Story", "status": "Open", "updated": CREATED, "created": CREATED, **fields}


def comment(cid: str, author: str, body: str) -> dict:
    return {"id": cid, "author": author, "created": CREATED, "body": body}


EPIC = state("AURORA-1", summary="Cards", issue_type="Epic", status="In Progress", priority="Major",
             assignee="ivanov", reporter="petrov", description=DESCRIPTION, custom_fields=CUSTOM_FIELDS,
             comments=[comment(str(900 + n), "petrov", f"Comment *{n}* on the cards") for n in range(3)])
PARENT = state("AURORA-2", summary="Card layout", assignee="sidorova")
LIVE = state("AURORA-3", summary="Live issue", assignee="ivanov", priority="Major", description="Before.",
             comments=[comment("3001", "ivanov", "First look")])
SCREENED = state("AURORA-4", summary="Screened", assignee="ivanov", edit_fields={
    "duedate": {"name": "Due Date", "required": False, "type": "date", "operations": ["set"]},
    "customfield_10399": {"name": "Reviewed on", "required": False, "type": "date", "operations": ["set"]}})
ISSUES = [EPIC, PARENT, LIVE,
          *[state(f"AURORA-{n}", summary=f"Epic's issue {n}", epic_key="AURORA-1",
                  status=("Open", "In Progress", "Done")[n % 3]) for n in range(101, 151)],
          *[state(f"AURORA-{n}", summary=f"Sub-task {n}", issue_type="Sub-task", parent_key="AURORA-2")
            for n in range(201, 208)]]


def run_refresh(url: str, agent: str, interface: str | None, issues: list[dict], jql: str | None = None,
                version: int = 16) -> dict:
    """One refresh by an agent of protocol ``version``: queued (unless interface is None: one is
    queued already), claimed, its page of issues with Jira's catalogues sent, done."""
    if interface is not None:
        body = {"type": "refresh", "params": {"jql": jql}} if jql else {"type": "refresh"}
        call(url, interface, "/api/v1/commands", body)
    [claimed] = wait_until(lambda: call(url, agent, "/agent/v1/claim", {
        "agent_id": AGENT_ID, "version": version, "types": ["refresh"]})["commands"], timeout=30,
        message="a refresh to claim")
    call(url, agent, f"/agent/v1/commands/{claimed['id']}/state",
         {"agent_id": AGENT_ID, "delivery": 1, "issues": issues, "catalogues": CATALOGUES})
    call(url, agent, f"/agent/v1/commands/{claimed['id']}/done",
         {"agent_id": AGENT_ID, "delivery": 1, "result": {"total": len(issues)}})
    return claimed


@pytest.fixture(scope="module")
def site(tmp_path_factory, browser, module_database_url):
    """A hub serving on loopback with the issues above: its URL and tokens."""
    data_dir = tmp_path_factory.mktemp("web-workplace") / "data"
    agent, interface = prepared_hub(data_dir, module_database_url)
    # Jira's address as browsers reach it: the issue's jira_url, the page's "Open in Jira".
    with serving(data_dir, module_database_url, HUB_JIRA_URL=JIRA) as url:
        run_refresh(url, agent, interface, ISSUES)
        # An issue with its edit screen, as an agent of v19 reads it.
        run_refresh(url, agent, interface, [SCREENED], jql="key = AURORA-4", version=19)
        yield {"url": url, "agent": agent, "interface": interface}


def open_page(browser, site, **context):
    """A signed-in page of a fresh context (``context``: Playwright's options) and its console errors."""
    return signed_in_page(browser, site["url"], site["interface"], **{"locale": "en-US", **context})


@pytest.fixture
def page(browser, site):
    """A signed-in page at 1366×900; it must log no console error."""
    context, tab, errors = open_page(browser, site)
    yield tab
    context.close()
    assert errors == [], f"console errors: {errors}"


def show(tab, site, key: str, title: str) -> None:
    tab.goto(site["url"] + f"/#/issue/{key}")
    expect(tab.get_by_role("heading", name=f"{key} {title}")).to_be_visible()


def top(locator) -> float:
    box = locator.bounding_box()
    assert box is not None
    return box["y"]


def test_at_1366_the_comments_start_on_the_first_screen_beside_the_details(page, site):
    show(page, site, "AURORA-1", "Cards")
    comments = page.locator("article.comment")
    expect(comments).to_have_count(3)
    expect(page.locator("section[aria-labelledby=s-issues-in-this-epic] tbody tr").first).to_be_visible()
    # The description with the details beside it, the comments right under the description.
    description, details = page.locator("section.description"), page.locator("aside.side")
    assert abs(top(description) - top(details)) < 5
    assert page.locator("aside.side").bounding_box()["x"] > description.bounding_box()["x"] + 400
    assert top(comments.first) < 1200, top(comments.first)
    expect(comments.first).to_have_attribute("data-comment-id", "900")
    # The custom fields come later, each by its display name, the internals left out.
    expect(page.locator("dl.custom-fields div.field dt")).to_have_text(SHOWN)
    assert top(page.locator("dl.custom-fields")) > top(comments.last)
    check_page(page, "issue", "workplace-wide")


def test_on_a_phone_the_description_starts_on_the_first_screen_after_the_key_facts(browser, site):
    context, tab, errors = open_page(browser, site, viewport={"width": 390, "height": 844})
    try:
        show(tab, site, "AURORA-1", "Cards")
        facts = tab.locator(".key-facts")
        expect(facts).to_be_visible()
        expect(facts.locator("dt")).to_have_text(["Status", "Assignee", "Priority"])
        expect(facts.locator("dd")).to_have_text(["In Progress", "Ivan Ivanov", "Major"])
        description = tab.locator("#description")
        expect(description.get_by_role("heading", name="What")).to_be_visible()
        assert top(facts) < top(description) < 900, top(description)
        assert tab.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        check_page(tab, "issue", "workplace-phone")
        assert errors == [], errors
    finally:
        context.close()


def test_values_read_by_their_type_and_jiras_internals_are_left_out(page, site):
    show(page, site, "AURORA-1", "Cards")
    main = page.locator("main")
    expect(page.locator("dl.custom-fields")).to_be_visible()
    text = main.inner_text()
    for raw in (RAW_TIME, '{"score"', "0|i00001:", "Work Ratio", "Development", "summaryBean",
                "greenhopper", "Notes for QA"):
        assert raw not in text, raw
    # No empty field shows as a dash.
    expect(page.locator("dl.fields dd").filter(has_text="—")).to_have_count(0)

    def value(name: str):
        return page.locator("dl.custom-fields div.field").filter(
            has=page.locator(f"dt:text-is('{name}')")).locator("dd")

    expect(value("Deployed at").locator("time")).to_have_attribute("datetime", RAW_TIME)
    expect(value("Deployed at")).to_contain_text("Oct 21, 2026")
    expect(value("Deployed at")).to_contain_text("UTC")
    expect(value("Target date")).to_have_text("Dec 1, 2026")
    expect(value("Health check")).to_have_text("score: 1; checks: build, deploy")
    expect(value("Budget")).to_have_text("1,234.5")
    expect(value("Story Points")).to_have_text("5")
    link = value("Design link").get_by_role("link", name="https://design.example/aurora")
    expect(link).to_have_attribute("href", "https://design.example/aurora")
    expect(link).to_have_attribute("rel", "noopener noreferrer nofollow")
    # Only http(s) is a link: anything else is its text.
    expect(value("Runbook")).to_have_text("javascript:alert(1)")
    expect(value("Runbook").locator("a")).to_have_count(0)
    expect(value("Tester")).to_have_text("Pyotr Petrov")
    expect(value("Reviewers")).to_have_text("Ivan Ivanov, Anna Sidorova")
    expect(value("Reviewers").locator(".person").first).to_have_attribute("title", "ivanov")
    expect(value("Region")).to_have_text("EMEA → Moscow")
    # The status as a lozenge of its category, in the details and the epic's issues alike.
    expect(page.locator("#details div[data-field=status] .lozenge")).to_have_class("lozenge lozenge-doing")
    expect(page.locator("#details div[data-field=assignee] dd")).to_have_text("Ivan Ivanov")


def test_the_epics_issues_and_sub_tasks_fold_to_five_with_show_all(page, site):
    show(page, site, "AURORA-1", "Cards")
    epic = page.locator("section[aria-labelledby=s-issues-in-this-epic]")
    expect(epic.locator("#epic-total")).to_contain_text("50 issues")
    rows = epic.locator("tbody tr")
    expect(rows).to_have_count(50)
    expect(rows.locator("visible=true")).to_have_count(5)
    expect(rows.first.locator("td").first).to_have_text("AURORA-101")
    show_all = epic.get_by_role("button", name="Show all 50")
    expect(show_all).to_have_attribute("aria-expanded", "false")
    show_all.click()
    expect(rows.locator("visible=true")).to_have_count(50)
    fewer = epic.get_by_role("button", name="Show fewer")
    expect(fewer).to_have_attribute("aria-expanded", "true")
    check_page(page, "issue", "epic-all-shown")
    fewer.click()
    expect(rows.locator("visible=true")).to_have_count(5)
    show(page, site, "AURORA-2", "Card layout")
    subtasks = page.locator("section[aria-labelledby=s-sub-tasks]")
    expect(subtasks.locator("tbody tr").locator("visible=true")).to_have_count(5)
    subtasks.get_by_role("button", name="Show all 7").click()
    expect(subtasks.locator("tbody tr").locator("visible=true")).to_have_count(7)


def test_the_activitys_tabs_work_by_keyboard(page, site):
    show(page, site, "AURORA-1", "Cards")
    comments = page.get_by_role("tab", name="Comments")
    expect(comments).to_have_attribute("aria-selected", "true")
    expect(comments).to_contain_text("3")
    expect(page.get_by_role("tabpanel", name="Comments")).to_be_visible()
    comments.focus()
    page.keyboard.press("ArrowRight")
    history = page.get_by_role("tab", name="History")
    expect(history).to_be_focused()
    expect(history).to_have_attribute("aria-selected", "true")
    expect(page.get_by_role("tabpanel", name="History")).to_be_visible()
    expect(page.locator("#s-comments-panel")).to_be_hidden()
    check_page(page, "issue", "history-tab")
    page.keyboard.press("End")
    expect(page.get_by_role("tab", name="Work log")).to_be_focused()
    expect(page.locator("#s-worklogs-panel")).to_be_visible()
    page.keyboard.press("ArrowRight")
    expect(comments).to_be_focused()
    page.keyboard.press("End")
    page.keyboard.press("Home")
    expect(comments).to_have_attribute("aria-selected", "true")
    # Only the open tab is a Tab stop.
    expect(page.locator("[role=tab][tabindex='0']")).to_have_count(1)


def test_a_change_in_the_mirror_shows_without_a_reload_and_keeps_what_is_being_typed(page, site):
    asked: list[str | None] = []
    page.on("request", lambda request: asked.append(request.all_headers().get("if-none-match"))
            if "/api/v1/issues/AURORA-3?" in request.url else None)
    show(page, site, "AURORA-3", "Live issue")
    expect(page.locator("article.comment")).to_have_count(1)
    # The unchanged issue is asked again with its ETag (a 304 costs nothing to draw).
    for _ in range(30):  # Playwright tells of requests while the page is waited on
        if any(asked):
            break
        page.wait_for_timeout(500)
    assert any(asked), "no conditional read of the issue"
    # Something being typed in a container the write controls own, and a field being edited.
    page.evaluate("""() => {
        const box = document.querySelector('.link-editor');
        const label = document.createElement('label'); label.htmlFor = 'probe'; label.textContent = 'Probe';
        const area = document.createElement('textarea'); area.id = 'probe';
        box.append(label, area);
        const field = document.querySelector('#details div.field[data-field=assignee]');
        field.classList.add('editing');
        field.querySelector('dd').textContent = 'being edited';
    }""")
    area = page.locator("#probe")
    page.get_by_role("tab", name="History").click()
    area.click()
    area.type("half a comm")
    page.evaluate("window.scrollTo(0, 120)")
    scrolled = page.evaluate("window.scrollY")
    page.evaluate("window.__sameDocument = true")

    next_second()
    run_refresh(site["url"], site["agent"], site["interface"], [state(
        "AURORA-3", summary="Live issue, renamed", assignee="petrov", priority="Critical", description="After.",
        updated="2026-10-23T09:00:00.000+0300",
        comments=[comment("3001", "ivanov", "First look"), comment("3002", "petrov", "A reply from Jira")],
        changes=[{"id": "7001", "author": "petrov", "created": "2026-10-23T09:00:00.000+0300",
                  "items": [{"field": "priority", "from_string": "Major", "to_string": "Critical"}]}])],
        jql="key = AURORA-3")
    heading = page.get_by_role("heading", name="AURORA-3 Live issue, renamed")
    expect(heading).to_be_visible(timeout=LIVE_MS)
    expect(page.locator("article.comment[data-comment-id='3002']")).to_contain_text("A reply from Jira")
    expect(page.locator("#description")).to_have_text("After.")
    expect(page.locator("#details div[data-field=priority] dd")).to_have_text("Critical")
    expect(page.locator("#s-changelog-panel tbody tr")).to_contain_text(["Critical"])
    # What the reader was doing is as it was: no reload, the text, its focus, the edited field,
    # the open tab and the scroll position.
    assert page.evaluate("window.__sameDocument") is True
    expect(area).to_have_value("half a comm")
    expect(area).to_be_focused()
    expect(page.locator("#details div[data-field=assignee] dd")).to_have_text("being edited")
    expect(page.get_by_role("tab", name="History")).to_have_attribute("aria-selected", "true")
    assert abs(page.evaluate("window.scrollY") - scrolled) < 2
    area.type("ent")
    expect(area).to_have_value("half a comment")
    check_page(page, "issue", "live-updated")


def test_refresh_from_jira_asks_for_the_one_issue_and_the_page_shows_what_comes(page, site):
    show(page, site, "AURORA-2", "Card layout")
    button = page.get_by_role("button", name="Refresh from Jira")
    button.click()
    expect(page.locator(".jira-actions .status")).to_contain_text("Refresh asked")
    check_page(page, "issue", "refresh-asked")
    next_second()
    claimed = run_refresh(site["url"], site["agent"], None,
                          [state("AURORA-2", summary="Card layout, refreshed", assignee="sidorova",
                                 updated="2026-10-24T09:00:00.000+0300")])
    assert claimed["params"]["jql"] == "key = AURORA-2"
    expect(page.get_by_role("heading", name="AURORA-2 Card layout, refreshed")).to_be_visible(timeout=LIVE_MS)
    expect(page.locator(".jira-actions .status")).to_contain_text("Updated from Jira")


def test_open_in_jira_opens_the_issue_in_jira_in_a_new_tab(page, site):
    show(page, site, "AURORA-2", "Card layout")
    link = page.locator(".issue-actions").get_by_role("link", name="Open in Jira")
    expect(link).to_have_attribute("href", f"{JIRA}/browse/AURORA-2")
    expect(link).to_have_attribute("target", "_blank")
    expect(link).to_have_attribute("rel", "noopener noreferrer")


def test_a_token_that_may_not_write_sees_no_empty_fields_of_the_edit_screen(page, site):
    # Empty fields of the edit screen show "None" (to be filled in place) only to a token that
    # may write: a read-only one sees the filled fields alone.
    assert "duedate" in call(site["url"], site["interface"], "/api/v1/issues/AURORA-4")["edit_fields"]
    show(page, site, "AURORA-4", "Screened")
    expect(page.locator("#details div[data-field=assignee] dd")).to_have_text("Ivan Ivanov")
    expect(page.locator("#details div[data-field=duedate]")).to_have_count(0)
    expect(page.locator("#details div[data-field=customfield_10399]")).to_have_count(0)
    expect(page.locator("#details")).not_to_contain_text("None")
