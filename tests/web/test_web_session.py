"""The web page signed in by its session cookie, in a real browser against a real hub on loopback.

The page never keeps the token: a new tab and a reload are signed in already; signing out in one
tab ends the session on the hub and shows the sign-in in every tab; a revoked token shows the
sign-in with the reason, and signing in again returns to the address the reader was at. No script
of the page can read the session (HttpOnly). Each state is checked by axe-core and leaves its
screenshot (tests/support/browser.py).
"""

from __future__ import annotations

import urllib.error
import urllib.request

import pytest

from tests.support import call, full_run, prepared_hub, run_script, serving
from tests.support.browser import TIMEOUT_MS, check_page, expect
from tests.support.engine_rows import engine_database

pytestmark = pytest.mark.backends("sqlite", "postgresql", shared=True)  # the page over each engine

COOKIE = "hub_session"


@pytest.fixture(scope="module")
def site(tmp_path_factory, browser, backend, request):
    """A hub serving on loopback with a few issues: its URL and tokens by role."""
    with engine_database(request, backend) as database_url:
        data_dir = tmp_path_factory.mktemp("web-session") / "data"
        agent, interface = prepared_hub(data_dir, database_url)
        made = run_script("token", "add", "lead", "--role", "admin", data_dir=data_dir, database_url=database_url)
        assert made.returncode == 0, made.stderr
        with serving(data_dir, database_url) as url:
            full_run(url, agent, interface, [], issues=[
                {"key": f"AURORA-{n}", "id": str(10000 + n), "summary": f"Card {n}", "issue_type": "Task",
                 "status": "Open", "updated": "2026-10-22T13:05:11.000+0300"} for n in (1, 2, 3)])
            yield {"url": url, "agent": agent, "interface": interface, "admin": made.stdout.strip()}



class Browser:
    """One browser context (its cookies shared by its tabs) recording console errors; the 401s
    the hub answers a signed-out page are expected, and left out."""

    def __init__(self, browser, site):
        self.site = site
        self.context = browser.new_context(viewport={"width": 1280, "height": 900})
        self.context.set_default_timeout(TIMEOUT_MS)
        self.errors: list[str] = []
        self.page = self.tab()

    def tab(self):
        page = self.context.new_page()
        page.on("console", lambda message: message.type == "error" and "401" not in message.text
                and self.errors.append(message.text))
        page.on("pageerror", lambda error: self.errors.append(f"uncaught: {error}"))
        return page

    def sign_in(self, page=None, token: str | None = None, address: str = "/") -> None:
        page = page or self.page
        page.goto(self.site["url"] + address)
        page.get_by_label("Token").fill(token or self.site["interface"])
        page.get_by_role("button", name="Sign in").click()

    def session(self) -> dict:
        [cookie] = [c for c in self.context.cookies() if c["name"] == COOKIE]
        return cookie


@pytest.fixture
def web(browser, site):
    opened = Browser(browser, site)
    yield opened
    errors = opened.errors
    opened.context.close()
    assert errors == [], f"console errors: {errors}"


def me_with(url: str, session: str) -> int:
    """The status GET /api/v1/me answers a request carrying only this session cookie."""
    request = urllib.request.Request(url + "/api/v1/me", headers={"Cookie": f"{COOKIE}={session}"})
    try:
        with urllib.request.urlopen(request, timeout=10) as resp:
            return resp.status
    except urllib.error.HTTPError as error:
        return error.code


def test_signing_in_keeps_no_token_and_no_script_can_read_the_session(web):
    page = web.page
    web.sign_in()
    expect(page.get_by_role("heading", name="Issues")).to_be_visible()
    cookie = web.session()
    assert cookie["httpOnly"] and cookie["sameSite"] == "Strict" and cookie["path"] == "/"
    assert page.evaluate("document.cookie") == ""
    assert page.evaluate("sessionStorage.length + localStorage.length") == 0
    assert web.site["interface"] not in page.content()
    assert me_with(web.site["url"], cookie["value"]) == 200
    check_page(page, "issues", "signed-in-by-session")


