"""Jira's wiki markup read by jira2markdown's grammar, with elements of the hub's own.

jira2markdown (a pyparsing grammar) turns wiki text into Markdown. Where the hub wants
other output, an element of its grammar is replaced through its own extension points
(``MarkupElements.replace``/``insert_after``): mentions by Jira Server's logins (e-mail
addresses too) shown with display names, bare URLs as autolinks, emoticons, ``{code}``
without a language, one-line ``{quote}``, and for HTML the constructs Markdown has no
syntax for (underline, citations, colours, mentions) as attribute spans that
hub/services/markup/convert.py's markdown-it reads. Two elements only make it faster (plain
runs taken whole, look-behinds built once), and one stops a conversion at its deadline.
The converter's output is the only Markdown there is: what Markdown would read in the
text itself is escaped (hub/services/markup/wiki_literal.py), as Jira shows it as typed.
"""


import re
import time
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass, field

from jira2markdown.elements import MarkupElements
from jira2markdown.markup.advanced import Code, Noformat, Panel
from jira2markdown.markup.base import AbstractMarkup
from jira2markdown.markup.headings import Headings
from jira2markdown.markup.images import Image
from jira2markdown.markup.links import Attachment, Link, MailTo, Mention, Url
from jira2markdown.markup.lists import OrderedList, UnorderedList
from jira2markdown.markup.tables import Table
from jira2markdown.markup.text_breaks import Ruler
from jira2markdown.markup.text_effects import (
    BlockQuote,
    Bold,
    Color,
    EscSpecialChars,
    InlineQuote,
    Monospaced,
    QuotedElement,
    Subscript,
    Superscript,
    Underline,
)
from pyparsing import (
    CaselessLiteral,
    Combine,
    FollowedBy,
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
    Token,
    White,
    Word,
    printables,
)

from hub.services.markup.wiki_effects import braced, linear
from hub.services.markup.wiki_lists import JiraList
from hub.services.markup.wiki_literal import (
    Escape,
    HubAttachment,
    HubLink,
    HubMailTo,
    HubMonospaced,
    Italic,
    Literal,
    destination,
    escape,
    words,
)

# jira2markdown's grammar reads whitespace itself (its convert() sets this too).
ParserElement.set_default_whitespace_chars("")

#: A line break inside a table cell (Markdown's cells are one line): a character of Unicode's
#: private use area, taken out of Jira's text before it is read (markup._normalised).
CELL_BREAK = "\ue000"

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
COLOR_NAMES = ("red", "green", "blue", "orange", "purple", "grey", "yellow", "pink", "brown", "teal", "black",
                "white")
