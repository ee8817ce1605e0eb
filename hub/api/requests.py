"""One log line and the HTTP metrics per request, with a request id.

The id comes from the proxy's ``X-Request-Id`` when it is a plain token (letters,
digits, ``.``, ``_``, ``:``, ``-``; at most 128), so that the proxy's log and the
hub's agree; otherwise the hub makes one. Either way the answer carries it back
in ``X-Request-Id``. The line names the route template rather than the path
(what a path holds is the client's, and ids in it would make a metric series
each), the token's name (never the token), the status and the seconds taken:
for a long-poll, its whole wait; for a download, until its body is handed to
waitress, which streams it without holding a thread.
"""

from __future__ import annotations

import functools
import logging
import re
import time
import uuid

import falcon

from hub.metrics import UNROUTED, Metrics

log = logging.getLogger("hub.requests")

HEADER = "X-Request-Id"
INCOMING = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]{0,127}\Z")
_CONVERTER = re.compile(r"\{(\w+):\w+\}")
# Methods counted under their own name; any other is "other", so that a client
# inventing methods cannot create metric series.
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})


@functools.lru_cache(maxsize=256)
def route_label(template: str | None) -> str:
    """The route as the docs write it: ``/agent/v1/commands/{command_id}/done``
    (converters dropped); :data:`~hub.metrics.UNROUTED` for no route."""
    if template is None:
        return UNROUTED
    return _CONVERTER.sub(r"{\1}", template)


def request_id(incoming: str | None) -> str:
    """The proxy's id when it is a sane one, else a new one."""
    if incoming and INCOMING.match(incoming):
        return incoming
    return uuid.uuid4().hex


class RequestLog:
    """Falcon middleware: put it first, so that it sees every request, and every
    answer last (after authentication and the error handlers)."""

    def __init__(self, metrics: Metrics):
        self._metrics = metrics

    def process_request(self, req: falcon.Request, resp: falcon.Response) -> None:
        req.context.started = time.perf_counter()
        req.context.request_id = request_id(req.get_header(HEADER))

    def process_response(self, req: falcon.Request, resp: falcon.Response, resource,
                         req_succeeded: bool) -> None:
        seconds = time.perf_counter() - req.context.started
        request_id = req.context.request_id
        resp.set_header(HEADER, request_id)
        route = route_label(req.uri_template)
        method = req.method if req.method in METHODS else "other"
        status = resp.status_code
        principal = getattr(req.context, "principal", None)
        token = principal.name if principal is not None else "-"

        m = self._metrics
        m.http_requests.labels(route, method, str(status)).inc()
        m.http_duration.labels(route, method).observe(seconds)
        if status == 409:
            m.conflicts.labels(route).inc()

        fields = {"request_id": request_id, "method": method, "route": route, "status": status,
                  "duration_ms": round(seconds * 1000, 1), "token": token}
        log.log(logging.ERROR if status >= 500 else logging.INFO,
                "request id=%s method=%s route=%s status=%d duration_ms=%.1f token=%s",
                request_id, method, route, status, fields["duration_ms"], token,
                extra={"request": fields})
