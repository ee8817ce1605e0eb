"""A moved issue in the web interface, in a real browser against a real hub: opened at its old
key, the page shows the issue under its new key, says it moved, and the address follows.
Headless Chromium from the system's packages (the ``browser`` fixture); the page is checked by
axe-core and leaves its screenshot (tests/support/browser.py).
"""

from __future__ import annotations

import pytest

from tests.support import call, prepared_hub, serving
from tests.support.browser import TIMEOUT_MS, check_page

pytestmark = pytest.mark.backends("sqlite")  # one engine: see tests/web/__init__.py

AGENT_ID = "web-agent-moves"


def refresh(url: str, agent: str, interface: str, issues: list[dict]) -> None:
    """One refresh of ``issues`` by an agent, through the protocol."""
    command = call(url, interface, "/api/v1/commands", {"type": "refresh", "params": {"jql": "key = OPS-7"}})
    [claimed] = call(url, agent, "/agent/v1/claim", {"agent_id": AGENT_ID, "version": 15})["commands"]
    assert claimed["id"] == command["id"]
    call(url, agent, f"/agent/v1/commands/{claimed['id']}/state", {"agent_id": AGENT_ID, "delivery": 1,
                                                                     "issues": issues})
    call(url, agent, f"/agent/v1/commands/{claimed['id']}/done",
         {"agent_id": AGENT_ID, "delivery": 1, "result": {"total": len(issues)}})


@pytest.fixture
def site(tmp_path, browser, database_url):
    """A hub whose AURORA-12 Jira has moved to OPS-7 since the mirror first held it."""
    data_dir = tmp_path / "data"
    agent, interface = prepared_hub(data_dir, database_url)
    with serving(data_dir, database_url) as url:
        refresh(url, agent, interface, [{"key": "AURORA-12", "id": "10012", "summary": "Radar calibration",
                                         "comments": [{"id": "1", "author": "petrov", "body": "Calibrated"}]}])
        call(url, interface, "/api/v1/issues/AURORA-12/notes", {"body": "Ask the lab first"})
        refresh(url, agent, interface, [{"key": "OPS-7", "id": "10012", "summary": "Radar calibration"}])
        yield {"url": url, "interface": interface}


def test_an_old_key_opens_the_moved_issue_under_its_new_key(browser, site):
    from playwright.sync_api import expect

    expect.set_options(timeout=TIMEOUT_MS)
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(TIMEOUT_MS)
    errors: list[str] = []
    try:
        page = context.new_page()
        page.on("console", lambda message: message.type == "error" and errors.append(message.text))
        page.on("pageerror", lambda error: errors.append(f"uncaught: {error}"))
        page.goto(site["url"] + "/")
        page.get_by_label("Token").fill(site["interface"])
        page.get_by_role("button", name="Sign in").click()
        page.get_by_role("heading", name="Issues").wait_for()

        page.goto(site["url"] + "/#/issue/AURORA-12")

        expect(page.get_by_role("heading", name="OPS-7 Radar calibration")).to_be_visible()
        expect(page.locator("#moved-from")).to_have_text("moved from AURORA-12")
        assert page.evaluate("location.hash") == "#/issue/OPS-7"
        expect(page.get_by_text("Calibrated")).to_be_visible()
        expect(page.locator(".notes .note-item")).to_contain_text("Ask the lab first")
        check_page(page, "issue", "moved")
        # Back leaves the issue: opening the old key added no entry of its own to the history.
        page.go_back()
        expect(page.get_by_role("heading", name="Issues")).to_be_visible()
    finally:
        context.close()
    assert errors == [], f"console errors: {errors}"
