"""``POST /api/v1/render``: the comment editor's preview. A text not yet in Jira renders to the HTML
the hub gives a description holding it (images from the issue's attachments, mentions by display
name, nothing that runs script); Markdown is converted as a write converts it; every input is
checked at the edge, and a browser's session is held to the same cross-site check as any POST."""

from __future__ import annotations

import pytest

from tests.support.protocol import attachment, issue, load

pytestmark = pytest.mark.backends("sqlite", "postgresql")

USERS = [{"name": "ivanov", "key": "JIRAUSER1", "display_name": "Иван Иванов"}]
TEXT = "h2. Steps\n* open the *card* page, see !shot.png!\n* ask [~ivanov]\n{code:java}int x = 1;{code}"


def render(hub, body, role="interface", headers=None):
    return hub.api("POST", "/api/v1/render", body, role=role, headers=headers)


def test_a_text_renders_as_a_description_holding_it_does(hub):
    load(hub, [issue("AURORA-1", status="Open", description=TEXT, attachments=[attachment("901", "shot.png")])],
         catalogues={"users": USERS})
    described = hub.api("GET", "/api/v1/issues/AURORA-1?render=html").json["description_html"]
    resp = render(hub, {"text": TEXT, "key": "AURORA-1"})
    assert resp.status_code == 200, resp.json
    assert resp.json == {"html": described}
    assert "<strong>card</strong>" in described and "Иван Иванов" in described
    assert 'data-attachment-id="901"' in described


def test_without_a_key_an_image_names_no_attachment(hub):
    load(hub, [issue("AURORA-1", status="Open", attachments=[attachment("901", "shot.png")])])
    html = render(hub, {"text": "see !shot.png!"}).json["html"]
    assert 'data-attachment-id' not in html


def test_markdown_is_rendered_as_the_wiki_a_write_would_send(hub):
    resp = render(hub, {"text": "# Steps\n\n**bold** and `code`", "format": "markdown"})
    assert resp.status_code == 200
    wiki = render(hub, {"text": "h1. Steps\n\n*bold* and {{code}}", "format": "wiki"})
    assert resp.json == wiki.json and "<strong>bold</strong>" in resp.json["html"]


def test_text_is_never_markup_of_the_page(hub):
    html = render(hub, {"text": "<script>alert(1)</script> <img src=x onerror=alert(1)>"}).json["html"]
    assert "<script" not in html and "<img" not in html and "&lt;script&gt;" in html


def test_an_empty_text_renders_to_nothing(hub):
    assert render(hub, {"text": ""}).json == {"html": ""}


@pytest.mark.parametrize("body, field", [
    ({"text": "x" * 32_768}, "text"),
    ({}, "text"),
    ({"text": 7}, "text"),
    ({"text": "x", "format": "html"}, "format"),
    ({"text": "x", "key": "aurora 1"}, "key"),
    ({"text": "x", "key": "AURORA-404"}, "key"),
    ({"text": "x", "who": "me"}, "who"),
])
def test_what_breaks_the_contract_is_422_naming_the_field(hub, body, field):
    resp = render(hub, body)
    assert resp.status_code == 422, resp.json
    assert resp.json["field"] == field


def test_the_longest_text_jira_takes_is_rendered(hub):
    assert render(hub, {"text": "word " * 6553}).status_code == 200  # 32,765 characters


def test_render_is_for_interface_tokens_and_no_write(hub):
    assert render(hub, {"text": "x"}, role="agent").status_code == 403
    assert render(hub, {"text": "x"}, role=None).status_code == 401
    # An interface token not granted writes may preview: nothing is written to Jira.
    token = hub.built.services.tokens.add("reader", "interface", write=False)
    resp = hub.client.simulate_post("/api/v1/render", json={"text": "*x*"},
                                    headers={"Authorization": f"Bearer {token}"})
    assert resp.status_code == 200


def test_a_browser_session_renders_only_from_the_hubs_own_page(hub):
    signed = hub.client.simulate_post("/api/v1/session", json={"token": hub.tokens["interface"]},
                                      headers={"X-Hub-Request": "1"})
    session = signed.cookies["hub_session"].value
    asked = {"path": "/api/v1/render", "json": {"text": "*x*"}, "cookies": {"hub_session": session}}
    assert hub.client.simulate_post(**asked).status_code == 403
    assert hub.client.simulate_post(**asked, headers={"X-Hub-Request": "1"}).status_code == 200
