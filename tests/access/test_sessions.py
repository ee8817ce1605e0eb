"""The web page's sessions: a token exchanged for an HttpOnly cookie, kept as a hash, ended by
sign-out, expiry or the token's revocation, and writes with the cookie refused unless they come
from the hub's own page. Bearer tokens work as they always did.
"""

from __future__ import annotations

import hashlib
import logging

import pytest

from tests.support import attachment, db_rows, fetched, listed, run_hub
from tests.support.engine_rows import engine_env, execute, stored_text, writer_holding
from tests.support.hubs import MovableClock

pytestmark = pytest.mark.backends("sqlite", "postgresql")

COOKIE = "hub_session"
PAGE = {"X-Hub-Request": "1"}
# What Chromium sends with a fetch of the hub's own page (TestClient's host is falconframework.org).
SAME_ORIGIN = {**PAGE, "Sec-Fetch-Site": "same-origin", "Origin": "http://falconframework.org"}
REFRESH = {"type": "refresh", "params": {"jql": "key = AURORA-12"}}


def sign_in(hub, role: str = "interface", headers: dict | None = None, **kwargs):
    return hub.client.simulate_post("/api/v1/session", json={"token": hub.tokens[role]},
                                    headers=PAGE if headers is None else headers, **kwargs)


def session_of(hub, role: str = "interface") -> str:
    resp = sign_in(hub, role)
    assert resp.status_code == 201, resp.json
    return resp.cookies[COOKIE].value


def with_cookie(hub, method: str, path: str, session: str, body=None, headers: dict | None = None):
    return hub.client.simulate_request(method, path, json=body, cookies={COOKIE: session},
                                       headers=SAME_ORIGIN if headers is None else headers)


def commands(hub) -> int:
    return db_rows(hub, "SELECT count(*) FROM command")[0][0]


def test_sign_in_sets_an_httponly_strict_cookie_for_the_session_lifetime(hub):
    resp = sign_in(hub)
    assert resp.status_code == 201
    assert resp.json["name"] == "test-interface" and resp.json["role"] == "interface"
    assert resp.headers["Location"].endswith("/api/v1/session")
    cookie = resp.cookies[COOKIE]
    assert cookie.http_only and cookie.same_site == "Strict" and cookie.path == "/"
    assert cookie.max_age == 12 * 3600 and not cookie.secure and cookie.domain is None
    header = resp.headers["Set-Cookie"]
    assert "HttpOnly" in header and "SameSite=Strict" in header and "Secure" not in header
    assert len(cookie.value) >= 43  # 32 random bytes
    assert resp.headers["Cache-Control"] == "no-store"
    me = with_cookie(hub, "GET", "/api/v1/me", cookie.value)
    assert me.status_code == 200 and me.json["name"] == "test-interface" and "read" in me.json["may"]


def test_the_cookie_is_secure_over_tls_and_behind_a_trusted_proxy(make_hub):
    hub = make_hub(session_hours=2)
    assert sign_in(hub, protocol="https").cookies[COOKIE].secure
    behind = sign_in(hub, headers={**PAGE, "X-Forwarded-Proto": "https"})
    assert behind.cookies[COOKIE].secure and behind.cookies[COOKIE].max_age == 2 * 3600
    # Anyone else's X-Forwarded-Proto is not believed.
    assert not sign_in(hub, headers={**PAGE, "X-Forwarded-Proto": "https"},
                       remote_addr="203.0.113.5").cookies[COOKIE].secure
    assert not sign_in(hub, headers={**PAGE, "X-Forwarded-Proto": "http"}).cookies[COOKIE].secure


def test_no_proxy_is_believed_when_none_is_trusted(make_hub):
    hub = make_hub(trusted_proxies=())
    assert not sign_in(hub, headers={**PAGE, "X-Forwarded-Proto": "https"}).cookies[COOKIE].secure


