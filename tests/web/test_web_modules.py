"""The web interface's JavaScript: every module in hub/web/static parses and links
as an ES module in the headless Chromium the browser tests use, so a syntax error
or an import of a name a module does not export fails here, named, rather than as
a blank page.

No hub serves them here (a plain file server does), so the module runs on no engine and carries
no ``backends`` mark: what the hub serves of them is tests/web/test_web_static.py's, on both."""

from __future__ import annotations

import functools
import http.server
import threading
from pathlib import Path
from typing import ClassVar

from hub.web.resources import STATIC_DIR

# import() rejects with a SyntaxError for a module that does not parse or link
# (its own text or a module it imports); anything else is the module running in
# an empty page (app.js looks for its elements), which is not what is checked here.
IMPORT_ALL = """async (names) => {
  const errors = {};
  for (const name of names) {
    try {
      await import("/" + name);
    } catch (error) {
      if (error instanceof SyntaxError) errors[name] = error.message;
    }
  }
  return errors;
}"""


class _Quiet(http.server.SimpleHTTPRequestHandler):
    extensions_map: ClassVar[dict[str, str]] = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                                                 ".js": "text/javascript"}

    def log_message(self, format, *args):  # the test's output is the errors, not the requests
        pass


def module_errors(browser, directory: Path) -> dict[str, str]:
    """Each ``*.js`` of ``directory`` that fails to parse or link, with the browser's words."""
    handler = functools.partial(_Quiet, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    page = browser.new_page()
    try:
        # An empty page (a 404) of the same origin, so that no module runs before it is imported.
        page.goto(f"http://127.0.0.1:{server.server_address[1]}/no-page")
        names = sorted(p.name for p in directory.glob("*.js"))
        assert names, f"no modules in {directory}"
        return page.evaluate(IMPORT_ALL, names)
    finally:
        page.close()
        server.shutdown()
        server.server_close()
        thread.join()


def test_every_module_of_the_interface_parses_and_links(browser):
    assert module_errors(browser, STATIC_DIR) == {}


def test_a_module_that_does_not_parse_or_link_is_named(browser, tmp_path):
    (tmp_path / "fine.js").write_text("export const one = 1;\n")
    (tmp_path / "broken.js").write_text("export const two = ;\n")
    (tmp_path / "importer.js").write_text('import {three} from "./fine.js";\nexport const four = three;\n')
    errors = module_errors(browser, tmp_path)
    assert sorted(errors) == ["broken.js", "importer.js"], errors
    assert "three" in errors["importer.js"]
