"""Snippets of a search's matches, cut and marked as FTS5's ``snippet()`` does.

PostgreSQL's ``ts_headline`` parses text with its own parser and marks what its
dictionaries make of it, not the words the index holds; so the PostgreSQL search
(:mod:`hub.services.fulltext_postgres`) cuts its snippets here, from the page's
rows alone, with FTS5's rules: the field and the window of SNIPPET_TOKENS words
holding the most of the query's distinct phrases (a window that starts a sentence
preferred), every match in it marked, an ellipsis where the text was cut.
Words are runs of letters and digits, folded as the index folds them (case in
every script, Latin diacritics, ``ё`` as ``е``).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from typing import NamedTuple

_WORD = re.compile(r"[^\W_]+")
# The last letter whose diacritics are removed (Latin Extended-B ends here), as unaccent's rules do.
_LATIN = "\u024f"


class Phrase(NamedTuple):
    """A phrase of the query: its folded words, whether the last is a prefix, and the
    fields (indexes of the snippet's columns) it is searched in (None: all)."""

    words: tuple[str, ...]
    prefix: bool
    columns: frozenset[int] | None


def fold_word(word: str) -> str:
    """A word as the index holds it."""
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


def snippet(columns: Sequence[str | None], phrases: Sequence[Phrase], start_mark: str, end_mark: str,
            ellipsis: str, size: int) -> str:
    """The snippet of one match: ``columns`` its fields' text (as indexed), ``phrases`` the query's."""
    best_score, best_column, best_start = 0, 0, 0
    cut: dict[int, tuple[str, list[tuple[int, int]], list[tuple[int, int, int]]]] = {}
    for column, text in enumerate(columns):
        text = text or ""
        spans = [match.span() for match in _WORD.finditer(text)]
        found = _instances(text, spans, phrases, column)
        cut[column] = (text, spans, found)
        if not found:
            continue
        firsts = _sentence_starts(text, spans) if len(spans) > size else []
        for start, _end, _phrase in found:
            score, adjusted = _score(found, start, size, len(spans))
            if score > best_score:
                best_score, best_column, best_start = score, column, adjusted
            if firsts:
                before = [first for first in firsts if first <= start][-1]
                if before < start:
                    score, _ = _score(found, before, size, len(spans))
                    score += 120 if before == 0 else 100
                    if score > best_score:
                        best_score, best_column, best_start = score, column, before
    text, spans, found = cut[best_column] if best_column in cut else (columns[best_column] or "", [], [])
    return _marked(text, spans, [(start, end) for start, end, _ in found], best_start, size,
                   start_mark, end_mark, ellipsis)


def _instances(text: str, spans: list[tuple[int, int]], phrases: Sequence[Phrase],
               column: int) -> list[tuple[int, int, int]]:
    """Each match of a phrase in the column: (first word, last word, which phrase), in order."""
    wanted = [(n, phrase) for n, phrase in enumerate(phrases)
              if phrase.words and (phrase.columns is None or column in phrase.columns)]
    if not wanted or not spans:
        return []
    words = [fold_word(text[a:b]) for a, b in spans]
    found = []
    for n, phrase in wanted:
        length = len(phrase.words)
        for position in range(len(words) - length + 1):
            if all(words[position + i] == word for i, word in enumerate(phrase.words[:-1])) and (
                    words[position + length - 1].startswith(phrase.words[-1]) if phrase.prefix
                    else words[position + length - 1] == phrase.words[-1]):
                found.append((position, position + length - 1, n))
    return sorted(found)


def _sentence_starts(text: str, spans: list[tuple[int, int]]) -> list[int]:
    """The words that start a sentence: the first, and each after '.' or ':' and a space."""
    starts = [0]
    for position in range(1, len(spans)):
        before = text[spans[position - 1][1]:spans[position][0]]
        stripped = before.rstrip(" \t\n\r")
        if stripped != before and stripped.endswith((".", ":")):
            starts.append(position)
    return starts


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
    adjusted = first - (size - (last - first)) // 2
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
        if end < start or begin > last:
            continue
        begin, end = max(begin, start), min(end, last)
        out += [text[offset:spans[begin][0]], start_mark, text[spans[begin][0]:spans[end][1]], end_mark]
        offset = spans[end][1]
    out.append(text[offset:spans[last][1]])
    out.append(text[spans[last][1]:] if last >= len(spans) - 1 else ellipsis)
    return "".join(out)
