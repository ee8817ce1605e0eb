"""What a search (``q``) may cost: its time bounded as a JQL query's is (HUB_JQL_TIMEOUT_SECONDS,
503 with Retry-After), and a page's cost not multiplied by its rows: a short prefix (``a*``),
whose words FTS5 reads all at once, is read once per page, snippets included."""

from __future__ import annotations

import random
import sqlite3

import pytest

from hub.db import database
from hub.errors import TooSlow
from hub.services.search.fulltext import RANKED_MATCHES
from hub.services.search.jql.bounded import bounded
from tests.support import comment, issue
from tests.support.search_rows import index_everything, put

pytestmark = pytest.mark.backends("sqlite", "postgresql")
# What only SQLite has: FTS5's reading of its index.
sqlite_only = pytest.mark.backends("sqlite")

# One-letter prefixes, as a page sends while a word is typed, OR'ed up to the query's 64 terms.
EVERY_LETTER = " OR ".join(f"{letter}*" for letter in "abcdefghijklmnopqrstuvwxyz" * 2)


def search(hub, q: str, **params) -> dict:
    resp = hub.api("GET", "/api/v1/issues", params={"q": q, **params})
    assert resp.status_code == 200, resp.json
    return resp.json


def many_words(count: int) -> None:
    """``count`` issues of a hundred words each, of every initial, written straight into
    the tables and indexed as the loader indexes a page (state pages would take minutes)."""
    rng = random.Random(3)
    vocabulary = ["".join(rng.choices("abcdefghijklmnopqrstuvwxyz", k=rng.randint(3, 8))) for _ in range(3000)]
    rows = [(f"W-{n}", str(100_000 + n), " ".join(rng.choices(vocabulary, k=8)),
             " ".join(rng.choices(vocabulary, k=100))) for n in range(count)]
    database.execute_sql("INSERT INTO issue (key, id, summary, description, fetched_at) VALUES "
                         + ", ".join(["(?, ?, ?, ?, 't')"] * len(rows)), [value for row in rows for value in row])
    index_everything()


def test_a_search_past_its_time_bound_answers_503_with_retry_after_and_the_next_answers(make_hub):
    hub = make_hub(jql_timeout_seconds=0.001)
    many_words(2000)
    resp = hub.api("GET", "/api/v1/issues", params={"q": EVERY_LETTER, "limit": 50})
    assert resp.status_code == 503, resp.json
    assert resp.headers["Retry-After"] == "1"
    assert resp.json["description"].startswith("The search ran longer than 0.001 s and was stopped")
    # The bound ended with the search: the connection's next statements have none.
    assert hub.api("GET", "/api/v1/issues").status_code == 200
    if hub.config.backend == "postgresql":
        assert database.execute_sql("SHOW statement_timeout").fetchone()[0] == "0"


def test_a_search_within_its_bound_answers_every_letter_with_its_snippets(make_hub):
    hub = make_hub(jql_timeout_seconds=60)
    many_words(300)
    page = search(hub, EVERY_LETTER, limit=25)
    assert page["total"] == 300 and len(page["items"]) == 25
    assert all("[[" in item["snippet"] for item in page["items"])


def test_a_prefix_search_ranks_pages_counts_and_cuts_snippets_as_its_whole_word_does(hub):
    """A query with a prefix is read in one pass on SQLite, a word in another way: the
    two must agree where the prefix stands for the one word."""
    put([issue(f"X-{n}", status="Open" if n % 2 else "Done", description=f"filler text {n} " * 20 + "kiwi",
               comments=[comment(str(n), "a kiwi here" if n % 3 else "none")]) for n in range(1, 12)]
        + [issue("X-20", summary="kiwi kiwi", status="Open"), issue("X-21", summary="no fruit")])
    for params in ({"limit": 4}, {"limit": 4, "status": "Open"}, {"limit": 50}, {"limit": 3, "sort": "-key"}):
        word, prefix = search(hub, "kiwi", **params), search(hub, "kiw*", **params)
        assert [item["key"] for item in prefix["items"]] == [item["key"] for item in word["items"]], params
        assert (prefix["total"], prefix["next_cursor"]) == (word["total"], word["next_cursor"]), params
        assert [item["snippet"].replace("[[kiwi]]", "") for item in prefix["items"]] == \
            [item["snippet"].replace("[[kiwi]]", "") for item in word["items"]], params
        cursor = word["next_cursor"]
        while cursor is not None:
            rest_word = search(hub, "kiwi", cursor=cursor, **params)
            rest_prefix = search(hub, "kiw*", cursor=cursor, **params)
            assert [item["key"] for item in rest_prefix["items"]] == [item["key"] for item in rest_word["items"]]
            assert "total" not in rest_prefix and rest_prefix["next_cursor"] == rest_word["next_cursor"]
            cursor = rest_word["next_cursor"]
    assert search(hub, "kiw*", limit=1)["items"][0]["key"] == "X-20"
    assert search(hub, "zzz*") == {"items": [], "next_cursor": None, "total": 0, "people": {}}


