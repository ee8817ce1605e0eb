"""Acting on issues from the page, in a real browser, against the fake Jira through the reference agent.

A hub serving on loopback, the fake Jira (demo/fakejira.py, which takes writes as Jira Server 9 does)
and the reference agent running its loop beside them (tests/support/processes.py's ``looping_agent``).
A token granted writes comments, moves an issue through a transition whose screen requires a field,
picks an assignee with the typeahead, logs work, links two issues, attaches a file dropped on the page
and creates an issue; each write shows pending at once, then as Jira's own value. Jira's refusal shows
in its words with Retry; a conflict (the field changed in Jira after the page read it) shows both values
and "Keep mine"; the hub's own refusal shows beside the control with nothing typed lost. A read-only
token sees no control. Each state is checked by axe-core and kept as a screenshot; the module's hub is
started once, on SQLite (tests/web/__init__.py says why one engine).
"""

from __future__ import annotations

import pytest

from tests.support import call, looping_agent, wait_until
from tests.support.browser import TIMEOUT_MS, check_page, expect, signed_in_page

pytestmark = pytest.mark.backends("sqlite", shared=True)  # one engine: see tests/web/__init__.py

# One issue per test, so that the tests' writes do not meet: AURORA-1 and -2 come with looping_agent.
KEYS = [f"AURORA-{n}" for n in range(3, 17)]


def writer_token(config, name: str) -> str:
    """An interface token granted writes, made by the hub's own service (as ``hub token add NAME
    --role interface --write`` does)."""
    from hub.db import open_hub_database
    from tests.support.hubs import built_services

    db = open_hub_database(config)
    try:
        return built_services(config).tokens.add(name, "interface", write=True)
    finally:
        db.close()


@pytest.fixture(scope="module")
def site(tmp_path_factory, browser, module_database_url):
    """The hub, the fake Jira holding AURORA-1 … AURORA-12 (all mirrored) and the agent's loop; the
    tokens of a writer and of a reader."""
    data_dir = tmp_path_factory.mktemp("web-writes") / "data"
    with looping_agent(data_dir, module_database_url, "web-writes-agent") as (url, config, reader, jira):
        for key in KEYS:
            jira.add_issue(key, summary=f"Work item {key}", labels=["AWPCA"])
        refresh = call(url, reader, "/api/v1/commands", {"type": "refresh"})
        wait_until(lambda: call(url, reader, f"/api/v1/commands/{refresh['id']}")["status"] == "done",
                   timeout=60, every=0.2, message="the refresh of the test's issues")
        yield {"url": url, "writer": writer_token(config, "alice"), "reader": reader, "jira": jira}


def open_page(browser, site, token: str, **context):
    """A signed-in page of a fresh context and the console errors it logs."""
    return signed_in_page(browser, site["url"], token, **context)


@pytest.fixture
def page(browser, site):
    """A page signed in with the writer's token; it must log no console error (but the hub's
    refusals a test asks for, which the browser logs as failed requests)."""
    context, tab, errors = open_page(browser, site, site["writer"])
    yield tab
    context.close()
    assert [e for e in errors if "status of 422" not in e] == [], f"console errors: {errors}"


@pytest.fixture
def slow_jira(site):
    """Jira takes a second and a half over each write, so that its pending state can be looked at."""
    site["jira"].slow = 1.5
    yield site["jira"]
    site["jira"].slow = 0.0


def show(tab, site, key: str) -> None:
    tab.goto(site["url"] + f"/#/issue/{key}")
    expect(tab.locator("h1")).to_contain_text(key)


def field(tab, name: str):
    """The value (<dd>) of a field of the details panel, by the issue object's name."""
    return tab.locator(f"#details div.field[data-field='{name}'] > dd")


