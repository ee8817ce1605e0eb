"""The board page in a real browser against a real hub.

Two hubs. The first is loaded through the agent API by an agent of protocol v19: Jira's statuses,
a scrum board's configuration (five columns, a status of its own on each, two on some) sent as the
``boards`` catalogue of a state page, an active sprint of that board holding issues of three types,
four assignees (one with no display name, one unassigned), a flagged one and ranks, and a project
whose board no agent has read yet. The page shows Jira's columns with their statuses and counts, the
sprint's cards (key, summary, type, priority, assignee by display name, the flag), quick filters by
assignee and type, the chooser of boards, a board not configured yet, a phone's width, an issue
moved by a later refresh without a reload, and a read-only token offered no move.

The second is a hub whose kanban board the reference agent serves against the demo Jira (its
loop running beside it): a card dragged to another column is a transition Jira takes, shown
pending, then in its new column; a drag whose transition needs fields opens their form; a move by
keyboard does the same; an issue changed in Jira meanwhile is a conflict, and the card goes back
with the reason. Each state is checked by axe-core and kept as a screenshot.
"""

from __future__ import annotations

import pytest

from tests.support import (
    added_tokens,
    call,
    engine_rows,
    hub_config,
    looping_agent,
    prepared_hub,
    serving,
    wait_until,
)
from tests.support.browser import check_page, expect, signed_in_page

pytestmark = pytest.mark.backends("sqlite", shared=True)  # one engine: see tests/web/__init__.py

AGENT_ID = "web-board-agent"
BOARD, OTHER_BOARD = 4216, 4300
JIRA_TIME = "2026-11-20T10:00:00.000+0300"
HOSTILE = "<img src=x onerror=\"window.__injected = 'card'\">"

STATUSES = [("1", "Open", "new"), ("4", "Reopened", "new"), ("3", "In Progress", "indeterminate"),
            ("10001", "Review", "indeterminate"), ("5", "Resolved", "done"), ("6", "Done", "done"),
            ("10002", "Closed", "done")]
CATALOGUES = {
    "statuses": [{"id": sid, "name": name, "category": name, "category_key": cat} for sid, name, cat in STATUSES],
    "users": [{"name": "ivanov", "key": "JIRAUSER1", "display_name": "Ivan Ivanov"},
              {"name": "petrov", "key": "JIRAUSER2", "display_name": "Pyotr Petrov"},
              {"name": "smirnova", "key": "JIRAUSER3", "display_name": "Olga Smirnova"}],
    "boards": [{"id": str(BOARD), "name": "AURORA board", "type": "scrum",
                "columns": [{"name": "To Do", "statuses": ["1", "4"]}, {"name": "In Progress", "statuses": ["3"]},
                            {"name": "Review", "statuses": ["10001"]}, {"name": "Done", "statuses": ["5", "6"]},
                            {"name": "Closed", "statuses": ["10002"]}]}],
}
SPRINT = {"id": 21, "name": "AURORA Sprint 21", "state": "active", "start": "2026-11-16T09:00:00.000+03:00",
          "end": "2026-11-30T18:00:00.000+03:00", "complete": None, "board_id": BOARD, "goal": "Checkout"}
OLD_SPRINT = {**SPRINT, "id": 20, "name": "AURORA Sprint 20", "state": "closed", "goal": None}
FLAG = {"name": "Flagged", "type": "array", "value": ["Impediment"],
        "custom": "com.atlassian.jira.plugin.system.customfieldtypes:multicheckboxes"}
START = {"id": "4", "name": "Start Progress", "to": "In Progress", "fields": {}}
RESOLVE = {"id": "5", "name": "Resolve Issue", "to": "Resolved",
           "fields": {"resolution": {"name": "Resolution", "required": True, "type": "resolution",
                                     "allowed": ["Fixed", "Won't Fix"], "operations": ["set"]}}}


def rank(n: int) -> dict:
    return {"name": "Rank", "type": "any", "custom": "com.pyxis.greenhopper.jira:gh-lexo-rank",
            "value": f"0|i000{n:02d}:"}


def state(n: int, status: str, issue_type: str, assignee: str | None, *, flagged=False, sprint=SPRINT,
          summary: str | None = None, priority: str = "Major") -> dict:
    custom = {"customfield_10019": rank(n)}
    if flagged:
        custom["customfield_10021"] = FLAG
    return {"key": f"AURORA-{n}", "id": str(10000 + n), "summary": summary or f"Story {n} of the checkout",
            "issue_type": issue_type, "status": status, "priority": priority, "assignee": assignee,
            "labels": ["AWPCA"], "updated": JIRA_TIME, "created": JIRA_TIME, "sprints": [sprint] if sprint else [],
            "custom_fields": custom, "transitions": [START, RESOLVE] if status == "Open" else []}


