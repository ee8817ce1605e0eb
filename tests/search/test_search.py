"""Full-text search (``q``) and the filters of ``GET /api/v1/issues``."""

from __future__ import annotations

import random
import sqlite3

import pytest

from hub.db import database
from hub.errors import ContractError
from hub.services.mirror.loading import MirrorService, RunContext
from hub.services.search.fulltext import RANKED_MATCHES
from hub.services.search.text_query import fts_query
from tests.support import comment, db_rows, issue, jira_id, load, with_projects
from tests.support.dbfactory import COMMENT_CREATED_UTC, make_db
from tests.support.search_rows import index_agrees as rows_agree
from tests.support.search_rows import index_everything, put

pytestmark = pytest.mark.backends("sqlite", "postgresql")
# Tests of what only SQLite has (FTS5's plans and index, SQLite's migrations); PostgreSQL's
# counterparts are the tests marked for it below.
sqlite_only = pytest.mark.backends("sqlite")


def search(hub, q: str | None = None, **params) -> dict:
    resp = hub.api("GET", "/api/v1/issues", params={**({"q": q} if q is not None else {}), **params})
    assert resp.status_code == 200, resp.json
    return resp.json


def found(hub, q: str | None = None, **params) -> list[str]:
    return [item["key"] for item in search(hub, q, **params)["items"]]


def index_agrees(hub) -> None:
    """The index agrees with the text it was built from (FTS5 checks itself and raises)."""
    rows_agree()


def mirror(hub, issues: list[dict]) -> None:
    """One state page into the mirror, through an agent's refresh."""
    load(hub, issues)


def test_cyrillic_and_latin_words_are_found_in_any_case(hub):
    mirror(hub, [issue("X-1", summary="Отчёт по продажам", description="Quarterly REPORT for the board"),
               issue("X-2", summary="Café menu", description="Ёлка в офисе"),
               issue("X-3", summary="Nothing here")])
    for q, keys in [("отчёт", ["X-1"]), ("отчет", ["X-1"]), ("ОТЧЁТ", ["X-1"]), ("ПРОДАЖАМ", ["X-1"]),
                    ("report", ["X-1"]), ("Quarterly", ["X-1"]), ("cafe", ["X-2"]), ("CAFÉ", ["X-2"]),
                    ("елка", ["X-2"]), ("ЁЛКА", ["X-2"]), ("x-3", ["X-3"]), ("продаж*", ["X-1"])]:
        assert found(hub, q) == keys, q
    [item] = search(hub, "отчет")["items"]
    # ё is read as е in the index, and so in the snippet.
    assert item["snippet"] == "[[Отчет]] по продажам"
    assert search(hub, "report")["items"][0]["snippet"] == "Quarterly [[REPORT]] for the board"
    index_agrees(hub)


def test_a_word_only_a_comment_holds_finds_the_issue_until_a_later_page_deletes_the_comment(hub):
    mirror(hub, [issue("X-1", comments=[comment("101", "the zebra crossed"), comment("102", "plain")]),
               issue("X-2", comments=[comment("201", "plain")])])
    result = search(hub, "zebra")
    # An issue's comments are one text, one comment a line, oldest id first; the snippet is plain text.
    assert [(i["key"], i["snippet"]) for i in result["items"]] == [("X-1", "the [[zebra]] crossed plain")]
    assert result["total"] == 1
    assert found(hub, "comments:zebra") == ["X-1"] and found(hub, "summary:zebra") == []

    mirror(hub, [issue("X-1", comments=[comment("102", "plain")])])
    assert search(hub, "zebra") == {"items": [], "next_cursor": None, "total": 0, "people": {}}
    assert sorted(found(hub, "plain")) == ["X-1", "X-2"]
    index_agrees(hub)


def test_a_summary_changed_by_a_later_page_matches_the_new_word_not_the_old(hub):
    mirror(hub, [issue("X-1", summary="alpha release", description="kept text")])
    assert found(hub, "alpha") == ["X-1"]
    mirror(hub, [issue("X-1", summary="beta release")])
    assert found(hub, "alpha") == [] and found(hub, "beta") == ["X-1"]
    # A page that sends no text leaves the issue's entries as they were.
    mirror(hub, [{"key": "X-1", "id": jira_id("X-1"), "status": "Done"}])
    assert found(hub, "beta") == ["X-1"] and found(hub, "kept") == ["X-1"]
    index_agrees(hub)


