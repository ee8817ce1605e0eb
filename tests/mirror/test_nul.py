"""A NUL character (U+0000), which PostgreSQL's text cannot hold: a text that has one is
stored on both engines (on PostgreSQL with U+FFFD in its place, hub.db.nul_free_text),
and a query parameter that has one is refused before any statement, on both alike."""

from __future__ import annotations

import pytest

from tests.support import comment, issue, load

pytestmark = pytest.mark.backends("sqlite", "postgresql")


def stored(hub, text: str) -> str:
    return text.replace("\x00", "\ufffd") if hub.config.database_url else text


def test_a_page_whose_texts_hold_a_nul_is_stored_whole(hub):
    load(hub, [issue("AURORA-12", summary="Frame\x00drop", description="before\x00after",
                     comments=[comment("10001", "a\x00b")])], version=15)
    page = hub.api("GET", "/api/v1/issues/AURORA-12").json
    assert page["summary"] == stored(hub, "Frame\x00drop")
    assert page["description"] == stored(hub, "before\x00after")
    comments = hub.api("GET", "/api/v1/issues/AURORA-12/comments").json["items"]
    assert [c["body"] for c in comments] == [stored(hub, "a\x00b")]
    assert [i["key"] for i in hub.api("GET", "/api/v1/issues?q=after").json["items"]] == ["AURORA-12"]


def test_a_name_with_a_nul_is_kept(hub):
    made = hub.api("POST", "/api/v1/filters", {"name": "mine\x00", "jql": "project = AURORA"})
    assert made.status_code == 201, made.json
    assert hub.api("GET", made.headers["Location"]).json["name"] == stored(hub, "mine\x00")


@pytest.mark.parametrize("query", ["status=Open%00", "q=frame%00", "jql=status%20%3D%20%22a%00b%22", "sprint=%00"])
def test_a_query_parameter_with_a_nul_is_refused_naming_it(hub, query):
    refused = hub.api("GET", f"/api/v1/issues?{query}")
    assert refused.status_code == 422, refused.json
    assert "NUL" in refused.json["description"]
    assert hub.api("GET", f"/api/v1/issues/facets?{query}").status_code == 422