ISSUES = [
    # Ranked out of key order: the board lists by rank.
    state(3, "Open", "Story", "ivanov", summary="Pay by card"),
    state(1, "Open", "Bug", "petrov", flagged=True, priority="Critical", summary=f"Refunds {HOSTILE}"),
    state(2, "In Progress", "Story", "ivanov"),
    state(4, "In Progress", "Task", None),
    state(5, "Review", "Story", "smirnova"),
    state(6, "Done", "Bug", "kozlov"),  # a login the users' catalogue does not name
    state(7, "Reopened", "Story", "petrov"),
    state(8, "Open", "Story", "ivanov", sprint=OLD_SPRINT),  # a closed sprint's: not on the board
    state(9, "Open", "Story", "ivanov", sprint=None),
]


def refresh(url: str, agent: str, interface: str, issues: list[dict], catalogues: dict | None = None) -> None:
    """One refresh by an agent of protocol v19, its page with the catalogues."""
    command = call(url, interface, "/api/v1/commands", {"type": "refresh", "params": {"jql": "project = AURORA"}})
    [claimed] = call(url, agent, "/agent/v1/claim", {"agent_id": AGENT_ID, "version": 19})["commands"]
    assert claimed["id"] == command["id"]
    page = {"agent_id": AGENT_ID, "delivery": 1, "issues": issues}
    if catalogues:
        page["catalogues"] = catalogues
    call(url, agent, f"/agent/v1/commands/{claimed['id']}/state", page)
    call(url, agent, f"/agent/v1/commands/{claimed['id']}/done",
         {"agent_id": AGENT_ID, "delivery": 1, "result": {"total": len(issues)}})


@pytest.fixture(scope="module")
def site(tmp_path_factory, browser, module_database_url):
    """A hub serving on loopback with the scrum board above: its URL, tokens and config."""
    data_dir = tmp_path_factory.mktemp("web-board") / "data"
    agent, interface = prepared_hub(data_dir, module_database_url)
    config = hub_config(data_dir, module_database_url)
    engine_rows.execute(config, f"UPDATE project SET board_id = {BOARD}, board_type = 'scrum' WHERE label = 'AWPCA'")
    engine_rows.execute(config, "INSERT INTO project (label, name, board_id, board_type, created_at)"
                                f" VALUES ('OPS', 'Operations', {OTHER_BOARD}, 'kanban', '2026-11-01T00:00:00+00:00')")
    [writer] = added_tokens(config, ("alice", "admin"))
    with serving(data_dir, module_database_url) as url:
        refresh(url, agent, interface, ISSUES, CATALOGUES)
        yield {"url": url, "agent": agent, "interface": interface, "writer": writer}


def open_page(browser, url: str, token: str, **context):
    """A signed-in page of a fresh context and its console errors."""
    return signed_in_page(browser, url, token, **context)


@pytest.fixture
def page(browser, site):
    """A page signed in with the read-only interface token; it must log no console error."""
    context, tab, errors = open_page(browser, site["url"], site["interface"])
    yield tab
    context.close()
    assert errors == [], f"console errors: {errors}"


def column(tab, name: str):
    return tab.locator(".board-column").filter(has=tab.locator(f"h2 .column-name:text-is('{name}')"))


def keys(tab, name: str) -> list[str]:
    return column(tab, name).locator(".card").evaluate_all("(cards) => cards.map((card) => card.dataset.key)")


def show_board(tab, url: str, board: int = BOARD):
    tab.goto(f"{url}/#/board/{board}")
    expect(tab.locator(".board-column").first).to_be_visible()