def test_the_session_id_is_never_in_the_database_or_the_log(hub, caplog):
    caplog.set_level(logging.DEBUG)
    session = session_of(hub)
    assert with_cookie(hub, "GET", "/api/v1/commands", session).status_code == 200
    assert with_cookie(hub, "POST", "/api/v1/commands", session, REFRESH).status_code == 201
    stored = stored_text(hub.config)
    assert session not in stored and hub.tokens["interface"] not in stored
    assert hashlib.sha256(session.encode()).hexdigest() in stored
    assert session not in caplog.text and hub.tokens["interface"] not in caplog.text
    # The log names who signed in, and whose session each request spoke for, by the token's name.
    assert "route=/api/v1/session status=201" in caplog.text
    assert caplog.text.count("token=test-interface") == 3
    [(token_id, created, seen, expires)] = db_rows(
        hub, "SELECT token_id, created_at, last_seen_at, expires_at FROM web_session")
    assert [(token_id,)] == db_rows(hub, "SELECT id FROM token WHERE name = 'test-interface'")
    assert created <= seen < expires


def test_an_agent_or_metrics_token_cannot_sign_in_and_an_unknown_one_is_401(hub):
    resp = sign_in(hub, "agent")
    assert resp.status_code == 403 and COOKIE not in resp.cookies
    assert "role 'agent' cannot sign in to the web interface" in resp.json["description"]
    metrics = hub.built.services.tokens.add("scraper", "metrics")
    resp = hub.client.simulate_post("/api/v1/session", json={"token": metrics}, headers=PAGE)
    assert resp.status_code == 403 and "interface or admin" in resp.json["description"]
    resp = hub.client.simulate_post("/api/v1/session", json={"token": "mistyped"}, headers=PAGE)
    assert resp.status_code == 401 and COOKIE not in resp.cookies
    assert resp.headers["WWW-Authenticate"] == "Bearer"
    for body, field in (({}, "token"), ({"token": ""}, "token"), ({"token": "x", "keep": 1}, "keep")):
        resp = hub.client.simulate_post("/api/v1/session", json=body, headers=PAGE)
        assert resp.status_code == 422 and field in resp.json.get("field", "") + resp.json["description"]
    assert sign_in(hub, "admin").status_code == 201
    assert db_rows(hub, "SELECT count(*) FROM web_session") == [(1,)]


def test_a_bearer_token_wins_over_the_cookie_and_works_as_before(hub):
    session = session_of(hub)
    resp = hub.client.simulate_get("/api/v1/me", cookies={COOKIE: session}, headers=hub.headers("admin"))
    assert resp.json["name"] == "test-admin"
    # A bad bearer token is refused even beside a good cookie.
    resp = hub.client.simulate_get("/api/v1/me", cookies={COOKIE: session},
                                   headers={"Authorization": "Bearer nope"})
    assert resp.status_code == 401
    # Bearer writes need none of the page's headers, whatever Origin and Sec-Fetch-Site say.
    resp = hub.api("POST", "/api/v1/commands", REFRESH,
                   headers={"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"})
    assert resp.status_code == 201
    # A session of an interface token may not call an admin route.
    assert with_cookie(hub, "GET", "/api/v1/tokens", session).status_code == 403


def test_sign_out_ends_the_session_on_the_hub_and_clears_the_cookie(hub):
    session, other = session_of(hub), session_of(hub)
    resp = with_cookie(hub, "DELETE", "/api/v1/session", session)
    assert resp.status_code == 204
    cleared = resp.cookies[COOKIE]
    assert cleared.value == "" and cleared.expires is not None and cleared.path == "/"
    resp = with_cookie(hub, "GET", "/api/v1/me", session)
    assert resp.status_code == 401 and resp.json["title"] == "Signed out"
    # The cookie is left: it opens nothing, and the next load of the page can still say why.
    assert COOKIE not in resp.cookies
    # Another browser's session of the same token goes on.
    assert with_cookie(hub, "GET", "/api/v1/me", other).status_code == 200
    # Signing out again, or without a cookie, is still 204.
    assert with_cookie(hub, "DELETE", "/api/v1/session", session).status_code == 204
    assert hub.client.simulate_delete("/api/v1/session", headers=PAGE).status_code == 204


