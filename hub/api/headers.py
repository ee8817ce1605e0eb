"""The headers every answer of the hub carries, whatever answered it.

``X-Content-Type-Options: nosniff``: a browser takes each answer as the type it
says, never as what its bytes look like. JSON that quotes what a request sent
(a 404 names the file or key it did not find) is then never run as a script or
drawn as HTML, and neither is a download.

``X-Frame-Options: DENY``: no page may show the hub in a frame. The web page's
Content-Security-Policy says the same with ``frame-ancestors 'none'``; this one
is for the browsers that read only the older header, and for every answer, not
only the page's.
"""

from __future__ import annotations

import falcon

SAFE_HEADERS = {"X-Content-Type-Options": "nosniff", "X-Frame-Options": "DENY"}


class SafeHeaders:
    """Middleware: :data:`SAFE_HEADERS` on every answer — the API's, the web page's and its
    files', downloads, errors, and the 404 of a path no route matches."""

    def process_response(self, req: falcon.Request, resp: falcon.Response, resource,
                         req_succeeded: bool) -> None:
        # Here rather than in each responder: it runs after the error handlers too.
        for name, value in SAFE_HEADERS.items():
            resp.set_header(name, value)