@sqlite_only  # SQLite's migration history: PostgreSQL starts at its baseline
@pytest.mark.parametrize("version", [1, 7])
def test_an_older_database_with_issues_migrates_and_is_searchable(make_hub, data_dir, version):
    data_dir.mkdir(mode=0o700)
    make_db(data_dir / "hub.sqlite", version)
    hub = make_hub()  # migrates to the current version
    assert found(hub, "cards") == ["AURORA-12"]
    assert found(hub, "neighbour") == ["OTHER-7"]
    assert sorted(found(hub, "wiki")) == ["AURORA-1", "AURORA-12", "AURORA-13", "OTHER-7"]
    if version >= 3:
        assert found(hub, "second") == ["AURORA-12"]  # a comment of the old database
    # The Jira time of each issue in UTC, as the loader would have written it.
    assert {t for (t,) in db_rows(hub, "SELECT jira_updated_at FROM issue")} == {COMMENT_CREATED_UTC}
    assert found(hub, updated_since="2026-10-22T10:05:11Z") != []
    assert found(hub, updated_since="2026-10-22T10:05:12Z") == []
    index_agrees(hub)
    # And the loader goes on from there (the old database's own commands wait in the
    # queue, so the page is loaded as a report would load it).
    run = RunContext(full=False, started_at=COMMENT_CREATED_UTC, now=COMMENT_CREATED_UTC)
    with database.atomic():
        MirrorService().load_page([issue("AURORA-12", summary="Renamed", comments=[])], [], run)
    assert found(hub, "cards") == [] and found(hub, "second") == [] and found(hub, "renamed") == ["AURORA-12"]
    index_agrees(hub)


ODD = ['"unbalanced', "AND", "*", "NEAR(", "foo:bar", "a OR", "OR a", "-x", "NOT x", "(a", "a)", "()",
       "a AND", '"', "x*y", "summary:", "http://example.com", "a ((((((((((b))))))))))", " ", "a NOT",
       '"!!"*']


@pytest.mark.parametrize("q", ODD)
def test_odd_q_syntax_is_a_422_naming_q(hub, q):
    mirror(hub, [issue("X-1")])
    resp = hub.api("GET", "/api/v1/issues", params={"q": q})
    assert resp.status_code == 422, (q, resp.json)
    assert resp.json["field"] == "q" and resp.json["description"].startswith("q: ")


def test_any_q_is_refused_or_becomes_a_query_fts5_runs():
    """Random text of the language's own symbols: never an FTS5 error, which would be a 500."""
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE t USING fts5 (key, summary, description, comments,"
                 " tokenize='unicode61 remove_diacritics 2')")
    conn.execute("INSERT INTO t VALUES ('A-1', 'a b', 'OR c', 'ё')")
    rng = random.Random(10)
    pieces = ['"', "(", ")", "*", "-", ":", " ", "a", "b", "ё", "AND", "OR", "NOT", "NEAR", "summary:",
              "foo:", "^", "+", "{", "}", ".", "\t", "\x00", "é", "1", "'", "key:", "\u2028", "Ё", "_"]
    refused = 0
    for _ in range(5000):
        q = "".join(rng.choices(pieces, k=rng.randint(1, 12)))
        try:
            expression = fts_query(q)
        except ContractError as exc:
            assert exc.extra["field"] == "q"
            refused += 1
            continue
        conn.execute("SELECT rowid FROM t WHERE t MATCH ?", (expression,)).fetchall()
    assert 0 < refused < 5000


def test_punctuation_and_lower_case_operators_are_words(hub):
    mirror(hub, [issue("AURORA-12", summary="Fix the c++ build at 10:30 or later, see v2.1"),
               issue("X-2", summary="Other")])
    for q in ["AURORA-12", "aurora-12", "key:AURORA-12", "c++", "10:30", "or", "v2.1", '"the c"',
              '"build at"', "fix OR nothing", "fix -other", "(fix OR x) later", "summary:fi*", "Summary:\"c build\""]:
        assert found(hub, q) == ["AURORA-12"], q
    assert found(hub, '""') == [] and found(hub, "-") == [] and found(hub, "!!!") == []
    assert hub.api("GET", "/api/v1/issues", params={"q": ""}).status_code == 422
    assert hub.api("GET", "/api/v1/issues", params={"q": "x" * 1001}).status_code == 422


