"""Jira's wiki text on the issue page, as the hub renders it (GET …?render=html), in a real browser:
the description, comments, a worklog's comment and a wiki custom field read as Jira shows them; an
image whose attachment is not fetched yet offers a Fetch button that fetches it and shows it; hostile
text runs nothing and an issue page full of it still shows, as plain text.

A real hub on loopback (under its Content-Security-Policy) and headless Chromium from the system's
packages; the agent is played by the test over HTTP. The hub is started once, on
SQLite (tests/web/__init__.py says why one engine).
"""

from __future__ import annotations

import hashlib
import json
import urllib.request

import pytest

from hub.services.markup.convert import MARKUP_LIMIT
from tests.support import call, prepared_hub, serving
from tests.support.browser import check_page, expect

pytestmark = pytest.mark.backends("sqlite", shared=True)  # one engine: see tests/web/__init__.py

AGENT_ID = "markup-agent"
PNG = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000"
                    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082")
TEXTAREA = "com.atlassian.jira.plugin.system.customfieldtypes:textarea"
DESCRIPTION = (
    "h2.Steps\r\n# Open the *cards* list\r\n## sort by _due date_\r\n# Export it\r\n\r\n"
    "||Browser||Result||\r\n|Chromium|-fails- (x)|\r\n\r\n"
    "{quote}It worked in 2.2{quote} says [~ivanov], see [the release notes|https://example.org/notes].\r\n"
    "{code:python}\r\nprint('{{not mono}}')\r\n{code}\r\n"
    "{color:red}Blocker{color} for the release.\r\n----\r\nScreen: !screen.png|thumbnail!\r\n")
HOSTILE = ("<script>window.__injected = 1</script> <img src=x onerror=window.__injected=2> "
           "[x|javascript:window.__injected=3]")


