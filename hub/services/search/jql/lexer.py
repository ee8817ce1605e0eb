"""JQL's words: the text of a query cut into tokens, in one pass over its characters.

The rules are Jira's (its grammar, ``Jql.g``): whitespace separates; ``( ) , [ ]`` and the
operators stand alone; a quoted string runs to its closing quote; anything else is an
unquoted word, which ends at whitespace, a quote, an operator character, a bracket, a comma,
``|``, ``&`` or a reserved character; ``&&`` and ``||`` are AND and OR, and a lone ``&`` or ``|``
is reserved, as in Jira. Jira's keywords (``AND``, ``or``, ``Not`` …) are read in
any case; other reserved words (``select``, ``user``, ``null``'s companions …) are an error
unless quoted. Escapes (``\\"``, ``\\'``, ``\\\\``, ``\\t``, ``\\n``, ``\\r``, ``\\ ``,
``\\uXXXX``) are resolved in quoted strings and unquoted words alike.

Where the hub reads more than Jira: ``/``, ``+`` and ``@`` may appear in an unquoted word
(``2026/10/22``, ``+1d``, ``ivanov@example.com``); Jira reserves them. The lexer never uses a
regular expression on the query's text, so its time is linear in the text's length.
"""

from __future__ import annotations

from dataclasses import dataclass

from hub.services.search.jql.tree import JqlError

PREFIX = "Error in the JQL Query: "

# The words the grammar itself uses: unquoted, they are tokens, never values or field names.
_KEYWORDS = "and or not in is empty null was changed before after from to on during order by asc desc cf"
KEYWORDS = frozenset(_KEYWORDS.split())

# Jira's reserved words (JqlStringSupportImpl.RESERVED_WORDS, Jira Server 8/9): unquoted,
# each is an error. The keywords are among them, except "during", which Jira leaves out.
_RESERVED_WORDS = """
    abort access add after alias all alter and any as asc audit avg before begin between boolean break by
    byte catch cf changed char character check checkpoint collate collation column commit connect continue
    count create current date decimal declare decrement default defaults define delete delimiter desc
    difference distinct divide do double drop else empty encoding end equals escape exclusive exec execute
    exists explain false fetch file field first float for from function go goto grant greater group having
    identified if immediate in increment index initial inner inout input insert int integer intersect
    intersection into is isempty isnull join last left less like limit lock long max min minus mode modify
    modulo more multiply next noaudit not notin nowait null number object of on option or order outer
    output power previous prior privileges public raise raw remainder rename resource return returns revoke
    right row rowid rownum rows select session set share size sqrt start strict string subtract sum synonym
    table then to trans transaction trigger true uid union unique update user validate values view was
    when whenever where while with
"""
RESERVED_WORDS = frozenset(_RESERVED_WORDS.split())

# Characters Jira keeps for later use: outside a string, each is an error.
RESERVED_CHARS = frozenset("{}*%^$#?;")
# Characters that end an unquoted word (besides whitespace, control characters and the
# reserved ones above).
STOP_CHARS = frozenset("\"'=!<>()~,[]|&")
WHITESPACE = frozenset(" \t\n\r")
ESCAPES = {"t": "\t", "n": "\n", "r": "\r", '"': '"', "'": "'", "\\": "\\", " ": " "}
VALID_ESCAPES = "\\', \\\", \\t, \\n, \\r, \\\\, '\\ ' and \\uXXXX"
HEX_DIGITS = frozenset("0123456789abcdefABCDEF")

# Kinds of token.
WORD = "word"  # an unquoted word that is no keyword; text has its escapes resolved
STRING = "string"  # a quoted string; text without its quotes, escapes resolved
KEYWORD = "keyword"  # text lower-cased: "and", "order", …
OPERATOR = "operator"  # "=", "!=", "<", ">", "<=", ">=", "~", "!~"
PUNCT = "punct"  # "(", ")", ",", "[", "]", "!" (Jira's NOT)
EOF = "eof"