def test_a_session_expires_after_its_lifetime_and_housekeeping_deletes_it(make_hub):
    from worker import tasks
    from worker.instance import huey

    clock = MovableClock()
    hub = make_hub(clock=clock, session_hours=1)
    session = session_of(hub)
    clock.advance(3599)
    assert with_cookie(hub, "GET", "/api/v1/me", session).status_code == 200
    assert tasks.expire_sessions.call_local() == 0
    clock.advance(1)
    resp = with_cookie(hub, "GET", "/api/v1/me", session)
    assert resp.status_code == 401 and "expired" in resp.json["description"]
    assert db_rows(hub, "SELECT count(*) FROM web_session") == [(1,)]
    assert tasks.expire_sessions.call_local() == 1
    assert tasks.expire_sessions.call_local() == 0
    assert db_rows(hub, "SELECT count(*) FROM web_session") == [(0,)]
    assert [t for t in huey._registry._periodic_tasks if t.__name__ == "expire_sessions"]


def test_last_seen_is_written_at_most_once_a_minute(make_hub):
    clock = MovableClock()
    hub = make_hub(clock=clock)
    session = session_of(hub)
    [(first,)] = db_rows(hub, "SELECT last_seen_at FROM web_session")
    clock.advance(30)
    with_cookie(hub, "GET", "/api/v1/me", session)
    assert db_rows(hub, "SELECT last_seen_at FROM web_session") == [(first,)]
    clock.advance(31)
    with_cookie(hub, "GET", "/api/v1/me", session)
    assert db_rows(hub, "SELECT last_seen_at FROM web_session") == [("2026-11-02T09:01:01+00:00",)]


def test_revoking_a_token_through_the_api_ends_its_sessions_at_once(hub):
    session, admin = session_of(hub), session_of(hub, "admin")
    assert hub.api("DELETE", "/api/v1/tokens/test-interface", role="admin").status_code == 204
    assert db_rows(hub, "SELECT count(*) FROM web_session") == [(1,)]
    resp = with_cookie(hub, "GET", "/api/v1/issues", session)
    assert resp.status_code == 401 and "revoked" in resp.json["description"]
    assert with_cookie(hub, "GET", "/api/v1/issues", admin).status_code == 200


def test_revoking_a_token_with_the_cli_ends_its_sessions_at_once(hub, data_dir):
    session = session_of(hub)
    result = run_hub("token", "revoke", "test-interface", data_dir=data_dir, **engine_env(hub.config))
    assert result.returncode == 0, result.stderr
    assert db_rows(hub, "SELECT count(*) FROM web_session") == [(0,)]
    assert with_cookie(hub, "GET", "/api/v1/me", session).status_code == 401


def test_a_session_whose_token_is_gone_is_refused_even_if_its_row_stayed(hub):
    """A session is only ever read joined to its token: a token deleted by other means (an older
    hub's revoke) leaves a row that names no token, and that row lets nobody in."""
    session = session_of(hub)
    execute(hub.config, "DELETE FROM token WHERE name = 'test-interface'")
    assert db_rows(hub, "SELECT count(*) FROM web_session") == [(1,)]
    assert with_cookie(hub, "GET", "/api/v1/me", session).status_code == 401


@pytest.mark.parametrize("headers, why", [
    ({"Sec-Fetch-Site": "same-origin", "Origin": "http://falconframework.org"}, "X-Hub-Request: 1"),
    ({**SAME_ORIGIN, "X-Hub-Request": "0"}, "X-Hub-Request: 1"),
    ({**SAME_ORIGIN, "Sec-Fetch-Site": "cross-site"}, "'cross-site'"),
    ({**SAME_ORIGIN, "Sec-Fetch-Site": "same-site"}, "'same-site'"),
    ({**SAME_ORIGIN, "Sec-Fetch-Site": "none"}, "'none'"),
    ({**SAME_ORIGIN, "Origin": "https://evil.example"}, "https://evil.example"),
    ({**SAME_ORIGIN, "Origin": "https://falconframework.org"}, "https://falconframework.org"),
    ({**SAME_ORIGIN, "Origin": "null"}, "'null'"),
    ({}, "X-Hub-Request: 1"),
])
def test_a_cookie_write_from_another_site_is_refused_and_writes_nothing(hub, headers, why):
    session = session_of(hub)
    for method, path, body in (("POST", "/api/v1/commands", REFRESH),
                               ("POST", "/api/v1/filters", {"name": "mine", "jql": "project = AURORA"})):
        resp = with_cookie(hub, method, path, session, body, headers=headers)
        assert resp.status_code == 403, resp.json
        assert resp.json["title"] == "Cross-site request refused" and why in resp.json["description"]
    assert commands(hub) == 0 and db_rows(hub, "SELECT count(*) FROM saved_filter") == [(0,)]


