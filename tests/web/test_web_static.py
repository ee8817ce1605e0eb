"""The web interface's files: served by the hub without a token, with a strict
Content-Security-Policy, nosniff and validators; nothing else is reachable."""

from __future__ import annotations

import re

import pytest

from hub.web.resources import CONTENT_SECURITY_POLICY, STATIC_DIR

# The page and its assets are public routes, which read no database: the page is checked on a hub
# of each engine (the app a PostgreSQL hub builds serves it the same), the assets' headers and
# paths on one hub alone, as an engine has nothing to add to them.


@pytest.mark.backends("sqlite", "postgresql")
def test_the_page_is_served_at_the_root_without_a_token(hub):
    resp = hub.api("GET", "/", role=None)
    assert resp.status_code == 200
    assert resp.headers["content-type"].startswith("text/html")
    assert resp.headers["content-security-policy"] == CONTENT_SECURITY_POLICY
    assert "default-src 'self'" in CONTENT_SECURITY_POLICY and "unsafe" not in CONTENT_SECURITY_POLICY
    assert resp.headers["x-content-type-options"] == "nosniff"
    assert resp.headers["cache-control"] == "no-cache"
    assert re.search(r'<script type="module" src="/ui/v/[0-9a-f]{16}/app\.js"></script>', resp.text)


def test_the_page_names_its_files_by_their_version_and_a_browser_keeps_them():
    """A browser keeps the page's files without asking again (a reload asks for the page alone),
    and learns of every module at once; a hub whose files changed names them anew."""
    from hub.web.resources import load_files

    files = load_files()
    page = files["index.html"].body.decode()
    named = re.findall(r'"/ui/v/([0-9a-f]{16})/([^"]+)"', page)
    assert {version for version, _ in named} == {version_of(files)}
    assert {name for _, name in named} >= {name for name in files if name.endswith((".js", ".css"))}
    assert all(f'<link rel="modulepreload" href="/ui/v/{version_of(files)}/{name}">' in page
               for name in files if name.endswith(".js"))
    assert "/ui/app.js" not in page and "modulepreload -->" not in page


def version_of(files):
    from hub.web.resources import version

    return version(files)


@pytest.mark.backends("sqlite")
def test_a_versioned_file_is_kept_a_year_and_another_versions_name_still_answers(hub):
    from hub.web.resources import load_files

    current = version_of(load_files())
    resp = hub.api("GET", f"/ui/v/{current}/dom.js", role=None)
    assert resp.status_code == 200 and resp.headers["content-type"].startswith("text/javascript")
    assert resp.headers["cache-control"] == "public, max-age=31536000, immutable"
    assert resp.headers["content-security-policy"] == CONTENT_SECURITY_POLICY
    # A page an older hub served, open across an upgrade, still loads: this hub's file, asked again.
    old = hub.api("GET", "/ui/v/0123456789abcdef/dom.js", role=None)
    assert old.status_code == 200 and old.content == resp.content and old.headers["cache-control"] == "no-cache"
    assert hub.api("GET", f"/ui/v/{current}/nothing.js", role=None).status_code == 404
    assert hub.api("GET", f"/ui/v/{current}/index.html", role=None).status_code == 404
    assert hub.api("GET", "/ui/dom.js", role=None).headers["cache-control"] == "no-cache"


def test_the_page_loads_nothing_from_outside_the_hub_and_has_no_inline_script():
    for path in STATIC_DIR.iterdir():
        text = path.read_text("utf-8")
        assert not re.search(r"https?://(?!www\.w3\.org/2000/svg)", text), path.name
        if path.suffix == ".html":
            assert not re.search(r"<script(?![^>]*\bsrc=)", text), "inline script"
            assert not re.search(r"\son\w+=", text), "inline handler"
        if path.suffix == ".js":
            # Data goes in as text: no markup sinks anywhere in the interface.
            assert not re.search(r"innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(", text), path.name


@pytest.mark.parametrize("name, media", [("app.js", "text/javascript"), ("app.css", "text/css"),
                                         ("favicon.svg", "image/svg+xml")])
def test_assets_have_their_media_types_and_revalidate_with_an_etag(hub, name, media):
    resp = hub.api("GET", f"/ui/{name}", role=None)
    assert resp.status_code == 200 and resp.headers["content-type"].startswith(media)
    assert resp.headers["content-security-policy"] == CONTENT_SECURITY_POLICY
    again = hub.api("GET", f"/ui/{name}", role=None, headers={"If-None-Match": resp.headers["etag"]})
    assert again.status_code == 304 and not again.content
    head = hub.api("HEAD", f"/ui/{name}", role=None)
    assert head.status_code == 200 and int(head.headers["content-length"]) == len(resp.content)


@pytest.mark.parametrize("path", ["/", "/ui/app.js"])
def test_if_none_match_takes_lists_weak_tags_and_a_star(hub, path):
    etag = hub.api("GET", path, role=None).headers["etag"]
    other = '"' + "0" * 32 + '"'
    for header in (etag, f"W/{etag}", f"{other}, {etag}", f"{other},W/{etag}", "*", " * "):
        again = hub.api("GET", path, role=None, headers={"If-None-Match": header})
        assert again.status_code == 304 and again.headers["etag"] == etag, header
    for header in (other, f"{other}, W/{other}", etag.strip('"'), ""):
        assert hub.api("GET", path, role=None, headers={"If-None-Match": header}).status_code == 200, header


@pytest.mark.parametrize("path", ["/ui/nothing.js", "/ui/index.html", "/ui/", "/ui/.hidden"])
def test_other_names_are_404(hub, path):
    resp = hub.api("GET", path, role=None)
    assert resp.status_code == 404


@pytest.mark.parametrize("path", ["/ui/..%2Fstatic.py", "/ui/%2e%2e", "/ui/.."])
def test_a_name_climbing_out_is_a_bad_path(hub, path):
    assert hub.api("GET", path, role=None).status_code == 400


def test_openapi_describes_the_api_and_not_the_page(hub):
    paths = hub.client.simulate_get("/openapi.json").json["paths"]
    assert "/" not in paths and not any(path.startswith("/ui") for path in paths)