@dataclass(frozen=True)
class Token:
    """One token: its kind, its text, where it starts (1-based) and the text as written."""

    kind: str
    text: str
    at: int
    raw: str

    def shown(self) -> str:
        """The token as an error message quotes it: as Jira does, its line breaks as spaces."""
        written = self.text if self.kind in (WORD, STRING) else self.raw
        return written.replace("\n", " ").replace("\r", " ")


def is_control(char: str) -> bool:
    """Jira's control characters (its CONTROLCHARS): never raw in a query, even quoted."""
    code = ord(char)
    return (
        code <= 0x09
        or 0x0B <= code <= 0x0C
        or 0x0E <= code <= 0x1F
        or 0x7F <= code <= 0x9F
        or 0xFDD0 <= code <= 0xFDEF
        or 0xFFFE <= code <= 0xFFFF
        # Lone surrogates (from a badly decoded request) are no characters at all.
        or 0xD800 <= code <= 0xDFFF
    )


def escape_of(char: str) -> str:
    """The escape Jira suggests for a character: ``\\t`` for a tab, else ``\\uXXXX``."""
    return "\\t" if char == "\t" else f"\\u{ord(char):04x}"


def printable(char: str) -> str:
    """A character as an error names it: itself, or ``TAB`` / ``U+0007`` when unprintable."""
    if char == "\t":
        return "TAB"
    if is_control(char) or char.isspace():
        return f"U+{ord(char):04X}"
    return char


def tokens(text: str) -> list[Token]:
    """Cut ``text`` into tokens, the last an :data:`EOF`; :class:`JqlError` when a string is
    unfinished, an escape illegal, a character reserved or a word reserved."""
    out: list[Token] = []
    i, n = 0, len(text)
    while i < n:
        char = text[i]
        if char in WHITESPACE:
            i += 1
        elif char in "\"'":
            i = _quoted(text, i, out)
        elif char in "()[],":
            out.append(Token(PUNCT, char, i + 1, char))
            i += 1
        elif char in "=<>~!":
            i = _operator(text, i, out)
        elif char in "&|":
            i = _logical(text, i, out)
        elif char in RESERVED_CHARS:
            raise JqlError(
                f"{PREFIX}The character '{char}' is a reserved JQL character. You must enclose it in a "
                f"string or use the escape '{escape_of(char)}' instead.",
                i + 1,
            )
        elif is_control(char):
            raise _illegal_character(char, i)
        else:
            i = _word(text, i, out)
    out.append(Token(EOF, "", n + 1, ""))
    return out


def _illegal_character(char: str, i: int) -> JqlError:
    if 0xD800 <= ord(char) <= 0xDFFF:
        return JqlError(f"{PREFIX}The character '{printable(char)}' is half of a UTF-16 pair, not a character.", i + 1)
    return JqlError(
        f"{PREFIX}The character '{printable(char)}' must be escaped. Use the escape '{escape_of(char)}' instead.",
        i + 1,
    )


def _operator(text: str, i: int, out: list[Token]) -> int:
    char = text[i]
    follows = text[i + 1] if i + 1 < len(text) else ""
    if (char in "<>!" and follows == "=") or (char == "!" and follows == "~"):
        out.append(Token(OPERATOR, char + follows, i + 1, char + follows))
        return i + 2
    if char == "!":
        out.append(Token(PUNCT, "!", i + 1, "!"))
    else:
        out.append(Token(OPERATOR, char, i + 1, char))
    return i + 1


def _logical(text: str, i: int, out: list[Token]) -> int:
    # Jira reads "&&" as AND and "||" as OR; a lone "&" or "|" it reserves (JqlStringSupportImpl).
    char = text[i]
    if not (i + 1 < len(text) and text[i + 1] == char):
        raise JqlError(
            f"{PREFIX}The character '{char}' is a reserved JQL character. You must enclose it in a "
            f"string or use the escape '{escape_of(char)}' instead.",
            i + 1,
        )
    out.append(Token(KEYWORD, "and" if char == "&" else "or", i + 1, char * 2))
    return i + 2