def test_a_comment_shows_pending_at_once_then_as_jiras_comment(page, site, slow_jira):
    key = KEYS[0]
    show(page, site, key)
    page.locator("#comment-body").fill("Checked on *staging*: works.")
    page.get_by_role("button", name="Preview").click()
    expect(page.locator("#comment-preview strong")).to_have_text("staging")
    check_page(page, "writes", "comment-preview")
    page.get_by_role("button", name="Back to editing").click()
    with page.expect_request(lambda r: r.method == "POST" and r.url.endswith(f"/issues/{key}/comments")) as asked:
        page.locator("form#comment-form").get_by_role("button", name="Comment").click()
    # One key per action: a request sent again after a lost answer makes no second write.
    assert len(asked.value.headers["idempotency-key"]) >= 32
    pending = page.locator(".comment.pending")
    expect(pending).to_contain_text("Checked on *staging*: works.")
    expect(pending).to_contain_text("pending")
    expect(page.locator("#comment-body")).to_have_value("")
    check_page(page, "writes", "comment-pending")
    mirrored = page.locator(".comment[data-comment-id]").filter(has_text="Checked on staging: works.")
    expect(mirrored).to_have_count(1)
    expect(mirrored.locator(".wiki strong")).to_have_text("staging")
    expect(pending).to_have_count(0)
    [made] = site["jira"].issues[key]["fields"]["comment"]["comments"]
    assert made["body"].startswith("Checked on *staging*: works.")
    check_page(page, "writes", "comment-done")


def test_a_transition_whose_screen_requires_a_field_asks_for_it_in_a_dialog(page, site, slow_jira):
    key = KEYS[1]
    show(page, site, key)
    page.get_by_role("button", name="Resolve Issue → Resolved").click()
    dialog = page.get_by_role("dialog", name=f"Resolve Issue: {key} to Resolved")
    expect(dialog).to_be_visible()
    expect(dialog.get_by_text("(required)")).to_have_count(1)
    check_page(page, "writes", "transition-screen")
    dialog.get_by_role("button", name="Resolve Issue").click()
    expect(dialog.get_by_role("alert")).to_have_text("Resolution is required.")
    expect(dialog.get_by_label("Resolution")).to_be_focused()
    dialog.get_by_label("Resolution").select_option("Fixed")
    dialog.get_by_role("button", name="Resolve Issue").click()
    expect(dialog).to_have_count(0)
    status = field(page, "status")
    expect(status).to_contain_text("→ Resolved")
    expect(status.locator(".write-badge")).to_have_text("pending")
    check_page(page, "writes", "transition-pending")
    expect(status).to_contain_text("Resolved")
    expect(status.locator(".write-badge")).to_have_count(0)
    assert site["jira"].issues[key]["fields"]["status"]["name"] == "Resolved"
    assert site["jira"].issues[key]["fields"]["resolution"]["name"] == "Fixed"
    # The buttons are those Jira offers from Resolved now, and the keyboard's focus is among them.
    expect(page.get_by_role("button", name="Reopen Issue → Reopened")).to_be_visible()
    expect(page.locator(".transitions button").first).to_be_focused()


def test_the_assignee_is_picked_with_the_typeahead_over_the_mirrors_users(page, site):
    key = KEYS[2]
    show(page, site, key)
    page.get_by_role("button", name="Edit Assignee").click()
    picker = page.get_by_role("combobox", name="Assignee")
    with page.expect_request(lambda r: "/api/v1/users?q=pet" in r.url):
        picker.fill("pet")
    option = page.get_by_role("option", name="Petrov")
    expect(option).to_be_visible()
    check_page(page, "writes", "assignee-typeahead")
    picker.press("ArrowDown")
    picker.press("Enter")
    expect(picker).to_have_value("Petrov")
    picker.press("Enter")  # Enter saves
    expect(field(page, "assignee")).to_contain_text("Petrov")
    expect(field(page, "assignee").locator(".write-badge")).to_have_count(0)
    expect(field(page, "assignee").locator("[title=petrov]")).to_have_count(1)
    assert site["jira"].issues[key]["fields"]["assignee"]["name"] == "petrov"


