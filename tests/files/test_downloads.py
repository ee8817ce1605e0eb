"""Downloads at the edges: If-Range, HEAD, absurd ranges, MIME types that cannot be headers.

Every test with a hub runs on each file store (``[local]``, ``[s3]``: tests/support/s3.py)."""

from __future__ import annotations

import io

import pytest

from hub.api.download import FileSlice, Unsatisfiable, media_type, parse_range
from hub.models import IssueAttachment
from tests.support import PDF, attachment, fetched, listed
from tests.support.s3 import store_fixture  # noqa: F401 -- the fixture `store`

pytestmark = [pytest.mark.backends("sqlite", "postgresql"), pytest.mark.long]

URL = "/api/v1/attachments/1/content"


@pytest.fixture
def hub(make_hub, store):
    return make_hub(**store.settings)


@pytest.fixture
def ready(hub):
    listed(hub, attachment("1", "spec.pdf", len(PDF)))
    return fetched(hub, "1")


def test_if_range_with_our_etag_honours_the_range_and_anything_else_sends_the_whole_file(hub, ready):
    etag = f'"{ready}"'
    same = hub.api("GET", URL, headers={"Range": "bytes=10-19", "If-Range": etag})
    assert same.status_code == 206 and same.content == PDF[10:20]
    for other in ('"' + "0" * 64 + '"', f"W/{etag}", "Tue, 01 Dec 2026 10:00:00 GMT"):
        whole = hub.api("GET", URL, headers={"Range": "bytes=10-19", "If-Range": other})
        assert whole.status_code == 200 and whole.content == PDF, other
        assert "content-range" not in whole.headers


def test_if_none_match_takes_lists_weak_tags_and_a_star(hub, ready):
    etag = f'"{ready}"'
    other = '"' + "0" * 64 + '"'
    for header in (etag, f"W/{etag}", f"{other}, {etag}", f"{other},W/{etag}", "*", " * "):
        again = hub.api("GET", URL, headers={"If-None-Match": header})
        assert again.status_code == 304 and not again.content, header
    for header in (other, f"{other}, W/{other}", ready, ""):
        assert hub.api("GET", URL, headers={"If-None-Match": header}).status_code == 200, header


def test_head_gives_the_headers_of_a_get_without_the_body(hub, ready):
    get = hub.api("GET", URL)
    head = hub.api("HEAD", URL)
    assert head.status_code == 200 and head.content == b""
    for name in ("content-type", "content-length", "etag", "content-disposition", "accept-ranges"):
        assert head.headers[name] == get.headers[name], name
    part = hub.api("HEAD", URL, headers={"Range": "bytes=10-19"})
    assert part.status_code == 206 and part.content == b""
    assert part.headers["content-length"] == "10"
    assert part.headers["content-range"] == f"bytes 10-19/{len(PDF)}"
    assert hub.api("HEAD", URL, headers={"If-None-Match": f'"{ready}"'}).status_code == 304
    # A range past the end is 416 for HEAD as for GET (and /openapi.json says so for both).
    beyond = hub.api("HEAD", URL, headers={"Range": f"bytes={len(PDF)}-"})
    assert beyond.status_code == 416 and beyond.headers["content-range"] == f"bytes */{len(PDF)}"
    health = hub.api("HEAD", "/healthz", role=None)
    assert health.status_code == 200 and health.content == b""
    assert int(health.headers["content-length"]) > 0


@pytest.mark.parametrize("header", [
    "bytes=" + "9" * 4301 + "-",
    "bytes=-" + "9" * 4301,
    "bytes=0-" + "9" * 4301,
    "bytes=" + "9" * 4000 + "-",
])
def test_an_absurd_range_is_416_not_500(hub, ready, header):
    resp = hub.api("GET", URL, headers={"Range": header})
    assert resp.status_code == 416
    assert resp.headers["content-range"] == f"bytes */{len(PDF)}"


def test_digits_of_other_scripts_are_not_a_range():
    assert parse_range("bytes=\u0663-", 10) is None
    with pytest.raises(Unsatisfiable):
        parse_range("bytes=" + "1" * 5000 + "-", 10)


@pytest.mark.parametrize("mime", [
    "text/html\r\nSet-Cookie: x=1", "application/pdf\n", "bild/jpeg\u00e9", "image/\u043f\u043d\u0433",
    "pdf", "", "application/pdf; name=\"a\r\nb\"", "/", "text/", "a b/c",
])
def test_a_mime_type_that_cannot_be_a_header_is_served_as_octet_stream(hub, ready, mime):
    IssueAttachment.update(mime_type=mime).where(IssueAttachment.attachment_id == "1").execute()
    resp = hub.api("GET", URL)
    assert resp.status_code == 200 and resp.content == PDF
    assert resp.headers["content-type"] == "application/octet-stream"


@pytest.mark.parametrize("mime", ["application/pdf", "text/plain; charset=utf-8",
                                  'application/x-thing; name="a b.bin"', "application/vnd.ms-excel"])
def test_a_well_formed_mime_type_is_kept(mime):
    assert media_type(mime) == mime


def test_a_file_slice_reads_and_seeks_within_its_bytes_only():
    data = bytes(range(100))
    piece = FileSlice(io.BytesIO(data), 10, 20)
    # What waitress's file wrapper does to size it: to the end and back.
    assert piece.tell() == 0 and piece.seek(0, 2) == 20 and piece.seek(0) == 0
    assert piece.read(5) == data[10:15]
    assert piece.tell() == 5
    assert piece.read() == data[15:30]
    assert piece.read() == b""
    piece.seek(-3, 2)
    assert piece.read(100) == data[27:30]
