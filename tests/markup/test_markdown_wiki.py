"""Markdown bodies of writes as Jira wiki markup (hub/services/markup/markdown_wiki.py): each construct
becomes Jira's own, text is escaped only where Jira would read it as markup, wiki bodies pass byte for
byte, and the hub's wiki renderer shows the converted text with the structure Markdown gives it.
"""

from __future__ import annotations

import random
import re
import time
from html.parser import HTMLParser

import pytest
from markdown_it import MarkdownIt

from hub.services.markup.convert import to_html
from hub.services.markup.markdown_wiki import FORMATS, body, to_wiki
from hub.services.markup.wiki_phrases import effect_pairs

CONSTRUCTS = {
    "headings": ("# One\n\n## Two\n\n###### Six", "h1. One\n\nh2. Two\n\nh6. Six"),
    "setext heading": ("Title\n=====", "h1. Title"),
    "paragraphs": ("First.\n\nSecond.", "First.\n\nSecond."),
    "emphasis and strong": ("*em* _em_ **strong** __strong__", "_em_ _em_ *strong* *strong*"),
    "strikethrough": ("~~gone~~", "-gone-"),
    "nested effects": ("***both*** and **`code` inside**", "_*both*_ and *{{code}} inside*"),
    "inline code": ("run `ti build -h` now", "run {{ti build -h}} now"),
    "fenced code": ("```python\nx = {'a': 1}\n```", "{code:python}\nx = {'a': 1}\n{code}"),
    "fenced code of an alias": ("```js\nlet a;\n```", "{code:javascript}\nlet a;\n{code}"),
    "fence of a language Jira does not know": ("```rust\nfn main() {}\n```", "{noformat}\nfn main() {}\n{noformat}"),
    "fence without a language": ("```\n*raw* [text]\n```", "{noformat}\n*raw* [text]\n{noformat}"),
    "indented code": ("    indented\n    code", "{noformat}\nindented\ncode\n{noformat}"),
    "link": ("[the guide](https://docs.example.org/a_b)", "[the guide|https://docs.example.org/a_b]"),
    "link without text": ("[](https://x.org)", "[https://x.org]"),
    "link with markup": ("[**bold** guide](https://x.org)", "[*bold* guide|https://x.org]"),
    "autolinks": ("<https://x.org/a> <me@x.org>", "[https://x.org/a] [mailto:me@x.org]"),
    "bare url": ("see https://x.org/_a_/b-c-", "see https://x.org/_a_/b-c-"),
    "image": ("![alt](https://img.example/a.png)", "!https://img.example/a.png!"),
    "bullet list nested": ("- one\n  - two\n    - three\n- four", "* one\n** two\n*** three\n* four"),
    "ordered list nested": ("1. one\n   1. two\n2. three", "# one\n## two\n# three"),
    "mixed lists": ("1. one\n   - sub\n2. two", "# one\n#* sub\n# two"),
    "task list": ("- [x] done\n- [ ] todo", "* ☑ done\n* ☐ todo"),
    "blockquote": ("> quoted *text*\n> more\n\nafter", "{quote}\nquoted _text_\nmore\n{quote}\n\nafter"),
    "nested blockquote": ("> outer\n>\n> > inner", "{quote}\nouter\n\ninner\n{quote}"),
    "rule": ("a\n\n---\n\nb", "a\n\n----\n\nb"),
    "table": ("| a | b |\n|---|:-:|\n| 1 | *2* |\n| | x |", "||a||b||\n|1|_2_|\n| |x|"),
    "hard breaks": ("one  \ntwo\\\nthree", "one\ntwo\nthree"),
    "breaks in a list item": ("- one\n  two  \n  three", "* one\\\\ two\\\\ three"),
    "loose list item": ("- first\n\n  second\n- next", "* first\nsecond\n* next"),
    "code and quote in a list item": ("1. run\n\n   ```sh\n   make\n   ```\n\n   > note\n2. `{x}` next",
                                      "# run\n{code:bash}\nmake\n{code}\n{quote}\nnote\n{quote}\n"
                                      "# {{&#123;x&#125;}} next"),
    "a list item opening with code": ("- ```\n  x\n  ```", "* \n{noformat}\nx\n{noformat}"),
    "a table in a list item": ("- a\n\n  | t |\n  |---|\n- b", "* a\n\n||t||\n\n* b"),
    "mention": ("@ivanov please look", "@ivanov please look"),
    "raw html is text": ("<b>html</b> &amp; &copy;", "<b>html</b> & ©"),
}


@pytest.mark.parametrize("name", sorted(CONSTRUCTS))
def test_each_markdown_construct_becomes_its_jira_wiki_markup(name):
    markdown, wiki = CONSTRUCTS[name]
    assert to_wiki(markdown) == wiki