def test_escape_puts_a_field_back_as_it_was(page, site):
    key = KEYS[2]
    show(page, site, key)
    before = field(page, "priority").inner_text()
    page.get_by_role("button", name="Edit Priority").click()
    page.get_by_label("Priority", exact=True).select_option("Minor")
    page.get_by_label("Priority", exact=True).press("Escape")
    expect(field(page, "priority")).to_have_text(before)
    expect(page.get_by_role("button", name="Edit Priority")).to_be_focused()


def test_a_due_date_is_edited_as_a_date(page, site):
    key = KEYS[10]
    show(page, site, key)
    page.get_by_role("button", name="Edit Due").click()
    date = page.locator("#details input[type=date]")
    expect(date).to_be_focused()
    date.fill("2026-12-20")
    date.press("Enter")
    expect(field(page, "duedate").locator("time")).to_have_attribute("datetime", "2026-12-20")
    assert site["jira"].issues[key]["fields"]["duedate"] == "2026-12-20"


def test_a_write_pending_when_the_page_opens_shows_pending_then_as_jiras(page, site):
    key = KEYS[11]
    jira = site["jira"]
    jira.down = True  # the agent holds the write (or leaves it queued) until Jira answers again
    try:
        asked = call(site["url"], site["writer"], f"/api/v1/issues/{key}/comments", {"body": "Made elsewhere"})
        assert asked["status"] in ("pending", "applying")
        show(page, site, key)
        pending = page.locator(".comment.pending")
        expect(pending).to_contain_text("Made elsewhere")
        expect(pending).to_contain_text("alice")
        expect(pending.locator(".write-badge")).to_have_text("pending")
        check_page(page, "writes", "pending-on-load")
    finally:
        jira.down = False
    expect(page.locator(".comment[data-comment-id]").filter(has_text="Made elsewhere")).to_have_count(1)
    expect(pending).to_have_count(0)


def test_work_is_logged_and_a_time_the_hub_cannot_read_is_refused_beside_the_form(page, site):
    key = KEYS[3]
    show(page, site, key)
    page.get_by_role("button", name="Log work").first.click()
    form = page.locator("#worklog-form")
    expect(form).to_be_visible()
    form.get_by_label("Time spent (required)").fill("a while")
    form.get_by_label("Comment").fill("Pairing on the card form")
    form.get_by_role("button", name="Log work").click()
    # The hub's 422, beside the control; what was typed is still there.
    expect(form.get_by_role("status")).to_contain_text("time_spent")
    expect(form.get_by_label("Time spent (required)")).to_have_value("a while")
    expect(form.get_by_label("Time spent (required)")).to_be_focused()
    expect(form.get_by_label("Comment")).to_have_value("Pairing on the card form")
    check_page(page, "writes", "worklog-refused")
    form.get_by_label("Time spent (required)").fill("1h 30m")
    form.get_by_role("button", name="Log work").click()
    expect(page.locator("#worklog-total")).to_contain_text("1h 30m", timeout=TIMEOUT_MS)
    expect(page.locator(".worklog.pending")).to_have_count(0)
    [logged] = site["jira"].issues[key]["fields"]["worklog"]["worklogs"]
    assert logged["timeSpentSeconds"] == 5400
    check_page(page, "writes", "worklog-done")


def test_two_issues_are_linked_by_a_phrase_of_the_link_type(page, site):
    key, other = KEYS[4], KEYS[5]
    show(page, site, key)
    page.get_by_role("button", name="Link", exact=True).click()
    form = page.locator("#link-form")
    form.get_by_label("This issue").select_option(label="is blocked by")
    form.get_by_label("Issue key").fill(other.lower())
    check_page(page, "writes", "link-form")
    form.get_by_role("button", name="Link").click()
    group = page.locator(".link-group").filter(has=page.locator("h3", has_text="is blocked by"))
    expect(group.get_by_role("link", name=other)).to_be_visible()
    expect(page.locator(".link.pending")).to_have_count(0)
    [made] = site["jira"].issues[key]["fields"]["issuelinks"]
    assert made["type"]["name"] == "Blocks" and made["inwardIssue"]["key"] == other


