"""The browser tests' own check (tests/support/browser.py): axe-core runs in a page whose CSP allows no
inline script and leaves that CSP in force, fails on serious and critical violations with a
list a person can act on, passes moderate and minor ones, and a screenshot is saved as
``<page>-<state>.png`` among the artifacts with what axe found beside it. And what the check
found in the page, fixed: a table's box that scrolls sideways is a Tab stop the arrow keys
scroll, and a column of buttons has a header a screen reader reads.

No hub runs here: the pages are the test's own and the interface's static files, served by the
browser's router, so the tests need no engine and carry no ``backends`` mark."""

from __future__ import annotations

import json

import pytest

from hub.web.resources import CONTENT_SECURITY_POLICY, STATIC_DIR
from tests.support.browser import artifacts_dir, check_page, screenshot

ORIGIN = "http://hub.test"
CLEAN = """<!doctype html><html lang="en"><head><title>Clean</title></head><body>
<main><h1>Issues</h1><label for="q">Search</label><input id="q"><button>Search</button>
<script>window.__inline = 'ran'</script></main></body></html>"""
BROKEN = """<!doctype html><html lang="en"><head><title>Broken</title></head><body>
<main><h1>Issues</h1><input id="q"><button></button><img src="/x.png"></main></body></html>"""


@pytest.fixture
def tab(browser):
    """A page whose documents come from ``ORIGIN`` under the hub's own CSP (no inline script, no
    eval): ``tab.serve(html)``."""
    context = browser.new_context(viewport={"width": 800, "height": 600})
    page = context.new_page()
    pages: dict[str, str] = {}

    def answer(route):
        path = route.request.url.removeprefix(ORIGIN)
        media = "text/html; charset=utf-8"
        if path.startswith("/ui/"):  # the interface's own modules and styles, as the hub serves them
            body = (STATIC_DIR / path.removeprefix("/ui/")).read_text("utf-8")
            media = "text/javascript" if path.endswith(".js") else "text/css"
        else:
            body = pages.get(path, "")
        route.fulfill(status=200, body=body, headers={"Content-Type": media,
                                                      "Content-Security-Policy": CONTENT_SECURITY_POLICY})

    page.route(f"{ORIGIN}/**", answer)

    def serve(html: str, path: str = "/") -> None:
        pages[path] = html
        page.goto(ORIGIN + path)

    page.serve = serve
    yield page
    context.close()


def test_a_clean_page_passes_and_leaves_its_screenshot_and_axe_findings(tab):
    tab.serve(CLEAN)
    path = check_page(tab, "check", "clean")
    assert path == artifacts_dir() / "screenshots" / "check-clean.png"
    assert path.read_bytes().startswith(b"\x89PNG")
    assert isinstance(json.loads(path.with_suffix(".axe.json").read_text("utf-8")), list)


def test_the_check_runs_under_the_pages_csp_and_leaves_it_in_force(tab):
    tab.serve(CLEAN)
    check_page(tab, "check", "csp")
    # axe ran (it is there), and the page's own inline script still did not.
    assert tab.evaluate("typeof window.axe.run") == "function"
    assert tab.evaluate("window.__inline") is None


def test_serious_and_critical_violations_fail_with_rule_impact_target_and_help(tab):
    tab.serve(BROKEN)
    with pytest.raises(AssertionError) as failed:
        check_page(tab, "check", "broken")
    message = str(failed.value)
    assert "serious or critical accessibility violation" in message
    for rule, impact in (("button-name", "critical"), ("image-alt", "critical"), ("label", "critical")):
        assert f"{rule} ({impact})" in message, message
    assert "at #q" in message and "fix: https://dequeuniversity.com/rules/axe/" in message
    # The picture of what was judged is kept all the same.
    assert (artifacts_dir() / "screenshots" / "check-broken.png").exists()


def test_moderate_and_minor_findings_do_not_fail_but_are_written_down(tab):
    # No <main> landmark and a heading level skipped: axe's best practices, moderate.
    tab.serve('<!doctype html><html lang="en"><head><title>Loose</title></head>'
              "<body><h1>One</h1><h3>Three</h3><p>Text</p></body></html>")
    path = check_page(tab, "check", "loose")
    found = {violation["id"] for violation in json.loads(path.with_suffix(".axe.json").read_text("utf-8"))}
    assert {"heading-order", "region"} <= found, found


def test_pages_and_states_are_named_as_the_files_are(tab):
    tab.serve(CLEAN)
    with pytest.raises(ValueError, match="lower-case words"):
        screenshot(tab, "Issues", "search")
    with pytest.raises(ValueError, match="lower-case words"):
        screenshot(tab, "issues", "../search")


TABLES = """<!doctype html><html lang="en"><head><title>Tables</title><link rel="stylesheet" href="/ui/app.css">
</head><body><main id="main" style="width: 320px"></main></body></html>"""


def test_a_table_wider_than_its_box_is_a_tab_stop_the_arrow_keys_scroll_and_one_that_fits_is_not(tab):
    tab.serve(TABLES)
    tab.evaluate("""async () => {
        const {table} = await import("/ui/dom.js");
        const wide = table(null, ["Field", "Value"], [["status", "x".repeat(300)]]);
        wide.id = "wide";
        const fits = table(null, ["Field", ""], [["status", "Open"]]);
        fits.id = "fits";
        document.getElementById("main").append(wide, fits);
    }""")
    box = tab.locator("#wide")
    # The box is watched for its size: it becomes a Tab stop by the frame it is first drawn in.
    tab.wait_for_function("() => document.getElementById('wide').getAttribute('tabindex') === '0'")
    assert tab.locator("#fits").get_attribute("tabindex") is None
    tab.keyboard.press("Tab")
    assert tab.evaluate("document.activeElement.id") == "wide"
    tab.keyboard.press("ArrowRight")
    tab.wait_for_function("() => document.getElementById('wide').scrollLeft > 0")
    # A column of buttons (a header given as "") is named for screen readers, and shown to no one.
    assert tab.locator("#fits th").nth(1).inner_text() == "Actions"
    assert tab.locator("#fits th").nth(1).locator(".visually-hidden").bounding_box()["width"] <= 1
    check_page(tab, "check", "tables")
    # Once its content fits, the box is no Tab stop any more.
    box.locator("td").nth(1).evaluate("(cell) => { cell.textContent = 'Open'; }")
    tab.wait_for_function("() => !document.getElementById('wide').hasAttribute('tabindex')")
