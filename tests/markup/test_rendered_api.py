"""Wiki text rendered by the hub through ``/api/v1``: ``render=html`` gives sanitised HTML beside
each raw field (images from the mirrored attachments, mentions by display name), ``render=markdown``
Markdown; without it nothing changes, and a form the hub does not know is a 422 naming ``render``."""

from __future__ import annotations

import uuid

import pytest

from hub.services.markup import convert as markup
from tests.support import attachment, comment, fetched, issue, load

pytestmark = pytest.mark.backends("sqlite", "postgresql")

USERS = {"users": [{"name": "ivanov", "key": "JIRAUSER10100", "display_name": "Ivan Ivanov"}]}
DESCRIPTION = "h1. Setup\nAsk [~ivanov]: !screen.png! then !shot.png|thumbnail!\n||a||b||\n|1|2|"


TEXTAREA = "com.atlassian.jira.plugin.system.customfieldtypes:textarea"
CUSTOM = {"customfield_10300": {"name": "Acceptance", "type": "string", "custom": TEXTAREA,
                                "value": "* the checklist *passes*"},
          "customfield_10301": {"name": "Team", "type": "string", "custom": "com.atlassian.jira.plugin.system."
                                "customfieldtypes:textfield", "value": "*not wiki*"}}


def loaded(hub):
    load(hub, [issue("AURORA-12", description=DESCRIPTION, environment="*Linux* <b>x</b>", custom_fields=CUSTOM,
                     attachments=[{**attachment("10001", "screen.png"), "mime_type": "image/png"},
                                  {**attachment("10002", "shot.png"), "mime_type": "image/png"}],
                     comments=[comment("101", "first *wiki* [x|javascript:alert(1)]"), comment("102", "-done-")],
                     worklogs=[{"id": "301", "author": "ivanov", "started": "2026-10-22T13:05:11.000+0300",
                                "time_spent": 3600, "comment": "+reviewed+ the PR"}])],
         catalogues=USERS)


def test_an_issue_rendered_as_html_places_images_by_their_state(hub):
    loaded(hub)
    plain = hub.api("GET", "/api/v1/issues/AURORA-12").json
    assert plain["description"] == DESCRIPTION and "description_html" not in plain
    rendered = hub.api("GET", "/api/v1/issues/AURORA-12", params={"render": "html"}).json
    assert rendered["description"] == DESCRIPTION  # the raw field stays
    html = rendered["description_html"]
    assert "<h3>Setup</h3>" in html and "<th>a</th>" in html
    assert '<span class="mention">@Ivan Ivanov</span>' in html
    # Neither image is in the store yet: both are placeholders carrying their ids.
    assert '<span class="attachment-missing" data-attachment-id="10001">screen.png</span>' in html
    assert rendered["environment_html"] == "<p><strong>Linux</strong> &lt;b&gt;x&lt;/b&gt;</p>\n"
    # A wiki custom field (Jira's textarea) is rendered too; a plain text one is not.
    custom = rendered["custom_fields"]
    assert custom["customfield_10300"]["value_html"] == "<ul>\n<li>the checklist <strong>passes</strong></li>\n</ul>\n"
    assert "value_html" not in custom["customfield_10301"]
    fetched(hub, "10001", b"\x89PNG\r\n\x1a\n")
    html = hub.api("GET", "/api/v1/issues/AURORA-12", params={"render": "html"}).json["description_html"]
    assert '<img src="/api/v1/attachments/10001/content" alt="screen.png">' in html
    assert 'data-attachment-id="10002"' in html