def test_a_cookie_write_from_the_hubs_own_page_is_taken(hub):
    session = session_of(hub)
    assert with_cookie(hub, "POST", "/api/v1/commands", session, REFRESH).status_code == 201
    # Sec-Fetch-Site and Origin may be absent (an older browser); the page's header may not.
    assert with_cookie(hub, "POST", "/api/v1/commands", session, REFRESH, headers=PAGE).status_code in (200, 201)
    # Reads are not checked: they change nothing, and SameSite=Strict keeps the cookie home.
    assert with_cookie(hub, "GET", "/api/v1/commands", session, headers={}).status_code == 200


def test_the_origin_behind_a_trusted_proxy_is_https(hub):
    session = session_of(hub)
    proxied = {**PAGE, "Host": "hub.example.org", "X-Forwarded-Proto": "https", "Sec-Fetch-Site": "same-origin"}
    ok = with_cookie(hub, "POST", "/api/v1/commands", session, REFRESH,
                     headers={**proxied, "Origin": "https://hub.example.org"})
    assert ok.status_code == 201
    resp = with_cookie(hub, "POST", "/api/v1/commands", session, REFRESH,
                       headers={**proxied, "Origin": "http://hub.example.org"})
    assert resp.status_code == 403 and "'https://hub.example.org'" in resp.json["description"]


def test_the_sign_in_and_sign_out_refuse_cross_site_requests(hub):
    """No login CSRF: a foreign page can neither sign a browser in under its own token nor out."""
    for headers in ({}, {**PAGE, "Origin": "https://evil.example"}, {**PAGE, "Sec-Fetch-Site": "cross-site"}):
        resp = sign_in(hub, headers=headers)
        assert resp.status_code == 403 and COOKIE not in resp.cookies
    session = session_of(hub)
    resp = with_cookie(hub, "DELETE", "/api/v1/session", session, headers={"Sec-Fetch-Site": "cross-site"})
    assert resp.status_code == 403
    assert with_cookie(hub, "GET", "/api/v1/me", session).status_code == 200


def test_a_session_downloads_an_attachments_content(hub):
    """An <img src> sends the cookie and nothing else: the content route takes it."""
    listed(hub, attachment("10001", "screen.png"), key="AURORA-12")
    fetched(hub, "10001", b"\x89PNG\r\n\x1a\n" + bytes(64))
    session = session_of(hub)
    resp = with_cookie(hub, "GET", "/api/v1/attachments/10001/content", session, headers={})
    assert resp.status_code == 200 and resp.content.startswith(b"\x89PNG")
    assert resp.headers["Cache-Control"] == "no-store"


def test_openapi_describes_the_session_route(hub):
    paths = hub.api("GET", "/openapi.json").json["paths"]
    post = paths["/api/v1/session"]["post"]
    assert "security" not in post and {"201", "401", "403", "422"} <= set(post["responses"])
    assert "Set-Cookie" in post["responses"]["201"]["headers"]
    assert [p["name"] for p in post["parameters"] if p["in"] == "header"] == ["X-Hub-Request"]
    assert {"204", "403"} <= set(paths["/api/v1/session"]["delete"]["responses"])


def test_get_session_says_whether_the_cookie_signs_in_without_a_401(make_hub):
    clock = MovableClock()
    hub = make_hub(clock=clock, session_hours=1)
    assert hub.client.simulate_get("/api/v1/session").json == {"session": None, "ended": None}
    session = session_of(hub)
    resp = with_cookie(hub, "GET", "/api/v1/session", session, headers={})
    assert resp.status_code == 200 and resp.json == {
        "session": {"name": "test-interface", "role": "interface", "expires_at": "2026-11-02T10:00:00+00:00"},
        "ended": None}
    clock.advance(3600)
    resp = with_cookie(hub, "GET", "/api/v1/session", session, headers={})
    assert resp.status_code == 200 and resp.json["session"] is None
    assert "expired" in resp.json["ended"] and COOKIE not in resp.cookies
    resp = with_cookie(hub, "GET", "/api/v1/session", "made-up", headers={})
    assert resp.json["session"] is None and "ended" in resp.json["ended"]


