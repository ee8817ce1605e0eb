"""Jira's text effects (``*bold*``, ``_italic_``, ``-strike-``, ``+underline+``, ``??citation??``,
``^sup^``, ``~sub~``) read by one regular expression each, in time linear in the line.

jira2markdown reads an effect as its token, then pyparsing's ``SkipTo`` of the closing token
that skips a token after whitespace (``White() + token``) and ``{color}`` blocks (a strike
also links, mentions and images), within the line, then the token followed by no letter or
digit. From each opening, that scan tries each character in Python to the line's end when
every later token follows a space: a line of ``*a *a *a…`` cost time quadratic in its
length, seconds a kilobyte. :func:`linear` makes an element of the same class that finds
the same closing token by a regular expression whose repetition never backtracks (a
possessive ``*+``): the first token on the line that follows no whitespace. :func:`braced`
makes the element of Jira's braced form of the effects (``word{*}bold{*}word``).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from jira2markdown.markup.base import AbstractMarkup
from jira2markdown.markup.text_effects import QuotedElement, Strikethrough, Subscript, Superscript
from pyparsing import ParserElement, ParseResults, Regex

# What the scan skips whole (jira2markdown's get_ignore_expr): a colour block (its colour a
# name, #hex or rgba(…)); for a strike also a link, a mention, an attachment ("[…]") and an
# image ("!name!", "!name|attributes!"); for sub a mention, for sup an attachment.
_COLOR = r"\{color:(?:#[0-9A-Fa-f]+|[A-Za-z]+|(?i:rgba)\([0-9]+, *[0-9]+, *[0-9]+, *[0-9.]+\))\}(?s:.*?)\{color\}"
_SKIPS = [(Strikethrough, _COLOR + r"|\[[^\]]*\]|![^|!\n\t]{3,}(?:\|[^!\n]*)?!"),
          (Subscript, _COLOR + r"|\[~[^\]]*\]"), (Superscript, _COLOR + r"|\[\^[^\]]*\]")]


class _Linear:
    """An effect's ``expr`` as one regular expression (mixed in before the effect's class)."""

    TOKEN: str
    action: Callable[[ParseResults], str]  # the effect's own

    def _pattern(self, skips: str) -> str:
        token = re.escape(self.TOKEN)
        first = re.escape("".join(sorted(set(self.TOKEN))))
        # Content: a skipped block, a token after whitespace, or any character but a line's end
        # that does not begin the token; the first token after anything else closes the effect.
        content = rf"(?:{skips}|(?<=\s){token}|(?!{token})[^\n])*+"
        return rf"{token}(?![\s{first}])(?P<text>{content})(?<!\s){token}(?!\w)"

    @property
    def expr(self) -> ParserElement:
        skips = next((skips for kind, skips in _SKIPS if isinstance(self, kind)), _COLOR)
        element = re.compile(self._pattern(skips))

        def action(text: str, loc: int, tokens: ParseResults) -> str:
            converted = self.action(ParseResults([tokens["text"]]))
            # As jira2markdown's: an effect right after another is set apart by a space.
            return converted + " " if element.match(text, loc + len(tokens[0])) else converted

        return Regex(rf"(?<!\w){element.pattern}").set_parse_action(action)


def linear(element: type[AbstractMarkup]) -> type[AbstractMarkup]:
    """``element`` (a jira2markdown text effect, or the hub's own of one) read in linear time;
    any other element as it is."""
    if not issubclass(element, QuotedElement) or element.expr is not QuotedElement.expr:
        return element
    return type(f"Linear{element.__name__}", (_Linear, element), {})


class _BracedEffect(AbstractMarkup):
    """``{*}bold{*}``, ``{_}x{_}``, ``{-}x{-}``…: Jira's second form of each text effect
    (PhraseRendererComponent's ``{`` delimiter ``}``), which holds within a word
    (``word{*}bold{*}word``), converted by the effect's own element. ``EFFECTS``: the
    grammar's effect elements (see :func:`braced`)."""

    EFFECTS: tuple[type[QuotedElement], ...] = ()

    @property
    def expr(self) -> ParserElement:
        # The hub's sup and sub name their mark MARK (a sub is a sup of another mark).
        effects = {getattr(effect, "MARK", effect.TOKEN): effect(**self.init_kwargs) for effect in self.EFFECTS}

        def action(tokens: ParseResults) -> str:
            text = ParseResults([tokens["text"]])
            text["text"] = tokens["text"]
            converted = effects[tokens["token"]].action(text)
            # Markdown's emphasis holds within a word written with "*", not with "_".
            return f"*{converted[1:-1]}*" if tokens["token"] == "_" else converted

        choices = "|".join(re.escape(token) for token in sorted(effects, key=len, reverse=True))
        # As Jira's: the text between neither begins nor ends with whitespace, within one line; it
        # ends at the next "{*}" (so that a line of openings costs linear time).
        return Regex(rf"\{{(?P<token>{choices})\}}(?P<text>\S(?:(?:(?!\{{(?P=token)\}})[^\n])*?\S)?)"
                     rf"\{{(?P=token)\}}").set_parse_action(action)


def braced(effects: tuple[type[AbstractMarkup], ...]) -> type[AbstractMarkup]:
    """The element that reads the braced form of each of ``effects`` (a grammar's own)."""
    return type("BracedEffect", (_BracedEffect,), {"EFFECTS": effects})
