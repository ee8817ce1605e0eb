"""Every answer of the hub says ``X-Content-Type-Options: nosniff`` and ``X-Frame-Options: DENY``:
JSON, the web page and its files, downloads, errors of every kind, and the 404 of a path no
route has (hub/api/headers.py). The public ``/ui/<name>`` 404 quotes the name it was given,
which a browser that sniffed could take for markup."""

from __future__ import annotations

import pytest

from hub.api.headers import SAFE_HEADERS
from tests.support import PDF, attachment, fetched, listed

pytestmark = pytest.mark.backends("sqlite")


def safe(resp) -> bool:
    return all(resp.headers.get(name.lower()) == value for name, value in SAFE_HEADERS.items())


def test_every_kind_of_answer_says_nosniff_and_may_not_be_framed(hub):
    listed(hub, attachment("1", "spec.pdf", len(PDF)))
    fetched(hub, "1")
    answers = {
        "JSON": hub.api("GET", "/api/v1/issues"),
        "the health check": hub.api("GET", "/healthz", role=None),
        "the web page": hub.api("GET", "/", role=None),
        "a file of the page": hub.api("GET", "/ui/app.js", role=None),
        "a 304 of a file": hub.api("GET", "/ui/app.js", role=None, headers={
            "If-None-Match": hub.api("GET", "/ui/app.js", role=None).headers["etag"]}),
        "a download": hub.api("GET", "/api/v1/attachments/1/content"),
        "a part of a download": hub.api("GET", "/api/v1/attachments/1/content", headers={"Range": "bytes=0-9"}),
        "the page's 404, which quotes the name": hub.api("GET", "/ui/%3Csvg%20onload=alert(1)%3E", role=None),
        "a path no route has": hub.api("GET", "/nowhere", role=None),
        "a missing token": hub.api("GET", "/api/v1/issues", role=None),
        "a wrong role": hub.api("GET", "/api/v1/tokens"),
        "a body that is no JSON": hub.client.simulate_post(
            "/api/v1/commands", body=b"{", headers={**hub.headers("interface"), "Content-Type": "application/json"}),
        "a raw path refused before routing": hub.api("GET", "/api/v1/issues/X-1%2Fnotes"),
        "an unknown issue": hub.api("GET", "/api/v1/issues/NOPE-1"),
        "a method the route lacks": hub.api("DELETE", "/healthz", role=None),
    }
    statuses = {what: resp.status_code for what, resp in answers.items()}
    assert statuses["a 304 of a file"] == 304 and statuses["a part of a download"] == 206
    assert statuses["the page's 404, which quotes the name"] == statuses["a path no route has"] == 404
    assert {statuses[what] for what in ("a missing token", "a wrong role", "a body that is no JSON")} == {401, 403, 400}
    assert [what for what, resp in answers.items() if not safe(resp)] == []
