"""Jira's wiki markup as Markdown, as sanitised HTML and as plain text.

Three maintained libraries, each doing what it is made for:

- jira2markdown (a pyparsing grammar of Jira's markup) turns wiki text into
  Markdown. Where the hub wants something else than its defaults, an element of
  its own grammar is replaced (``MarkupElements.replace``/``insert_after``):
  mentions by Jira Server's login names (e-mail addresses too) shown with the
  display name the users catalogue knows, bare URLs as autolinks, emoticons,
  ``{code}`` without a language, and for HTML the constructs Markdown has no
  syntax for (underline, citations, colours, mentions) as attribute spans.
- markdown-it-py (CommonMark, raw HTML disabled: Jira's ``<b>`` is text, as Jira
  shows it) with tables and strikethrough, and mdit-py-plugins for ``^sup^``,
  ``~sub~`` and ``[text]{.class}`` spans, turns that Markdown into HTML; its
  render rules place images from the mirrored attachments.
- nh3 (Ammonia) sanitises the HTML with an allow-list of tags, attributes,
  classes and URL schemes (http, https, mailto, and the hub's own attachment
  content path), so that nothing Jira's text holds can ever run script.

The grammars are built once per thread (pyparsing elements keep parse state),
and what a text names (its mentions, its images) is looked up through the
context of the one conversion under way.
"""

from __future__ import annotations

import html
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

import nh3
from jira2markdown.elements import MarkupElements
from jira2markdown.markup.advanced import Code, Noformat, Panel
from jira2markdown.markup.base import AbstractMarkup
from jira2markdown.markup.headings import Headings
from jira2markdown.markup.images import Image
from jira2markdown.markup.links import Mention, Url
from jira2markdown.markup.tables import Table
from jira2markdown.markup.text_breaks import Ruler
from jira2markdown.markup.text_effects import BlockQuote, Color, InlineQuote, Subscript, Superscript, Underline
from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from mdit_py_plugins.attrs import attrs_plugin
from mdit_py_plugins.subscript import sub_plugin
from mdit_py_plugins.superscript import superscript_plugin
from pyparsing import (
    CaselessLiteral,
    Combine,
    Forward,
    LineEnd,
    LineStart,
    Optional,
    ParseBaseException,
    ParseException,
    ParserElement,
    ParseResults,
    PrecededBy,
    Regex,
    SkipTo,
    StringEnd,
    StringStart,
    Token,
    White,
    Word,
    printables,
)

# jira2markdown's grammar reads whitespace itself (its convert() sets this too).
ParserElement.set_default_whitespace_chars("")

#: Where the page fetches an attachment's content (the CSP's ``img-src 'self'``).
CONTENT_PATH = "/api/v1/attachments/{id}/content"

# Characters of Unicode's private use area that the conversion uses as
# placeholders (line breaks in table cells, a snippet's match markers); taken
# out of Jira's text first, so that no text can forge one.
_CELL_BREAK, _MARK_OPEN, _MARK_CLOSE = "\ue000", "\ue001", "\ue002"
_PLACEHOLDERS = str.maketrans("", "", _CELL_BREAK + _MARK_OPEN + _MARK_CLOSE)

# Jira's emoticons as the characters Jira's own images show.
EMOTICONS = {
    ":)": "🙂", ":(": "🙁", ":P": "😛", ":p": "😛", ":D": "😀", ";)": "😉",
    "(y)": "👍", "(n)": "👎", "(i)": "\u2139\ufe0f", "(/)": "✅", "(x)": "❌", "(!)": "⚠️",
    "(?)": "❓", "(+)": "\u2795", "(-)": "\u2796", "(on)": "💡", "(off)": "💡", "(*)": "⭐",
    "(*r)": "⭐", "(*g)": "⭐", "(*b)": "⭐", "(*y)": "⭐", "(flag)": "🚩", "(flagoff)": "🏳️",
}

# Jira's colours by name, and the hex values of its editor's palette, as the
# page's classes (``jira-color-…`` in app.css): the CSP forbids style attributes,
# and any other colour is dropped (its text stays).
_COLOR_NAMES = ("red", "green", "blue", "orange", "purple", "grey", "yellow", "pink", "brown", "teal", "black",
                "white")
