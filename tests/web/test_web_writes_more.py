"""Editing a comment, cancelling a pending write and editing the description, in a real browser,
against the fake Jira through the reference agent.

As tests/web/test_web_writes.py: a hub serving on loopback, the fake Jira (demo/fakejira.py) and the
reference agent's loop beside them; a token granted writes. A comment is edited in its place with the
hub's preview, shows pending, then as Jira's text; Jira's refusal of an edit of another's comment shows
in its words; a write still queued behind another is cancelled before an agent takes it; the
description is edited in its place, and a description changed in Jira meanwhile ends in a conflict
showing both texts. Each new state is checked by axe-core and kept as a screenshot.
"""

from __future__ import annotations

import pytest

from tests.support import call, looping_agent, wait_until
from tests.support.browser import check_page, expect
from tests.web.test_web_writes import open_page, writer_token

pytestmark = pytest.mark.backends("sqlite", shared=True)  # one engine: see tests/web/__init__.py

KEYS = [f"AURORA-{n}" for n in range(3, 10)]
OWN, OTHERS, QUEUED, DESCRIBED, ESCAPED, READ_ONLY, LIVE = KEYS


@pytest.fixture(scope="module")
def site(tmp_path_factory, browser, module_database_url):
    """The hub, the fake Jira holding AURORA-1 … AURORA-8 with a few comments (all mirrored) and the
    agent's loop, which writes to Jira as "ivanov"; the tokens of a writer and of a reader."""
    data_dir = tmp_path_factory.mktemp("web-writes-more") / "data"
    with looping_agent(data_dir, module_database_url, "web-writes-more-agent") as (url, config, reader, jira):
        for key in KEYS:
            jira.add_issue(key, summary=f"Work item {key}", labels=["AWPCA"], description="Old *text*.")
        jira.add_comment(OWN, "101", "First *draft* of the plan", author="ivanov")
        jira.add_comment(OTHERS, "102", "Petrov's *own* words", author="petrov")
        jira.add_comment(ESCAPED, "103", "Kept as it is", author="ivanov")
        jira.add_comment(READ_ONLY, "104", "Read, not edited", author="ivanov")
        jira.add_comment(LIVE, "105", "Being edited", author="ivanov")
        refresh = call(url, reader, "/api/v1/commands", {"type": "refresh"})
        wait_until(lambda: call(url, reader, f"/api/v1/commands/{refresh['id']}")["status"] == "done",
                   timeout=60, every=0.2, message="the refresh of the test's issues")
        yield {"url": url, "writer": writer_token(config, "alice"), "reader": reader, "jira": jira}


@pytest.fixture
def page(browser, site):
    """A page signed in with the writer's token; it must log no console error (but the cancel a
    test makes too late, which the browser logs as a failed request)."""
    context, tab, errors = open_page(browser, site, site["writer"])
    yield tab
    context.close()
    assert [e for e in errors if "status of 409" not in e] == [], f"console errors: {errors}"


@pytest.fixture
def slow_jira(site):
    """Jira takes a while over each write, so that its pending state can be looked at."""
    site["jira"].slow = 1.5
    yield site["jira"]
    site["jira"].slow = 0.0


def show(tab, site, key: str) -> None:
    tab.goto(site["url"] + f"/#/issue/{key}")
    expect(tab.locator("h1")).to_contain_text(key)


def comment(tab, cid: str):
    return tab.locator(f"article.comment[data-comment-id='{cid}']")


def test_a_comment_is_edited_in_place_shown_pending_then_as_jiras_text(page, site, slow_jira):
    show(page, site, OWN)
    mine = comment(page, "101")
    mine.get_by_role("button", name="Edit comment").click()
    text = mine.get_by_label("Edit the comment")
    expect(text).to_have_value("First *draft* of the plan")
    expect(text).to_be_focused()
    text.fill("Final *plan*: ship on Friday")
    mine.get_by_role("button", name="Preview").click()
    expect(mine.locator("#comment-edit-101-preview strong")).to_have_text("plan")
    check_page(page, "writes", "comment-edit-preview")
    mine.get_by_role("button", name="Back to editing").click()
    expect(text).to_be_focused()
    with page.expect_request(lambda r: r.method == "PATCH" and r.url.endswith(f"/issues/{OWN}/comments/101")):
        mine.get_by_role("button", name="Save").click()
    expect(mine).to_have_class("comment pending")
    expect(mine.locator(".edit-pending")).to_contain_text("Final *plan*: ship on Friday")
    expect(mine.locator(".write-badge")).to_have_text("pending")
    expect(mine.locator(".wiki")).to_be_hidden()
    check_page(page, "writes", "comment-edit-pending")
    expect(mine.locator(".wiki strong")).to_have_text("plan")
    expect(mine.locator(".edit-pending")).to_have_count(0)
    expect(mine).not_to_have_class("comment pending")
    expect(mine.locator(".edited")).to_be_visible()
    [edited] = site["jira"].issues[OWN]["fields"]["comment"]["comments"]
    assert edited["body"].startswith("Final *plan*: ship on Friday")
    check_page(page, "writes", "comment-edit-done")