def test_the_hub_grants_no_cors_preflight_so_no_other_site_sends_the_pages_header(hub):
    """X-Hub-Request stops cross-site writes only because a foreign script must ask first, and is told no."""
    preflight = {"Origin": "https://evil.example", "Access-Control-Request-Method": "POST",
                 "Access-Control-Request-Headers": "x-hub-request, content-type"}
    for path in ("/api/v1/commands", "/api/v1/session", "/api/v1/me"):
        resp = hub.client.simulate_options(path, headers=preflight)
        assert not any(name.lower().startswith("access-control-allow") for name in resp.headers), resp.headers


def test_a_read_with_the_cookie_is_answered_when_last_seen_cannot_be_written(make_hub, caplog):
    """last_seen_at is for people: another writer holding the database does not fail a read."""
    clock = MovableClock()
    hub = make_hub(clock=clock, busy_timeout_seconds=1)
    session = session_of(hub)
    clock.advance(61)
    with writer_holding(hub.config, "web_session"):
        resp = with_cookie(hub, "GET", "/api/v1/me", session)
    assert resp.status_code == 200 and resp.json["name"] == "test-interface"
    assert "last_seen_at was not written" in caplog.text


def test_a_sign_in_past_the_tokens_bound_of_sessions_ends_its_oldest(make_hub):
    hub = make_hub(sessions_per_token=3)
    sessions = [session_of(hub) for _ in range(3)]
    admin = session_of(hub, "admin")
    newest = session_of(hub)
    # The token keeps three: the first sign-in ended, the others and the other token's stay.
    assert with_cookie(hub, "GET", "/api/v1/me", sessions[0]).status_code == 401
    for live in (*sessions[1:], newest, admin):
        assert with_cookie(hub, "GET", "/api/v1/me", live).status_code == 200
    interface_id = db_rows(hub, "SELECT id FROM token WHERE name = 'test-interface'")[0][0]
    assert hub.built.services.sessions.count(interface_id) == 3
    ended = with_cookie(hub, "GET", "/api/v1/session", sessions[0], headers={}).json
    assert ended["session"] is None and "more than 3 browsers" in ended["ended"]
    # Each further sign-in ends the oldest left.
    session_of(hub)
    assert with_cookie(hub, "GET", "/api/v1/me", sessions[1]).status_code == 401
    assert hub.built.services.sessions.count(interface_id) == 3


def test_sign_ins_at_once_keep_no_more_sessions_than_the_bound(make_hub):
    import threading

    from hub.db import database

    hub = make_hub(sessions_per_token=3)
    start = threading.Barrier(8)

    def sign_in_once() -> None:
        try:
            start.wait()
            hub.built.services.sessions.start(hub.tokens["interface"])
        finally:
            database.close()

    threads = [threading.Thread(target=sign_in_once) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    [(token_id,)] = db_rows(hub, "SELECT id FROM token WHERE name = 'test-interface'")
    assert hub.built.services.sessions.count(token_id) == 3


def test_a_session_of_a_token_granted_writes_may_write_and_one_not_granted_may_not(hub):
    hub.tokens["writer"] = hub.built.services.tokens.add("writer", "interface", write=True)
    granted, plain = session_of(hub, "writer"), session_of(hub)
    assert "write" in with_cookie(hub, "GET", "/api/v1/me", granted).json["may"]
    assert "write" not in with_cookie(hub, "GET", "/api/v1/me", plain).json["may"]
    # Past the role and the page's headers, a write to an issue the mirror lacks: 422, not 403.
    body = {"body": "hello"}
    assert with_cookie(hub, "POST", "/api/v1/issues/AURORA-9/comments", granted, body).status_code == 422
    assert with_cookie(hub, "POST", "/api/v1/issues/AURORA-9/comments", plain, body).status_code == 403