def test_comments_and_worklogs_rendered_as_html_or_markdown(hub):
    loaded(hub)
    comments = hub.api("GET", "/api/v1/issues/AURORA-12/comments", params={"render": "html"}).json["items"]
    assert [c["body_html"] for c in comments] == [
        "<p>first <strong>wiki</strong> [x|javascript:alert(1)]</p>\n", "<p><s>done</s></p>\n"]
    assert comments[0]["body"] == "first *wiki* [x|javascript:alert(1)]"
    markdown = hub.api("GET", "/api/v1/issues/AURORA-12/comments", params={"render": "markdown"}).json["items"]
    assert [c["body_markdown"] for c in markdown][1] == "~~done~~"
    logs = hub.api("GET", "/api/v1/issues/AURORA-12/worklogs", params={"render": "html", "limit": 10}).json
    assert logs["items"][0]["comment_html"] == '<p><span class="underline">reviewed</span> the PR</p>\n'
    issue_md = hub.api("GET", "/api/v1/issues/AURORA-12", params={"render": "markdown"}).json
    assert issue_md["description_markdown"].startswith("# Setup\nAsk @Ivan Ivanov:")
    # Jira shows "<b>" as typed: in Markdown it is escaped, never HTML of its own.
    assert issue_md["environment_markdown"] == "**Linux** \\<b\\>x\\</b\\>"


def test_an_unknown_form_is_refused_by_name(hub):
    loaded(hub)
    for path in ("/api/v1/issues/AURORA-12", "/api/v1/issues/AURORA-12/comments",
                 "/api/v1/issues/AURORA-12/worklogs"):
        resp = hub.api("GET", path, params={"render": "pdf"})
        assert resp.status_code == 422 and "render" in str(resp.json), resp.json


HOSTILE_UNITS = ["[~", "[", "[^", "{{", "[a|", "!a|", "*", "\n#"]


def test_a_page_of_hostile_comments_stops_converting_once_the_answers_budget_is_spent(hub, monkeypatch, caplog):
    # 300 distinct hostile comments of 10 KB, none converted before: the answer's budget of time is
    # spent on the first few; every later one is shown as plain text (p.plain) without its
    # conversion even being begun, whatever the cache holds, so the answer costs that budget and
    # no more on any machine (converting them all would take minutes).
    cold = uuid.uuid4().hex  # texts no test converted before in this process (the cache is the process's)
    bodies = [(f"{cold} {n} " + unit * (10_000 // len(unit)))[:10_000]
              for n, unit in enumerate(HOSTILE_UNITS * 38)][:300]
    load(hub, [issue("AURORA-12", comments=[comment(str(1000 + n), body) for n, body in enumerate(bodies)])])
    converted: list[str] = []
    transform = markup.transform
    monkeypatch.setattr(markup, "transform", lambda grammar, text, context: (
        converted.append(text), transform(grammar, text, context))[1])
    items = hub.api("GET", "/api/v1/issues/AURORA-12/comments", params={"render": "html"}).json["items"]
    assert [item["body"] for item in items] == bodies
    assert 0 < len(converted) < len(bodies)
    assert converted == bodies[:len(converted)]  # converted in order, then none
    for item in items[len(converted):]:
        assert item["body_html"].startswith('<p class="plain">'), item["body_html"][:80]
    # And the log says so, for the operator.
    assert any("rendering AURORA-12: one answer's 5 s of CPU were spent on 300 texts" in record.getMessage()
               for record in caplog.records), [record.getMessage() for record in caplog.records]


def test_comments_come_a_page_at_a_time_with_their_total_when_a_limit_is_asked(hub):
    bodies = [f"comment *{n}*" for n in range(7)]
    load(hub, [issue("AURORA-12", comments=[comment(str(101 + n), body) for n, body in enumerate(bodies)])])
    path = "/api/v1/issues/AURORA-12/comments"
    whole = hub.api("GET", path).json  # without a limit, all of them, as before
    assert [c["body"] for c in whole["items"]] == bodies and whole["next_cursor"] is None and whole["total"] == 7
    seen, cursor = [], None
    while True:
        asked = {"limit": 3, "render": "html", **({"cursor": cursor} if cursor else {})}
        page = hub.api("GET", path, params=asked).json
        assert page["total"] == 7 and len(page["items"]) <= 3
        seen += [(c["body"], c["body_html"]) for c in page["items"]]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert seen == [(body, f"<p>comment <strong>{n}</strong></p>\n") for n, body in enumerate(bodies)]
    for wrong in ({"limit": 0}, {"limit": 501}, {"cursor": 0}, {"cursor": "x"}):
        resp = hub.api("GET", path, params=wrong)
        assert resp.status_code == 422 and next(iter(wrong)) in str(resp.json), (wrong, resp.json)