def test_the_board_shows_jiras_columns_with_their_statuses_and_the_active_sprints_cards(page, site):
    show_board(page, site["url"])
    expect(page.get_by_role("heading", level=1)).to_have_text("AURORA board Scrum")
    expect(page.locator(".sprint")).to_contain_text("AURORA Sprint 21 · ends Nov 30, 2026, 15:00 UTC")
    expect(page.locator(".sprint")).to_contain_text("Goal: Checkout")
    expect(page.locator(".board-column h2 .column-name")).to_have_text(
        ["To Do", "In Progress", "Review", "Done", "Closed"])
    expect(page.locator(".board-column h2 .count")).to_have_text(["3", "2", "1", "1", "0"])
    expect(column(page, "To Do").locator(".column-statuses .lozenge")).to_have_text(["Open", "Reopened"])
    expect(column(page, "Done").locator(".column-statuses .lozenge")).to_have_text(["Resolved", "Done"])
    # By rank, not by key; neither a closed sprint's issue nor one in no sprint.
    assert keys(page, "To Do") == ["AURORA-1", "AURORA-3", "AURORA-7"]
    assert keys(page, "In Progress") == ["AURORA-2", "AURORA-4"]
    card = page.locator('.card[data-key="AURORA-1"]')
    expect(card.locator(".card-summary")).to_have_text(f"Refunds {HOSTILE}")
    expect(card.locator(".card-type")).to_have_text("Bug")
    expect(card.locator(".card-priority")).to_have_text("Critical")
    expect(card.locator(".person")).to_have_text("Pyotr Petrov")
    expect(card.locator(".person")).to_have_attribute("title", "petrov")
    expect(card.locator(".flag")).to_have_text("⚑ Flagged")
    expect(page.locator('.card[data-key="AURORA-3"] .flag')).to_have_count(0)
    expect(page.locator('.card[data-key="AURORA-4"] .card-assignee')).to_have_text("Unassigned")
    expect(page.locator('.card[data-key="AURORA-6"] .person')).to_have_text("kozlov")
    assert page.evaluate("window.__injected") is None
    # A read-only token is offered no move: nothing to drag, no "Move to…".
    expect(page.locator(".card[draggable=true]")).to_have_count(0)
    expect(page.get_by_role("button", name="Move AURORA-1 to…")).to_have_count(0)
    check_page(page, "board", "sprint")
    card.get_by_role("link", name="AURORA-1").click()
    expect(page.locator("h1")).to_contain_text("AURORA-1")


def test_quick_filters_narrow_the_cards_by_assignee_and_type(page, site):
    show_board(page, site["url"])
    assignees = page.get_by_role("group", name="Quick filters: Assignee")
    expect(assignees.get_by_role("button")).to_have_text(["Ivan Ivanov", "kozlov", "Olga Smirnova", "Pyotr Petrov",
                                                          "Unassigned"])
    ivanov = assignees.get_by_role("button", name="Ivan Ivanov")
    ivanov.click()
    expect(ivanov).to_have_attribute("aria-pressed", "true")
    expect(page.locator(".card")).to_have_count(2)
    expect(page.get_by_role("status").filter(has_text="issues shown")).to_have_text("2 of 7 issues shown.")
    assignees.get_by_role("button", name="Unassigned").click()
    expect(page.locator(".card")).to_have_count(3)
    page.get_by_role("group", name="Quick filters: Type").get_by_role("button", name="Task").click()
    assert [k for name in ("To Do", "In Progress") for k in keys(page, name)] == ["AURORA-4"]
    expect(page.locator(".board-column h2 .count")).to_have_text(["0", "1", "0", "0", "0"])
    check_page(page, "board", "filtered")
    # The address keeps them: a reload (or the link, sent to a colleague) shows the same cards.
    assert page.evaluate("location.hash").endswith("?assignee=ivanov&assignee=&type=Task")
    page.reload()
    expect(page.locator(".card")).to_have_count(1)
    expect(ivanov).to_have_attribute("aria-pressed", "true")
    ivanov.click()  # let go: the other filters hold
    expect(ivanov).to_have_attribute("aria-pressed", "false")
    expect(page.locator(".card")).to_have_count(1)
    page.get_by_role("button", name="Clear filters").click()
    expect(page.locator(".card")).to_have_count(7)
    assert "?" not in page.evaluate("location.hash")


def test_the_chooser_lists_the_boards_and_one_not_read_yet_says_so(page, site):
    page.goto(site["url"] + "/#/board")
    expect(page.get_by_role("heading", name="Boards")).to_be_visible()
    expect(page.locator(".board-list li")).to_have_count(2)
    expect(page.locator(".board-list li").nth(1)).to_contain_text("(columns not read yet)")
    check_page(page, "board", "chooser")
    page.get_by_role("link", name=f"Board {OTHER_BOARD}").click()
    expect(page.locator(".board-note")).to_contain_text("an agent reads its columns on the next refresh")
    # Until then, the status catalogue's statuses by category.
    expect(page.locator(".board-column h2 .column-name")).to_have_text(["To Do", "In Progress", "Done"])
    expect(column(page, "In Progress").locator(".lozenge")).to_have_text(["In Progress", "Review"])
    expect(page.locator(".board-note")).to_contain_text("No issues on this board.")
    check_page(page, "board", "not-configured")