COLORS: dict[str, str] = {name: name for name in COLOR_NAMES} | {
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


@dataclass
class Context:
    names: Callable[[str], str | None]
    shown: dict[str, str | None] = field(default_factory=dict)  # the names the mentions were shown with
    # time.thread_time() past which the conversion gives up: the CPU time of the thread that
    # converts, so that other work on the machine does not make a text too costly.
    deadline: float = float("inf")
    checks: int = 0  # how often the deadline was looked at (see _DeadlineCheck)


class TooCostly(Exception):
    """A text whose conversion ran past its deadline (see _Deadline)."""


_context: ContextVar[Context] = ContextVar("markup_context")


def _display(login: str) -> str:
    context = _context.get(None)
    if context is None:
        return login
    name = context.shown[login] = context.names(login)
    return name or login


# -- jira2markdown elements of the hub's own ----------------------------------------------------

class _Mention(Mention):
    """``[~login]`` (and ``[~accountid:…]``): Jira Server's logins hold dots and ``@``, which the
    library's mention does not; shown as ``@`` and the user's display name."""

    def action(self, tokens: ParseResults) -> str:
        return f"@{escape(_display(tokens.login))}"

    @property
    def expr(self) -> ParserElement:
        return Combine("[~" + Optional(CaselessLiteral("accountid:")).suppress()
                       + Word(printables, exclude_chars="[]|~").set_results_name("login") + "]"
                       ).set_parse_action(self.action)


class _HtmlMention(_Mention):
    def action(self, tokens: ParseResults) -> str:
        return f"[@{escape(_display(tokens.login))}]{{.mention}}"


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


#: One position in how many reads the clock for the deadline.
CHECK_EVERY = 16


class _DeadlineCheck(Token):
    """Matches nothing; tried first at every position of the text (and of every part an
    element converts again), it stops a conversion that has run past its deadline.

    jira2markdown's grammar tries each of its elements at every position of text made of
    openings (``[~``, ``{{``, ``!``…): time linear in its length since the hub reads links,
    effects and colours by regular expressions (wiki_literal, wiki_effects), but some
    0.1–0.3 ms a character, so that Jira's largest field of it costs seconds. Anyone who
    can comment in Jira writes that text; past its deadline it is shown as plain text
    instead (see markup._plain_html)."""

    def __init__(self) -> None:
        super().__init__()
        self.mayReturnEmpty = True
        self.mayIndexError = False
        self.errmsg = "not past the deadline"

    def parseImpl(self, instring, loc=0, do_actions=True):
        context = _context.get(None)
        if context is not None:
            context.checks += 1
            # Reading the thread's CPU clock is a system call (half a millisecond on a busy
            # machine): it is read at one position in CHECK_EVERY.
            if context.checks % CHECK_EVERY == 0 and time.thread_time() > context.deadline:
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
        return Regex(rf"(?:(?<=[^\n])|(?!h[1-6]\.|bq\.)){not_url}[^\W_](?:{not_url}[^\W_]|[ \t.,'\"/=&%$@])*"
                     ).set_parse_action(words)


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
        # At the text's start or after a space or an opening bracket: one regular expression, which
        # fails at once where no emoticon begins (StringStart() | PrecededBy(…) cost a tenth of a
        # millisecond at every position of the text).
        return Regex(rf"(?:(?<![\s\S])|(?<=[\s(\[>]))(?:{pattern})(?![\w])").set_parse_action(
            lambda tokens: EMOTICONS[tokens[0]])


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
        params = [(param, escape(value)) for param, value in tokens.get("params", [])]
        tokens["params"] = params
        return "\n\n" + super().action(tokens) + "\n\n"


class _Color(Color):
    """``{color:x}text{color}``: the text alone (Markdown has no colour)."""

    def colour(self, tokens: ParseResults) -> str | None:
        return COLORS.get(str(tokens.get("color") or "").strip().lower())

    def action(self, tokens: ParseResults) -> str:
        return self.inline_markup.transform_string(tokens.text)

    @property
    def expr(self) -> ParserElement:
        # Any colour value (a hostile one included) ends at its "}": the value chooses a class or
        # nothing. One regular expression: pyparsing's SkipTo tried every character to the text's
        # end in Python from each opening (quadratic in a text of openings).
        return Regex(r"\{color(?::(?P<color>[^}]*))?\}(?P<text>(?s:.*?))\{color\}").set_parse_action(self.action)


class _HtmlColor(_Color):
    def action(self, tokens: ParseResults) -> str:
        text = super().action(tokens)
        colour = self.colour(tokens)
        return f"[{text}]{{.jira-color-{colour}}}" if colour and text.strip() else text


def _spaces_escaped(text: str) -> str:
    # mdit-py-plugins' sup and sub take no unescaped space.
    return text.replace(" ", "\\ ")


class _HtmlSuperscript(Superscript):
    """``^sup^``, within a word too (``x^2^``), as Jira reads it."""

    MARK = "^"

    def action(self, tokens: ParseResults) -> str:
        return f"{self.MARK}{_spaces_escaped(self.inline_markup.transform_string(tokens.text))}{self.MARK}"

    @property
    def expr(self) -> ParserElement:
        mark = re.escape(self.MARK)
        return Regex(rf"{mark}(?P<text>[^\s{mark}](?:[^{mark}\n]*[^\s{mark}])?){mark}").set_parse_action(self.action)


class _HtmlSubscript(_HtmlSuperscript):
    """``~sub~``, within a word too (``H~2~O``)."""

    MARK = "~"


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
        output = ["|" + "|".join(self.markup.transform_string(cell).strip().replace("\n", CELL_BREAK)
                                 .replace("|", "\\|") for cell in row) + "|" for row in rows]
        output[0] += "|" * (columns - len(rows[0]))
        output.insert(1, "|" + "---|" * max(columns, 1))
        return "\n" + "\n".join(output) + "\n"


class _Image(Image):
    """``!file.png!`` and ``!file.png|thumbnail!``: an image named by its file (the width and
    height Jira may give are not kept: the page sizes images itself)."""

    def action(self, tokens: ParseResults) -> str:
        name = tokens.url.strip()
        return f"![{escape(name)}]({destination(name)})"

    @property
    def expr(self) -> ParserElement:
        # Its look-behind is tried only where a "!" is.
        return FollowedBy("!") + super().expr


def _elements(*, for_html: bool) -> MarkupElements:
    elements = MarkupElements()
    elements.replace(UnorderedList, JiraList)
    elements.remove(OrderedList)
    elements.replace(Mention, _HtmlMention if for_html else _Mention)
    elements.replace(Url, _Url)
    elements.remove(Ruler)
    elements.insert(0, _Ruler)
    elements.insert(0, _Words)
    elements.insert(0, Escape)
    elements.insert(0, _Deadline)
    elements.replace(Code, _Code)
    elements.replace(Noformat, _Noformat)
    elements.replace(BlockQuote, _BlockQuote)
    elements.replace(Panel, _Panel)
    elements.replace(Color, _HtmlColor if for_html else _Color)
    elements.replace(Image, _Image)
    elements.replace(Table, _Table)
    elements.replace(Headings, _Headings)
    # Markdown's syntax in Jira's text is text: see hub/services/markup/wiki_literal.py.
    elements.replace(Link, HubLink)
    elements.replace(MailTo, HubMailTo)
    elements.replace(Attachment, HubAttachment)
    elements.replace(Monospaced, HubMonospaced)
    elements.replace(EscSpecialChars, Literal)
    elements.insert_after(Bold, Italic)
    # Before the text effects, so that "(-)" is a minus sign and not a strike's opening.
    elements.insert_after(_Image, _Emoticon)
    if for_html:
        elements.replace(Superscript, _HtmlSuperscript)
        elements.replace(Subscript, _HtmlSubscript)
        elements.replace(Underline, _HtmlUnderline)
        elements.replace(InlineQuote, _HtmlCitation)
    effects = tuple(element for element in elements
                    if issubclass(element, QuotedElement) and element.TOKEN in ("*", "_", "-", "+", "??", "^", "~"))
    elements.insert(elements.index(Escape) + 1, braced(tuple(linear(effect) for effect in effects)))
    return MarkupElements([linear(element) for element in elements])


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



def grammar(*, for_html: bool) -> Forward:
    """The grammar for Markdown (``for_html=False``) or for the Markdown that markup.py renders
    as HTML (attribute spans, ``^sup^``, ``~sub~``)."""
    return _grammar(_elements(for_html=for_html))


def transform(grammar: Forward, text: str, context: Context) -> str | None:
    """``text`` as Markdown by ``grammar``, its mentions named by ``context``; None when it ran
    past ``context.deadline``."""
    token = _context.set(context)
    try:
        return grammar.transform_string(text)
    except TooCostly:
        return None
    finally:
        _context.reset(token)

