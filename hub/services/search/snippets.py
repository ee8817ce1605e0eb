"""Snippets of a search's matches, cut and marked as FTS5's ``snippet()`` does.

Both engines' searches cut their snippets here (:func:`page_snippet`), from the text of
the page's rows alone, read once for the page. PostgreSQL's ``ts_headline`` parses text
with its own parser and marks what its dictionaries make of it, not the words the index
holds. FTS5's ``snippet()`` is computed where the match is, and an external-content
table finds a row's match by running the query again for it: for a short prefix
(``a*``), whose every term's positions FTS5 merges before the first row, that was a
second of work per row of the page. The rules are FTS5's: the field and the window of SNIPPET_TOKENS words
holding the most of the query's distinct phrases (a window that starts a sentence
preferred), every match in it marked, an ellipsis where the text was cut.
Words are runs of letters and digits, folded as the index folds them (case in
every script, Latin diacritics, ``ё`` as ``е``).
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Sequence
from typing import NamedTuple

from hub.services.markup.convert import snippet_text
from hub.services.search.fulltext import SNIPPET_ELLIPSIS, SNIPPET_END, SNIPPET_START, SNIPPET_TOKENS
from hub.services.search.text_query import FIELDS, Node, Term, fold

_WORD = re.compile(r"[^\W_]+")
# The last letter whose diacritics are removed (Latin Extended-B ends here), as unaccent's rules do.
_LATIN = "\u024f"
# Letters that a word's folding changes beyond case: Latin ones with diacritics, ligatures,
# and anything of compatibility (fullwidth forms).
# What ends a sentence between two words: '.' or ':', then white space.
_SENTENCE_END = re.compile(r"[.:][ \t\n\r]+\Z")
_UNFOLDED = re.compile("[\u00c0-\u024f\u1e00-\u1eff\ufb00-\ufb06\uff00-\uffef]")


class Phrase(NamedTuple):
    """A phrase of the query: its folded words, whether the last is a prefix, and the
    fields (indexes of the snippet's columns) it is searched in (None: all)."""

    words: tuple[str, ...]
    prefix: bool
    columns: frozenset[int] | None


@functools.lru_cache(maxsize=65536)
def fold_word(word: str) -> str:
    """A word as the index holds it (the words of a mirror repeat: folded once each)."""
    if word.isascii():
        return word.lower()
    folded = unicodedata.normalize("NFKD", word.casefold().replace("ё", "е"))
    kept: list[str] = []
    for ch in folded:
        if unicodedata.combining(ch) and kept and kept[-1] <= _LATIN:
            continue
        kept.append(ch)
    return unicodedata.normalize("NFC", "".join(kept))


def words_of(text: str) -> tuple[str, ...]:
    """The folded words of a query's term."""
    return tuple(fold_word(word) for word in _WORD.findall(text))


# Which phrases hold in a match, as the query's tree of their indexes: an index, or
# ("or", [shapes]), ("and", [shapes]) or ("not", wanted, unwanted).
Shape = int | tuple


def plan(tree: Node, fields: tuple[str, ...] | None = None) -> tuple[list[Phrase], Shape | None]:
    """The phrases of a query's tree (:func:`hub.services.search.text_query.parse`), its words searched
    in ``fields`` when given, and the shape in which they combine, for :func:`snippet`."""
    phrases: list[Phrase] = []
    return phrases, _shape(tree, fields or FIELDS, phrases)


def page_snippet(columns: Sequence[str | None], phrases: Sequence[Phrase], shape: Shape | None) -> str | None:
    """A page row's ``snippet`` as the list answers it: :func:`snippet` of the five fields'
    text (``ё`` read as ``е``, as indexed) with the list's marks, as plain text."""
    cut = snippet([fold(text) if text else text for text in columns], phrases, shape,
                  SNIPPET_START, SNIPPET_END, SNIPPET_ELLIPSIS, SNIPPET_TOKENS)
    return snippet_text(cut, SNIPPET_START, SNIPPET_END)


def _shape(node: Node, fields: tuple[str, ...], phrases: list[Phrase]) -> Shape | None:
    """The tree of ``node`` for the snippets, its phrases added to ``phrases``; None for a
    part that holds no word (left out, as in the match)."""
    if isinstance(node, Term):
        searched = [node.field] if node.field else list(fields)
        columns = frozenset(FIELDS.index(name) for name in searched if name in fields)
        first = len(phrases)
        texts = (node.text,) if node.also is None else (node.text, node.also)
        phrases += [Phrase(words, node.prefix, None if len(columns) == len(FIELDS) else columns)
                    for words in map(words_of, texts) if words]
        return ("or", list(range(first, len(phrases)))) if len(phrases) > first else None
    if node[0] == "not":
        wanted, unwanted = _shape(node[1], fields, phrases), _shape(node[2], fields, phrases)
        return wanted if wanted is None or unwanted is None else ("not", wanted, unwanted)
    parts = [part for part in (_shape(child, fields, phrases) for child in node[1]) if part is not None]
    return (node[0], parts) if parts else None


def snippet(columns: Sequence[str | None], phrases: Sequence[Phrase], shape: Shape | None, start_mark: str,
            end_mark: str, ellipsis: str, size: int) -> str:
    """The snippet of one match: ``columns`` its fields' text (as indexed), ``phrases`` the
    query's and ``shape`` how they combine. As FTS5 does, only the phrases of the parts of
    the query that hold in this match are marked (not ``kiwi`` of ``(kiwi -plum) OR fig``
    in a text with ``plum``)."""
    cut = [(text or "", *_instances(text or "", phrases, column)) for column, text in enumerate(columns)]
    if shape is not None:
        held = _held(shape, {phrase for _, _, found in cut for _, _, phrase in found})
        cut = [(text, count, [one for one in found if one[2] in held]) for text, count, found in cut]
    best_score, best_column, best_start = 0, 0, 0
    for column, (text, count, found) in enumerate(cut):
        if not found or count is None:
            continue
        firsts = _sentence_starts(text) if count > size else []
        for start, _end, _phrase in found:
            score, adjusted = _score(found, start, size, count)
            if score > best_score:
                best_score, best_column, best_start = score, column, adjusted
            if firsts:
                before = [first for first in firsts if first <= start][-1]
                if before < start:
                    score, _ = _score(found, before, size, count)
                    score += 120 if before == 0 else 100
                    if score > best_score:
                        best_score, best_column, best_start = score, column, before
    text, _count, found = cut[best_column]
    # Where its words are, in the one field shown only (most of the cost of a snippet).
    spans = [match.span() for match in _WORD.finditer(text)]
    return _marked(text, spans, [(start, end) for start, end, _ in found], best_start, size,
                   start_mark, end_mark, ellipsis)


def _held(shape: Shape, present: set[int]) -> set[int]:
    """The phrases of the parts of ``shape`` that hold, given the phrases ``present``."""
    if isinstance(shape, int):
        return {shape} & present
    if shape[0] == "not":
        # What an excluded part finds is not marked. (FTS5 marks it in some cases, as the
        # ``plum`` of ``fig OR (kiwi -plum)`` in a text with ``plum`` but not that of
        # ``(kiwi -plum) OR fig``: an order of its evaluation not followed here.)
        wanted = _held(shape[1], present)
        return wanted if wanted and not _held(shape[2], present) else set()
    parts = [_held(part, present) for part in shape[1]]
    if shape[0] == "and" and not all(parts):
        return set()
    return set().union(*parts)


def _instances(text: str, phrases: Sequence[Phrase], column: int) -> tuple[int | None, list[tuple[int, int, int]]]:
    """How many words the column holds (None when not needed) and each match of a phrase
    in it: (first word, last word, which phrase), in order."""
    wanted = [(n, phrase) for n, phrase in enumerate(phrases)
              if phrase.words and (phrase.columns is None or column in phrase.columns)]
    # Most fields hold none of the words: seen at once in the text folded whole, before its
    # words are read (ASCII folds letter for letter, in place; other text may, unless it holds
    # letters whose diacritics or ligatures the words' folding takes apart).
    ascii_text = text.isascii()
    folded = text.lower() if ascii_text else text.casefold().replace("ё", "е")
    if ascii_text or not _UNFOLDED.search(text):
        wanted = [(n, phrase) for n, phrase in wanted if phrase.words[0] in folded]
    if not wanted:
        return None, []
    # (ASCII text folds letter for letter: its words are those of the folded text.)
    words = _WORD.findall(folded) if ascii_text else [fold_word(word) for word in _WORD.findall(text)]
    found = []
    for n, phrase in wanted:
        length, first = len(phrase.words), phrase.words[0]
        for position in range(len(words) - length + 1):
            if not (words[position].startswith(first) if length == 1 and phrase.prefix else words[position] == first):
                continue
            if all(words[position + i] == word for i, word in enumerate(phrase.words[1:-1], 1)) and (
                    length == 1 or (words[position + length - 1].startswith(phrase.words[-1]) if phrase.prefix
                                    else words[position + length - 1] == phrase.words[-1])):
                found.append((position, position + length - 1, n))
    # In FTS5's order: by position, then by the phrase's place in the query.
    return len(words), sorted(found, key=lambda one: (one[0], one[2]))


def _sentence_starts(text: str) -> list[int]:
    """The words that start a sentence: the first, and each after '.' or ':' and a space."""
    # What stands between the words: before the first, between each two, after the last.
    between = _WORD.split(text)
    return [0] + [position for position in range(1, len(between) - 1)
                  if between[position] != " " and _SENTENCE_END.search(between[position])]


def _score(found: list[tuple[int, int, int]], start: int, size: int, length: int) -> tuple[int, int]:
    """FTS5's score of the window of ``size`` words from ``start`` (1000 a distinct phrase, 1 a
    repeat), and where a window centred on its matches would start."""
    seen: set[int] = set()
    score, first, last = 0, -1, 0
    for begin, end, phrase in found:
        if start <= begin < start + size:
            score += 1 if phrase in seen else 1000
            seen.add(phrase)
            if first < 0:
                first = begin
            last = end + 1
    # C's division, which truncates toward zero (a phrase running past the window centres it so).
    adjusted = first - int((size - (last - first)) / 2)
    if adjusted + size > length:
        adjusted = length - size
    return score, max(adjusted, 0)


def _marked(text: str, spans: list[tuple[int, int]], found: list[tuple[int, int]], start: int, size: int,
            start_mark: str, end_mark: str, ellipsis: str) -> str:
    """The window's text with each (coalesced) match between the marks."""
    if not spans:
        return text
    last = min(start + size - 1, len(spans) - 1)
    merged: list[list[int]] = []
    for begin, end in found:
        if merged and begin <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([begin, end])
    out = [ellipsis] if start > 0 else []
    offset = spans[start][0] if start > 0 else 0
    for begin, end in merged:
        # A match that begins before the window is not marked (FTS5 passes over it), one that
        # runs past its end is marked up to there.
        if begin < start or begin > last:
            continue
        end = min(end, last)
        out += [text[offset:spans[begin][0]], start_mark, text[spans[begin][0]:spans[end][1]], end_mark]
        offset = spans[end][1]
    out.append(text[offset:spans[last][1]])
    out.append(text[spans[last][1]:] if last >= len(spans) - 1 else ellipsis)
    return "".join(out)