def test_the_board_follows_the_mirror_without_a_reload(page, site):
    show_board(page, site["url"])
    assert "AURORA-5" in keys(page, "Review")
    page.evaluate("window.__kept = true")
    moved = next(dict(issue) for issue in ISSUES if issue["key"] == "AURORA-5")
    moved.update(status="Done", updated="2026-11-21T10:00:00.000+0300")
    refresh(site["url"], site["agent"], site["interface"], [moved])
    expect(column(page, "Done").locator('.card[data-key="AURORA-5"]')).to_be_visible(timeout=10_000)
    expect(column(page, "Review").locator(".card")).to_have_count(0)
    assert page.evaluate("window.__kept") is True  # the same page: no reload
    back = dict(moved, status="Review", updated="2026-11-22T10:00:00.000+0300")
    refresh(site["url"], site["agent"], site["interface"], [back])
    expect(column(page, "Review").locator('.card[data-key="AURORA-5"]')).to_be_visible(timeout=10_000)


def test_the_board_fits_a_phones_width_its_columns_scrolling_sideways(browser, site):
    context, tab, errors = open_page(browser, site["url"], site["interface"], viewport={"width": 390, "height": 844})
    try:
        show_board(tab, site["url"])
        assert tab.evaluate("document.documentElement.scrollWidth") <= 390
        box = tab.get_by_role("region", name="Columns")
        assert box.evaluate("(box) => box.scrollWidth > box.clientWidth")
        expect(tab.locator('.card[data-key="AURORA-1"]')).to_be_in_viewport()
        check_page(tab, "board", "phone")
    finally:
        context.close()
    assert errors == []


def test_a_move_no_transition_leads_to_is_told_and_moves_nothing(browser, site):
    context, tab, errors = open_page(browser, site["url"], site["writer"])
    try:
        show_board(tab, site["url"])
        tab.get_by_role("button", name="Move AURORA-3 to…").click()
        tab.locator("#move-AURORA-3").get_by_role("button", name="Review").click()
        expect(tab.get_by_role("alert")).to_contain_text(
            "AURORA-3 was not moved: Jira offers no transition from Open to Review; it can go to: "
            "In Progress (Start Progress), Resolved (Resolve Issue).")
        assert "AURORA-3" in keys(tab, "To Do")
        check_page(tab, "board", "no-transition")
    finally:
        context.close()
    assert errors == []


# --- moves through the reference agent and the demo Jira ------------------------------------------

KANBAN_COLUMNS = [("To Do", ["Open", "Reopened"]), ("In Progress", ["In Progress"]), ("Review", ["Review"]),
                  ("Done", ["Resolved", "Closed", "Done"])]


@pytest.fixture
def jira_board(tmp_path, browser, database_url):
    """A hub whose project has the demo Jira's kanban board, its configuration read by the reference
    agent (looping beside the hub) on a full refresh, mirroring AURORA-1 and AURORA-2 (Open); a page
    signed in with a token that may write."""
    with looping_agent(tmp_path / "data", database_url, "agent-board") as (url, config, interface, jira):
        engine_rows.execute(config, "UPDATE project SET board_id = 7, board_type = 'kanban' WHERE label = 'AWPCA'")
        jira.add_board(7, "AURORA kanban", "kanban", KANBAN_COLUMNS)
        full = call(url, interface, "/api/v1/commands", {"type": "refresh"})
        wait_until(lambda: call(url, interface, f"/api/v1/commands/{full['id']}")["status"] == "done",
                   timeout=60, every=0.2, message="the refresh that reads the board")
        [writer] = added_tokens(config, ("alice", "admin"))
        context, tab, errors = open_page(browser, url, writer)
        try:
            show_board(tab, url, 7)
            yield tab, jira, url, interface
        finally:
            context.close()
        assert errors == [], f"console errors: {errors}"