@sqlite_only  # FTS5's statements on its own tables
def test_a_prefix_search_reads_the_index_once_per_page_not_once_per_row(hub):
    """FTS5's snippet() over an external-content table runs the query again for each row of
    the page, and a prefix's words are merged whole each time: a page of 25 for ``a*`` cost 25
    times a page of 1. The page is read from the index once, whatever its size."""
    many_words(200)
    reads = {}
    connection = database.connection()
    for limit in (1, 25):
        seen: list[str] = []
        connection.set_trace_callback(seen.append)
        try:
            page = search(hub, "a*", limit=limit)
        finally:
            connection.set_trace_callback(None)
        assert len(page["items"]) == limit and all("[[a" in item["snippet"].lower() for item in page["items"])
        # FTS5 looks up each segment of its index per evaluation of the query, and reads a row's
        # text for snippet() through the content view.
        reads[limit] = (sum("issue_fts_idx" in sql for sql in seen), sum("FROM 'main'.'issue_search'" in sql
                                                                           for sql in seen))
    assert reads[1] == reads[25] and reads[1][0] > 0 and reads[1][1] == 0


@sqlite_only  # FTS5's statements on its own tables
def test_a_prefix_in_the_facets_query_is_read_from_the_index_once_for_all_their_counts(hub):
    """The facets count a query's issues in several statements (the fields, status, priority,
    resolution, sprints), and each merged a prefix's words anew: ``a*`` cost five readings."""
    many_words(200)
    connection = database.connection()

    def lookups(run) -> tuple[int, object]:
        """How many times FTS5 looked up its index's segments while ``run`` ran, and its answer."""
        seen: list[str] = []
        connection.set_trace_callback(seen.append)
        try:
            answer = run()
        finally:
            connection.set_trace_callback(None)
        return sum("issue_fts_idx" in sql for sql in seen), answer

    once, matches = lookups(lambda: database.execute_sql(
        "SELECT count(*) FROM issue_fts WHERE issue_fts MATCH '\"a\"*'").fetchone()[0])
    facets, resp = lookups(lambda: hub.api("GET", "/api/v1/issues/facets", params={"q": "a*"}))
    assert resp.status_code == 200, resp.json
    assert resp.json["total"] == matches > 150
    assert facets == once > 0


@sqlite_only  # FTS5's rebuild and exact count; PostgreSQL ranks a prefix as it ranks a word
def test_a_prefix_search_broader_than_the_ranked_matches_ranks_the_newest_and_counts_them_all(hub):
    extra = 10
    conn = sqlite3.connect(hub.config.db_path)
    conn.execute("INSERT INTO issue (key, id, summary, fetched_at) VALUES ('OLD-1', '999999', 'kiwi kiwi kiwi', 't')")
    conn.executemany("INSERT INTO issue (key, id, summary, description, fetched_at) VALUES (?, ?, ?, ?, 't')",
                     [(f"N-{n}", str(n), f"issue {n}", f"kiwi{n % 7} " + "filler " * 30)
                      for n in range(RANKED_MATCHES + extra)])
    conn.execute("INSERT INTO issue_fts (issue_fts) VALUES ('rebuild')")
    conn.commit()
    conn.close()
    first = search(hub, "kiw*", limit=5)
    assert first["total"] == RANKED_MATCHES + extra + 1
    # OLD-1 would rank first, but it is not among the newest matches, which alone are ranked.
    assert "OLD-1" not in [item["key"] for item in first["items"]]
    assert search(hub, "kiw*", limit=5, cursor=RANKED_MATCHES - 5)["next_cursor"] is None
    assert search(hub, "kiw*", limit=5, cursor=RANKED_MATCHES)["items"] == []
    assert [item["key"] for item in search(hub, "summary:kiw*", limit=1)["items"]] == ["OLD-1"]


@sqlite_only  # SQLite's progress handler; PostgreSQL's client reads a statement's rows as it runs it
def test_a_statement_stopped_while_its_rows_are_read_is_too_slow_not_a_500(hub):
    """SQLite runs a statement as its rows are read: the bound can stop it in the client's
    fetch, past Peewee's wrapping of errors, where sqlite3's own error reaches the caller
    (a search for ``a*`` on a busy hub answered 500 so)."""
    # The first row comes at once; the rest take millions of steps.
    counting = ("WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n LIMIT 100000000) "
                "SELECT x FROM n")
    with pytest.raises(TooSlow, match="The search ran longer than"), bounded(1e-6, what="The search"):
        cursor = database.execute_sql(counting)
        cursor.fetchall()
    assert database.execute_sql("SELECT 1").fetchone() == (1,)