COLORS: dict[str, str] = {name: name for name in _COLOR_NAMES} | {
    "gray": "grey", "navy": "blue", "maroon": "red", "olive": "green", "lime": "green", "aqua": "teal",
    "cyan": "teal", "fuchsia": "pink", "magenta": "pink", "silver": "grey", "darkred": "red",
    "darkgreen": "green", "darkblue": "blue", "#d04437": "red", "#ff0000": "red", "#14892c": "green",
    "#00ff00": "green", "#008000": "green", "#205081": "blue", "#0000ff": "blue", "#3b73af": "blue",
    "#59afe1": "blue", "#f79232": "orange", "#ff9900": "orange", "#654982": "purple", "#800080": "purple",
    "#707070": "grey", "#999999": "grey", "#cccccc": "grey", "#333333": "black", "#000000": "black",
    "#f6c342": "yellow", "#ffff00": "yellow", "#f691b2": "pink", "#8eb021": "green", "#ffffff": "white",
    "#815b3a": "brown",
}

# The classes the HTML may carry: the spans below, and a fence's language.
SPAN_CLASSES = frozenset({"underline", "citation", "mention", "attachment-missing", "attachment-file",
                          *(f"jira-color-{name}" for name in _COLOR_NAMES)})
_LANGUAGE_CLASS = re.compile(r"language-[A-Za-z0-9#+_-]{1,40}")
_SAFE_SCHEMES = ("http://", "https://", "mailto:")
_ATTACHMENT_URL = re.compile(r"/api/v1/attachments/[1-9][0-9]{0,17}/content")
_ALLOWED_TAGS = {
    "p", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "strong", "em", "s", "sup", "sub", "code", "pre",
    "blockquote", "ul", "ol", "li", "table", "thead", "tbody", "tr", "th", "td", "a", "img", "span",
}
_ALLOWED_ATTRIBUTES = {
    "a": {"href", "title"}, "img": {"src", "alt", "width", "height"}, "ol": {"start"},
    "th": {"style"}, "td": {"style"}, "span": {"class", "data-attachment-id"}, "code": {"class"},
}
# The only style a table cell keeps: its alignment (markdown-it writes it so), which the page
# does not apply (the CSP's style-src 'self' ignores style attributes) but costs nothing.
_CELL_STYLE = re.compile(r"text-align:(left|right|center)")


@dataclass(frozen=True)
class AttachmentRef:
    """An attachment an image or ``[^file]`` in the text may name: its id, whether its
    content is in the hub's store (``ready``), and its type."""

    attachment_id: str
    ready: bool
    mime_type: str | None = None


@dataclass
class _Context:
    names: Callable[[str], str | None]
    attachments: Mapping[str, AttachmentRef] = field(default_factory=dict)
    shown: dict[str, str | None] = field(default_factory=dict)  # the names the mentions were shown with
    # time.thread_time() past which the conversion gives up: the CPU time of the thread that
    # converts, so that other work on the machine does not make a text too costly.
    deadline: float = float("inf")


class TooCostly(Exception):
    """A text whose conversion ran past its deadline (see _Deadline)."""


_context: ContextVar[_Context] = ContextVar("markup_context")


def _display(login: str) -> str:
    context = _context.get(None)
    if context is None:
        return login
    name = context.shown[login] = context.names(login)
    return name or login


def _escape(text: str) -> str:
    """Text as Markdown that reads as the same characters."""
    return "".join(f"\\{char}" if char in _MD_PUNCTUATION else char for char in text)


# The characters that start or end Markdown's inline constructs (and a table's cells).
_MD_PUNCTUATION = frozenset("\\`*_[]<>~^|{}!")


# -- jira2markdown elements of the hub's own ----------------------------------------------------

class _Mention(Mention):
    """``[~login]`` (and ``[~accountid:…]``): Jira Server's logins hold dots and ``@``, which the
    library's mention does not; shown as ``@`` and the user's display name."""

    def action(self, tokens: ParseResults) -> str:
        return f"@{_escape(_display(tokens.login))}"

    @property
    def expr(self) -> ParserElement:
        return Combine("[~" + Optional(CaselessLiteral("accountid:")).suppress()
                       + Word(printables, exclude_chars="[]|~").set_results_name("login") + "]"
                       ).set_parse_action(self.action)


class _HtmlMention(_Mention):
    def action(self, tokens: ParseResults) -> str:
        return f"[@{_escape(_display(tokens.login))}]{{.mention}}"


