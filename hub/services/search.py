"""The query language of ``q``, turned into an FTS5 query over ``issue_fts``.

Users do not write FTS5 syntax: every word is quoted before it reaches FTS5,
so punctuation inside a word (``AURORA-12``, ``v2.1``, ``e-mail``) only splits
it into tokens that must follow each other, and no input can make SQLite fail.
What the language has:

- ``word word`` — both (AND is implied; ``AND`` may be written);
- ``"a phrase"`` — those words in that order;
- ``word*``, ``"a phra"*`` — a prefix (of the phrase's last word);
- ``a OR b`` — either; ``NOT word`` or ``-word`` — without it (there must be
  something to search for besides); ``( … )`` groups;
- ``summary:word``, ``description:"a phrase"``, ``comments:word*``,
  ``key:AURORA-12``, ``other:word`` (the environment and text custom fields) — in that
  field only.

Operators are upper case, as in FTS5; ``or`` is a word. Case does not matter in
words, nor Latin diacritics (``cafe`` finds ``café``), nor ``ё``/``е``.
Anything else that is syntax — an unbalanced quote or parenthesis, a ``*`` that
does not end a word, an operator without its operands, an unknown field — is
:class:`~hub.errors.ContractError` naming ``q``.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from hub.errors import ContractError

# The columns of ``issue_fts``; ``other`` holds the environment and the text of custom fields.
FIELDS = ("key", "summary", "description", "comments", "other")
# Bounds that keep a query cheap to parse and to run.
MAX_TERMS = 64
MAX_DEPTH = 8

_TOKEN = re.compile(r'\s*(?:(?P<open>\()|(?P<close>\))|(?P<field>[A-Za-z_]+:)?(?P<phrase>"[^"]*"?\*?)'
                    r'|(?P<word>[^\s()"]+))')
_FIELD = re.compile(r"([A-Za-z_]+):(.*)", re.DOTALL)
_OPERATORS = ("AND", "OR", "NOT")
# A term that is an issue's key as a whole (quoted by _quoted; no prefix), in no field or in ``key``.
_KEY_TERM = re.compile(r'(key : )?"([A-Za-z][A-Za-z0-9_]*-[1-9][0-9]{0,17})"')
_CONTROLS = {code: " " for code in range(32)}


def fold(text: str) -> str:
    """``ё`` as ``е``, as the index reads the mirror's text (see the ``issue_search`` view)."""
    return text.replace("ё", "е").replace("Ё", "Е")


def fts_query(q: str, moved: Callable[[list[str]], dict[str, str]] | None = None) -> str:
    """The FTS5 query for the user's ``q``; ContractError(field="q") if it is not one.

    ``moved`` gives, for words shaped as issue keys, the key each issue has now where it
    is an old key of a moved issue: such a word (alone or as ``key:``) finds either key."""
    try:
        q.encode("utf-8")
    except UnicodeEncodeError:
        raise _error("is not UTF-8 text") from None
    # Control characters separate words for the tokenizer anyway; FTS5 would read
    # a NUL as the end of the query.
    tokens = _lex(q.translate(_CONTROLS))
    if not tokens:
        raise _error("has nothing to search for")
    if sum(1 for kind, _ in tokens if kind == "term") > MAX_TERMS:
        raise _error(f"may hold at most {MAX_TERMS} words and phrases")
    if moved is not None:
        tokens = _with_moved_keys(tokens, moved)
    parser = _Parser(tokens)
    expression = parser.disjunction(0)
    if parser.position < len(tokens):
        kind, text = tokens[parser.position]
        raise _error("has an unmatched ')'" if kind == "close" else f"cannot go on with {text!r}")
    return expression


def _with_moved_keys(tokens: list[tuple[str, str]], moved) -> list[tuple[str, str]]:
    """The terms that are an old key of a moved issue, widened to its key now as well."""
    keys = {match[2].upper(): None for kind, text in tokens if kind == "term" and (match := _KEY_TERM.fullmatch(text))}
    if not keys:
        return tokens
    now = moved(list(keys))
    widened = []
    for kind, text in tokens:
        match = _KEY_TERM.fullmatch(text) if kind == "term" else None
        new = now.get(match[2].upper()) if match else None
        if match and new:
            # A column filter applies to a group as it does to a phrase.
            text = f'{match[1] or ""}("{match[2]}" OR "{new}")'
        widened.append((kind, text))
    return widened


# Said after what is wrong, so that the person at the screen can mend the query then and there
# rather than look for a page of the docs.
SYNTAX = 'write words, "a phrase", word*, a OR b, -word, (a OR b) c or a field, e.g. summary:word'


def _error(what: str) -> ContractError:
    return ContractError(f"q: {what}; {SYNTAX}", "q")