def test_a_file_dropped_on_the_attachments_is_attached_in_jira(page, site, slow_jira):
    key = KEYS[5]
    show(page, site, key)
    zone = page.locator(".drop-zone").last
    files = page.evaluate_handle(
        "() => { const dt = new DataTransfer();"
        " dt.items.add(new File(['release notes'], 'notes.txt', {type: 'text/plain'})); return dt; }")
    zone.dispatch_event("dragover", {"dataTransfer": files})
    zone.dispatch_event("drop", {"dataTransfer": files})
    expect(page.locator(".attachment.pending")).to_contain_text("notes.txt")
    check_page(page, "writes", "attach-pending")
    section = page.locator("section[aria-labelledby=s-attachments]")
    expect(section.locator("tbody tr").filter(has_text="notes.txt")).to_have_count(1)
    expect(page.locator(".attachment.pending")).to_have_count(0)
    [attached] = site["jira"].issues[key]["fields"]["attachment"]
    assert site["jira"].files[attached["id"]] == b"release notes"


def test_a_new_issue_is_created_from_its_create_screen_and_linked(page, site):
    page.get_by_role("navigation", name="Main").get_by_role("link", name="New issue").click()
    expect(page.get_by_role("heading", name="New issue")).to_be_visible()
    page.get_by_label("Issue type").select_option("Bug")
    page.get_by_label("Summary").fill("Card list flickers on reload")
    page.get_by_label("Description").fill("Seen on *Firefox*.")
    page.get_by_label("Severity").select_option("S2")
    check_page(page, "create", "form")
    page.get_by_role("button", name="Create").click()
    created = page.locator(".created")
    expect(created).to_contain_text("Created")
    link = created.get_by_role("link")
    new_key = link.inner_text()
    made = site["jira"].issues[new_key]["fields"]
    assert made["summary"] == "Card list flickers on reload" and made["issuetype"]["name"] == "Bug"
    check_page(page, "create", "done")
    link.click()
    expect(page.locator("h1")).to_contain_text(f"{new_key} Card list flickers on reload")


def test_jiras_refusal_shows_in_its_words_and_retry_writes_it_once_fixed(page, site):
    key, other = KEYS[6], KEYS[7]
    jira = site["jira"]
    jira.linking = False
    try:
        show(page, site, key)
        page.get_by_role("button", name="Link", exact=True).click()
        form = page.locator("#link-form")
        form.get_by_label("This issue").select_option(label="blocks")
        form.get_by_label("Issue key").fill(other)
        form.get_by_role("button", name="Link").click()
        failure = page.locator(".write-outcome.outcome-failed")
        expect(failure).to_contain_text("Issue linking is currently disabled.")
        expect(page.locator(".link.failed")).to_contain_text("failed")
        check_page(page, "writes", "failed")
    finally:
        jira.linking = True
    failure.get_by_role("button", name="Retry").click()
    group = page.locator(".link-group").filter(has=page.locator("h3", has_text="blocks"))
    expect(group.get_by_role("link", name=other)).to_be_visible()
    expect(failure).to_have_count(0)
    assert len(jira.issues[key]["fields"]["issuelinks"]) == 1


def test_a_conflict_shows_both_values_and_keep_mine_writes_mine(page, site):
    key = KEYS[8]
    jira = site["jira"]
    show(page, site, key)
    expect(field(page, "priority")).to_contain_text("Major")
    # Changed in Jira after the page read the issue.
    jira.issues[key]["fields"]["priority"] = {"name": "Critical", "id": "2"}
    page.get_by_role("button", name="Edit Priority").click()
    page.get_by_label("Priority", exact=True).select_option("Minor")
    page.get_by_label("Priority", exact=True).press("Enter")
    conflict = page.locator(".write-outcome.outcome-conflict")
    expect(conflict).to_be_visible()
    row = conflict.locator("tbody tr")
    expect(row.locator("th")).to_have_text("Priority")
    expect(row.locator(".conflict-base")).to_have_text("Major")
    expect(row.locator(".conflict-jira")).to_have_text("Critical")
    expect(row.locator(".conflict-mine")).to_have_text("Minor")
    expect(field(page, "priority")).to_contain_text("Critical")  # Jira's value now, beside the choice
    check_page(page, "writes", "conflict")
    conflict.get_by_role("button", name="Keep mine").click()
    expect(conflict).to_have_count(0)
    expect(field(page, "priority")).to_contain_text("Minor")
    expect(field(page, "priority").locator(".write-badge")).to_have_count(0)
    assert jira.issues[key]["fields"]["priority"]["name"] == "Minor"