def test_escape_closes_a_comment_editor_and_leaves_the_comment_as_it_was(page, site):
    show(page, site, ESCAPED)
    kept = comment(page, "103")
    kept.get_by_role("button", name="Edit comment").click()
    text = kept.get_by_label("Edit the comment")
    expect(text).to_have_value("Kept as it is")
    text.fill("Not meant")
    text.press("Escape")
    expect(kept.locator("form")).to_have_count(0)
    expect(kept.locator(".wiki")).to_have_text("Kept as it is")
    expect(kept.get_by_role("button", name="Edit comment")).to_be_focused()
    assert site["jira"].issues[ESCAPED]["fields"]["comment"]["comments"][0]["body"] == "Kept as it is"


def test_jiras_refusal_to_edit_anothers_comment_shows_in_its_words(page, site):
    jira = site["jira"]
    jira.writes.edit_others_comments = False
    try:
        show(page, site, OTHERS)
        theirs = comment(page, "102")
        theirs.get_by_role("button", name="Edit comment").click()
        theirs.get_by_label("Edit the comment").fill("Petrov's words, corrected")
        theirs.get_by_role("button", name="Save").click()
        failure = page.locator(".write-outcome.outcome-failed")
        expect(failure).to_contain_text("Comment edit failed.")
        expect(failure.locator(".jira-words")).to_have_text("You do not have the permission to edit this comment.")
        # The comment is shown as Jira has it, marked as the edit that failed.
        expect(theirs.locator(".wiki strong")).to_have_text("own")
        expect(theirs.locator(".write-badge")).to_have_text("failed")
        check_page(page, "writes", "comment-edit-refused")
        failure.get_by_role("button", name="Dismiss").click()
        expect(failure).to_have_count(0)
        expect(theirs.locator(".write-badge")).to_have_count(0)
        assert jira.issues[OTHERS]["fields"]["comment"]["comments"][0]["body"] == "Petrov's *own* words"
    finally:
        jira.writes.edit_others_comments = True


def test_a_write_queued_behind_another_is_cancelled_before_an_agent_takes_it(page, site):
    jira = site["jira"]
    jira.slow = 3.0  # the first comment holds the issue's queue: the second stays pending meanwhile
    try:
        show(page, site, QUEUED)
        box = page.locator("#comment-body")
        send = page.locator("form#comment-form").get_by_role("button", name="Comment")
        box.fill("First in line")
        send.click()
        expect(page.locator(".comment.pending").filter(has_text="First in line")).to_have_count(1)
        box.fill("Second thoughts")
        send.click()
        second = page.locator(".comment.pending").filter(has_text="Second thoughts")
        cancel = second.get_by_role("button", name="Cancel: Comment")
        expect(cancel).to_be_visible()
        check_page(page, "writes", "cancel-offered")
        cancel.click()
        expect(second).to_have_count(0)
        expect(page.locator(".write-notice")).to_have_text(
            "Comment cancelled: Jira never saw it. Its text is back in the comment box.")
        expect(box).to_have_value("Second thoughts")
        check_page(page, "writes", "cancelled")
    finally:
        jira.slow = 0.0
    expect(page.locator(".comment[data-comment-id]").filter(has_text="First in line")).to_have_count(1)
    writes = call(site["url"], site["writer"], f"/api/v1/writes?key={QUEUED}")["items"]
    assert sorted(w["status"] for w in writes) == ["cancelled", "done"]
    [made] = jira.issues[QUEUED]["fields"]["comment"]["comments"]
    assert made["body"].startswith("First in line")


