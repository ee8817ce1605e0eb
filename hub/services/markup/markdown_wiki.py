"""Markdown (CommonMark with GFM tables, strikethrough and task lists) as Jira's wiki markup, for
the bodies of writes (comments, descriptions, work log comments) asked with ``"format": "markdown"``.

markdown-it-py reads the Markdown; a renderer over its syntax tree writes wiki markup: ``h1.``
headings, ``*strong*``, ``_emphasis_``, ``-strike-``, ``{{code}}``, ``{code:lang}`` (``{noformat}``
without a language), ``[text|url]``, ``!image!``, ``*``/``#`` lists nested (``#*`` mixed),
``{quote}``, ``----``, ``||header||`` tables. Line breaks stay line breaks (a newline, ``\\\\`` where
Jira's construct is one line), as Jira's own editor and GitHub's comments show them.

Text is escaped as Jira's renderer (atlassian-renderer) reads it, and only where it would read
markup: a text effect's delimiter where Jira's own pattern for the effect would pair it (a
letter or digit before an opening, or after a closing, stops it), ``[`` and ``{`` with a closing
later on the line, ``!`` that would open an image, a list's or a rule's marks at a line's start,
``--``/``---`` between spaces (dashes), emoticons. ``\\X`` is X to Jira for its escapable
characters only (BackslashEscapeRendererComponent, which runs after its macros, blocks and links
and before its effects, and gives ``\\{`` back as ``{``); where no escape serves (a backslash of
the text before one of them, ``{{`` and ``{*}``, ``h1.`` or ``bq.`` opening a line, ``:P``, ``|``
in a cell or a link's text) the character is an entity, which Jira keeps. Effects inside a
word use Jira's ``{*}bold{*}`` form. Text of the format "wiki" is never touched (:func:`body`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from markdown_it import MarkdownIt
from markdown_it.tree import SyntaxTreeNode
from mdit_py_plugins.tasklists import tasklists_plugin

from hub.services.markup.wiki_phrases import effect_pairs

#: The formats a body may be given in; "wiki" is Jira's own and the default.
FORMATS = ("wiki", "markdown")

# What Jira's BackslashEscapeRendererComponent takes after a backslash.
_ESCAPABLE = frozenset("-#*_+?^~|%{}[]()!@")
# Jira writes these escaped characters as themselves, the others as an entity: what its
# phrase patterns then see next to them (see _Line.scan).
_ESCAPED_AS_ITSELF = frozenset("{}[]")
_EFFECTS = ("*", "_", "-", "+", "^", "~", "??")
# Jira's emoticons, read anywhere but before a letter or digit (EmoticonRendererComponent).
_EMOTICON = re.compile(r"(?:[:;]\)|:[(PpD]|\((?:y|n|i|/|x|!|\+|-|\?|on|off|\*[rgby]?|flag|flagoff)\))(?![^\W_])")
_DASHES = re.compile(r"(?:(?<=\s)|^)-{2,3}(?=\s|$)")
_LINE_MARKS = re.compile(r"[ \t]*(?:[*#-]+[ \t]|-{4,}[ \t]*$|\||(?:h[1-6]|bq)\.)")
_ENTITY = re.compile(r"&(?:#[0-9]+|#[xX][0-9a-fA-F]+|[A-Za-z][A-Za-z0-9]*);")
_URL = re.compile(r"(?:https?|ftp)://[^\s<>\[\]{}|\"']+", re.IGNORECASE)
# The languages Jira's code macro highlights (any other shows an error above the code), and
# Markdown's usual names for them.
_CODE_LANGUAGES = frozenset({
    "actionscript", "ada", "applescript", "bash", "c", "c#", "c++", "css", "erlang", "go", "groovy", "haskell",
    "html", "java", "javascript", "json", "lua", "objc", "perl", "php", "python", "r", "ruby", "scala", "sql",
    "swift", "visualbasic", "xml", "yaml"})
_LANGUAGE_ALIASES = {"js": "javascript", "ts": "javascript", "typescript": "javascript", "py": "python",
                     "sh": "bash", "shell": "bash", "console": "bash", "zsh": "bash", "yml": "yaml", "cpp": "c++",
                     "cs": "c#", "csharp": "c#", "golang": "go", "htm": "html", "rb": "ruby", "objective-c": "objc",
                     "vb": "visualbasic"}


@dataclass
class _Piece:
    """Part of a line: text of the Markdown (``plain``, escaped where Jira would read it), wiki
    markup written here (``raw``), or an effect's ``open``/``close`` (``pair`` joins the two)."""

    text: str
    kind: str = "plain"
    where: str = ""  # "code", "link" (a link's text) or "cell" (a table's): what else is escaped
    pair: list[bool] | None = None  # shared by an effect's two pieces: [written in the {*} form]