def test_a_card_dragged_to_another_column_is_a_transition_shown_pending_until_jira_takes_it(jira_board):
    tab, jira, _url, _interface = jira_board
    # The board's columns as the agent read them from Jira.
    expect(tab.get_by_role("heading", level=1)).to_have_text("AURORA kanban Kanban")
    expect(tab.locator(".board-column h2 .column-name")).to_have_text(["To Do", "In Progress", "Review", "Done"])
    expect(column(tab, "Done").locator(".column-statuses .lozenge")).to_have_text(["Resolved", "Closed", "Done"])
    expect(tab.locator(".board-note")).to_be_hidden()
    jira.slow = 1.5  # long enough to see it pending
    tab.locator('.card[data-key="AURORA-1"]').drag_to(column(tab, "In Progress"))
    pending = column(tab, "In Progress").locator('.card.pending[data-key="AURORA-1"]')
    expect(pending).to_be_visible()
    expect(pending.locator(".pending-mark")).to_have_text("pending")
    check_page(tab, "board", "move-pending")
    moved = column(tab, "In Progress").locator('.card[data-key="AURORA-1"]:not(.pending)')
    expect(moved).to_be_visible()
    assert jira.issues["AURORA-1"]["fields"]["status"]["name"] == "In Progress"
    expect(tab.get_by_role("status").filter(has_text="AURORA-1 is in")).to_have_text("AURORA-1 is in In Progress now.")
    check_page(tab, "board", "moved")


def test_a_drag_whose_transition_needs_fields_opens_their_form(jira_board):
    tab, jira, _url, _interface = jira_board
    tab.locator('.card[data-key="AURORA-2"]').drag_to(column(tab, "Done"))
    dialog = tab.get_by_role("dialog", name="Move AURORA-2 to Done")
    expect(dialog).to_be_visible()
    # Two of Jira's transitions lead to the Done column's statuses: the reader picks one.
    expect(dialog.get_by_role("radio")).to_have_count(2)
    check_page(tab, "board", "move-form")
    dialog.get_by_role("button", name="Move").click()
    expect(dialog).to_be_visible()  # the resolution is required
    dialog.get_by_label("Resolution").select_option("Won't Fix")
    dialog.get_by_role("button", name="Move").click()
    expect(dialog).to_have_count(0)
    expect(column(tab, "Done").locator('.card[data-key="AURORA-2"]:not(.pending)')).to_be_visible()
    fields = jira.issues["AURORA-2"]["fields"]
    assert (fields["status"]["name"], fields["resolution"]["name"]) == ("Resolved", "Won't Fix")


def test_a_card_is_moved_by_keyboard_as_by_a_drag(jira_board):
    tab, jira, _url, _interface = jira_board
    card = tab.locator('.card[data-key="AURORA-2"]')
    tab.locator('.card[data-key="AURORA-1"]').focus()
    tab.keyboard.press("ArrowDown")
    expect(card).to_be_focused()
    card.get_by_role("button", name="Move AURORA-2 to…").focus()
    tab.keyboard.press("Enter")
    expect(card.get_by_role("button", name="In Progress")).to_be_focused()
    check_page(tab, "board", "move-menu")
    tab.keyboard.press("Enter")
    expect(column(tab, "In Progress").locator('.card[data-key="AURORA-2"]:not(.pending)')).to_be_visible()
    expect(column(tab, "In Progress").locator('.card[data-key="AURORA-2"]')).to_be_focused()
    assert jira.issues["AURORA-2"]["fields"]["status"]["name"] == "In Progress"


def test_a_move_jira_finds_in_conflict_puts_the_card_back_with_the_reason(jira_board):
    tab, jira, _url, _interface = jira_board
    jira.issues["AURORA-1"]["fields"]["status"] = {"name": "In Progress"}  # moved in Jira since the refresh
    tab.locator('.card[data-key="AURORA-1"]').drag_to(column(tab, "In Progress"))
    expect(tab.get_by_role("alert")).to_contain_text(
        "AURORA-1 was not moved: the issue changed in Jira meanwhile: it is In Progress there, not Open")
    card = tab.locator('.card[data-key="AURORA-1"]')
    expect(card.locator(".card-error")).to_contain_text("the issue changed in Jira meanwhile")
    check_page(tab, "board", "move-conflict")


def test_a_move_jira_refuses_puts_the_card_back_with_jiras_words(jira_board):
    tab, jira, _url, _interface = jira_board
    del jira.issues["AURORA-1"]  # deleted in Jira since the refresh: Jira refuses the transition
    tab.locator('.card[data-key="AURORA-1"]').drag_to(column(tab, "In Progress"))
    expect(tab.get_by_role("alert")).to_have_text(
        "AURORA-1 was not moved: Jira answered 404 to issue AURORA-1: Issue Does Not Exist")
    card = column(tab, "To Do").locator('.card[data-key="AURORA-1"]')
    expect(card.locator(".card-error")).to_contain_text("Issue Does Not Exist")
    expect(column(tab, "In Progress").locator('.card[data-key="AURORA-1"]')).to_have_count(0)
    check_page(tab, "board", "move-failed")