def test_q_ranks_pages_by_offset_and_combines_with_filters(hub):
    # The word in the summary ranks above the word in a long description.
    states = [issue(f"X-{n}", status="Open" if n % 2 else "Done", description=f"filler text {n} " * 20
                    + "kiwi") for n in range(1, 8)]
    states.append(issue("X-8", summary="kiwi", status="Open"))
    states.append(issue("X-9", summary="no fruit", status="Open"))
    mirror(hub, states)
    everything = search(hub, "kiwi", limit=3)
    assert everything["total"] == 8 and everything["items"][0]["key"] == "X-8"
    keys, cursor, pages = [i["key"] for i in everything["items"]], everything["next_cursor"], 1
    while cursor is not None:
        page = search(hub, "kiwi", limit=3, cursor=cursor)
        assert "total" not in page  # only the first page counts
        keys += [i["key"] for i in page["items"]]
        cursor, pages = page["next_cursor"], pages + 1
    assert pages == 3 and sorted(keys) == sorted(f"X-{n}" for n in range(1, 9)) and len(set(keys)) == 8

    open_ones = search(hub, "kiwi", status="Open", limit=2)
    assert open_ones["total"] == 5 and open_ones["items"][0]["key"] == "X-8"
    rest = search(hub, "kiwi", status="Open", limit=2, cursor=open_ones["next_cursor"])
    last = search(hub, "kiwi", status="Open", limit=2, cursor=rest["next_cursor"])
    assert last["next_cursor"] is None
    assert sorted(i["key"] for p in (open_ones, rest, last) for i in p["items"]) == ["X-1", "X-3", "X-5", "X-7", "X-8"]
    assert search(hub, "kiwi", status="Closed") == {"items": [], "next_cursor": None, "total": 0, "people": {}}


def test_total_without_q_counts_the_filtered_issues_on_the_first_page(hub):
    load(hub, [issue(f"X-{n}", status="Open" if n < 4 else "Done") for n in range(1, 7)])
    first = search(hub, limit=2)
    assert first["total"] == 6 and "snippet" not in first["items"][0]
    assert "total" not in search(hub, limit=2, cursor=first["next_cursor"])
    assert search(hub, status="Open")["total"] == 3


def test_updated_since_compares_instants_whatever_zone_jira_wrote(hub):
    load(hub, [issue("X-1", updated="2026-10-22T13:05:11.000+0300"),   # 10:05:11 UTC
               issue("X-2", updated="2026-10-22T08:00:00.000-0300"),   # 11:00:00 UTC
               issue("X-3", updated="2026-10-22T10:30:00.000+0000"),   # 10:30:00 UTC
               issue("X-4", updated="not a time"), issue("X-5")])
    assert db_rows(hub, "SELECT key, jira_updated_at FROM issue ORDER BY key") == [
        ("X-1", "2026-10-22T10:05:11+00:00"), ("X-2", "2026-10-22T11:00:00+00:00"),
        ("X-3", "2026-10-22T10:30:00+00:00"), ("X-4", None), ("X-5", None)]
    assert found(hub, updated_since="2026-10-22T10:30:00Z") == ["X-3", "X-2"]
    assert found(hub, updated_since="2026-10-22T10:30:00+00:00") == ["X-3", "X-2"]
    assert found(hub, updated_since="2026-10-22T10:30:01Z") == ["X-2"]
    assert sorted(found(hub, "summary", updated_since="2026-10-22T10:00:00Z")) == ["X-1", "X-2", "X-3"]
    assert search(hub, updated_since="2026-10-22T10:00:00Z")["total"] == 3
    for bad in ("2026-10-22T13:30:00+03:00", "2026-10-22", "2026-02-30T00:00:00Z", "yesterday"):
        resp = hub.api("GET", "/api/v1/issues", params={"updated_since": bad})
        assert resp.status_code == 422 and resp.json["field"] == "updated_since", bad
    # An issue sent again without ``updated`` keeps its time.
    load(hub, [{"key": "X-2", "id": jira_id("X-2"), "status": "Done"}])
    assert found(hub, updated_since="2026-10-22T10:30:01Z") == ["X-2"]


