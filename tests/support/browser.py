"""What every browser test does to each page and state it visits: a screenshot kept as a test
artifact, and an accessibility check by axe-core in the page itself.

    from tests.support.browser import check_page

    check_page(page, "issues", "search")   # test-artifacts/screenshots/issues-search.png, then axe

``check_page`` saves the screenshot first (a failing check still leaves the picture of what it
judged), then runs axe-core and fails on any serious or critical violation, listing each by rule,
impact, the elements it found (CSS selectors) and axe's help text and page. What axe found at
every impact (moderate and minor ones too, which do not fail) is written beside the screenshot as
``<page>-<state>.axe.json``.

Artifacts go to ``$HUB_TEST_ARTIFACTS`` if set, else ``test-artifacts/`` at the repository's
root (ignored by git); ``.ci/run`` prints where.

axe-core comes from the PyPI package ``axe-playwright-python`` (the ``test`` extra), which ships
``axe.min.js``: it installs with the other test tools by pip, so neither CI nor a developer
needs Node, npm or a CDN. Only the script file is used, through :func:`axe_script`.

The page's Content-Security-Policy allows no inline script, and the check does not weaken it:
axe is evaluated through Playwright (the DevTools protocol's ``Runtime.evaluate``), which a
page's CSP does not govern, in the page as the test left it. Everything the page itself loads
or runs stays under its CSP, so the hostile-text tests still prove that mirrored text runs
nothing; a context with ``bypass_csp=True`` would lift the CSP for the whole page and hide
exactly what those tests look for.
"""

from __future__ import annotations

import functools
import json
import os
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# The impacts that fail a check: the "0 serious or critical violations on every page".
#: How long a browser test waits for what it expects: generous, as a loaded machine is slow
#: (and the attachments' states are asked again after 1, 2, 4 … s); a wait that holds returns
#: as soon as it does.
TIMEOUT_MS = 30_000


def expect(target):
    """Playwright's ``expect`` on a locator or page, waiting up to :data:`TIMEOUT_MS`."""
    from playwright.sync_api import expect as playwright_expect

    playwright_expect.set_options(timeout=TIMEOUT_MS)
    return playwright_expect(target)


def signed_in_page(browser, url: str, token: str, **context):
    """A page of a fresh browser context (``context``: Playwright's options; 1366×900 unless given)
    signed in at ``url`` with ``token`` through the sign-in form, and the console errors it logs
    (a list that grows while the page lives): ``(context, page, errors)``."""
    made = browser.new_context(**{"viewport": {"width": 1366, "height": 900}, **context})
    made.set_default_timeout(TIMEOUT_MS)
    tab = made.new_page()
    errors: list[str] = []
    tab.on("console", lambda message: message.type == "error" and errors.append(message.text))
    tab.on("pageerror", lambda error: errors.append(f"uncaught: {error}"))
    tab.goto(url + "/")
    tab.get_by_label("Token").fill(token)
    tab.get_by_role("button", name="Sign in").click()
    tab.get_by_role("heading", name="Issues", exact=True).wait_for()
    return made, tab, errors


FAILING_IMPACTS = ("serious", "critical")
NAME = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")


def artifacts_dir() -> Path:
    """Where a test run keeps what it leaves for people to look at: ``$HUB_TEST_ARTIFACTS``,
    else ``test-artifacts/`` at the repository's root."""
    chosen = os.environ.get("HUB_TEST_ARTIFACTS")
    return Path(chosen) if chosen else ROOT / "test-artifacts"


def screenshots_dir() -> Path:
    """The screenshots' directory under :func:`artifacts_dir` (made on first use)."""
    directory = artifacts_dir() / "screenshots"
    directory.mkdir(parents=True, exist_ok=True)
    return directory


@functools.cache
def axe_script() -> str:
    """axe-core's ``axe.min.js``, as ``axe-playwright-python`` ships it (read once)."""
    from importlib.resources import files

    return (files("axe_playwright_python") / "axe.min.js").read_text("utf-8")