@dataclass
class _Context:
    one_line: bool = False  # a list item, a cell, a heading: breaks as "\\" or a space
    in_effect: bool = False  # within an effect, whose content is one line: breaks as a space
    where: str = ""


class _Line:
    """A paragraph's, item's, cell's or heading's pieces, written with its text escaped."""

    def __init__(self, pieces: list[_Piece], at_line_start: bool):
        self.chars: list[str] = []
        self.plain: list[bool] = []
        self.where: list[str] = []
        for piece in self._effects_placed(pieces):
            self.chars.extend(piece.text)
            self.plain.extend([piece.kind == "plain"] * len(piece.text))
            self.where.extend([piece.where] * len(piece.text))
        self.at_line_start = at_line_start
        self.escaped: set[int] = set()
        self.entity: dict[int, str] = {}

    @staticmethod
    def _effects_placed(pieces: list[_Piece]) -> list[_Piece]:
        """Each effect's delimiters as raw text: ``{*}`` around it when a letter or digit stands
        right before its opening or after its closing (Jira's form for an effect inside a word)."""
        before = ""
        for piece in pieces:
            if piece.kind == "open" and piece.pair is not None and (before.isalnum() or before == "\\"):
                piece.pair[0] = True
            before = piece.text[-1:] or before
        after = ""
        for piece in reversed(pieces):
            if piece.kind == "close" and piece.pair is not None and after.isalnum():
                piece.pair[0] = True
            after = piece.text[:1] or after
        placed = []
        for piece in pieces:
            if piece.kind in ("open", "close"):
                braced = piece.pair is not None and piece.pair[0]
                placed.append(_Piece("{" + piece.text + "}" if braced else piece.text, "raw"))
            else:
                placed.append(piece)
        return placed

    def _mark(self, index: int) -> bool:
        if not self.plain[index] or index in self.escaped or index in self.entity:
            return False
        self.escaped.add(index)
        return True

    def scan(self) -> str:
        """The text as Jira's renderer would see it once its escapes are read: an escaped character
        as itself or as the ``;`` that ends its entity, an entity as its ``;``."""
        shown = []
        for index, char in enumerate(self.chars):
            if index in self.entity or (index in self.escaped and char not in _ESCAPED_AS_ITSELF):
                shown.append(";")
            else:
                shown.append(char)
        return "".join(shown)

    def written(self) -> str:
        self._escape()
        out = []
        for index, char in enumerate(self.chars):
            if index in self.entity:
                out.append(self.entity[index])
            elif index in self.escaped:
                out.append("\\" + char)
            else:
                out.append(char)
        return "".join(out)

    def _escape(self) -> None:
        text = "".join(self.chars)
        for index, char in enumerate(text):
            if self.plain[index]:
                self._escape_character(text, index, char)
        self._escape_runs(text)
        # The effects last, until no pattern pairs a delimiter of the text: escaping one may let
        # Jira pair another differently.
        changed = True
        while changed:
            changed = False
            shown = self.scan()
            for mark in _EFFECTS:
                for pair in effect_pairs(shown, mark):
                    # A delimiter's own character: in the "{*}" form, the one after the brace
                    # (which Jira may read before it looks for effects, escaped or not).
                    for at in pair:
                        changed = self._mark(at + (shown[at] == "{")) | changed
                if changed:
                    break
            # An image is paired as an effect is (EmbeddedRendererComponent), if its name has five
            # characters or more and opens with no ")" (an emoticon's), and has no braced form.
            for start, end in [] if changed else effect_pairs(shown, "!"):
                if end - start > 5 and shown[start + 1] != ")" and "{" not in (shown[start], shown[end]):
                    changed = self._mark(start) | changed

    def _escape_character(self, text: str, index: int, char: str) -> None:
        where = self.where[index]
        following = text[index + 1:index + 2]
        if char == "\\" and following and (following in _ESCAPABLE or following == "\\"):
            self.entity[index] = "&#92;"
        elif char == "&" and _ENTITY.match(text, index):
            self.entity[index] = "&amp;"
        elif ((char in "|[]" and "link" in where) or (char == "|" and "cell" in where)
              or (char in "{}" and "code" in where)):
            # An entity, which neither a table's nor a link's split on "|" nor monospace's end
            # reads as theirs (Jira turns an escaped "{" back into "{" before it looks for them).
            self.entity[index] = f"&#{ord(char)};"
        elif char == "{" and re.match(r"\{|(?:[*_+^~-]|\?\?)\}", text[index + 1:index + 4]):
            # "{*}" and "{{" are an effect's delimiters to Jira, also after "\{": Jira reads its
            # escapes before its effects, and an escaped "{" as "{".
            self.entity[index] = "&#123;"
        elif char in "[{" and not (char == "[" and (following.isspace() or following == "]")):
            # A link ("[" not before whitespace or "]") or a macro, if closed on the same line.
            end = text.find("\n", index)
            if text.find("]" if char == "[" else "}", index, None if end < 0 else end) > 0:
                self._mark(index)

    def _escape_runs(self, text: str) -> None:
        """A list's or rule's marks and a table's bar at a line's start, dashes, emoticons."""
        for start in [0] + [match.end() for match in re.finditer("\n", text)]:
            if start == 0 and not self.at_line_start:
                continue
            found = _LINE_MARKS.match(text, start)
            at = -1 if found is None else len(found.group()) - len(found.group().lstrip(" \t")) + start
            if at >= 0 and self.plain[at] and text[at] in "hb":
                # A heading's or a quote's letter has no escape: an entity is no letter to Jira.
                self.entity[at] = f"&#{ord(text[at])};"
            elif at >= 0:
                self._mark(at)
        for found in _DASHES.finditer(text):
            self._mark(found.start())
        for found in _EMOTICON.finditer(text):
            if found.group()[1] in "PpD":
                if self.plain[found.start()]:  # ":P": no character of it has an escape
                    self.entity[found.start()] = "&#58;"
            else:
                self._mark(found.start() + (1 if found.group()[0] in ":;" else 0))