ESCAPED = {
    "effects Jira would pair": (r"\*a\* \_b\_ \-c- +d+ ^e^ ~f~ ??g??", r"\*a\* \_b\_ \-c\- \+d\+ \^e\^ \~f\~ \??g\??"),
    "a link's and a macro's openings": ("not [a link] nor {macro} nor [ this] nor []",
                                        r"not \[a link] nor \{macro} nor [ this] nor []"),
    "monospace's opening": ("not {{code}}", r"not &#123;\{code}}"),
    "an image's opening": ("!not image! but !a! !wow! !)abcde! wow!!", r"\!not image! but !a! !wow! !)abcde! wow!!"),
    "emoticons": ("(y) (on) :) ;) :P, f(x) = 2 and (i)th", r"\(y) \(on) :\) ;\) &#58;P, f\(x) = 2 and (i)th"),
    "a heading's or a quote's word at a line's start": ("h1. no heading\nbq. no quote",
                                                        "&#104;1. no heading\n&#98;q. no quote"),
    "dashes": ("a -- b --- c", r"a \-- b \--- c"),
    "a list's marks at a line's start": ("\\* not\n\\- bullets\n\\# here", "\\* not\n\\- bullets\n\\# here"),
    "a table's bar at a line's start": ("\\| not a cell", "\\| not a cell"),
    "a bar in a cell and in a link's text": ("| a\\|b |\n|---|\n\n[x\\|y\\]](https://x.org)",
                                             "||a&#124;b||\n\n[x&#124;y&#93;|https://x.org]"),
    "an entity typed as text": ("\\&copy;", "&amp;copy;"),
    "a backslash before an escapable character": ("C:\\\\dir\\\\\\*x", "C:\\dir&#92;*x"),
    "braces in monospace": ("`{a}` and `}}`", "{{&#123;a&#125;}} and {{&#125;&#125;}}"),
    "an effect's braced form typed as text": ("{*}x{*} {??}y{??}", "&#123;_}x&#123;_} &#123;\\??}y&#123;\\??}"),
    "a code block holding its closing macro": ("```\nuse {noformat} here\n```",
                                               "{code}\nuse {noformat} here\n{code}"),
}


@pytest.mark.parametrize("name", sorted(ESCAPED))
def test_text_jira_would_read_as_markup_is_escaped(name):
    markdown, wiki = ESCAPED[name]
    assert to_wiki(markdown) == wiki


@pytest.mark.parametrize("text", [
    "snake_case_name and well-known and C++ and a - b and 5 * 3 and 2-3-4",
    "Hi! How are you! (maybe) [just {one",
    "under_score_ end and x^2 and 50% off @ noon",
    "path/to/file.txt: 1. first",
    "C:\\dir\\file and a\\b",
])
def test_text_jira_would_not_read_as_markup_is_left_as_typed(text):
    assert to_wiki(text) == text


def _jiras_effect_pattern(mark: str) -> re.Pattern[str]:
    # Jira's own (PhraseRendererComponent.makePattern), its Unicode classes narrowed to ASCII.
    token, braced = re.escape(mark), re.escape("{" + mark + "}")
    content = rf"[^\s{token}](?:(?!{token})[^\x00-\x1f\x7f]*?[^\s{token}])??"
    return re.compile(rf"(?:(?<![^\W_]|\\){token}|{braced})({content})(?<!\\)(?:{token}(?![^\W_])|{braced})")


@pytest.mark.parametrize("mark", ["*", "_", "-", "??"])
def test_effects_are_paired_as_jiras_own_pattern_pairs_them(mark):
    pattern = _jiras_effect_pattern(mark)
    chance = random.Random(35)
    for _ in range(3000):
        text = "".join(chance.choice(["a", "1", " ", mark, mark, "{", "}", "\\", "\n", "\t", ".", ";", "?"])
                       for _ in range(chance.randrange(1, 24)))
        assert effect_pairs(text, mark) == [(found.start(), found.end(1)) for found in pattern.finditer(text)], text


def test_a_long_line_of_openings_is_escaped_in_linear_time():
    started = time.process_time()
    # Some 0.3 s each; each took seconds when effects were paired by Jira's own expression.
    for text in ("*a " * 10_000, "x *y _z -w +v ^u ~t ??s [r {q !p " * 1_000, "*a* " * 8_000, "`a` " * 8_000):
        to_wiki(text)
    assert to_wiki("\\*a\\* " * 8_000).count("\\") == 16_000
    assert time.process_time() - started < 8


def test_an_effect_inside_a_word_uses_jiras_braced_form():
    assert to_wiki("word**bold**word and 2*3*4 and x~~y~~z") == "word{*}bold{*}word and 2{_}3{_}4 and x{-}y{-}z"


