"""Jira's text effects (``*strong*``, ``_emphasis_``, ``-deleted-``, ``+inserted+``, ``^sup^``,
``~sub~``, ``??citation??``) paired as Jira's renderer pairs them (atlassian-renderer's
PhraseRendererComponent), for the Markdown converted to wiki markup (markdown_wiki.py) to know
which of its characters Jira would read as an effect's delimiter.
"""

from __future__ import annotations

import unicodedata

_WHITESPACE = frozenset(" \t\n\x0b\f\r")  # Java's \s


def _breaks(char: str) -> bool:
    """Whether a character may not stand within an effect (Jira's content class is letters, digits,
    separators, symbols, marks and punctuation: no control or format character, no other number)."""
    category = unicodedata.category(char)
    return category[0] == "C" or category in ("Nl", "No")


def _closing(shown: str, at: int, mark: str) -> int:
    """The length of the effect's closing at ``at`` (0: none there): ``mark`` not before a letter
    or digit, or ``{mark}``, after a last character of content (no whitespace, ``mark`` or backslash)."""
    if at == 0 or shown[at - 1] in _WHITESPACE or shown[at - 1] in mark or shown[at - 1] == "\\":
        return 0
    if shown.startswith("{" + mark + "}", at):
        return len(mark) + 2
    after = shown[at + len(mark):at + len(mark) + 1]
    return len(mark) if shown.startswith(mark, at) and not (after and after.isalnum()) else 0


def _opening(shown: str, at: int, mark: str) -> int:
    """The length of the effect's opening at ``at`` (0: none there): ``mark`` not after a letter,
    digit or backslash, or ``{mark}``."""
    if shown.startswith("{" + mark + "}", at):
        return len(mark) + 2
    if shown.startswith(mark, at) and not (at and (shown[at - 1].isalnum() or shown[at - 1] == "\\")):
        return len(mark)
    return 0


def effect_pairs(shown: str, mark: str) -> list[tuple[int, int]]:
    """Where Jira's pattern for the effect of ``mark`` (PhraseRendererComponent.makePattern) pairs
    delimiters in ``shown``: (opening, closing) positions, as its regular expression finds them
    from left to right, in time linear in the text (the expression's lazy scan from each opening
    to the line's end is quadratic in a line of openings). The content between neither begins
    nor ends with whitespace or a character of ``mark``, is one character or does not go on with
    ``mark``, and holds no control character within."""
    length = len(shown)
    # The first closing at or after each position, and the first character that breaks a content.
    next_closing, next_break = [length] * (length + 2), [length] * (length + 2)
    for at in range(length - 1, -1, -1):
        next_closing[at] = at if _closing(shown, at, mark) else next_closing[at + 1]
        next_break[at] = at if _breaks(shown[at]) else next_break[at + 1]
    pairs, at = [], 0
    while at < length:
        start = at + _opening(shown, at, mark)
        end = -1
        if start > at and start < length and shown[start] not in _WHITESPACE and shown[start] not in mark:
            if _closing(shown, start + 1, mark):
                end = start + 1
            elif not shown.startswith(mark, start + 1):
                candidate = next_closing[min(start + 2, length)]
                if candidate < length and next_break[start + 1] >= candidate - 1:
                    end = candidate
        if end < 0:
            at += 1
        else:
            pairs.append((at, end))
            at = end + _closing(shown, end, mark)
    return pairs
