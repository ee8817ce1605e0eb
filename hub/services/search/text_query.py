"""The query language of ``q``: read into a tree, written as an FTS5 query over ``issue_fts``
on SQLite (:func:`fts_query`) and as PostgreSQL's by :mod:`hub.services.search.fulltext_postgres`.

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

:func:`parse` reads ``q`` into a tree (:class:`Term` leaves under ``("or", …)``,
``("and", …)`` and ``("not", wanted, unwanted)``); :func:`fts5` writes the tree
for FTS5 (:func:`fts_query` both at once), and :mod:`hub.services.search.fulltext_postgres` writes it for PostgreSQL.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

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
# A term that is an issue's key as a whole.
_KEY_TERM = re.compile(r"[A-Za-z][A-Za-z0-9_]*-[1-9][0-9]{0,17}")
_CONTROLS = {code: " " for code in range(32)}


def fold(text: str) -> str:
    """``ё`` as ``е``, as the index reads the mirror's text (see the ``issue_search`` view)."""
    return text.replace("ё", "е").replace("Ё", "Е")


@dataclass(frozen=True)
class Term:
    """A word or a phrase of ``q``: its text as written (``AURORA-12``, ``a phrase``),
    the field it is searched in (None: every field), whether it is a prefix, and the key
    it also finds (``also``) when its text is an old key of a moved issue."""

    text: str
    field: str | None = None
    prefix: bool = False
    also: str | None = None

    def fts5(self) -> str:
        """The term as FTS5 reads it: quoted (no input can make FTS5 fail), ``ё`` as ``е``."""
        column = f"{self.field} : " if self.field else ""
        if self.also is not None:
            # A column filter applies to a group as it does to a phrase.
            return f'{column}("{self.text}" OR "{self.also}")'
        return column + f'"{fold(self.text)}"' + ("*" if self.prefix else "")


# The tree of a query: a Term, or ("or", [nodes]), ("and", [nodes]) or ("not", wanted, unwanted).
Node = Term | tuple


def parse(q: str, moved: Callable[[list[str]], dict[str, str]] | None = None) -> Node:
    """The tree of the user's ``q``; ContractError(field="q") if it is not one.

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


def fts_query(q: str, moved: Callable[[list[str]], dict[str, str]] | None = None) -> str:
    """The FTS5 query for the user's ``q``; ContractError(field="q") if it is not one
    (``moved`` as for :func:`parse`)."""
    return fts5(parse(q, moved))


def fts5(node: Node) -> str:
    """A tree of ``q`` (:func:`parse`) as the FTS5 query that finds what it means."""
    if isinstance(node, Term):
        return node.fts5()
    if node[0] == "not":
        return f"({fts5(node[1])} NOT {fts5(node[2])})"
    return "(" + f" {node[0].upper()} ".join(map(fts5, node[1])) + ")"


def _with_moved_keys(tokens: list[tuple[str, object]], moved) -> list[tuple[str, object]]:
    """The terms that are an old key of a moved issue, widened to its key now as well."""
    keys = {term.text.upper(): None for _, term in tokens if isinstance(term, Term) and _is_key(term)}
    if not keys:
        return tokens
    now = moved(list(keys))
    widened: list[tuple[str, object]] = []
    for kind, term in tokens:
        new = now.get(term.text.upper()) if isinstance(term, Term) and _is_key(term) else None
        widened.append((kind, Term(term.text, term.field, also=new) if isinstance(term, Term) and new else term))
    return widened


def _is_key(term: Term) -> bool:
    """Whether a term is an issue's key as a whole (no prefix), in no field or in ``key``."""
    return (not term.prefix and term.field in (None, "key")
            and _KEY_TERM.fullmatch(term.text) is not None)


# Said after what is wrong, so that the person at the screen can mend the query then and there
# rather than look for a page of the docs.
SYNTAX = 'write words, "a phrase", word*, a OR b, -word, (a OR b) c or a field, e.g. summary:word'


def _error(what: str) -> ContractError:
    return ContractError(f"q: {what}; {SYNTAX}", "q")


def _lex(q: str) -> list[tuple[str, object]]:
    """``(kind, what)``: ``open``, ``close``, ``op`` (AND, OR, NOT, -) or ``term`` (a :class:`Term`)."""
    tokens: list[tuple[str, object]] = []
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
            field = _field(match["field"][:-1]) if match["field"] else None
            term = _phrase(match["phrase"])
            tokens.append(("term", Term(term.text, field, term.prefix) if field else term))
        else:
            word = match["word"]
            if word in _OPERATORS:
                tokens.append(("op", word))
            elif word.startswith("-") and len(word) > 1:
                tokens += [("op", "-"), ("term", _word(word[1:]))]
            else:
                tokens.append(("term", _word(word)))


def _phrase(text: str) -> Term:
    prefix = text.endswith("*")
    if prefix:
        text = text[:-1]
    if len(text) < 2 or not text.endswith('"'):
        raise _error('has a " that is not closed')
    return _quoted(text[1:-1], prefix)


def _word(word: str, fields: bool = True) -> Term:
    field = _FIELD.fullmatch(word) if fields else None
    if field:
        name, rest = _field(field.group(1)), field.group(2)
        if not rest:
            raise _error(f"has the field {name!r} with no word after it")
        term = _word(rest, fields=False)
        return Term(term.text, name, term.prefix)
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


def _quoted(text: str, prefix: bool) -> Term:
    if prefix and not any(ch.isalnum() for ch in text):
        raise _error("has a '*' that follows no word")
    # A phrase cannot hold '"' (it would have ended there), so FTS5 needs no doubling.
    return Term(text, prefix=prefix)


class _Parser:
    """Recursive descent over the tokens: OR of ANDs of (NOT-)terms and groups."""

    def __init__(self, tokens: list[tuple[str, object]]):
        self._tokens, self.position = tokens, 0

    def _peek(self) -> tuple[str, object] | None:
        return self._tokens[self.position] if self.position < len(self._tokens) else None

    def disjunction(self, depth: int) -> Node:
        parts = [self._conjunction(depth)]
        while self._peek() == ("op", "OR"):
            self.position += 1
            parts.append(self._conjunction(depth))
        return parts[0] if len(parts) == 1 else ("or", parts)

    def _conjunction(self, depth: int) -> Node:
        wanted: list[Node] = []
        unwanted: list[Node] = []
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
        expression = wanted[0] if len(wanted) == 1 else ("and", wanted)
        for term in unwanted:
            expression = ("not", expression, term)
        return expression

    def _operand(self, depth: int, after: str | None) -> Node:
        token = self._peek()
        if token is None or token[0] == "close" or token[0] == "op":
            raise _error(f"has {after} with nothing after it" if after else
                         f"has {token[1]} where a word should be" if token else "ends too soon")
        self.position += 1
        if token[0] == "term":
            return token[1]  # type: ignore[return-value]
        # An opening parenthesis.
        if depth + 1 > MAX_DEPTH:
            raise _error(f"nests parentheses more than {MAX_DEPTH} deep")
        inner = self.disjunction(depth + 1)
        if self._peek() != ("close", ")"):
            raise _error("has a '(' that is not closed")
        self.position += 1
        return inner