def test_project_issue_type_and_sprint_filters(hub):
    with_projects()  # the project AWPCA
    load(hub, [issue("X-1", labels=["AWPCA"], issue_type="Story", sprint="AURORA Sprint 14", summary="login"),
               issue("X-2", labels=["AWPCA", "KPI"], issue_type="Bug", sprint="AURORA Sprint 15", summary="login"),
               issue("X-3", labels=["KPI"], issue_type="Bug", sprint="AURORA Sprint 14", summary="login")])
    assert found(hub, project="AWPCA") == ["X-2", "X-1"]
    assert found(hub, issue_type="Bug") == ["X-3", "X-2"]
    assert found(hub, sprint="AURORA Sprint 14") == ["X-3", "X-1"]
    assert found(hub, project="AWPCA", issue_type="Bug") == ["X-2"]
    assert found(hub, project="AWPCA", label="KPI") == ["X-2"]
    result = search(hub, "login", project="AWPCA", sprint="AURORA Sprint 14")
    assert ([i["key"] for i in result["items"]], result["total"]) == (["X-1"], 1)
    resp = hub.api("GET", "/api/v1/issues", params={"project": "NOPE"})
    assert resp.status_code == 422 and resp.json["field"] == "project"
    assert hub.api("GET", "/api/v1/issues", params={"project": "two words"}).status_code == 422


@sqlite_only  # FTS5's query plan
def test_a_filtered_search_reads_issues_by_rowid_from_the_index_never_by_scanning_them(hub):
    """SQLite could drive a filtered search from ``issue`` and run the match once per row:
    seconds over 100k issues. The index must stay the outer loop."""
    with_projects()
    load(hub, [issue(f"X-{n}", status="Open", labels=["AWPCA"], summary="kiwi") for n in range(1, 5)])
    seen = []
    connection = database.connection()
    connection.set_trace_callback(seen.append)
    try:
        assert search(hub, "kiwi", status="Open", project="AWPCA", updated_since="2026-01-01T00:00:00Z",
                      limit=2)["total"] == 0
        assert search(hub, "kiwi", status="Open", project="AWPCA")["total"] == 4
    finally:
        connection.set_trace_callback(None)
    searches = [sql for sql in seen if "MATCH" in sql]
    assert len(searches) == 2  # a page that carries its count, twice
    for sql in searches:
        plan = [row[3] for row in database.execute_sql("EXPLAIN QUERY PLAN " + sql)]
        on_issue = [step for step in plan if step.split()[:2] in (["SCAN", "issue"], ["SEARCH", "issue"])]
        assert on_issue and all("(rowid=?)" in step for step in on_issue), plan


@sqlite_only  # FTS5's rebuild and exact count; PostgreSQL's estimate is tested below
def test_a_query_broader_than_the_ranked_matches_ranks_the_newest_and_counts_them_all(hub):
    # Rows written straight into the database, then indexed as the migration does:
    # ten thousand issues through state pages would take the test a minute.
    extra = 10
    conn = sqlite3.connect(hub.config.db_path)
    conn.execute("INSERT INTO issue (key, id, summary, fetched_at) VALUES ('OLD-1', '999999', 'kiwi kiwi kiwi', 't')")
    conn.executemany("INSERT INTO issue (key, id, summary, description, fetched_at) VALUES (?, ?, ?, ?, 't')",
                     [(f"N-{n}", str(n), f"issue {n}", "kiwi " + "filler " * 30)
                      for n in range(RANKED_MATCHES + extra)])
    conn.execute("INSERT INTO issue_fts (issue_fts) VALUES ('rebuild')")
    conn.commit()
    conn.close()
    first = search(hub, "kiwi", limit=5)
    assert first["total"] == RANKED_MATCHES + extra + 1
    # OLD-1 would rank first, but it is not among the newest matches, which alone are ranked.
    assert "OLD-1" not in [item["key"] for item in first["items"]]
    assert found(hub, "kiwi", limit=5, cursor=RANKED_MATCHES - 5) != []
    assert search(hub, "kiwi", limit=5, cursor=RANKED_MATCHES - 5)["next_cursor"] is None
    assert search(hub, "kiwi", limit=5, cursor=RANKED_MATCHES)["items"] == []
    # A narrower query (here, the word in the summary) reaches it.
    assert found(hub, "summary:kiwi", limit=1) == ["OLD-1"]