def hostile(unit: str, size: int) -> str:
    return (unit * (size // len(unit) + 1))[:size]


ISSUES = [
    {"key": "AURORA-12", "id": "10012", "summary": "Export fails", "issue_type": "Bug", "status": "Open",
     "updated": "2026-10-22T13:05:11.000+0300", "description": DESCRIPTION, "environment": "*Linux* " + HOSTILE,
     "custom_fields": {"customfield_10300": {"name": "Acceptance", "type": "string", "custom": TEXTAREA,
                                             "value": "* the export *opens*"}},
     "attachments": [{"id": "10001", "filename": "screen.png", "size": len(PNG), "mime_type": "image/png"}],
     "comments": [{"id": "10101", "author": "petrov", "created": "2026-10-22T13:05:11.000+0300",
                   "body": "Confirmed on *2.3* (y)"},
                  {"id": "10102", "author": "petrov", "created": "2026-10-22T14:05:11.000+0300",
                   "body": HOSTILE}],
     "worklogs": [{"id": "20001", "author": "ivanov", "started": "2026-10-22T13:05:11.000+0300",
                   "time_spent": 3600, "comment": "+reviewed+ the export"}]},
    # Jira's largest text, made of the openings that cost the grammar most, in the description
    # and in comments: the page still shows, as plain text.
    {"key": "AURORA-13", "id": "10013", "summary": "Hostile text", "issue_type": "Task", "status": "Open",
     "updated": "2026-10-22T13:05:11.000+0300", "description": hostile("[~", MARKUP_LIMIT + 1),
     "comments": [{"id": str(10201 + n), "author": "petrov", "created": "2026-10-22T13:05:11.000+0300",
                   "body": body} for n, body in enumerate(
                       (hostile("{{", MARKUP_LIMIT + 1), "*fine* " + HOSTILE))]},
]
USERS = [{"name": "ivanov", "key": "JIRAUSER10100", "display_name": "Ivan Ivanov"}]


def seed(url: str, agent: str, interface: str) -> None:
    command = call(url, interface, "/api/v1/commands", {"type": "refresh", "params": {"jql": "project = AURORA"}})
    [claimed] = call(url, agent, "/agent/v1/claim", {"agent_id": AGENT_ID, "version": 14})["commands"]
    assert claimed["id"] == command["id"]
    call(url, agent, f"/agent/v1/commands/{claimed['id']}/state",
         {"agent_id": AGENT_ID, "delivery": 1, "issues": ISSUES, "catalogues": {"users": USERS}})
    call(url, agent, f"/agent/v1/commands/{claimed['id']}/done",
         {"agent_id": AGENT_ID, "delivery": 1, "result": {"total": len(ISSUES)}})


def deliver(url: str, agent: str) -> None:
    """The agent's part of a fetch: claim it, upload the image, finish it."""
    [command] = call(url, agent, "/agent/v1/claim", {"agent_id": AGENT_ID, "version": 14, "wait": 20,
                                                     "types": ["fetch_attachment"]})["commands"]
    assert command["params"] == {"attachment_id": "10001"}
    put = urllib.request.Request(
        f"{url}/agent/v1/commands/{command['id']}/file?agent_id={AGENT_ID}&delivery={command['deliveries']}",
        data=PNG, method="PUT", headers={"Authorization": f"Bearer {agent}", "X-Content-SHA256":
                                         hashlib.sha256(PNG).hexdigest(), "Content-Type": "application/octet-stream"})
    with urllib.request.urlopen(put, timeout=30) as resp:
        stored = json.loads(resp.read())
    call(url, agent, f"/agent/v1/commands/{command['id']}/done",
         {"agent_id": AGENT_ID, "delivery": command["deliveries"], "result": stored})


@pytest.fixture(scope="module")
def site(browser, tmp_path_factory, module_database_url):
    """A hub serving on loopback with the issues above (on each engine): its URL and tokens."""
    data_dir = tmp_path_factory.mktemp("markup") / "data"
    agent, interface = prepared_hub(data_dir, module_database_url)
    with serving(data_dir, module_database_url) as url:
        seed(url, agent, interface)
        yield {"url": url, "agent": agent, "interface": interface}


@pytest.fixture
def page(browser, site):
    context = browser.new_context()
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda error: errors.append(f"uncaught: {error}"))
    tab.goto(site["url"] + "/")
    tab.get_by_label("Token").fill(site["interface"])
    tab.get_by_role("button", name="Sign in").click()
    tab.get_by_role("heading", name="Issues").wait_for()
    yield tab
    context.close()
    assert errors == []



def test_an_issue_page_shows_the_description_and_comments_rendered_as_jira_renders_them(page, site):
    page.goto(site["url"] + "/#/issue/AURORA-12")
    description = page.locator("#description")
    expect(description.get_by_role("heading", name="Steps")).to_be_visible()
    expect(description.locator("ol > li > ol > li")).to_have_text("sort by due date")
    expect(description.locator("ol > li strong").first).to_have_text("cards")
    expect(description.locator("table th")).to_have_text(["Browser", "Result"])
    expect(description.locator("table td s")).to_have_text("fails")
    expect(description.locator("blockquote")).to_have_text("It worked in 2.2")
    expect(description.locator(".mention")).to_have_text("@Ivan Ivanov")
    expect(description.get_by_role("link", name="the release notes")).to_have_attribute(
        "href", "https://example.org/notes")
    expect(description.locator("pre code")).to_have_text("print('{{not mono}}')\n")
    expect(description.locator(".jira-color-red")).to_have_text("Blocker")
    expect(description.locator("hr")).to_have_count(1)
    text = description.text_content()
    for raw in ("{quote}", "||", "h2.", "[~", "!screen.png", "*cards*", "{color"):
        assert raw not in text, raw
    comments = page.locator(".comments > li")
    expect(comments.first.locator("strong")).to_have_text("2.3")
    expect(comments.first).to_contain_text("\U0001f44d")
    expect(page.locator("#environment strong")).to_have_text("Linux")
    expect(page.locator("dl.custom-fields li strong")).to_have_text("opens")
    expect(page.locator("section[aria-labelledby=s-worklogs] .underline")).to_have_text("reviewed")
    # Hostile text reads as the characters it is, and runs nothing.
    expect(comments.nth(1)).to_contain_text("<script>window.__injected = 1</script>")
    assert page.locator("main script, main img:not([src^='/api/v1/attachments/'])").count() == 0
    assert page.locator("main a[href^='javascript']").count() == 0
    assert page.evaluate("window.__injected") is None
    check_page(page, "issue", "wiki-rendered")


def test_an_image_not_yet_fetched_offers_a_fetch_button_that_shows_it(page, site):
    page.goto(site["url"] + "/#/issue/AURORA-12")
    button = page.locator("#description").get_by_role("button", name="Fetch screen.png")
    expect(button).to_be_visible()
    check_page(page, "issue", "image-not-fetched")
    button.click()
    expect(page.locator("#description")).to_contain_text("The agent is fetching it…")
    deliver(site["url"], site["agent"])
    image = page.locator("#description img")
    expect(image).to_have_attribute("src", "/api/v1/attachments/10001/content")
    expect(image).to_have_attribute("alt", "screen.png")
    # The attachments table says it is ready too, without a reload.
    row = page.locator("section[aria-labelledby=s-attachments] tbody tr").filter(has_text="screen.png")
    expect(row.locator(".state")).to_have_text("ready")
    # Read again, the hub itself places the image now that its content is in the store.
    page.reload()
    expect(page.locator("#description img")).to_have_attribute("src", "/api/v1/attachments/10001/content")
    expect(page.locator("#description").get_by_role("button", name="Fetch screen.png")).to_have_count(0)
    check_page(page, "issue", "image-fetched")


def test_an_issue_page_full_of_hostile_text_shows_it_as_plain_text(page, site):
    # A text longer than Jira lets one be is never converted: it is plain, whatever it holds (one
    # within the limit may take the hub's budget of CPU, tests/markup holds that to its bound).
    page.goto(site["url"] + "/#/issue/AURORA-13")
    expect(page.locator(".comments > li")).to_have_count(2, timeout=120_000)
    assert page.locator("#description").text_content().strip() == hostile("[~", MARKUP_LIMIT + 1)
    assert page.locator("#description .plain").count() == 1
    expect(page.locator(".comments > li").nth(1).locator("strong")).to_have_text("fine")
    expect(page.locator(".comments > li").nth(1)).to_contain_text("<script>window.__injected = 1</script>")
    assert page.locator("main script, main img").count() == 0 and page.evaluate("window.__injected") is None
    check_page(page, "issue", "hostile-text")



@pytest.mark.backends("sqlite")  # the page's own script on the test's strings: no hub data, one engine will do
def test_a_search_snippet_highlights_in_one_scan(page):
    # The hub answers snippets as plain text with the match between [[ and ]]: the page marks it.
    got = page.evaluate("""async () => { const {highlighted} = await import('/ui/issues.js');
        const shape = (node) => [...node.childNodes].map((child) => child.nodeType === Node.TEXT_NODE
          ? JSON.stringify(child.data) : `<${child.localName}>${shape(child)}</${child.localName}>`).join("");
        const box = (pieces) => { const p = document.createElement("p"); p.append(...pieces); return shape(p); };
        const start = performance.now();
        const long = box(highlighted("[[".repeat(50000) + "x"));
        return [box(highlighted("a [[Cards]] b [[]] [[x")), long.length, performance.now() - start]; }""")
    assert got[0] == '"a "<mark>"Cards"</mark>" b "<mark>""</mark>" [[x"'
    assert got[1] == 100_003 and got[2] < 1000