def _percent(url: str, characters: str) -> str:
    """A URL with the characters that would end Jira's construct early percent-encoded."""
    return "".join(f"%{ord(char):02X}" if char in characters or char.isspace() else char for char in url)


class _Renderer:
    """Wiki markup of a Markdown syntax tree, block by block."""

    def blocks(self, nodes: list[SyntaxTreeNode], quoted: bool = False) -> list[str]:
        return [text for text in (self.block(node, quoted) for node in nodes) if text]

    def block(self, node: SyntaxTreeNode, quoted: bool) -> str:
        kind = node.type
        if kind == "paragraph":
            return self.line(node.children[0], _Context(), at_line_start=True)
        if kind == "heading":
            return f"h{node.tag[1]}. " + self.line(node.children[0], _Context(one_line=True))
        if kind in ("bullet_list", "ordered_list"):
            return "\n".join(self.list_lines(node, ""))
        if kind == "blockquote":
            inner = "\n\n".join(self.blocks(node.children, quoted=True))
            # Jira's {quote} does not nest: a quote within a quote is part of the outer one.
            return inner if quoted else "{quote}\n" + inner + "\n{quote}"
        if kind in ("fence", "code_block"):
            return self.code(node.content, node.info.strip().split(" ")[0] if kind == "fence" else "")
        if kind == "hr":
            return "----"
        if kind == "table":
            return self.table(node)
        return "\n\n".join(self.blocks(node.children, quoted))

    @staticmethod
    def code(content: str, language: str) -> str:
        content = content[:-1] if content.endswith("\n") else content
        language = _LANGUAGE_ALIASES.get(language.lower(), language.lower())
        # The block ends at its first closing macro: one whose closing the content holds is the other.
        macro = "code" if language in _CODE_LANGUAGES else "noformat"
        if "{" + macro + "}" in content.lower():
            macro = "noformat" if macro == "code" else "code"
            language = ""
        opening = "{code:" + language + "}" if macro == "code" and language else "{" + macro + "}"
        return f"{opening}\n{content}\n{{{macro}}}"

    def list_lines(self, node: SyntaxTreeNode, marks: str) -> list[str]:
        """A list's lines. Jira goes on with an item at each later line that is not blank and
        not an item, and renders its macros first: an item's later paragraphs, code and quotes
        are lines of it. What else an item holds follows the list's line (and ends the list)."""
        marks += "#" if node.type == "ordered_list" else "*"
        lines: list[str] = []
        for item in node.children:
            own: list[str] = []
            after: list[str] = []
            for child in item.children:
                if child.type in ("bullet_list", "ordered_list") and not after:
                    after.extend(self.list_lines(child, marks))
                elif child.type == "paragraph" and not after:
                    own.append(self.line(child.children[0], _Context(one_line=True), at_line_start=bool(own)))
                elif child.type in ("fence", "code_block", "blockquote") and not after:
                    own.append(self.block(child, False))
                else:
                    after.append("\n" + self.block(child, False) + "\n")
            if not item.children or item.children[0].type != "paragraph":
                own.insert(0, "")  # the item's line is empty, its block the next
            lines.append(f"{marks} " + "\n".join(own))
            lines.extend(after)
        return lines

    def table(self, node: SyntaxTreeNode) -> str:
        rows = []
        for section in node.children:
            for row in section.children:
                separator = "||" if section.type == "thead" else "|"
                cells = [self.line(cell.children[0], _Context(one_line=True, where="cell")) if cell.children else ""
                         for cell in row.children]
                rows.append(separator + separator.join(cell or " " for cell in cells) + separator)
        return "\n".join(rows)

    def line(self, inline: SyntaxTreeNode, context: _Context, at_line_start: bool = False) -> str:
        return _Line(self.inline(inline.children, context), at_line_start).written()

    def inline(self, nodes: list[SyntaxTreeNode], context: _Context) -> list[_Piece]:
        return [piece for node in nodes for piece in self.piece(node, context)]

    def piece(self, node: SyntaxTreeNode, context: _Context) -> list[_Piece]:
        kind = node.type
        if kind == "text":
            return self.text(node.content, context)
        if kind in ("softbreak", "hardbreak"):
            if context.in_effect:
                return [_Piece(" ", "raw")]
            return [_Piece("\\\\ " if context.one_line else "\n", "raw")]
        if kind in ("em", "strong", "s"):
            inner = self.inline(node.children, _Context(True, True, context.where))
            return self.effect({"em": "_", "strong": "*", "s": "-"}[kind], inner)
        if kind == "code_inline":
            content = node.content.strip()
            if not content:
                return [_Piece(node.content, "plain", context.where)]
            return self.effect("{{", [_Piece(content, "plain", f"code {context.where}")], "}}")
        if kind == "link":
            return self.link(node, context)
        if kind == "image":
            return [_Piece("!" + _percent(str(node.attrGet("src") or ""), "!|") + "!", "raw")]
        if kind == "html_inline" and "task-list-item-checkbox" in node.content:
            return [_Piece("☑" if "checked" in node.content else "☐", "raw")]
        return self.text(node.content, context)

    @staticmethod
    def text(text: str, context: _Context) -> list[_Piece]:
        # A URL in the text is one to Jira too (it links it): written as it is, never escaped.
        pieces, at = [], 0
        for found in _URL.finditer(text):
            pieces += [_Piece(text[at:found.start()], "plain", context.where), _Piece(found.group(), "raw")]
            at = found.end()
        pieces.append(_Piece(text[at:], "plain", context.where))
        return [piece for piece in pieces if piece.text]

    @staticmethod
    def effect(opening: str, inner: list[_Piece], closing: str | None = None) -> list[_Piece]:
        if not "".join(piece.text for piece in inner).strip():
            return inner
        pair = [False]
        return [_Piece(opening, "open", pair=pair), *inner, _Piece(closing or opening, "close", pair=pair)]

    def link(self, node: SyntaxTreeNode, context: _Context) -> list[_Piece]:
        href = str(node.attrGet("href") or "")
        url = _percent(href, "|]")
        alias = self.inline(node.children, _Context(True, True, "link"))
        shown = "".join(piece.text for piece in alias)
        if node.markup == "autolink" or shown.strip() in ("", href, href.removeprefix("mailto:")):
            return [_Piece(f"[{url}]", "raw")]
        return [_Piece("[", "raw"), *alias, _Piece(f"|{url}]", "raw")]


# Raw HTML is text (Jira shows "<b>" as typed); GFM's tables, strikethrough and task lists.
_md = MarkdownIt("commonmark", {"html": False}).enable(["table", "strikethrough"]).use(tasklists_plugin)


def to_wiki(markdown: str) -> str:
    """Markdown as Jira wiki markup that shows the same: see the module's description."""
    tree = SyntaxTreeNode(_md.parse(markdown))
    return "\n\n".join(_Renderer().blocks(tree.children))


def body(text: str, format: str = "wiki") -> str:
    """A write's body as Jira takes it: wiki text byte for byte, Markdown converted."""
    if format == "wiki":
        return text
    if format == "markdown":
        return to_wiki(text)
    raise ValueError(f"no format {format!r}: one of {', '.join(FORMATS)}")