def test_take_jiras_lets_a_conflicting_edit_go_and_shows_jiras_value(page, site):
    key = KEYS[12]
    jira = site["jira"]
    show(page, site, key)
    expect(field(page, "priority")).to_contain_text("Major")
    jira.issues[key]["fields"]["priority"] = {"name": "Blocker", "id": "1"}
    page.get_by_role("button", name="Edit Priority").click()
    page.get_by_label("Priority", exact=True).select_option("Trivial")
    page.get_by_role("button", name="Save").click()
    conflict = page.locator(".write-outcome.outcome-conflict")
    conflict.get_by_role("button", name="Take Jira's").click()
    expect(conflict).to_have_count(0)
    expect(field(page, "priority")).to_have_text("Blocker")
    assert jira.issues[key]["fields"]["priority"]["name"] == "Blocker"


def test_what_is_being_typed_survives_a_change_the_page_shows_live(page, site):
    key = KEYS[13]
    show(page, site, key)
    page.locator("#comment-body").fill("Half a thou")
    page.get_by_role("button", name="Edit Labels").click()
    labels = page.get_by_label("Labels", exact=True)
    labels.fill("AWPCA urgent")
    # Someone else comments meanwhile: the page shows it by itself, without a reload.
    call(site["url"], site["writer"], f"/api/v1/issues/{key}/comments", {"body": "From another desk"})
    expect(page.locator(".comment[data-comment-id]").filter(has_text="From another desk")).to_have_count(1)
    expect(page.locator("#comment-body")).to_have_value("Half a thou")
    expect(labels).to_have_value("AWPCA urgent")
    labels.press("Enter")
    expect(field(page, "labels")).to_contain_text("urgent")
    expect(field(page, "labels").locator(".write-badge")).to_have_count(0)
    assert site["jira"].issues[key]["fields"]["labels"] == ["AWPCA", "urgent"]


def test_a_token_that_may_not_write_sees_no_controls(browser, site):
    context, tab, errors = open_page(browser, site, site["reader"])
    try:
        show(tab, site, KEYS[9])
        expect(tab.locator("#details div.field").first).to_be_visible()
        expect(tab.locator("#comment-form")).to_have_count(0)
        expect(tab.locator(".transitions button, .field-edit, #log-work, #link-issue, #attach-open")).to_have_count(0)
        expect(tab.locator("#nav-create")).to_be_hidden()
        tab.goto(site["url"] + "/#/create")
        expect(tab.locator("main")).to_contain_text("may not write")
        check_page(tab, "writes", "read-only")
        assert errors == [], errors
    finally:
        context.close()


def test_the_controls_fit_a_phone(browser, site):
    context, tab, errors = open_page(browser, site, site["writer"], viewport={"width": 390, "height": 844})
    try:
        show(tab, site, KEYS[9])
        expect(tab.locator("#comment-form")).to_be_attached()
        tab.get_by_role("button", name="Edit Assignee").click()
        expect(tab.get_by_role("combobox", name="Assignee")).to_be_focused()
        assert tab.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        check_page(tab, "writes", "phone")
        tab.get_by_role("combobox", name="Assignee").press("Escape")
        tab.get_by_role("button", name="Close Issue → Closed").click()
        expect(tab.get_by_role("dialog")).to_be_visible()
        check_page(tab, "writes", "phone-transition-screen")
        tab.keyboard.press("Escape")
        expect(tab.get_by_role("dialog")).to_have_count(0)
        tab.goto(site["url"] + "/#/create")
        expect(tab.get_by_label("Summary")).to_be_visible()
        assert tab.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        check_page(tab, "create", "phone")
        assert errors == [], errors
    finally:
        context.close()
