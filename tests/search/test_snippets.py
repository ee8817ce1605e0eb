"""The PostgreSQL search's snippets (hub.services.search.snippets) are FTS5's: compared with
``snippet()`` of an FTS5 table in memory over random texts and queries."""

from __future__ import annotations

import random
import sqlite3

from hub.services.search.fulltext_postgres import compile_q
from hub.services.search.snippets import snippet
from hub.services.search.text_query import fold, fts_query, parse

WORDS = ["kiwi", "apple", "pear", "plum", "fig", "lime", "Kiwi", "APPLE", "café", "ёлка", "елка", "отчёт"]
BETWEEN = [" ", " ", " ", ", ", ". ", ": ", "\n", " - ", "! "]
QUERIES = ["kiwi", "apple", "pear", "fig", '"kiwi apple"', "ki*", "cafe", "елка", "summary:kiwi", "comments:pear",
           '"pear plum"', "lime", '"apple ki"*', "description:ap*", "x-1", "key:X-1", "kiwi -plum", "ОТЧЕТ"]


def test_snippets_cut_and_mark_as_fts5_does():
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE t USING fts5 (key, summary, description, comments, other,"
                 " tokenize='unicode61 remove_diacritics 2')")
    rng = random.Random(5)

    def text(words: int) -> str:
        return "".join(rng.choice(WORDS) + rng.choice(BETWEEN) for _ in range(words)).strip()

    compared = 0
    for n in range(2000):
        row = [fold(field) for field in (f"X-{n}", text(rng.randint(1, 8)), text(rng.randint(0, 40)),
                                         text(rng.randint(0, 30)), text(rng.randint(0, 3)))]
        conn.execute("DELETE FROM t")
        conn.execute("INSERT INTO t VALUES (?, ?, ?, ?, ?)", row)
        # A NOT within an OR is left out: FTS5 marks what its excluded part finds in some orders.
        terms = rng.sample(QUERIES, rng.randint(1, 3))
        q = " OR ".join(terms) if not any("-" in t and " " in t for t in terms) or len(terms) == 1 else terms[0]
        expected = conn.execute("SELECT snippet(t, -1, '[[', ']]', '…', 12) FROM t WHERE t MATCH ?",
                                (fts_query(q),)).fetchall()
        if not expected:
            continue
        query = compile_q(parse(q))
        assert snippet(row, query.phrases, query.shape, "[[", "]]", "…", 12) == expected[0][0], (q, row)
        compared += 1
    assert compared > 1000
