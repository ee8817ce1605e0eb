"""Where the tests find Chromium, and the flags they start it with."""

from __future__ import annotations

import os
import shutil

BROWSER_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--no-first-run", "--disable-quic"]


def chromium() -> tuple[str | None, str]:
    """The system browser's path, or None and why not (Playwright drives Debian's
    chromium, never a browser of its own download)."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return None, "Playwright for Python is not installed (pip install -e '.[test]')"
    for candidate in (shutil.which("chromium"), "/usr/bin/chromium", shutil.which("chromium-browser")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate, ""
    return None, "no Chromium found (apt-get install chromium)"