def test_a_new_tab_opens_signed_in_and_a_reload_keeps_the_page(web):
    page = web.page
    web.sign_in(address="/#/issue/AURORA-2")
    expect(page.get_by_role("heading", name="AURORA-2 Card 2")).to_be_visible()
    page.reload()
    expect(page.get_by_role("heading", name="AURORA-2 Card 2")).to_be_visible()
    second = web.tab()
    second.goto(web.site["url"] + "/#/issue/AURORA-3")
    expect(second.get_by_role("heading", name="AURORA-3 Card 3")).to_be_visible()
    expect(second.get_by_label("Token")).to_have_count(0)
    check_page(second, "issue", "second-tab")


def test_signing_out_ends_the_session_on_the_hub_and_in_every_tab(web):
    page = web.page
    web.sign_in()
    expect(page.get_by_role("heading", name="Issues")).to_be_visible()
    session = web.session()["value"]
    second = web.tab()
    second.goto(web.site["url"] + "/#/issues")
    expect(second.get_by_role("heading", name="Issues")).to_be_visible()
    page.get_by_role("button", name="Sign out").click()
    expect(page.get_by_role("heading", name="Sign in")).to_be_visible()
    # The other tab shows the sign-in too, without being touched, and says why.
    expect(second.get_by_role("heading", name="Sign in")).to_be_visible()
    expect(second.get_by_role("alert").first).to_contain_text("You signed out in another tab")
    assert [c for c in web.context.cookies() if c["name"] == COOKIE] == []
    # Ended on the hub: the old cookie, sent again, lets nobody in.
    assert me_with(web.site["url"], session) == 401
    second.reload()
    expect(second.get_by_role("heading", name="Sign in")).to_be_visible()
    check_page(second, "sign-in", "signed-out-in-another-tab")


def test_a_revoked_token_shows_the_sign_in_with_why_and_signing_in_returns_to_the_address(web):
    url, admin = web.site["url"], web.site["admin"]
    token = call(url, admin, "/api/v1/tokens", {"name": "ui-leaving", "role": "interface"})["token"]
    page = web.page
    web.sign_in(token=token, address="/#/issue/AURORA-1")
    expect(page.get_by_role("heading", name="AURORA-1 Card 1")).to_be_visible()
    request = urllib.request.Request(url + "/api/v1/tokens/ui-leaving", method="DELETE",
                                     headers={"Authorization": f"Bearer {admin}"})
    with urllib.request.urlopen(request, timeout=10) as resp:
        assert resp.status == 204
    # The page's next request meets the 401: the issues list, say, asked for by its address (the
    # page may have met the 401 already, polling the issue's attachments, and hidden the nav bar).
    page.evaluate("location.hash = '#/issues'")
    expect(page.get_by_role("heading", name="Sign in")).to_be_visible()
    expect(page.get_by_role("alert").first).to_contain_text("revoked")
    check_page(page, "sign-in", "token-revoked")
    assert page.url.endswith("#/issues")
    page.get_by_label("Token").fill(web.site["interface"])
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("heading", name="Issues")).to_be_visible()


def test_a_reload_after_the_session_ended_says_why_and_keeps_the_address(web):
    url, admin = web.site["url"], web.site["admin"]
    token = call(url, admin, "/api/v1/tokens", {"name": "ui-reloaded", "role": "interface"})["token"]
    page = web.page
    web.sign_in(token=token, address="/#/issue/AURORA-3")
    expect(page.get_by_role("heading", name="AURORA-3 Card 3")).to_be_visible()
    request = urllib.request.Request(url + "/api/v1/tokens/ui-reloaded", method="DELETE",
                                     headers={"Authorization": f"Bearer {admin}"})
    with urllib.request.urlopen(request, timeout=10) as resp:
        assert resp.status == 204
    page.reload()
    expect(page.get_by_role("heading", name="Sign in")).to_be_visible()
    expect(page.get_by_role("alert").first).to_contain_text("Your sign-in has ended")
    check_page(page, "sign-in", "session-ended")
    page.get_by_label("Token").fill(web.site["interface"])
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("heading", name="AURORA-3 Card 3")).to_be_visible()


def test_an_agent_token_is_refused_on_the_sign_in_page_with_the_reason(web):
    page = web.page
    web.sign_in(token=web.site["agent"])
    expect(page.get_by_role("alert")).to_contain_text("cannot sign in")
    expect(page.get_by_role("alert")).to_contain_text("interface or admin")
    check_page(page, "sign-in", "agent-token")
    web.errors[:] = [e for e in web.errors if "403" not in e]
    assert [c for c in web.context.cookies() if c["name"] == COOKIE] == []