def test_the_description_is_edited_in_place_and_a_change_in_jira_meanwhile_is_a_conflict(page, site, slow_jira):
    jira = site["jira"]
    show(page, site, DESCRIBED)
    page.get_by_role("button", name="Edit description").click()
    text = page.get_by_label("Edit the description")
    expect(text).to_have_value("Old *text*.")
    expect(text).to_be_focused()
    text.fill("h2. Plan\nShip the *card list* on Friday.")
    page.locator("#description-form").get_by_role("button", name="Preview").click()
    expect(page.locator("#description-preview").get_by_role("heading", name="Plan")).to_be_visible()
    check_page(page, "writes", "description-preview")
    page.locator("#description-form").get_by_role("button", name="Save").click()
    pending = page.locator(".description-pending")
    expect(pending).to_contain_text("Ship the *card list* on Friday.")
    expect(pending.locator(".write-badge")).to_have_text("pending")
    check_page(page, "writes", "description-pending")
    expect(page.locator("#description").get_by_role("heading", name="Plan")).to_be_visible()
    expect(pending).to_have_count(0)
    assert jira.issues[DESCRIBED]["fields"]["description"] == "h2. Plan\nShip the *card list* on Friday."
    check_page(page, "writes", "description-done")

    # Changed in Jira after the page read it: nothing is written, both texts are shown.
    jira.issues[DESCRIBED]["fields"]["description"] = "Rewritten in Jira."
    page.get_by_role("button", name="Edit description").click()
    page.get_by_label("Edit the description").fill("Mine, again.")
    page.locator("#description-form").get_by_role("button", name="Save").click()
    conflict = page.locator(".write-outcome.outcome-conflict")
    expect(conflict).to_be_visible()
    row = conflict.locator("tbody tr")
    expect(row.locator("th")).to_have_text("Description")
    expect(row.locator(".conflict-base")).to_have_text("h2. Plan\nShip the *card list* on Friday.")
    expect(row.locator(".conflict-jira")).to_have_text("Rewritten in Jira.")
    expect(row.locator(".conflict-mine")).to_have_text("Mine, again.")
    check_page(page, "writes", "description-conflict")
    conflict.get_by_role("button", name="Keep mine").click()
    expect(conflict).to_have_count(0)
    expect(page.locator("#description")).to_have_text("Mine, again.")
    assert jira.issues[DESCRIBED]["fields"]["description"] == "Mine, again."


def test_half_typed_edits_survive_a_change_shown_live_on_a_phone(browser, site):
    context, tab, errors = open_page(browser, site, site["writer"], viewport={"width": 390, "height": 844})
    try:
        show(tab, site, LIVE)
        tab.get_by_role("button", name="Edit description").click()
        tab.get_by_label("Edit the description").fill("Half a description")
        edited = comment(tab, "105")
        edited.get_by_role("button", name="Edit comment").click()
        edited.get_by_label("Edit the comment").fill("Half an edit")
        assert tab.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        check_page(tab, "writes", "phone-edits-open")
        # Someone else comments meanwhile: the comments are drawn anew, the editors stay as they were.
        call(site["url"], site["writer"], f"/api/v1/issues/{LIVE}/comments", {"body": "From another desk"})
        expect(tab.locator(".comment[data-comment-id]").filter(has_text="From another desk")).to_have_count(1)
        expect(comment(tab, "105").get_by_label("Edit the comment")).to_have_value("Half an edit")
        expect(comment(tab, "105").locator(".wiki")).to_be_hidden()
        expect(tab.get_by_label("Edit the description")).to_have_value("Half a description")
        assert errors == [], errors
    finally:
        context.close()


def test_a_token_that_may_not_write_is_offered_no_edit_of_comments_or_description(browser, site):
    context, tab, errors = open_page(browser, site, site["reader"])
    try:
        show(tab, site, READ_ONLY)
        expect(comment(tab, "104")).to_be_visible()
        expect(tab.get_by_role("button", name="Edit comment")).to_have_count(0)
        expect(tab.get_by_role("button", name="Edit description")).to_have_count(0)
        expect(tab.locator(".write-cancel")).to_have_count(0)
        assert errors == [], errors
    finally:
        context.close()