def test_a_snippet_is_plain_text_with_the_match_marked(hub):
    mirror(hub, [issue("AURORA-12", description="h2. Setup\nRun *zebra* first, see [the guide|http://x] {{make}}")])
    assert search(hub, "zebra")["items"][0]["snippet"] == "Setup Run [[zebra]] first, see the guide make"


def test_each_field_finds_its_own_words_and_ranks_key_and_summary_first(hub):
    mirror(hub, [issue("X-1", summary="zebra crossing", description="plain"),
                 issue("X-2", summary="plain", description="a zebra crossing the road",
                       comments=[comment("201", "lion tamer")]),
                 issue("X-3", summary="plain", environment="zebra hosts", comments=[comment("301", "zebra")]),
                 issue("ZEBRA-4", summary="plain")])
    assert found(hub, "zebra") == ["ZEBRA-4", "X-1", "X-3", "X-2"]
    for q, keys in [("summary:zebra", ["X-1"]), ("description:zebra", ["X-2"]), ("other:zebra", ["X-3"]),
                    ("comments:zebra", ["X-3"]), ("key:zebra", ["ZEBRA-4"]), ("other:hosts", ["X-3"]),
                    ('description:"zebra crossing"', ["X-2"]), ('"crossing the"', ["X-2"]), ("comments:li*", ["X-2"]),
                    ("zebra -road", ["X-1", "X-3", "ZEBRA-4"]), ("summary:zebra OR other:zebra", ["X-1", "X-3"]),
                    ("(summary:zebra OR key:zebra) -crossing", ["ZEBRA-4"]), ("lion zebra", ["X-2"]),
                    ('"road a"', []), ("tamer AND crossing", ["X-2"]), ("zebr", [])]:
        assert sorted(found(hub, q)) == sorted(keys), q
    assert search(hub, "other:hosts")["items"][0]["snippet"] == "zebra [[hosts]]"
    assert search(hub, "lion zebra")["items"][0]["snippet"] == "a [[zebra]] crossing the road"


def test_the_matching_condition_finds_the_issues_a_query_finds_in_the_fields_named(hub):
    """What JQL's ``~`` asks of the engine's full-text search: a condition on ``issue``."""
    from hub.assembly import build_fulltext

    mirror(hub, [issue("X-1", summary="kiwi", description="fig"), issue("X-2", summary="fig", description="kiwi")])
    fulltext = build_fulltext(hub.config)
    for q, fields, keys in [("kiwi", None, ["X-1", "X-2"]), ("kiwi", ("summary",), ["X-1"]),
                            ("kiwi fig", ("summary", "description"), ["X-1", "X-2"]),
                            ("kiwi -fig", ("description",), ["X-2"]), ("fig -kiwi", None, []), ("!!!", None, []),
                            ("ki*", None, ["X-1", "X-2"]), ("ki*", ("summary",), ["X-1"]), ("fi* -kiwi", None, []),
                            ("zz*", None, []), ("ki* fi*", ("description",), [])]:
        sql, params = fulltext.matching(q, fields)
        assert [key for (key,) in database.execute_sql(f"SELECT key FROM issue WHERE {sql} ORDER BY key",
                                                       params)] == keys, (q, fields)


@pytest.mark.backends("postgresql")
def test_any_q_is_refused_or_becomes_a_query_postgresql_runs(hub):
    """Random text of the language's own symbols: never a PostgreSQL error, which would be a 500."""
    from hub.services.search.fulltext_postgres import PostgresFullText

    put([issue("A-1", summary="a b", description="OR c", comments=[comment("1", "ё")])])
    fulltext = PostgresFullText()
    rng = random.Random(10)
    pieces = ['"', "(", ")", "*", "-", ":", " ", "a", "b", "ё", "AND", "OR", "NOT", "NEAR", "summary:",
              "foo:", "^", "+", "{", "}", ".", "\t", "\x00", "é", "1", "'", "key:", "\u2028", "Ё", "_", "\\",
              "%", "&", "|", "!", "<->", "other:", "comments:"]
    refused = 0
    for _ in range(1500):
        q = "".join(rng.choices(pieces, k=rng.randint(1, 12)))
        try:
            fulltext.search(q, [], None, 5, order=None)
        except ContractError as exc:
            assert exc.extra["field"] == "q"
            refused += 1
            continue
        sql, params = fulltext.matching(q, ("summary", "other"))
        database.execute_sql(f"SELECT count(*) FROM issue WHERE {sql}", params).fetchone()
    assert 0 < refused < 1500