class _Url(Url):
    """A bare URL as an autolink, without the punctuation that ends the sentence it is in."""

    def action(self, tokens: ParseResults) -> str:
        url = tokens[0]
        trimmed = url.rstrip(".,;:!?)'\"")
        # A ")" that closes one opened in the URL belongs to it (Wikipedia's links).
        while trimmed != url and url[len(trimmed)] == ")" and trimmed.count("(") > trimmed.count(")"):
            trimmed += ")"
        return f"<{trimmed}>{url[len(trimmed):]}"

    @property
    def expr(self) -> ParserElement:
        return Regex(r"(https?|ftp)://[^\s|<>\[\]{}\"]+", flags=re.IGNORECASE).set_parse_action(self.action)


class _DeadlineCheck(Token):
    """Matches nothing; tried first at every position of the text (and of every part an
    element converts again), it stops a conversion that has run past its deadline.

    jira2markdown's grammar looks ahead to the end of the text from every opening it
    tries (``[``, ``{{``, ``!``…), so text made of openings costs time quadratic in its
    length: 500 characters of ``[~`` take seconds. Anyone who can comment in Jira writes
    that text; such a text is shown as plain text instead (see _plain_html)."""

    def __init__(self) -> None:
        super().__init__()
        self.mayReturnEmpty = True
        self.mayIndexError = False
        self.errmsg = "not past the deadline"

    def parseImpl(self, instring, loc=0, do_actions=True):
        context = _context.get(None)
        if context is not None and time.thread_time() > context.deadline:
            raise TooCostly
        raise ParseException(instring, loc, self.errmsg, self)


class _Deadline(AbstractMarkup):
    @property
    def expr(self) -> ParserElement:
        return _DeadlineCheck()


class _Words(AbstractMarkup):
    """A run of letters, digits and spaces within a line, copied as it is.

    The grammar is tried at every position of the text, each of its elements in
    turn, which costs about a millisecond a character; no element starts inside
    such a run (a URL's scheme stops it; a line's start, where headings and lists
    are, is never in one), so taking it whole first makes the conversion some
    tens of times faster and changes nothing it makes."""

    @property
    def expr(self) -> ParserElement:
        not_url = r"(?!(?i:https?|ftp)://)"
        return Regex(rf"(?:(?<=[^\n])|(?!h[1-6]\.|bq\.)){not_url}[^\W_](?:{not_url}[^\W_]|[ \t.,'\"/=&%$@])*")


class _Ruler(AbstractMarkup):
    """``----`` alone on its line: a rule, set apart from the line above (which Markdown would
    otherwise read as a heading underlined)."""

    is_inline_element = False

    @property
    def expr(self) -> ParserElement:
        return (LineStart() + Regex(r"[ \t]*-{4,}[ \t]*(?=\n|$)")).set_parse_action(lambda: "\n\n----\n")


class _Emoticon(AbstractMarkup):
    """Jira's emoticons (``:)``, ``(y)``, ``(!)``…) as Unicode characters, where they stand
    alone (``f(x)`` keeps its ``x``)."""

    @property
    def expr(self) -> ParserElement:
        words = sorted(EMOTICONS, key=len, reverse=True)
        pattern = "|".join(re.escape(word) for word in words)
        return (StringStart() | PrecededBy(Regex(r"[\s(\[>]"), retreat=1)) + Regex(
            rf"(?:{pattern})(?![\w])").set_parse_action(lambda tokens: EMOTICONS[tokens[0]])