def _lex(q: str) -> list[tuple[str, str]]:
    """``(kind, text)``: ``open``, ``close``, ``op`` (AND, OR, NOT, -) or ``term`` (FTS5 text)."""
    tokens: list[tuple[str, str]] = []
    position = 0
    while True:
        match = _TOKEN.match(q, position)
        if match is None:
            if q[position:].strip():  # not reached: every non-space character starts a token
                raise _error("cannot be read")
            return tokens
        position = match.end()
        if match["open"]:
            tokens.append(("open", "("))
        elif match["close"]:
            tokens.append(("close", ")"))
        elif match["phrase"]:
            field = f"{_field(match['field'][:-1])} : " if match["field"] else ""
            tokens.append(("term", field + _phrase(match["phrase"])))
        else:
            word = match["word"]
            if word in _OPERATORS:
                tokens.append(("op", word))
            elif word.startswith("-") and len(word) > 1:
                tokens += [("op", "-"), ("term", _word(word[1:]))]
            else:
                tokens.append(("term", _word(word)))


def _phrase(text: str) -> str:
    prefix = text.endswith("*")
    if prefix:
        text = text[:-1]
    if len(text) < 2 or not text.endswith('"'):
        raise _error('has a " that is not closed')
    return _quoted(text[1:-1], prefix)


def _word(word: str, fields: bool = True) -> str:
    field = _FIELD.fullmatch(word) if fields else None
    if field:
        name, rest = _field(field.group(1)), field.group(2)
        if not rest:
            raise _error(f"has the field {name!r} with no word after it")
        return f"{name} : {_word(rest, fields=False)}"
    prefix = word.endswith("*")
    if prefix:
        word = word[:-1]
    if not word:
        raise _error("has a '*' that follows no word")
    if "*" in word:
        raise _error("has a '*' inside a word; it may only end one")
    return _quoted(word, prefix)


def _field(name: str) -> str:
    if name.lower() not in FIELDS:
        raise _error(f"names no field {name!r} (fields: {', '.join(FIELDS)}; quote a word that holds ':')")
    return name.lower()


def _quoted(text: str, prefix: bool) -> str:
    if prefix and not any(ch.isalnum() for ch in text):
        raise _error("has a '*' that follows no word")
    # A phrase cannot hold '"' (it would have ended there), so doubling is not needed.
    return f'"{fold(text)}"' + ("*" if prefix else "")


class _Parser:
    """Recursive descent over the tokens: OR of ANDs of (NOT-)terms and groups."""

    def __init__(self, tokens: list[tuple[str, str]]):
        self._tokens, self.position = tokens, 0

    def _peek(self) -> tuple[str, str] | None:
        return self._tokens[self.position] if self.position < len(self._tokens) else None

    def disjunction(self, depth: int) -> str:
        parts = [self._conjunction(depth)]
        while self._peek() == ("op", "OR"):
            self.position += 1
            parts.append(self._conjunction(depth))
        return parts[0] if len(parts) == 1 else "(" + " OR ".join(parts) + ")"

    def _conjunction(self, depth: int) -> str:
        wanted: list[str] = []
        unwanted: list[str] = []
        while True:
            token = self._peek()
            if token is None or token[0] == "close" or token == ("op", "OR"):
                break
            if token == ("op", "AND"):
                if not wanted and not unwanted:
                    raise _error("has AND with nothing before it")
                self.position += 1
                after = self._peek()
                if after is None or after[0] == "close" or after == ("op", "OR"):
                    raise _error("has AND with nothing after it")
                continue
            if token[0] == "op" and token[1] in ("NOT", "-"):
                self.position += 1
                unwanted.append(self._operand(depth, token[1]))
                continue
            wanted.append(self._operand(depth, None))
        if not wanted:
            if unwanted:
                raise _error("excludes words but has nothing to search for besides them")
            token = self._peek()
            before = self._tokens[self.position - 1] if self.position else None
            if token == ("op", "OR") or before == ("op", "OR"):
                raise _error("has OR with nothing on one side")
            if before == ("open", "("):
                raise _error("has a '(' that is not closed" if token is None else "has empty parentheses")
            raise _error("has nothing to search for")
        expression = wanted[0] if len(wanted) == 1 else "(" + " AND ".join(wanted) + ")"
        for term in unwanted:
            expression = f"({expression} NOT {term})"
        return expression

    def _operand(self, depth: int, after: str | None) -> str:
        token = self._peek()
        if token is None or token[0] == "close" or token[0] == "op":
            raise _error(f"has {after} with nothing after it" if after else
                         f"has {token[1]} where a word should be" if token else "ends too soon")
        self.position += 1
        if token[0] == "term":
            return token[1]
        # An opening parenthesis.
        if depth + 1 > MAX_DEPTH:
            raise _error(f"nests parentheses more than {MAX_DEPTH} deep")
        inner = self.disjunction(depth + 1)
        if self._peek() != ("close", ")"):
            raise _error("has a '(' that is not closed")
        self.position += 1
        return inner
