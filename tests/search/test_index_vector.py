"""The PostgreSQL index's words (``hub.dialect.fulltext.index_vector``) are the schema's
``search_vector``: the same tsvector, positions and weights, over random text of every
kind the mirror holds (scripts, diacritics, ё, punctuation, white space, e-mails, URLs,
numbers, markup), so that what the index holds is what a query's words are folded to."""

from __future__ import annotations

import random

import pytest

from hub.dialect.fulltext import index_vector

pytestmark = pytest.mark.backends("postgresql")

WORDS = ["kiwi", "APPLE", "café", "Crème", "naïve", "ёлка", "Ёж", "отчёт", "ОТЧЕТ", "İstanbul", "straße",
         "x86_64", "v2", "42", "3.14", "1.2.3", "1e5", "-7", "foo-bar", "foo_bar", "AURORA-12", "a@b.example",
         "https://jira.example/browse/AURORA-1?x=1&y=2", "/usr/bin/env", "C:\\temp\\x.txt", "<b>bold</b>",
         "&amp;", "don't", "l'été", "日本語", "😀", "ǅ", "ﬁle", "Ⅻ", "٣", "e\u0301", "a\u200db"]
BETWEEN = [" ", "  ", "\t", "\n", "\r\n", ", ", ". ", ": ", " - ", " — ", "«", "»", "…", "\u00a0", "\u2003",
           "/", "\\", "|", "(", ")", "[", "]", "{", "}", "+", "=", "*", "#", "~", "^", "`", "'", '"', "!", "?",
           ";", "%", "$", "<", ">", "&", "@", "·", "•", "\u3002", "\x0b", "\x0c"]


def test_the_index_folds_text_as_search_vector_does(database_url):
    import psycopg

    rng = random.Random(21)
    texts = ["", " ", "\n\n", "...", "a", "Ёлка-палка", "x" * 3000, *(
        "".join(rng.choice(WORDS) + rng.choice(BETWEEN) for _ in range(rng.randint(1, 60)))
        for _ in range(3000))]
    with psycopg.connect(database_url) as conn:
        differ = conn.execute(
            f"SELECT t, search_vector(t, 'C')::text, ({index_vector('t', 'C')})::text "
            "FROM unnest(CAST(%s AS text[])) AS x(t) "
            f"WHERE search_vector(t, 'C') IS DISTINCT FROM {index_vector('t', 'C')}", (texts,)).fetchall()
        nulls = conn.execute(f"SELECT {index_vector('NULL', 'A')} = search_vector(NULL, 'A')").fetchone()
    assert differ == []
    assert nulls == (True,)
