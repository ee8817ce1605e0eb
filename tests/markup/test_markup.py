"""Jira's wiki markup rendered on the hub (hub/services/markup/convert.py): a corpus of wiki text in the
shapes real Jira Server instances hold (CRLF line ends, headings without their space, logins that
are e-mail addresses, code with `||` in it) renders with no markup left over and the structure
Jira gives it; hostile text never becomes script; Markdown for assistants, plain text for snippets.
"""

from __future__ import annotations

import html
import re
import threading

import pytest

from hub.services.markup import convert as markup
from hub.services.markup.convert import AttachmentRef, snippet_text, to_html, to_markdown, to_text

# Descriptions and comments as teams write them in Jira Server (written for these tests).
CORPUS = {
    "bug report": (
        "h6.Problem\r\nWhen the sync runs on *iOS 9* the {{forwardGeocoder}} call never completes. "
        "On iOS 8 it works.\r\n\r\nh6.Steps to reproduce\r\n# Build the attached app\r\n# Run it on a device\r\n"
        "## with location on\r\n## and off\r\n# Watch the log\r\n\r\n{code:javascript}\r\n"
        "var ok = a || b;\r\nTi.API.info('done');\r\n{code}\r\n\r\nh6.Expected\r\nThe callback fires; see "
        "[the guide|https://docs.example.org/geo] and https://example.org/issues/12.\r\n"),
    "test report": (
        "*Tested on latest build. Ticket closed.*\r\n\r\n*Test Environment*\r\n"
        "||Component||Version||\r\n|Studio|4.1.0|\r\n|SDK|5.0.0.GA|\r\n|Device|Pixel 3 (Android 9)|\r\n\r\n"
        "(/) passes on the device (x) fails on the simulator (!) see below\r\n"),
    "review comment": (
        "Thanks [~ben.bahrenburg@gmail.com], but we cannot remove the methods yet.\r\n"
        "{quote}We should deprecate them first.{quote}\r\nAgreed with [~ivanov] :)\r\n\r\n"
        "bq. Remember the release notes.\r\n"),
    "design note": (
        "h2. Design\r\nThe store is _append only_, -never rewritten-, +always checked+.\r\n"
        "Formula: x^2^ and H~2~O; cited in ??the paper??.\r\n\r\n{panel:title=Decision}\r\n"
        "We keep *one* writer.\r\n{panel}\r\n----\r\n{color:red}Blocker{color} for "
        "{color:#14892c}the release{color}.\r\n"
        "* first\r\n** nested *bold*\r\n*# mixed ordered\r\n* last\r\n"),
    "log excerpt": (
        "The worker fails:\r\n{noformat}\r\nERROR [main] *** h2. not a heading || [~nobody] ***\r\n"
        "{noformat}\r\nScreenshot: !screen.png! and !shot.png|thumbnail!\r\nLog: [^worker.log]\r\n"
        "Write to [the team|mailto:team@example.org].\r\n"),
}

# What a reader must never see: markup that was not converted.
LEFT_OVER = re.compile(r"\{quote\}|\{noformat\}|\{code[:}]|\{panel|\{color|\|\||^h[1-6]\.|^bq\.|\[~|![\w.-]+\.png"
                       r"|(?<![\w*])\*[\w ]+\*(?![\w*])|(?<!\w)\+\w+\+(?!\w)|\?\?\w", re.M)

ATTACHMENTS = {"screen.png": AttachmentRef("10001", True, "image/png"),
               "shot.png": AttachmentRef("10002", False, "image/png"),
               "worker.log": AttachmentRef("10003", True, "text/plain")}
USERS = {"ivanov": "Ivan Ivanov", "ben.bahrenburg@gmail.com": "Ben Bahrenburg"}


