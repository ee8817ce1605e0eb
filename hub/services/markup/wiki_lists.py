"""Jira's lists read as Jira's ListBlockRenderer reads them, as Markdown lists.

A list opens at a line of marks (``*``, ``-``, ``#``, any mix: ``#*#``) and whitespace, not at
``--``/``---`` (dashes); each later line of marks is an item, any other line that is not blank
goes on the item before it, and a blank line ends the list. Jira renders its macros before its
blocks, so that a ``{code}``, ``{noformat}``, ``{quote}`` or ``{panel}`` within an item is part
of it, blank lines and all. An item's depth is its marks' count and its kind their last: ``#``
numbered, ``*`` and ``-`` bullets. (jira2markdown's lists take one mix, ``#*`` or ``*#``, and end
an item at a line that begins with a mark but is none, ``*bold* text``.)
"""

from __future__ import annotations

import re

from jira2markdown.markup.base import AbstractMarkup
from pyparsing import ParseException, ParserElement, ParseResults, Token

# Jira's LIST_PATTERN on one line, and its POSSIBLE_DASH_PATTERN.
_ITEM = re.compile(r"[ \t]*([*#-]+)[ \t]+(.*?)[ \t]*")
_DASHES = re.compile(r"[ \t]*-{2,3}")
# A macro whose body may hold lines of their own: its tag, with parameters or without.
_MACRO = re.compile(r"\{(code|noformat|quote|panel)(?::[^}\n]*)?\}", re.IGNORECASE)


def _open_macros(line: str, open_macros: dict[str, bool]) -> None:
    """``open_macros`` (a macro's name: whether its body is open) after ``line``. A code or
    noformat body holds no other macro; the same tag opens and closes a body."""
    for found in _MACRO.finditer(line):
        name = found.group(1).lower()
        inside = next((other for other in ("code", "noformat") if open_macros.get(other)), None)
        if inside is None or inside == name:
            open_macros[name] = not open_macros.get(name, False)


class _ListCheck(Token):
    """The lines of one list, from a line's start: ``[(marks, text), …]``; none within an item's
    text (``in_item``: Jira renders an item's text as a list item's, where no list opens)."""

    def __init__(self) -> None:
        super().__init__()
        self.mayIndexError = False
        self.errmsg = "no list"
        self.in_item = False

    def parseImpl(self, instring, loc=0, do_actions=True):
        if self.in_item or (loc > 0 and instring[loc - 1] != "\n"):
            raise ParseException(instring, loc, self.errmsg, self)
        end = instring.find("\n", loc)
        end = len(instring) if end < 0 else end
        first = _ITEM.fullmatch(instring, loc, end)
        if first is None or _DASHES.match(instring, loc, end):
            raise ParseException(instring, loc, self.errmsg, self)
        items: list[tuple[str, list[str]]] = [(first.group(1), [first.group(2)])]
        open_macros: dict[str, bool] = {}
        _open_macros(first.group(2), open_macros)
        while end < len(instring):
            start = end + 1
            stop = instring.find("\n", start)
            stop = len(instring) if stop < 0 else stop
            line = instring[start:stop]
            if any(open_macros.values()):
                items[-1][1].append(line)
            elif not line.strip():
                break
            elif (item := _ITEM.fullmatch(line)) is not None:
                items.append((item.group(1), [item.group(2)]))
                line = item.group(2)
            else:
                items[-1][1].append(line)
            _open_macros(line, open_macros)
            end = stop
        return end, ParseResults([items])


class JiraList(AbstractMarkup):
    """A list, its items' text converted by the whole grammar (an item may hold a code block)."""

    is_inline_element = False

    def action(self, tokens: ParseResults) -> str:
        levels: list[int] = []  # each open level's content indent
        lines = []
        for marks, text in tokens[0]:
            depth = min(len(marks), len(levels) + 1)  # Markdown nests one level at a time
            del levels[depth - 1:]
            indent = levels[-1] if levels else 0
            marker = "1." if marks[-1] == "#" else "-"
            levels.append(indent + len(marker) + 1)
            converted = self._item(text)
            lines.append((" " * indent + marker + " " + converted[0]).rstrip())
            lines.extend(" " * levels[-1] + line if line.strip() else "" for line in converted[1:])
        # Set apart from a paragraph before it (an empty item would underline it as a heading).
        return "\n" + "\n".join(lines)

    def _item(self, text: list[str]) -> list[str]:
        self._check.in_item = True
        try:
            return self.markup.transform_string("\n".join(text)).strip("\n").splitlines() or [""]
        finally:
            self._check.in_item = False

    @property
    def expr(self) -> ParserElement:
        self._check = _ListCheck()
        return self._check.set_parse_action(self.action)
