"""Jira's text read as Jira reads it: Markdown's syntax in it is text.

The hub converts Jira's wiki markup to Markdown and renders that Markdown, so whatever
the text holds that Markdown reads (``[text](url)``, ``[text]{.mention}``, ``![a](b)``,
``# heading``, ``1. item``, an indented block) would become a link, a mention, an
attachment's Fetch button, a heading or a list that Jira never shows. Here the
converter's own output is made the only source of Markdown: every character that no
element of the grammar converted and that Markdown would read is escaped
(:class:`Literal`, tried last at each position), and the elements that copy part of
the text into a construct (a link's URL, an attachment's name, monospace) write it so
that it cannot close that construct early.
"""

from __future__ import annotations

import html
import re

from jira2markdown.markup.base import AbstractMarkup
from jira2markdown.markup.links import Attachment, Link, MailTo
from jira2markdown.markup.text_effects import Monospaced, QuotedElement
from pyparsing import ParseException, ParserElement, ParseResults, Regex, Token

# The characters that start or end Markdown's inline constructs (and a table's cells), and
# those that start a block at a line's start (a heading, a list, a quote, a heading's underline).
_INLINE_SYNTAX = frozenset("\\`*_[]<>~^|{}!")
_LINE_SYNTAX = frozenset("#+-=>")
# Jira's backslash escape (BackslashEscapeRendererComponent): not after another backslash.
_JIRA_ESCAPE = re.compile(r"(?<!\\)\\([-#*_+?^~|%{}\[\]()!@])")
_ENTITY = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")
# A number that opens an ordered list at a line's start ("1." or "1)").
_ORDINAL = re.compile(r"\d{1,9}[.)]")


def escape(text: str) -> str:
    """Text as Markdown that reads as the same characters (within a line)."""
    return "".join(f"\\{char}" if char in _INLINE_SYNTAX else char for char in text)


def destination(url: str) -> str:
    """A link's or an image's target as Markdown's ``<…>`` form, which nothing in it can close:
    the characters that would end it (or escape its end) percent-encoded."""
    return "<" + url.replace("\\", "%5C").replace("<", "%3C").replace(">", "%3E").replace("\n", "%0A") + ">"


def at_line_start(text: str, loc: int) -> bool:
    """Whether only spaces and tabs stand between the line's start and ``loc``."""
    while loc > 0 and text[loc - 1] in " \t":
        loc -= 1
    return loc == 0 or text[loc - 1] == "\n"


def _ordinal_delimiter(text: str, loc: int) -> bool:
    # "." or ")" right after a number that begins its line: Markdown's ordered list.
    start = loc
    while start > 0 and loc - start < 9 and text[start - 1].isdigit():
        start -= 1
    return start < loc and at_line_start(text, start)


class _LiteralCheck(Token):
    """One character that no element took, as Markdown that shows it: escaped where Markdown
    would read it as syntax. A line's indentation is left out (Markdown would make four spaces
    a code block; HTML shows none of it)."""

    def __init__(self) -> None:
        super().__init__()
        self.mayIndexError = False
        self.errmsg = "not Markdown's syntax"

    def parseImpl(self, instring, loc=0, do_actions=True):
        if loc >= len(instring):
            raise ParseException(instring, loc, self.errmsg, self)
        char = instring[loc]
        if char in _INLINE_SYNTAX or (char in _LINE_SYNTAX and at_line_start(instring, loc)) or (
                char in (".", ")") and _ordinal_delimiter(instring, loc)):
            return loc + 1, "\\" + char
        if char in " \t" and (loc == 0 or instring[loc - 1] == "\n"):
            end = loc
            while end < len(instring) and instring[end] in " \t":
                end += 1
            if end < len(instring) and instring[end] != "\n":
                return end, ""
        raise ParseException(instring, loc, self.errmsg, self)


class Literal(AbstractMarkup):
    """The last element tried at each position (in place of jira2markdown's, which escapes
    ``*`` alone): see :class:`_LiteralCheck`."""

    @property
    def expr(self) -> ParserElement:
        return _LiteralCheck()


class Escape(AbstractMarkup):
    """``\\X``: the character X as it is, for the characters Jira's renderer escapes
    (BackslashEscapeRendererComponent; a backslash after a backslash escapes nothing: ``\\\\``
    is a line break, read before this is tried by wiki_grammar). Written as Markdown's own escape, which every
    one of them (ASCII punctuation) has."""

    @property
    def expr(self) -> ParserElement:
        return Regex(r"\\[-#*_+?^~|%{}\[\]()!@]").set_parse_action(lambda tokens: "\\" + tokens[0][1])


def words(text: str, loc: int, tokens: ParseResults) -> str:
    """A run of words (wiki_grammar._Words) as Markdown that shows it: a number that begins a
    line keeps its ``.`` as text, not an ordered list's."""
    run = tokens[0]
    found = _ORDINAL.match(run)
    if found is not None and found.group().endswith(".") and at_line_start(text, loc):
        return run[:found.end() - 1] + "\\" + run[found.end() - 1:]
    return run