def visible(rendered: str) -> str:
    """The text a reader sees, code blocks left out (code may hold `||` and `*` as it is)."""
    without_code = re.sub(r"<pre>.*?</pre>", " ", rendered, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", "", without_code))


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_the_corpus_renders_with_no_markup_left_over(name):
    rendered = to_html(CORPUS[name], attachments=ATTACHMENTS, users=USERS)
    assert LEFT_OVER.search(visible(rendered)) is None, visible(rendered)


def test_a_bug_report_has_its_headings_numbered_steps_and_code():
    rendered = to_html(CORPUS["bug report"])
    assert "<h6>Problem</h6>" in rendered  # h6. without its space, as Jira reads it
    assert re.search(r"<ol>\s*<li>Build the attached app</li>\s*<li>Run it on a device\s*<ol>\s*<li>with location on",
                     rendered)
    assert '<pre><code class="language-javascript">var ok = a || b;' in rendered
    assert '<a href="https://docs.example.org/geo" rel="noopener noreferrer nofollow">the guide</a>' in rendered
    assert '<a href="https://example.org/issues/12" rel="noopener noreferrer nofollow">' in rendered
    assert "issues/12</a>." in rendered  # the sentence's full stop is not the URL's


def test_a_table_has_header_cells_and_emoticons_are_characters():
    rendered = to_html(CORPUS["test report"])
    assert re.search(r"<thead>\s*<tr>\s*<th>Component</th>\s*<th>Version</th>", rendered)
    assert "<td>Pixel 3 (Android 9)</td>" in rendered
    assert "<strong>Tested on latest build. Ticket closed.</strong>" in rendered
    assert "\u2705 passes" in rendered and "\u274c fails" in rendered and "\u26a0\ufe0f see below" in rendered


def test_a_one_line_quote_ends_where_it_closes_and_mentions_show_display_names():
    rendered = to_html(CORPUS["review comment"], users=USERS)
    quote, rest = rendered.split("</blockquote>", 1)
    assert "We should deprecate them first." in quote
    assert "Agreed with" in rest and "Agreed with" not in quote
    assert '<span class="mention">@Ben Bahrenburg</span>' in rendered
    assert '<span class="mention">@Ivan Ivanov</span> \U0001f642' in rendered
    assert rendered.count("<blockquote>") == 2  # and bq. is a quote too
    assert '<span class="mention">@someone.else</span>' in to_html("[~someone.else]")  # unknown: the login


def test_text_effects_panels_colours_rules_and_mixed_lists():
    rendered = to_html(CORPUS["design note"])
    for expected in ("<em>append only</em>", "<s>never rewritten</s>", '<span class="underline">always checked</span>',
                     "x<sup>2</sup>", "H<sub>2</sub>O", '<span class="citation">the paper</span>',
                     "<strong>Decision</strong>", "<hr>", '<span class="jira-color-red">Blocker</span>',
                     '<span class="jira-color-green">the release</span>'):
        assert expected in rendered, expected
    assert re.search(r"<ul>\s*<li>first\s*<ul>\s*<li>nested <strong>bold</strong></li>\s*</ul>\s*<ol>\s*"
                     r"<li>mixed ordered</li>", rendered)
    assert "style=" not in rendered  # the CSP forbids inline style: colours are classes
    assert "Blocker" in to_html("{color:#123456}Blocker{color}") and "jira-color" not in to_html(
        "{color:#123456}Blocker{color}")


def test_noformat_keeps_its_text_and_images_come_from_the_mirrored_attachments():
    rendered = to_html(CORPUS["log excerpt"], attachments=ATTACHMENTS)
    assert "<pre><code>ERROR [main] *** h2. not a heading || [~nobody] ***\n</code></pre>" in rendered
    assert '<img src="/api/v1/attachments/10001/content" alt="screen.png">' in rendered
    assert '<span class="attachment-missing" data-attachment-id="10002">shot.png</span>' in rendered
    assert '<a href="/api/v1/attachments/10003/content" rel="noopener noreferrer nofollow">worker.log</a>' in rendered
    assert '<a href="mailto:team@example.org" rel="noopener noreferrer nofollow">the team</a>' in rendered
    # An image the issue has no attachment for is its name: no request leaves for it.
    assert to_html("!elsewhere.png!") == '<p><span class="attachment-file">elsewhere.png</span></p>\n'


HOSTILE = [
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "[x|javascript:alert(1)]",
    "[x|JaVaScRiPt:alert(1)]",
    "[click](javascript:alert(1))",
    "[click](<javascript:alert(1)>)",
    "{color:red;background:url(javascript:alert(1))}text{color}",
    '{color:red" onmouseover="alert(1)}text{color}',
    "!javascript:alert(1)!",
    "!x.png|onerror=alert(1)!",
    "[text]{onclick=alert(1) .mention}",
    "![a](data:image/svg+xml;base64,PHN2Zz4=)",
    "[x|data:text/html,<script>alert(1)</script>]",
    "{code:html}<script>alert(1)</script>{code}",
    "[<img src=x onerror=alert(1)>|http://x]",
    "[~<script>alert(1)</script>]",
    "||<b onmouseover=alert(1)>a||\n|<svg onload=alert(1)>|",
]


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_text_never_becomes_script(text):
    rendered = to_html(text, attachments={"x.png": AttachmentRef("10004", True)})
    tags = re.findall(r"<([a-z0-9]+)([^>]*)>", rendered)
    for tag, attributes in tags:
        assert tag in {"p", "a", "span", "img", "pre", "code", "table", "thead", "tbody", "tr", "th", "td",
                       "br", "strong"}, rendered
        assert not re.search(r"\bon\w+=|style=|javascript:|data:", attributes, re.I), rendered
        for url in re.findall(r'(?:href|src)="([^"]*)"', attributes):
            assert url.startswith(("http://", "https://", "mailto:", "/api/v1/attachments/")), rendered


def test_markdown_for_assistants_keeps_the_structure():
    text = to_markdown(CORPUS["design note"] + CORPUS["review comment"] + CORPUS["test report"], users=USERS)
    for expected in ("## Design", "_append only_", "~~never rewritten~~", "> **Decision**", "- first",
                     "  - nested **bold**", "|Component|Version|", "|---|---|", "@Ben Bahrenburg",
                     "> We should deprecate them first.", "\n----\n"):
        assert expected in text, expected
    assert "{color" not in text and "\r" not in text
    code = to_markdown("{code}\nshow ``` this\n{code}")
    assert code.startswith("````\nshow ``` this\n````")  # a fence no code can close


def test_plain_text_and_snippets_keep_the_words_and_the_match_markers():
    assert to_text("h2. Setup\r\nRun *this* [first|http://x] with {{make}}.\r\n* a\r\n* b") == \
        "Setup Run this first with make. a b"
    assert to_text("<b>kept as text</b>") == "<b>kept as text</b>"
    assert snippet_text("…see *[[bold]]* and {code:java}int [[x]] = 1…") == "…see [[bold]] and int [[x]] = 1…"
    assert snippet_text("[~ivanov] said [[sync]] h2. is") == "@ivanov said [[sync]] h2. is"
    assert snippet_text(None) is None


def test_a_known_text_is_converted_once_while_its_mentions_keep_their_names(monkeypatch):
    text = "Ask [~ivanov] about *AURORA-12* \u2014 a text seen once per test: 8c1f."
    assert "@Ivan Ivanov" in to_html(text, users=USERS)
    calls = []
    monkeypatch.setattr(markup._Cache, "put", lambda self, *args: calls.append(args))
    assert "@Ivan Ivanov" in to_html(text, users=USERS)
    assert calls == []  # served from the cache
    assert "@Ivan Petrov" in to_html(text, users={"ivanov": "Ivan Petrov"})  # a renamed user: converted anew
    assert len(calls) == 1


def test_a_text_converted_by_one_thread_is_served_from_the_cache_to_the_others(monkeypatch):
    # Each thread has grammars of its own (pyparsing's are not safe to share), but the hub's
    # threads answer one issue page in turn: the cache must serve what any of them converted.
    text = "Seen by one thread, then another: *bold* and [~ivanov] — 1d7e."
    worker = threading.Thread(target=to_html, args=(text,), kwargs={"users": USERS})
    worker.start()
    worker.join()
    calls = []
    monkeypatch.setattr(markup._Cache, "put", lambda self, *args: calls.append(args))
    assert "@Ivan Ivanov" in to_html(text, users=USERS)
    assert calls == []


def test_long_text_without_markup_converts_quickly():
    # Words and sentences are one token of the grammar (markup._Words), not one per character.
    text = "A long paragraph of words, with numbers 12 and 13, nothing else. " * 300
    assert to_text(text).startswith("A long paragraph")


@pytest.mark.parametrize("unit", ["[~", "{{", "!a|", "[a|", "*"])
def test_text_made_of_openings_is_shown_as_plain_text_once_it_costs_too_much(unit, monkeypatch):
    # Openings cost the grammar time quadratic in their number; past its deadline a text is
    # shown as the characters it is (escaped), and that answer is kept for the next reading.
    monkeypatch.setattr(markup, "SECONDS_PER_TEXT", 0.1)
    # (After a word: a line of "*" and a space is a list to Jira, read at once.)
    text = "x" + (unit * 2000)[:4000] + " <script>x</script>"
    rendered = to_html(text)
    assert rendered.startswith('<p class="plain">') and "&lt;script&gt;" in rendered
    assert to_markdown(text) == text and to_text(text) == text
    assert to_html("x" * (markup.MARKUP_LIMIT + 1)).startswith('<p class="plain">')  # past Jira's own limit


@pytest.mark.parametrize("snippet", [
    "…the card list of [[release]] 2.3 is slow, when the filter holds many values…",
    "e-mail [[sync]] at 10:30, 50% done; see AURORA-12 (and OTHER-7).",
    "a -strike- b [[x]]", "see (y) [[x]]", "h2. Title [[x]]", "1. item [[x]]", "x & y [[z]] <b>",
])
def test_a_snippet_without_markup_skips_the_grammar_and_reads_the_same(snippet):
    # The words-only path (markup._MAY_HOLD_MARKUP finds nothing) answers what the grammar would.
    marked = snippet.replace("[[", "\ue001").replace("]]", "\ue002")
    through_grammar = markup._text(marked).replace("\ue001", "[[").replace("\ue002", "]]")
    assert snippet_text(snippet) == " ".join(markup._CUT_MARKUP.sub(" ", through_grammar).split())


# -- Markdown in Jira's text is text: Jira shows it as typed ---------------------------------------

def test_a_markdown_link_in_jira_text_is_no_link():
    rendered = to_html("[click here](http://evil.example/phish)")
    assert "[click here](" in visible(rendered)
    assert not re.search(r"<a [^>]*>click here</a>", rendered), rendered  # the bare URL alone links, as in Jira


def test_a_markdown_mention_span_in_jira_text_is_no_mention():
    rendered = to_html("[Ivan Ivanov (admin)]{.mention}", users=USERS)
    assert "mention" not in rendered.replace("{.mention}", "")
    assert visible(rendered).strip() == "[Ivan Ivanov (admin)]{.mention}"


def test_a_markdown_attachment_span_in_jira_text_is_no_fetch_button():
    rendered = to_html("[fetch me]{.attachment-missing}", attachments=ATTACHMENTS)
    assert "<span" not in rendered and visible(rendered).strip() == "[fetch me]{.attachment-missing}"


def test_a_markdown_link_to_another_issues_attachment_is_no_link():
    for text in ("[x](/api/v1/attachments/70001/content)", "![x](/api/v1/attachments/70001/content)",
                 "[x](screen.png)", "![x](screen.png)"):
        rendered = to_html(text, attachments=ATTACHMENTS)
        assert "<a" not in rendered and "<img" not in rendered and "<span" not in rendered, rendered
        assert visible(rendered).strip() == text


def test_markdown_block_and_inline_syntax_in_jira_text_shows_as_typed():
    for text in ("1. first\n2) second", "> quoted", "title\n===", "+ plus", "#hashtag, no heading", "`code`",
                 "<http://example.org>", "x\\y", "a __b__ c"):
        rendered = to_html(text)
        assert re.fullmatch(r"<p>.*</p>\n", rendered, re.S), (text, rendered)
        assert visible(rendered).replace("\n", "") == text.replace("\n", ""), (text, rendered)
    # Indentation is no code block (HTML shows no indentation anyway).
    assert to_html("    four spaces in") == "<p>four spaces in</p>\n"
    assert to_markdown("1. first\n> quoted") == "1\\. first\n\\> quoted"


def test_jiras_own_links_mentions_and_attachments_still_render():
    rendered = to_html("See [the guide|http://docs.example.org/a_b] and [http://example.org/x], ask [~ivanov]: "
                       "!screen.png! [^worker.log] _italic_ x^2^ H~2~O", attachments=ATTACHMENTS, users=USERS)
    for expected in ('<a href="http://docs.example.org/a_b" rel="noopener noreferrer nofollow">the guide</a>',
                     '<a href="http://example.org/x" rel="noopener noreferrer nofollow">http://example.org/x</a>',
                     '<span class="mention">@Ivan Ivanov</span>',
                     '<img src="/api/v1/attachments/10001/content" alt="screen.png">',
                     '<a href="/api/v1/attachments/10003/content" rel="noopener noreferrer nofollow">worker.log</a>',
                     "<em>italic</em>", "x<sup>2</sup>", "H<sub>2</sub>O"):
        assert expected in rendered, expected


def test_text_copied_into_a_construct_cannot_close_it_to_make_a_link():
    target = "/api/v1/attachments/70001/content"
    for text in (f"{{{{a`[x]({target})`b}}}}", f"{{panel:title=[x]({target})}}body{{panel}}",
                 f"[a|http://x\\ [b]({target})]", f"[a|http://x> [b]({target})]", f"[^a> [b]({target})]",
                 f"!a> [b]({target})!", f"[x|javascript:alert(1)]({target})"):
        rendered = to_html(text, attachments=ATTACHMENTS)
        assert target not in re.findall(r'(?:href|src)="([^"]*)"', rendered), (text, rendered)


def test_past_the_answers_deadline_a_text_not_converted_before_is_plain_and_not_kept_as_too_costly(monkeypatch):
    import time

    text = "A text first read past its answer's budget: *bold* \u2014 5a9c."
    converted = []
    monkeypatch.setattr(markup, "transform", lambda *args: converted.append(args) or "")
    spent = time.thread_time() - 1
    assert to_html(text, deadline=spent) == f'<p class="plain">{html.escape(text)}</p>\n'
    assert to_markdown(text, deadline=spent) == text
    assert converted == []  # not even begun
    monkeypatch.undo()
    assert "<strong>bold</strong>" in to_html(text)  # the next answer converts it: nothing was kept
    assert "<strong>bold</strong>" in to_html(text, deadline=spent)  # and, converted once, it is served


def _calls(text: str) -> int:
    """The Python calls the grammar makes to convert ``text``: the work it does, the same on any machine."""
    import sys

    from hub.services.markup.wiki_grammar import Context, transform

    made = 0

    def count(frame, event, arg):
        nonlocal made
        made += event == "call"

    sys.setprofile(count)
    try:
        transform(markup._converters.html_markdown, text, Context(lambda login: None))
    finally:
        sys.setprofile(None)
    return made


@pytest.mark.parametrize("unit", ["[", "[~", "[^", "[a|", "[mailto:"])
def test_a_text_of_brackets_costs_work_linear_in_its_length(unit):
    # jira2markdown's links scanned, from each "[", every character to the text's end in Python:
    # a kilobyte of "[" cost seconds, twice as much text four times the time.
    once, twice = _calls(unit * (300 // len(unit))), _calls(unit * (600 // len(unit)))
    assert twice < 2.3 * once, (once, twice)


@pytest.mark.parametrize("unit", ["*a ", "-a ", "+a ", "_a ", "??a ", "{color:red}a"])
def test_a_line_of_text_effects_costs_work_linear_in_its_length(unit):
    # From each opening whose every later token follows a space, jira2markdown's scan for the
    # closing one tried each character to the line's end in Python (hub/services/markup/wiki_effects.py).
    once, twice = _calls(unit * (300 // len(unit))), _calls(unit * (600 // len(unit)))
    assert twice < 2.3 * once, (once, twice)


def test_jiras_backslash_escapes_show_as_the_characters_on_the_hub():
    # Jira's BackslashEscapeRendererComponent: "\X" is X for its escapable characters, and a
    # backslash after a backslash escapes nothing ("\\" is a line break).
    assert to_html(r"\*not bold\* \[no link\] \{x\} \-no strike\- \(y)") == \
        "<p>*not bold* [no link] {x} -no strike- (y)</p>\n"
    assert to_html("a\\\\b") == "<p>a<br>\nb</p>\n"
    assert to_html(r"keep \d and \n") == "<p>keep \\d and \\n</p>\n"
    assert to_html(r"{{\*args\} &#123;x&#125;}}") == "<p><code>*args} {x}</code></p>\n"  # monospace too


def test_jiras_braced_effects_show_as_the_effects_on_the_hub():
    assert to_html("word{*}bold{*}word 2{_}3{_}4 x{-}y{-}z H{~}2{~}O x{^}2{^} {+}u{+}nder") == (
        "<p>word<strong>bold</strong>word 2<em>3</em>4 x<s>y</s>z H<sub>2</sub>O x<sup>2</sup> "
        '<span class="underline">u</span>nder</p>\n')
    assert to_html("{*} {*}") == "<p>{<strong>} {</strong>}</p>\n"  # no text between: Jira's bold of "} {"
    assert to_markdown("word{*}bold{*}word and 2{_}3{_}4") == "word**bold**word and 2*3*4"


def test_lists_nest_and_mix_to_any_depth_and_hold_their_lines_and_code_as_jira_reads_them():
    rendered = to_html("* one\n** two\n**# three\n**#* four\n*bold* goes on two\n* five")
    assert re.sub(r"\s+", "", rendered) == (
        "<ul><li>one<ul><li>two<ol><li>three<ul><li>four<br><strong>bold</strong>goesontwo</li></ul></li></ol>"
        "</li></ul></li><li>five</li></ul>")
    # Jira renders macros before blocks: a code block (blank lines and all) is part of its item.
    rendered = to_html("# run\n{code}\nx = 1\n\n* y\n{code}\n# check")
    assert re.sub(r"\s+", " ", rendered) == (
        "<ol> <li> <p>run</p> <pre><code>x = 1 * y </code></pre> </li> <li> <p>check</p> </li> </ol> ")
    # Markdown's heading is Jira's numbered list; "--" opens none; an item's text opens no list.
    assert to_html("### not a heading") == "<ol>\n<li>not a heading</li>\n</ol>\n"
    assert to_html("-- not a list") == "<p>\u2013 not a list</p>\n"
    assert "<li>* * not nested</li>" in to_html("* * * not nested")