@pytest.mark.backends("postgresql")
def test_a_query_broader_than_the_ranked_matches_on_postgresql_ranks_the_newest_and_estimates_the_total(hub):
    # Rows written straight into the tables, then indexed as the loader indexes a page:
    # ten thousand issues through state pages would take the test a minute.
    extra = 10
    database.execute_sql("INSERT INTO issue (key, id, summary, fetched_at) "
                         "VALUES ('OLD-1', '1', 'kiwi kiwi kiwi', 't')")
    database.execute_sql(
        "INSERT INTO issue (key, id, summary, description, fetched_at) "
        "SELECT 'N-' || n, CAST(1000 + n AS TEXT), 'issue ' || n, 'kiwi ' || repeat('filler ', 30), 't' "
        "FROM generate_series(0, ?) AS n", [RANKED_MATCHES + extra - 1])
    index_everything()
    database.execute_sql("ANALYZE issue_fts")
    first = search(hub, "kiwi", limit=5)
    # Beyond the matches ranked, the total is PostgreSQL's estimate, and says so.
    assert first["total_estimated"] is True
    assert RANKED_MATCHES <= first["total"] < 2 * (RANKED_MATCHES + extra + 1)
    # OLD-1 would rank first, but it is not among the newest matches, which alone are ranked.
    assert "OLD-1" not in [item["key"] for item in first["items"]]
    assert found(hub, "kiwi", limit=5, cursor=RANKED_MATCHES - 5) != []
    assert search(hub, "kiwi", limit=5, cursor=RANKED_MATCHES - 5)["next_cursor"] is None
    assert search(hub, "kiwi", limit=5, cursor=RANKED_MATCHES)["items"] == []
    # A narrower query (here, the word in the summary) reaches it, and counts exactly.
    narrow = search(hub, "summary:kiwi", limit=1)
    assert [item["key"] for item in narrow["items"]] == ["OLD-1"] and narrow["total"] == 1
    assert "total_estimated" not in narrow


def test_a_search_in_an_order_of_the_lists_keeps_the_order_the_snippets_and_the_total(hub):
    from hub.assembly import build_fulltext

    mirror(hub, [issue("X-1", summary="b kiwi"), issue("X-2", summary="a kiwi"), issue("X-3", summary="c kiwi"),
                 issue("X-4", summary="no fruit")])
    fulltext = build_fulltext(hub.config)
    order = ["issue.summary ASC", "issue.key ASC"]
    first = fulltext.search("kiwi", [], None, 2, order=order)
    assert [(row[0], row[-1]) for row in first["items"]] == [("X-2", "a [[kiwi]]"), ("X-1", "b [[kiwi]]")]
    assert (first["total"], first["next_cursor"]) == (3, 2)
    rest = fulltext.search("kiwi", [], 2, 2, order=order)
    assert [row[0] for row in rest["items"]] == ["X-3"] and rest["next_cursor"] is None and "total" not in rest


@pytest.mark.backends("postgresql")
def test_a_search_planned_once_for_any_words_still_runs_on_constants(hub):
    """psycopg prepares a statement it has run five times, and PostgreSQL may then plan it for
    any parameters: the search's statements hold its words as constants, so such a plan is the
    one planned for them (the GIN index or the newest issues by their statistics), and its
    rows never compute a query's tsquery."""
    from hub.services.search.fulltext_postgres import PostgresFullText

    mirror(hub, [issue("X-1", summary="kiwi"), issue("X-2", summary="fig", description="kiwi fig")])
    database.execute_sql("SET plan_cache_mode = force_generic_plan")
    try:
        for _ in range(7):
            assert [row[0] for row in PostgresFullText().search("kiwi", [], None, 5, order=None)["items"]] == \
                ["X-1", "X-2"]
            assert PostgresFullText().search("fig -kiwi", [], None, 5, order=None)["total"] == 0
        plan = database.execute_sql("EXPLAIN (VERBOSE) SELECT 1 FROM issue_fts WHERE "
                                    + PostgresFullText().matching("kiwi")[0].split("WHERE ", 1)[1][:-1]).fetchall()
    finally:
        database.execute_sql("RESET plan_cache_mode")
    lines = [line for (line,) in plan]
    assert not any("search_term" in line or "search_words" in line for line in lines), lines