class _Enclosed(Token):
    """Text between ``opening`` and the first ``closing`` after it (within the line, if
    ``in_line``), found by ``str.find``: from each opening pyparsing's ``SkipTo`` tried every
    character to the text's end in Python, and a regular expression scans it twice in C, so
    that a text of openings cost time quadratic in its length. ``inner``, if given, must match
    the whole text between (its named groups are the results' names); the results are the
    text between alone (``bare``) or the whole of it."""

    def __init__(self, opening: str, closing: str, *, inner: re.Pattern | None = None,
                 in_line: bool = False, bare: bool = False) -> None:
        super().__init__()
        self.opening, self.closing, self.inner, self.in_line, self.bare = opening, closing, inner, in_line, bare
        self.mayIndexError = False
        self.errmsg = f"no {opening}…{closing}"

    def parseImpl(self, instring, loc=0, do_actions=True):
        if not instring.startswith(self.opening, loc):
            raise ParseException(instring, loc, self.errmsg, self)
        start = loc + len(self.opening)
        stop = instring.find("\n", start) if self.in_line else -1
        end = instring.find(self.closing, start, len(instring) if stop < 0 else stop)
        found = None if end < 0 or self.inner is None else self.inner.fullmatch(instring, start, end)
        if end < 0 or (self.inner is not None and found is None):
            raise ParseException(instring, loc, self.errmsg, self)
        after = end + len(self.closing)
        tokens = ParseResults([instring[start:end] if self.bare else instring[loc:after]])
        for name, value in (found.groupdict() if found is not None else {}).items():
            if value is not None:
                tokens[name] = value
        return after, tokens


class HubLink(Link):
    """``[text|http://…]`` and ``[http://…]`` as a link whose URL nothing in it can end early;
    any other ``[text|target]`` (``javascript:``, ``#anchor``, a page's name) is the text as typed."""

    def action(self, tokens: ParseResults) -> str:
        alias = self.markup.transform_string(tokens.get("alias", ""))
        url = tokens.url
        if url.lower().startswith("www."):
            url = f"https://{url}"
        if not url.lower().startswith(tuple(self.URL_PREFIXES)):
            target = self.markup.transform_string(url)
            return rf"\[{alias}\|{target}\]" if alias else rf"\[{target}\]"
        return f"[{alias if alias.strip() else escape(url)}]({destination(url)})"

    @property
    def expr(self) -> ParserElement:
        # jira2markdown's "[" + Optional(SkipTo("|", fail_on="]") + "|") + SkipTo("]") + "]": the
        # same matches, in time linear in a text of "[" (which cost seconds a kilobyte).
        return _Enclosed("[", "]", inner=re.compile(r"(?:(?P<alias>[^|]*)\|)?(?P<url>.*)", re.S)
                         ).set_parse_action(self.action)


class HubMailTo(MailTo):
    """``[text|mailto:…]``, in time linear in a text of "[" (see :class:`HubLink`)."""

    @property
    def expr(self) -> ParserElement:
        return _Enclosed("[", "]", inner=re.compile(r"(?:(?P<alias>[^|]*)\|)?mailto:(?P<email>[A-Za-z0-9@._+-]+)")
                         ).set_parse_action(self.action)


class HubAttachment(Attachment):
    """``[^file.pdf]``: a link to the attachment by its name (markup.py's render rules place it)."""

    def action(self, tokens: ParseResults) -> str:
        name = tokens.filename
        return f"[{escape(name)}]({destination(name)})"

    @property
    def expr(self) -> ParserElement:
        return _Enclosed("[^", "]", inner=re.compile(r"(?P<filename>.*)", re.S)).set_parse_action(self.action)


class HubMonospaced(Monospaced):
    """``{{text}}`` as a code span that no backtick in the text can close."""

    def action(self, tokens: ParseResults) -> str:
        # Jira reads its backslash escapes and entities within monospace too (a code span shows
        # an entity as typed; outside one, markdown-it reads it as Jira does).
        text = _ENTITY.sub(lambda found: html.unescape(found.group()), _JIRA_ESCAPE.sub(r"\1", tokens[0]))
        longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
        ticks = "`" * (longest + 1)
        padding = " " if text.startswith("`") or text.endswith("`") else ""
        return f"{ticks}{padding}{text}{padding}{ticks}"

    @property
    def expr(self) -> ParserElement:
        # jira2markdown's QuotedString("{{", end_quote_char="}}"): within the line, in linear time.
        return _Enclosed("{{", "}}", in_line=True, bare=True).set_parse_action(self.action)


class Italic(QuotedElement):
    """``_italic_``: Markdown's own syntax, which jira2markdown leaves to pass through; written by
    the converter here, since no underscore of the text passes through any more."""

    TOKEN = "_"
    QUOTE_CHAR = "_"
