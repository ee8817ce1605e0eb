"""Behind a proxy that terminates TLS the hub sees the scheme the client used, from the
proxies of ``HUB_TRUSTED_PROXIES`` and from them alone (hub/server.py, hub/api/auth.py).

Real processes throughout: ``hub serve`` on waitress, the shipped nginx site in front of it
with a throw-away certificate (tests/support/nginx.py), and Chromium signing in through it. With one
trusted address waitress itself takes that proxy's ``X-Forwarded-Proto`` as the scheme; with
several the header reaches the hub and the hub checks the peer; both are run.
"""

from __future__ import annotations

import http.client
import json
from http.cookies import SimpleCookie

import pytest

from tests.support import full_run, prepared_hub, serving
from tests.support.browser import TIMEOUT_MS, check_page, expect
from tests.support.nginx import behind_nginx

COOKIE = "hub_session"
# One address: waitress takes the scheme. Several (the default): the hub checks the peer.
ONE_PROXY, SEVERAL_PROXIES = "127.0.0.1", "127.0.0.1,::1"


@pytest.mark.parametrize("proxies", [ONE_PROXY, SEVERAL_PROXIES])
def test_through_the_tls_site_chromium_signs_in_with_a_secure_cookie_and_lists_issues(tmp_path, browser, proxies):
    with behind_nginx(tmp_path, HUB_TRUSTED_PROXIES=proxies) as site:
        full_run(site.hub_url, site.agent, site.interface, [], issues=[
            {"key": f"AURORA-{n}", "id": str(10000 + n), "summary": f"Card {n}", "issue_type": "Task",
             "status": "Open", "updated": "2026-10-22T13:05:11.000+0300"} for n in (1, 2)])
        # The certificate is the test's own, for hub.example.org: the browser is told to take it.
        context = browser.new_context(ignore_https_errors=True, viewport={"width": 1280, "height": 900})
        context.set_default_timeout(TIMEOUT_MS)
        errors: list[str] = []
        try:
            page = context.new_page()
            page.on("console", lambda message: message.type == "error" and "401" not in message.text
                    and errors.append(message.text))
            page.on("pageerror", lambda error: errors.append(f"uncaught: {error}"))
            loaded = page.goto(site.url + "/")
            # The safe headers reach the browser through the proxy.
            assert loaded is not None
            assert (loaded.headers["x-frame-options"], loaded.headers["x-content-type-options"]) == ("DENY", "nosniff")
            page.get_by_label("Token").fill(site.interface)
            page.get_by_role("button", name="Sign in").click()
            expect(page.get_by_role("heading", name="Issues")).to_be_visible()
            expect(page.get_by_text("Card 2")).to_be_visible()
            [cookie] = [c for c in context.cookies() if c["name"] == COOKIE]
            assert cookie["secure"] and cookie["httpOnly"] and cookie["sameSite"] == "Strict"
            check_page(page, "issues", f"behind-tls-{'one' if proxies == ONE_PROXY else 'several'}-proxies")
            # A write with the cookie alone, checked against the site's https origin: signing out.
            page.get_by_role("button", name="Sign out").click()
            expect(page.get_by_role("heading", name="Sign in")).to_be_visible()
            assert [c for c in context.cookies() if c["name"] == COOKIE] == []
        finally:
            context.close()
        assert errors == [], f"console errors: {errors}"


def sign_in(port: int, token: str, origin: str, **headers: str) -> tuple[int, SimpleCookie]:
    """``POST /api/v1/session`` straight to the hub on ``port`` (no proxy) as the page sends it,
    with ``origin`` and more headers: the status and the cookie set."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("POST", "/api/v1/session", body=json.dumps({"token": token}),
                     headers={"Content-Type": "application/json", "X-Hub-Request": "1",
                              "Sec-Fetch-Site": "same-origin", "Origin": origin, **headers})
        resp = conn.getresponse()
        resp.read()
        return resp.status, SimpleCookie(resp.getheader("Set-Cookie") or "")
    finally:
        conn.close()


@pytest.mark.parametrize("proxies", ["192.0.2.7", "192.0.2.7,192.0.2.8", "none"])
def test_an_untrusted_peers_x_forwarded_proto_is_not_believed(tmp_path, proxies):
    data_dir = tmp_path / "data"
    _agent, interface = prepared_hub(data_dir)
    with serving(data_dir, HUB_TRUSTED_PROXIES=proxies) as url:
        port = int(url.rsplit(":", 1)[1])
        https, http = f"https://127.0.0.1:{port}", f"http://127.0.0.1:{port}"
        forged = {"X-Forwarded-Proto": "https"}
        # Its https origin is not the hub's, which it reached over plain HTTP: refused.
        assert sign_in(port, interface, https, **forged)[0] == 403
        # Signed in from the plain origin, its cookie is not Secure.
        status, cookie = sign_in(port, interface, http, **forged)
        assert status == 201 and not cookie[COOKIE]["secure"]


@pytest.mark.parametrize("proxies", [ONE_PROXY, SEVERAL_PROXIES])
def test_a_trusted_peers_x_forwarded_proto_reaches_the_hub_through_waitress(tmp_path, proxies):
    data_dir = tmp_path / "data"
    _agent, interface = prepared_hub(data_dir)
    with serving(data_dir, HUB_TRUSTED_PROXIES=proxies) as url:
        port = int(url.rsplit(":", 1)[1])
        status, cookie = sign_in(port, interface, f"https://127.0.0.1:{port}", **{"X-Forwarded-Proto": "https"})
        assert status == 201 and cookie[COOKIE]["secure"]
        # Without the header the same peer is plain HTTP.
        status, cookie = sign_in(port, interface, f"http://127.0.0.1:{port}")
        assert status == 201 and not cookie[COOKIE]["secure"]