# Bodies as real Jira Server instances hold them (comments and descriptions of Appcelerator's
# archived Jira, short cuts), CRLF line ends and all.
REAL_WIKI = [
    "*Note:* To create a watch OS 2 and titanium Project, follow these steps:\r\n1. Create a new project",
    "[~cng] Here's all you need to do:\r\n\r\n1. Create a new project: {{ti create --type app --name foo}}",
    "h6.Issue Description\r\nWhen using the method Ti.App.setForceSplashAsSnapshot(true); either multitasking",
    "Verified as fixed:\r\n\r\n{code:java}\r\n[ERROR] :  appcel resp:{\"success\":true,\"code\":0}\r\n{code}\r\n",
    "Latest updated [docs|https://developer.apple.com/library/prerelease/ios/documentation/Xcode/] from Apple.",
    "- JavascriptCore does not have full ES6 module support\r\n\r\n*TEST CASE*\r\n{code:js}\r\n// TODO\r\n{code}",
    "Following your guide cause this\r\n\r\n!https://d3vv6lp55qjaqc.cloudfront.net/items/Bild%202016.png!",
    "Areas of Focus will be:\r\n* Titanium\r\n* Alloy\r\n* Arrow (should work now with Node 4.x+ support)",
    "\n\n*** This bug has been marked as a duplicate of 4105 ***",
    "A title with _snake_case_ and \\[escapes\\] and trailing spaces  \r\n",
]


@pytest.mark.parametrize("text", REAL_WIKI)
def test_wiki_bodies_from_real_jira_pass_through_byte_for_byte(text):
    assert body(text) == text
    assert body(text, "wiki") == text
    assert body(text, "wiki").encode() == text.encode()


def test_a_markdown_body_is_converted_and_an_unknown_format_is_refused():
    assert FORMATS == ("wiki", "markdown")
    assert body("**done**", "markdown") == "*done*"
    with pytest.raises(ValueError, match="html"):
        body("<b>x</b>", "html")


# -- the hub's renderer shows the converted text with Markdown's structure ----------------------

_VOID = {"br", "hr", "img"}


class _Shape(HTMLParser):
    """HTML as its tags (headings of any level alike: the page demotes a body's) and its words."""

    def __init__(self) -> None:
        super().__init__()
        self.out: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.out.append("<h>" if re.fullmatch(r"h[1-6]", tag) else f"<{tag}>")

    def handle_endtag(self, tag):
        if tag not in _VOID:
            self.out.append("</h>" if re.fullmatch(r"h[1-6]", tag) else f"</{tag}>")

    def handle_data(self, data):
        if data.split():
            self.out.append(" ".join(data.split()))


def _shape(rendered: str) -> list[str]:
    parser = _Shape()
    parser.feed(rendered)
    parser.close()
    return parser.out


# Line breaks are line breaks (as the conversion keeps them); GitHub's tables and strikethrough.
_MARKDOWN = MarkdownIt("commonmark", {"html": False, "breaks": True}).enable(["table", "strikethrough"])

SAMPLES = [
    "# Release notes\n\nSome *emphasis*, **strong**, ~~struck~~ and `code` text.",
    "## Steps\n\n1. Open the *settings* page\n2. Click **Save** and see [the docs](https://example.org/docs)\n"
    "3. Check the log\n\nExpected: it works.",
    "- one\n- two\n  - nested **bold**\n  - more\n    1. deep\n       - deeper\n- three\n\n1. first\n2. second\n"
    "   - sub\n   - sub two",
    "1. run this:\n\n   ```sh\n   make all\n\n   make test\n   ```\n\n   then *check*\n2. done\n   > with a note",
    "> quoted *text*\n> more\n\nafter the quote",
    "```python\ndef f(x):\n    return {'a': x * 2}\n```\n\n```\nplain *text* [x]\n```\n\n---\n\nend",
    "| Component | Version |\n|---|---|\n| Studio | *4.1.0* |\n| SDK | `5.0.0.GA` |\n| a\\|b | |",
    "line one  \nline two\\\nline three\nline four",
    "not [a link] nor {macro} nor !an image! nor \\*bold\\* nor -strike- nor (y) :) nor a -- b",
    "C:\\\\dir\\\\\\*x and snake_case_name and a - b and 5 * 3 and C++ and well-known",
    "\\* not a bullet\n\\- nor this\n\\| nor a table\nh2. nor a heading\nbq. nor a quote :P",
    "***both*** and **`code` inside** and _emphasis with [a link](https://x.org)_",
    "Mixed: `*args` and `{a}` and **strong, _nested_, done**.",
    "word**bold**word and 2*3*4 and x~~y~~z, and as typed: {*}x{*} and {x}",
]


@pytest.mark.parametrize("markdown", SAMPLES)
def test_markdown_and_its_wiki_render_to_the_same_structure_on_the_hub(markdown):
    wiki = to_wiki(markdown)
    assert _shape(to_html(wiki)) == _shape(_MARKDOWN.render(markdown)), wiki