def _file_name(page_name: str, state: str) -> str:
    for part in (page_name, state):
        if not NAME.match(part):
            raise ValueError(f"a page or state is named in lower-case words joined by '-', not {part!r}")
    return f"{page_name}-{state}"


def screenshot(page, page_name: str, state: str) -> Path:
    """Save the whole page as ``<page>-<state>.png`` among the artifacts; its path.

    ``page`` is a Playwright page; ``page_name`` the page's name (``issues``, ``issue``, ``ops``,
    ``sign-in``...), ``state`` what the test made it show (``search``, ``jql-error``...), both in
    lower-case words joined by ``-``."""
    path = screenshots_dir() / f"{_file_name(page_name, state)}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


def axe_results(page, context: str | dict | None = None) -> dict:
    """axe-core's results for the page as it is now (every rule axe runs by default, WCAG 2.x A
    and AA and its best practices): the violations only. ``context`` narrows what is checked (a
    CSS selector, or axe's ``{"include": ..., "exclude": ...}``)."""
    if not page.evaluate("typeof window.axe === 'object' && typeof window.axe.run === 'function'"):
        page.evaluate(axe_script())
    return page.evaluate(
        "([context, options]) => context ? axe.run(context, options) : axe.run(options)",
        [context, {"resultTypes": ["violations"]}])


def failing(violations: list[dict]) -> list[dict]:
    """The violations that fail a check: serious or critical ones."""
    return [violation for violation in violations if violation.get("impact") in FAILING_IMPACTS]


def report(violations: list[dict]) -> str:
    """Violations as a person reads them: one paragraph per rule with its impact, what it says,
    the elements it found (up to ten) and the page that explains the fix."""
    paragraphs = []
    for violation in violations:
        nodes = violation.get("nodes", [])
        lines = [f"{violation['id']} ({violation.get('impact')}): {violation.get('help')}",
                 f"  fix: {violation.get('helpUrl')}"]
        for node in nodes[:10]:
            target = " ".join(" >>> ".join(part) if isinstance(part, list) else part for part in node["target"])
            # axe's "Fix any of the following:\n  a\n  b" on one line: "Fix any of the following: a; b".
            head, _, rest = (node.get("failureSummary") or "").strip().partition("\n")
            summary = " ".join([head, "; ".join(line.strip() for line in rest.splitlines() if line.strip())]).strip()
            lines.append(f"  at {target}: {summary}" if summary else f"  at {target}")
        if len(nodes) > 10:
            lines.append(f"  ... and {len(nodes) - 10} more")
        paragraphs.append("\n".join(lines))
    return "\n".join(paragraphs)


def check_accessibility(page, where: str = "the page", context: str | dict | None = None) -> list[dict]:
    """Run axe-core in ``page``; AssertionError listing every serious or critical violation
    (:func:`report`), else the moderate and minor ones it found (which do not fail)."""
    violations = axe_results(page, context)["violations"]
    _fail_on(violations, f"{where} ({page.url})")
    return violations


def _fail_on(violations: list[dict], where: str) -> None:
    bad = failing(violations)
    if bad:
        raise AssertionError(f"axe-core finds {len(bad)} serious or critical accessibility violation(s) "
                             f"on {where}:\n{report(bad)}")


def check_page(page, page_name: str, state: str, context: str | dict | None = None) -> Path:
    """The one call a browser test makes for each page and state it visits: the screenshot
    (:func:`screenshot`), then the accessibility check (:func:`check_accessibility`), what axe
    found written beside the screenshot as ``<page>-<state>.axe.json``. The screenshot's path."""
    path = screenshot(page, page_name, state)
    violations = axe_results(page, context)["violations"]
    path.with_suffix(".axe.json").write_text(json.dumps(violations, indent=1, ensure_ascii=False), "utf-8")
    _fail_on(violations, f"{page_name} ({state}), {page.url}; screenshot {path}")
    return path