def _fence(text: str, language: str = "") -> str:
    """A fenced block longer than any run of backticks in it, so that none can close it."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    ticks = "`" * max(3, longest + 1)
    return f"\n{ticks}{language}\n{text}\n{ticks}\n"


class _Code(Code):
    """``{code}`` with no language is no language (the library says Java)."""

    def action(self, tokens: ParseResults) -> str:
        return _fence(tokens.text.strip("\n"), tokens.lang or "")


class _Noformat(Noformat):
    def action(self, tokens: ParseResults) -> str:
        return _fence(tokens.text.strip("\n"))


class _BlockQuote(BlockQuote):
    """``{quote}`` as a quote block of its own, also when it opens and closes within one line
    of text (the rest of the text stays outside it)."""

    def action(self, tokens: ParseResults) -> str:
        return "\n\n" + super().action(tokens) + "\n\n"


class _Panel(Panel):
    """``{panel}`` as a quote block set apart from the text after it (Markdown would take the
    next line into the quote)."""

    def action(self, tokens: ParseResults) -> str:
        return "\n\n" + super().action(tokens) + "\n\n"


class _Color(Color):
    """``{color:x}text{color}``: the text alone (Markdown has no colour)."""

    def colour(self, tokens: ParseResults) -> str | None:
        return COLORS.get(str(tokens.get("color", "")).strip().lower())

    def action(self, tokens: ParseResults) -> str:
        return self.inline_markup.transform_string(tokens.text)

    @property
    def expr(self) -> ParserElement:
        # Any colour value (a hostile one included) ends at its "}": the value chooses a class or nothing.
        return Combine("{color" + Optional(":" + SkipTo("}").set_results_name("color")) + "}"
                       + SkipTo("{color}").set_results_name("text") + "{color}").set_parse_action(self.action)


class _HtmlColor(_Color):
    def action(self, tokens: ParseResults) -> str:
        text = super().action(tokens)
        colour = self.colour(tokens)
        return f"[{text}]{{.jira-color-{colour}}}" if colour and text.strip() else text


def _spaces_escaped(text: str) -> str:
    # mdit-py-plugins' sup and sub take no unescaped space.
    return text.replace(" ", "\\ ")


class _HtmlSuperscript(Superscript):
    QUOTE_CHAR, END_QUOTE_CHAR = "^", "^"

    def action(self, tokens: ParseResults) -> str:
        return f"^{_spaces_escaped(self.inline_markup.transform_string(tokens[0]))}^"


class _HtmlSubscript(Subscript):
    def action(self, tokens: ParseResults) -> str:
        return f"~{_spaces_escaped(self.inline_markup.transform_string(tokens[0]))}~"


class _HtmlUnderline(Underline):
    def action(self, tokens: ParseResults) -> str:
        return f"[{self.inline_markup.transform_string(tokens[0])}]{{.underline}}"


class _HtmlCitation(InlineQuote):
    def action(self, tokens: ParseResults) -> str:
        return f"[{self.inline_markup.transform_string(tokens[0])}]{{.citation}}"


class _Headings(Headings):
    """``h1. Title``, and ``h1.Title`` too: Jira reads a heading without the space."""

    @property
    def expr(self) -> ParserElement:
        return (LineStart() + Optional(White()) + Combine(
            Word("h", "123456", exact=2).set_results_name("level") + "." + Optional(White(" \t")).suppress()
            + SkipTo(LineEnd() | StringEnd()).set_results_name("text")).set_parse_action(self.action))


class _Table(Table):
    """A table whose cells' line breaks are kept as a placeholder (Markdown's cells are one
    line; the library writes an HTML ``<br>``, which raw-HTML-free rendering would show)."""

    def action(self, tokens: ParseResults) -> str:
        rows = [row for row in tokens if len(row) > 0]
        columns = max(len(row) for row in tokens)
        output = ["|" + "|".join(self.markup.transform_string(cell).strip().replace("\n", _CELL_BREAK)
                                 .replace("|", "\\|") for cell in row) + "|" for row in rows]
        output[0] += "|" * (columns - len(rows[0]))
        output.insert(1, "|" + "---|" * max(columns, 1))
        return "\n" + "\n".join(output) + "\n"


class _Image(Image):
    """``!file.png!`` and ``!file.png|thumbnail!``: an image named by its file (the width and
    height Jira may give are not kept: the page sizes images itself)."""

    def action(self, tokens: ParseResults) -> str:
        name = tokens.url.strip()
        return f"![{_escape(name)}](<{name}>)"


def _elements(*, for_html: bool) -> MarkupElements:
    elements = MarkupElements()
    elements.replace(Mention, _HtmlMention if for_html else _Mention)
    elements.replace(Url, _Url)
    elements.remove(Ruler)
    elements.insert(0, _Ruler)
    elements.insert(0, _Words)
    elements.insert(0, _Deadline)
    elements.replace(Code, _Code)
    elements.replace(Noformat, _Noformat)
    elements.replace(BlockQuote, _BlockQuote)
    elements.replace(Panel, _Panel)
    elements.replace(Color, _HtmlColor if for_html else _Color)
    elements.replace(Image, _Image)
    elements.replace(Table, _Table)
    elements.replace(Headings, _Headings)
    # Before the text effects, so that "(-)" is a minus sign and not a strike's opening.
    elements.insert_after(_Image, _Emoticon)
    if for_html:
        elements.replace(Superscript, _HtmlSuperscript)
        elements.replace(Subscript, _HtmlSubscript)
        elements.replace(Underline, _HtmlUnderline)
        elements.replace(InlineQuote, _HtmlCitation)
    return elements


class _LookBehind(PrecededBy):
    """pyparsing's PrecededBy, whose look-behind of a variable width builds a new expression
    (``expr + StringEnd()``) at each position it is tried: two thirds of the conversion's time.
    Built once here; it matches exactly as before."""

    def parseImpl(self, instring, loc=0, do_actions=True):
        if self.exact:
            return super().parseImpl(instring, loc, do_actions)
        test = self.__dict__.get("_test")
        if test is None:
            test = self.__dict__["_test"] = self.expr + StringEnd()
        window = instring[max(0, loc - self.retreat):loc]
        failure: ParseBaseException = ParseException(instring, loc, self.errmsg, self)
        for offset in range(1, min(loc, self.retreat + 1) + 1):
            try:
                _, found = test._parse(window, len(window) - offset)
            except ParseBaseException as error:
                failure = error
            else:
                return loc, found
        raise failure


def _faster(grammar: ParserElement) -> None:
    """Every PrecededBy of ``grammar`` made a :class:`_LookBehind`."""
    seen: set[int] = set()
    todo = [grammar]
    while todo:
        element = todo.pop()
        if id(element) in seen:
            continue
        seen.add(id(element))
        if type(element) is PrecededBy:
            element.__class__ = _LookBehind
        todo.extend(getattr(element, "exprs", ()))
        inner = getattr(element, "expr", None)
        if isinstance(inner, ParserElement):
            todo.append(inner)


def _grammar(elements: MarkupElements) -> Forward:
    # As jira2markdown.convert builds it, once: usernames are looked up through _context.
    inline_markup, markup = Forward(), Forward()
    inline_markup <<= elements.expr(inline_markup, markup, {}, [e for e in elements if e.is_inline_element])
    markup <<= elements.expr(inline_markup, markup, {}, elements)
    _faster(markup)
    return markup


# -- markdown-it: Markdown to HTML -----------------------------------------------------------------

def _demoted_heading(renderer: RendererHTML, tokens, idx, options, env) -> str:
    # A description's "h1." sits under the page's own headings (the h1, the section's h2).
    token = tokens[idx]
    level = min(6, int(token.tag[1]) + 2)
    return f"<h{level}>" if token.nesting == 1 else f"</h{level}>\n"


def _image(renderer: RendererHTML, tokens, idx, options, env) -> str:
    """An image the text names by its file: the mirrored attachment's content when it is in
    the store; a placeholder carrying its id (the page's Fetch button) when it is not; the name
    alone when the issue has no such attachment (an image from elsewhere: the CSP allows none)."""
    token = tokens[idx]
    name = str(token.attrGet("src") or "")
    alt = html.escape(renderer.renderInlineAsText(token.children or [], options, env) or name)
    found = env.get("attachments", {}).get(name)
    if found is None:
        if name.lower().startswith(_SAFE_SCHEMES[:2]):
            url = html.escape(name)
            return f'<a href="{url}">{alt}</a>'
        return f'<span class="attachment-file">{alt}</span>'
    if found.ready:
        src = CONTENT_PATH.format(id=found.attachment_id)
        return f'<img src="{src}" alt="{alt}">'
    return f'<span class="attachment-missing" data-attachment-id="{html.escape(found.attachment_id)}">{alt}</span>'


def _link_open(renderer: RendererHTML, tokens, idx, options, env) -> str:
    # "[^file.pdf]" links to the file by name: the mirrored attachment's content.
    token = tokens[idx]
    found = env.get("attachments", {}).get(str(token.attrGet("href") or ""))
    if found is not None:
        token.attrSet("href", CONTENT_PATH.format(id=found.attachment_id))
    return renderer.renderToken(tokens, idx, options, env)


def _markdown_it() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "breaks": True, "typographer": False})
    md.enable(["table", "strikethrough"])
    md.use(superscript_plugin).use(sub_plugin)
    md.use(attrs_plugin, spans=True, after=("span_close",), allowed=("class",))
    md.add_render_rule("heading_open", _demoted_heading)
    md.add_render_rule("heading_close", _demoted_heading)
    md.add_render_rule("image", _image)
    md.add_render_rule("link_open", _link_open)
    return md


def _attribute(element: str, attribute: str, value: str) -> str | None:
    """nh3's last word on each attribute: URLs of a safe scheme or the hub's attachment
    content; classes of the hub's own; a cell's alignment."""
    if attribute in ("href", "src"):
        if value.lower().startswith(_SAFE_SCHEMES) or _ATTACHMENT_URL.fullmatch(value):
            return value
        return None
    if attribute == "class":
        kept = [name for name in value.split() if name in SPAN_CLASSES or _LANGUAGE_CLASS.fullmatch(name)]
        return " ".join(kept) or None
    if attribute == "style":
        return value if _CELL_STYLE.fullmatch(value.replace(" ", "")) else None
    return value


def sanitise(markup: str) -> str:
    """HTML cut down to the allow-list: nothing in it can run script or load from elsewhere."""
    return nh3.clean(markup, tags=_ALLOWED_TAGS, attributes=_ALLOWED_ATTRIBUTES, attribute_filter=_attribute,
                     url_schemes={"http", "https", "mailto"}, link_rel="noopener noreferrer nofollow",
                     strip_comments=True)


# -- the conversions ---------------------------------------------------------------------------------

class _Converters(threading.local):
    def __init__(self) -> None:
        self.markdown = _grammar(_elements(for_html=False))
        self.html_markdown = _grammar(_elements(for_html=True))
        self.md = _markdown_it()


_converters = _Converters()


def _no_names(login: str) -> str | None:
    return None


def _names_of(users: Mapping[str, str | None] | Callable[[str], str | None] | None) -> Callable[[str], str | None]:
    if users is None:
        return _no_names
    if callable(users):
        return users
    return users.get


def _normalised(wiki: str) -> str:
    return wiki.replace("\r\n", "\n").replace("\r", "\n").translate(_PLACEHOLDERS)


class _Cache:
    """The Markdown of texts converted lately, by grammar and text, up to a budget of
    characters: the grammar costs about 0.1 ms a character, and an issue's page is read
    again and again while its text stays. An entry holds the display names its mentions
    were shown with, and serves only while they are still the names known."""

    def __init__(self, budget: int = 16_000_000):
        self._budget = budget
        self._size = 0
        self._entries: OrderedDict[tuple[int, str], tuple[str | None, dict[str, str | None]]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, grammar: Forward, text: str, names: Callable[[str], str | None]) -> tuple[str | None] | None:
        """``(markdown,)`` as converted before (``(None,)``: too costly), or None if not known."""
        with self._lock:
            entry = self._entries.get((id(grammar), text))
            if entry is None:
                return None
            self._entries.move_to_end((id(grammar), text))
        markdown, shown = entry
        return (markdown,) if all(names(login) == name for login, name in shown.items()) else None

    def put(self, grammar: Forward, text: str, markdown: str | None, shown: dict[str, str | None]) -> None:
        key = (id(grammar), text)
        with self._lock:
            if key in self._entries:
                return
            self._entries[key] = (markdown, shown)
            self._size += len(text) + len(markdown or "")
            while self._size > self._budget and self._entries:
                (_, old), (old_markdown, _) = self._entries.popitem(last=False)
                self._size -= len(old) + len(old_markdown or "")


_cache = _Cache()


#: The longest text converted (Jira's own limit for a text field); a longer one is plain text.
MARKUP_LIMIT = 32_767
#: How long (CPU seconds) one text's conversion may take before it is shown as plain text instead.
SECONDS_PER_TEXT = 3.0


def _convert(grammar: Forward, text: str, context: _Context) -> str | None:
    """Normalised wiki text (see _normalised) as Markdown, by one of the grammars; None for
    a text too long (MARKUP_LIMIT) or too costly to convert by ``context.deadline`` (that
    answer is kept too: the same text would cost as much again)."""
    if len(text) > MARKUP_LIMIT:
        return None
    cached = _cache.get(grammar, text, context.names)
    if cached is not None:
        return cached[0]
    context.deadline = min(context.deadline, time.thread_time() + SECONDS_PER_TEXT)
    token = _context.set(context)
    try:
        markdown: str | None = grammar.transform_string(text)
    except TooCostly:
        markdown = None
    finally:
        _context.reset(token)
    _cache.put(grammar, text, markdown, context.shown)
    return markdown


def _plain_html(text: str) -> str:
    """Text shown as the characters it is, its paragraphs and line breaks kept."""
    paragraphs = [part for part in text.split("\n\n") if part.strip()]
    return "".join(f'<p class="plain">{html.escape(part).replace(chr(10), "<br>")}</p>\n' for part in paragraphs)


def to_markdown(wiki: str | None, *, users: Any = None, deadline: float = float("inf")) -> str:
    """Jira wiki markup as Markdown (CommonMark with GFM tables and ``~~strike~~``), as an
    assistant or a person reads it best. ``users``: display names by login (a mapping, or a
    function of a login), for mentions; a login not known is shown as it is. A text too long
    or too costly to convert (by ``deadline``, a time.thread_time() of the calling thread, or
    within SECONDS_PER_TEXT) is answered as it is."""
    if not wiki:
        return ""
    normalised = _normalised(wiki)
    markdown = _convert(_converters.markdown, normalised, _Context(_names_of(users), deadline=deadline))
    if markdown is None:
        return normalised
    return markdown.replace(_CELL_BREAK, "<br>").strip("\n")


def to_html(wiki: str | None, *, attachments: Mapping[str, AttachmentRef] | None = None,
            users: Any = None, deadline: float = float("inf")) -> str:
    """Jira wiki markup as sanitised HTML for the page: headings (``h1.`` as ``<h3>``, under the
    page's own), paragraphs with Jira's line breaks, lists, tables with ``<th>``, quotes, code,
    links, mentions by display name, images from the issue's ``attachments`` (by file name:
    ``<img>`` of the content when ready, else a ``span.attachment-missing`` carrying
    ``data-attachment-id``), colours as classes. No raw HTML of the text survives as HTML.
    A text too long or too costly to convert (as for :func:`to_markdown`) is paragraphs of
    plain text (``p.plain``)."""
    if not wiki:
        return ""
    attachments = attachments or {}
    normalised = _normalised(wiki)
    text = _convert(_converters.html_markdown, normalised, _Context(_names_of(users), attachments,
                                                                   deadline=deadline))
    if text is None:
        return _plain_html(normalised)
    rendered = _converters.md.render(text, {"attachments": attachments})
    return sanitise(rendered.replace(_CELL_BREAK, "<br>"))


def to_text(wiki: str | None) -> str:
    """Jira wiki markup as plain text on one line (for snippets and titles): what the page
    shows, without the markup; words between blocks are separated by one space."""
    return _text(_normalised(wiki)) if wiki else ""


def _text(normalised: str, seconds: float | None = None) -> str:
    budget = SECONDS_PER_TEXT if seconds is None else seconds
    markdown = _convert(_converters.html_markdown, normalised,
                        _Context(_no_names, deadline=time.thread_time() + budget))
    if markdown is None:
        return " ".join(normalised.split())
    rendered = _converters.md.render(markdown, {})
    text = html.unescape(nh3.clean(rendered.replace(_CELL_BREAK, " "), tags=set()))
    return " ".join(text.split())


# The pieces of markup that a snippet cut in the middle of a construct may keep: its
# opening or closing line alone, without the other half to convert it.
_CUT_MARKUP = re.compile(r"\{(?:code|noformat|quote|panel|color)(?::[^}]*)?\}|^(?:h[1-6]|bq)\.\s*")


def snippet_text(snippet: str | None, start: str = "[[", end: str = "]]") -> str | None:
    """A search snippet (a cut of wiki text with the match between ``start`` and ``end``) as
    plain text, the markers kept around the same words."""
    if snippet is None:
        return None
    marked = _normalised(snippet).replace(start, _MARK_OPEN).replace(end, _MARK_CLOSE)
    # A snippet is a dozen words; one of many openings (hostile text) is given 50 ms.
    text = " ".join(_CUT_MARKUP.sub(" ", _text(marked, 0.05)).split())
    return text.replace(_MARK_OPEN, start).replace(_MARK_CLOSE, end)