def _escape(text: str, i: int) -> tuple[str, int]:
    """The character the escape at ``text[i]`` (a backslash) stands for, and where it ends."""
    follows = text[i + 1] if i + 1 < len(text) else ""
    if follows in ESCAPES and follows:
        return ESCAPES[follows], i + 2
    if follows == "u":
        return _unicode_escape(text, i)
    if not follows or follows in WHITESPACE:
        raise JqlError(
            f"{PREFIX}The escape sequence has not been completed. The valid escape sequences are {VALID_ESCAPES}.",
            i + 1,
        )
    raise _illegal_escape("\\" + follows, i)


def _hex4(text: str, i: int) -> int | None:
    """The number written by the four hex digits at ``text[i:i+4]``, None if they are not."""
    digits = text[i : i + 4]
    return int(digits, 16) if len(digits) == 4 and all(d in HEX_DIGITS for d in digits) else None


def _unicode_escape(text: str, i: int) -> tuple[str, int]:
    """``\\uXXXX`` at ``text[i]``; a UTF-16 surrogate pair written as two escapes (as Jira, which
    counts UTF-16 units, lets one write a character beyond the basic plane) is one character."""
    code = _hex4(text, i + 2)
    if code is None:
        digits = "".join(d for d in text[i + 2 : i + 6] if d.isalnum())[:4]
        raise _illegal_escape("\\u" + digits, i)
    if 0xD800 <= code <= 0xDBFF and text[i + 6 : i + 8] == "\\u":
        low = _hex4(text, i + 8)
        if low is not None and 0xDC00 <= low <= 0xDFFF:
            return chr(0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)), i + 12
    if 0xD800 <= code <= 0xDFFF:
        # A lone surrogate is no character: the text could not be stored or compared.
        raise _illegal_escape(text[i : i + 6], i)
    return chr(code), i + 6


def _illegal_escape(sequence: str, i: int) -> JqlError:
    return JqlError(
        f"{PREFIX}'{sequence}' is an illegal JQL escape sequence. The valid escape sequences are {VALID_ESCAPES}.",
        i + 1,
    )


def _quoted(text: str, start: int, out: list[Token]) -> int:
    quote, i, n = text[start], start + 1, len(text)
    parts: list[str] = []
    while i < n:
        char = text[i]
        if char == quote:
            out.append(Token(STRING, "".join(parts), start + 1, text[start : i + 1]))
            return i + 1
        if char == "\\":
            decoded, i = _escape(text, i)
            parts.append(decoded)
        elif is_control(char):
            raise _illegal_character(char, i)
        else:
            parts.append(char)
            i += 1
    shown = "".join(parts).replace("\n", " ").replace("\r", " ")
    if not shown.strip():
        raise JqlError(f"{PREFIX}The quoted string has not been completed.", start + 1)
    raise JqlError(f"{PREFIX}The quoted string '{shown}' has not been completed.", start + 1)


def _word(text: str, start: int, out: list[Token]) -> int:
    i, n = start, len(text)
    parts: list[str] = []
    escaped = False
    while i < n:
        char = text[i]
        if char in WHITESPACE or char in STOP_CHARS or char in RESERVED_CHARS or is_control(char):
            break
        if char == "\\":
            decoded, i = _escape(text, i)
            parts.append(decoded)
            escaped = True
        else:
            parts.append(char)
            i += 1
    word = "".join(parts)
    lowered = word.lower()
    if not escaped and lowered in KEYWORDS:
        out.append(Token(KEYWORD, lowered, start + 1, text[start:i]))
    elif lowered in RESERVED_WORDS:
        raise JqlError(
            f"{PREFIX}'{word}' is a reserved JQL word. You must surround it in quotation marks to use it in a query.",
            start + 1,
        )
    else:
        out.append(Token(WORD, word, start + 1, text[start:i]))
    return i
