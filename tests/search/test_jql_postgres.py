"""JQL on PostgreSQL as right as on SQLite, whatever plan PostgreSQL chooses.

PostgreSQL plans a parallel scan once a table is large enough; a function called in such a
plan must be marked ``PARALLEL SAFE`` only if it can run there. The hub's v13 ``jira_utc`` caught
its errors in an ``EXCEPTION`` block (a subtransaction) yet was marked safe: on a mirror of 20,000
issues ``created > -7d`` answered 503. Here every test database of PostgreSQL plans in parallel
whatever its size (:func:`parallel_plans`), so the queries over ``created`` meet that plan with a
few issues; the same queries run on SQLite, and both engines must give the same answer.

``jira_utc`` (schema v14) is held to ``hub.clock.jira_to_utc`` (what SQLite's hub calls) on many
inputs, and ``jira_number`` to SQLite's ``CAST(… AS REAL)``.
"""

from __future__ import annotations

import random
import sqlite3
from datetime import UTC, datetime

import pytest

from hub.clock import jira_to_utc
from hub.migrations.postgres import BASELINE_VERSION, STEPS, migrate_postgres
from tests.support import issue, load, with_projects

# The planner's costs that make a parallel plan the cheapest for a table of any size.
PARALLEL = {"parallel_setup_cost": "0", "parallel_tuple_cost": "0", "min_parallel_table_scan_size": "0",
            "min_parallel_index_scan_size": "0"}
NOW = datetime(2026, 11, 18, 9, 0, tzinfo=UTC)  # a Wednesday


class _Clock:
    def now(self) -> datetime:
        return NOW


def parallel_plans(server, database: str) -> None:
    """Every later connection to ``database`` plans in parallel wherever it may."""
    for name, value in PARALLEL.items():
        server.execute(f'ALTER DATABASE "{database}" SET {name} = {value}')


@pytest.fixture
def pg(postgres_template):
    """A database of its own at the current schema, planning in parallel: its URL."""
    server, template = postgres_template
    name = server.create_database(template=template)
    parallel_plans(server, name)
    yield server.url(name)
    server.drop_database(name)


@pytest.fixture
def parallel_hub(make_hub, backend, database_url, request):
    """A hub at :data:`NOW` whose PostgreSQL database (if it is on one) plans in parallel."""
    if backend == "postgresql":
        server, _ = request.getfixturevalue("postgres_template")
        parallel_plans(server, database_url.rsplit("/", 1)[1])
    return make_hub(clock=_Clock(), jql_time_zone="UTC")


def rows(url: str, sql: str, *params) -> list[tuple]:
    import psycopg

    with psycopg.connect(url) as conn:
        return conn.execute(sql, params).fetchall()


# -- jira_utc ---------------------------------------------------------------------------------------

NAMED = [
    "2026-10-22T13:05:11.000+0300", "2026-10-22T13:05:11.000-0000", "2026-10-22T13:05:11.000+0000",
    "2026-10-22T13:05:11.999+0300", "2026-10-22T13:05:11+03:00", "2026-10-22T13:05:11Z", "2026-10-22 13:05:11+03",
    "2026-10-22T13:05+0530", "2026-10-22T13Z", "20261022T130511Z", "2026-W43-4T13:05Z", "2026W434T13:05Z",
    "2026-W43T13Z", "2026W43413Z", "2026-W53-1T00:00Z", "2025-W53-1T00:00Z", "2020-W53-7T00:00Z",
    # month 13, day 0, Feb 30, Feb 29 of leap years and not, April 31
    "2026-13-01T00:00:00.000+0300", "2026-00-10T00:00:00.000+0300", "2026-10-00T00:00:00.000+0300",
    "2026-02-30T00:00:00.000+0300", "2024-02-29T00:00:00.000+0300", "2023-02-29T00:00:00.000+0300",
    "2000-02-29T00:00:00.000+0000", "1900-02-29T00:00:00.000+0000", "2026-04-31T00:00:00.000+0000",
    # year 0000, the first and last instants UTC can write, and past them by an offset
    "0000-01-01T00:00:00.000+0000", "0000-12-31T23:00:00.000-0300", "0001-01-01T00:00:00.000+0000",
    "0001-01-01T00:00:00.000+0300", "0001-01-01T02:59:59.000-0300", "9999-12-31T23:59:59.000+0000",
    "9999-12-31T23:59:59.000-0100", "9999-12-31T22:59:59.999-0100", "9999-W52-5T00Z", "9999-W52-6T00Z",
    # 24:00, 23:60, 59:60, and offsets of a day or more, of minutes past 59, of seconds and fractions
    "2026-10-22T24:00:00.000+0000", "2026-10-22T23:60:00.000+0000", "2026-10-22T23:59:60.000+0000",
    "2026-10-22T13:05:11.000+2400", "2026-10-22T13:05:11.000-2400", "2026-10-22T13:05:11.000+2359",
    "2026-10-22T13:05:11+03:75", "2026-10-22T13:05:11+23:59:59.999999", "2026-10-22T13:05:11-23:59:59.9999999",
    "2026-10-22T13:05:11+00:00:00.5", "2026-10-22T13:05:11.5-00:00:01.6", "2026-10-22T00:00:00+03.5",
    # what Python's reader lets pass: one character before the offset, a fraction of any length
    "2026-10-22T13:05:11 +0300", "2026-10-22T13:05:11X+0300", "2026-10-22T13:05:11.+03",
    "2026-10-22T13:05:11.1234567x+03", "2026-10-22T1305115+03", "2026-10-22T13:05:11:5+03", "2026-10-22é13:05Z",
    # and what it does not
    "2026-10-22T13:05:11XY+0300", "2026-10-22T13:05:11é+03", "2026-10-22T13:05:11+0300Z", "2026-10-22T13:05:11+3",
    "2026-10-22T13:05:11+030", "2026-10-22T13:05:11+03:", "2026-10-22TZ", "2026-10-22T", "2026-10-22",
    "2026-10-22T13:05:11.000", "2026-10-22T13:0511Z", "2026-10-22T1305:11Z", "2026-1022T13:05Z", "٢٠٢٦-10-22T13:05Z",
    " 2026-10-22T13:05:11.000+0300\n", "\u30002026-10-22T13:05:11.000+0300\u2028", "2026-10-22T13:05:11z",
    "", " ", "now", "2026", "2026-10-22T13:05:11.000+0300 and more", "null",
]


def generated(rng: random.Random, count: int) -> list[str]:
    """Times near the forms Jira and ISO 8601 write, mutated a character at a time."""
    pieces = ["0", "1", "9", "12", "24", "60", "99", "-", ":", ".", ",", "T", " ", "W", "Z", "+", "é", "x"]
    out = []
    for _ in range(count):
        year = rng.choice(["2026", "2024", "0001", "9999", "0000", "1900"])
        date = rng.choice([f"{year}-{rng.randint(0, 13):02d}-{rng.randint(0, 32):02d}",
                           f"{year}{rng.randint(0, 13):02d}{rng.randint(0, 32):02d}",
                           f"{year}-W{rng.randint(0, 54):02d}-{rng.randint(0, 8)}", f"{year}W{rng.randint(0, 54):02d}"])
        mark = rng.choice([":", ":", ""])
        time = mark.join(f"{rng.randint(0, 25 if n == 0 else 61):02d}" for n in range(rng.randint(1, 3)))
        if rng.random() < 0.5:
            time += rng.choice(".,:") + "".join(rng.choice("0123456789") for _ in range(rng.randint(0, 8)))
        zone = rng.choice(["Z", "", f"+{rng.choice([0, 3, 23, 24, 99]):02d}{mark}{rng.choice([0, 30, 59, 75]):02d}",
                           f"-{rng.randint(0, 25):02d}", "-00:00:00.000001"])
        text = date + rng.choice("TT t-x") + time + zone
        if rng.random() < 0.3:
            at = rng.randrange(len(text) + 1)
            text = text[:at] + rng.choice(pieces) + text[at + rng.randint(0, 1):]
        out.append(text)
    return out


def test_jira_utc_on_postgresql_answers_as_jira_to_utc_on_valid_and_invalid_times(pg):
    cases = NAMED + generated(random.Random(14), 3000)
    got = rows(pg, "SELECT jira_utc(t) FROM unnest(%s::text[]) WITH ORDINALITY AS u(t, n) ORDER BY n", cases)
    differ = [(text, jira_to_utc(text), answer) for text, (answer,) in zip(cases, got, strict=True)
              if jira_to_utc(text) != answer]
    assert differ == []
    assert sum(jira_to_utc(text) is not None for text in cases) > 300  # many valid ones among them
    assert rows(pg, "SELECT jira_utc(NULL)") == [(None,)]


def test_no_function_of_the_schema_holds_an_exception_block_and_is_parallel_safe(pg):
    found = rows(pg, "SELECT p.proname, p.proparallel, p.prosrc ~* '\\mEXCEPTION\\M' FROM pg_proc p "
                     "JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = current_schema() "
                     "ORDER BY 1")
    assert [name for name, parallel, caught in found if caught and parallel == "s"] == []
    assert {"jira_utc", "jira_number", "casefold"} <= {name for name, *_ in found}


def test_v14_replaces_the_jira_utc_that_failed_in_parallel_plans(postgres_template):
    """A hub born at the v13 baseline: ``created``'s conversion fails under a parallel plan; v14
    takes it on and the same statement answers."""
    import psycopg

    server, _ = postgres_template
    name = server.create_database(prefix="hub_v13")
    try:
        url = server.url(name)
        assert migrate_postgres(url, steps=()).new_version == BASELINE_VERSION == 13
        parallel_plans(server, name)
        with psycopg.connect(url) as conn:
            conn.execute("INSERT INTO issue (key, id, fetched_at, created) SELECT 'X-' || n, n, "
                         "'2026-11-01T00:00:00+00:00', '2026-10-22T13:05:11.000+0300' FROM generate_series(1, 50) n")
        count = "SELECT count(*) FROM issue WHERE jira_utc(created) > '2026-10-01T00:00:00+00:00'"
        with pytest.raises(psycopg.errors.InvalidTransactionState, match="parallel"):
            rows(url, count)
        result = migrate_postgres(url, steps=STEPS[:1])
        assert (result.old_version, result.new_version, result.applied) == (13, 14, ("v14_parallel_safe",))
        assert STEPS[0].version == 14
        assert rows(url, count) == [(50,)]
        assert "Parallel" in "\n".join(line for (line,) in rows(url, f"EXPLAIN {count}"))
    finally:
        server.drop_database(name)


# -- the queries that answered 503, on both engines ------------------------------------------------

CREATED = {  # key: created, as Jira wrote it (UTC times of NOW's week, month, and before)
    "AURORA-1": "2026-11-17T23:30:00.000+0300",   # yesterday, 20:30 UTC
    "AURORA-2": "2026-11-11T10:00:00.000+0000",   # 7 days ago, less an hour
    "AURORA-3": "2026-11-11T08:00:00.000+0000",   # 7 days ago, and an hour more
    "AURORA-4": "2026-11-01T02:00:00.000+0300",   # October 31st, 23:00 UTC
    "AURORA-5": "2026-10-25T12:00:00.000-0500",   # 24 days ago
    "AURORA-6": "2026-09-01T00:00:00.000+0000",   # 78 days ago
    "AURORA-7": None,                             # no created time
    "AURORA-8": "2026-11-31T10:00:00.000+0000",   # no such day: no instant, as if empty
}


def created_mirror(hub) -> None:
    with_projects()
    load(hub, [issue(key, status="Open" if n % 2 else "Done", created=created)
               for n, (key, created) in enumerate(CREATED.items())], version=16)


def found(hub, **params) -> list[str]:
    resp = hub.api("GET", "/api/v1/issues", params={"limit": 100, **params})
    assert resp.status_code == 200, resp.json
    return [item["key"] for item in resp.json["items"]]


@pytest.mark.backends("sqlite", "postgresql")
@pytest.mark.parametrize(("jql", "expected"), [
    ("created > -7d", ["AURORA-1", "AURORA-2"]),
    ("created >= startOfMonth()", ["AURORA-1", "AURORA-2", "AURORA-3"]),
    ("created is EMPTY", ["AURORA-7", "AURORA-8"]),
    ("created is not EMPTY and created < startOfMonth()", ["AURORA-4", "AURORA-5", "AURORA-6"]),
])
def test_created_queries_answer_under_parallel_plans(parallel_hub, jql, expected):
    created_mirror(parallel_hub)
    assert sorted(found(parallel_hub, jql=jql), key=lambda key: int(key.split("-")[1])) == expected


@pytest.mark.backends("sqlite", "postgresql")
def test_the_list_sorted_by_created_answers_under_parallel_plans(parallel_hub):
    created_mirror(parallel_hub)
    dated = ["AURORA-6", "AURORA-5", "AURORA-4", "AURORA-3", "AURORA-2", "AURORA-1"]
    up, down = found(parallel_hub, sort="created"), found(parallel_hub, sort="-created")
    assert [key for key in up if key in dated] == dated
    assert [key for key in down if key in dated] == dated[::-1]
    assert sorted(set(up) - set(dated)) == sorted(set(down) - set(dated)) == ["AURORA-7", "AURORA-8"]
    for jql, order in (("order by created ASC", dated), ("order by created", dated[::-1])):  # DESC: Jira's default
        assert [key for key in found(parallel_hub, jql=jql) if key in dated] == order


@pytest.mark.backends("sqlite", "postgresql")
def test_facets_of_created_within_30_days_answer_under_parallel_plans(parallel_hub):
    created_mirror(parallel_hub)
    resp = parallel_hub.api("GET", "/api/v1/issues/facets", params={"jql": "created > -30d", "fields": "status"})
    assert resp.status_code == 200, resp.json
    counts = {entry["value"]: entry["count"] for entry in resp.json["facets"]["status"]["values"]}
    # AURORA-1, -3 and -5 are Done, AURORA-2 and -4 Open (n % 2 over CREATED's order).
    assert counts == {"Done": 3, "Open": 2}
    assert resp.json["total"] == 5


# -- a number custom field holding text --------------------------------------------------------------

POINTS = {"customfield_10002": {"name": "Story Points", "type": "number", "custom": None}}


def points(value) -> dict:
    return {"customfield_10002": {**POINTS["customfield_10002"], "value": value}}


@pytest.mark.backends("sqlite", "postgresql")
def test_a_number_custom_field_holding_text_reads_as_sqlites_cast_on_both_engines(parallel_hub):
    """Text reads as its leading number, or 0 ('many'); true as 1; a list as 0; null as empty."""
    with_projects()
    values = {"AURORA-1": 5, "AURORA-2": "many", "AURORA-3": "8 or so", "AURORA-4": 2.5, "AURORA-5": True,
              "AURORA-6": [3], "AURORA-7": None, "AURORA-8": " 1e1"}
    load(parallel_hub, [issue(key, custom_fields=points(value)) for key, value in values.items()], version=16)

    def matched(jql: str) -> list[str]:
        return sorted(found(parallel_hub, jql=jql), key=lambda key: int(key.split("-")[1]))

    assert matched('"Story Points" > 4') == ["AURORA-1", "AURORA-3", "AURORA-8"]
    assert matched('"Story Points" = 0') == ["AURORA-2", "AURORA-6"]
    assert matched('"Story Points" in (1, 2.5)') == ["AURORA-4", "AURORA-5"]
    assert matched('"Story Points" is EMPTY') == ["AURORA-7"]
    assert found(parallel_hub, jql='"Story Points" is not EMPTY order by "Story Points" desc, key') == [
        "AURORA-8", "AURORA-3", "AURORA-1", "AURORA-4", "AURORA-5", "AURORA-2", "AURORA-6"]


SQLITE_TEXTS = ["3", "-2.5e-3", " 12abc", "abc", "", ".5", "-", "1e", "1e+", "+.5e2x", "\t7", "0x10", "1.5E-3",
                "  -0", "1e-400", "1e400", "-1e400", "123456789012345678901234567890", "\u00a012", "00012.50",
                "1" + "0" * 400, "1.7976931348623157e308", "1.7976931348623159e308", "1e1000000000", ".", "+",
                "e5", "12e5.5", "1_000", "Infinity", "NaN", "٣"]


def test_jira_number_reads_as_sqlites_cast_as_real(pg):
    conn = sqlite3.connect(":memory:")
    try:
        for text in SQLITE_TEXTS:
            expected = conn.execute("SELECT CAST(? AS REAL)", (text,)).fetchone()[0]
            assert rows(pg, "SELECT jira_number(to_jsonb(%s::text))", text) == [(expected,)], text
        for json in ("3", "2.5", "true", "false", "null", "[1]", '{"a": 1}', '"7x"', "1e400", "99999999999999999999"):
            expected = conn.execute("SELECT CAST(json_extract(?, '$') AS REAL)", (json,)).fetchone()[0]
            assert rows(pg, "SELECT jira_number(%s::jsonb)", json) == [(expected,)], json
    finally:
        conn.close()


# -- the history operators' time -----------------------------------------------------------------------

@pytest.mark.backends("postgresql")
def test_a_bounded_jql_query_on_postgresql_is_not_jit_compiled(hub):
    """JIT compilation of a history clause's plan took 3–4 s of the 5 s bound on a 20,000-issue
    mirror (``status WAS Review ON …`` answered 503); the bounded transaction turns it off."""
    from hub.db import database
    from hub.services.search.jql.bounded import bounded

    with bounded(5):
        assert database.execute_sql("SHOW jit").fetchone() == ("off",)


# -- a counted page ------------------------------------------------------------------------------------

def _steps(n: int) -> list[tuple[str, str, str, str]]:
    """Issue n's status changes: Open → In Progress → Review, every third one sent back from
    Review to In Progress."""
    steps = [("1", "Open", "3", "In Progress"), ("3", "In Progress", "10001", "Review")]
    return [*steps, ("10001", "Review", "3", "In Progress")] if n % 3 == 0 else steps


def _days(n: int) -> list[int]:
    """The days of September of issue n's changes: one a day from the (n % 20 + 1)th."""
    return [n % 20 + 1 + s for s in range(len(_steps(n)))]


def _walked(n: int) -> list[dict]:
    """Issue n's changelog: :func:`_steps` on :func:`_days`."""
    changes = zip(_steps(n), _days(n), strict=True)
    return [{"id": str(40000 + n * 10 + s), "author": "ivanov", "created": f"2026-09-{day:02d}T09:00:00.000+0000",
             "items": [{"field": "status", "field_type": "jira", "from": a, "from_string": b, "to": c,
                        "to_string": d}]} for s, ((a, b, c, d), day) in enumerate(changes)]


@pytest.mark.backends("sqlite", "postgresql")
@pytest.mark.parametrize(("jql", "matches"), [
    ('status CHANGED FROM Review TO "In Progress"', lambda n: n % 3 == 0),
    ('status CHANGED DURING ("2026/09/05", "2026/09/08")', lambda n: any(5 <= day <= 8 for day in _days(n))),
    ('status CHANGED BEFORE "2026/09/04"', lambda n: min(_days(n)) < 4),
])
def test_the_first_page_of_a_history_query_counts_every_match_and_the_next_pages_follow_it(
        parallel_hub, jql, matches):
    """The first page counts its matches apart from its LIMIT on PostgreSQL (planned for every
    row, under a parallel plan here): the same total and the same pages as SQLite's, which count
    them in the page's pass, and the later pages (no count) take up where it ended."""
    with_projects()
    load(parallel_hub, [issue(f"AURORA-{n}", status="In Progress" if n % 3 == 0 else "Review", changes=_walked(n))
                        for n in range(1, 61)], version=16)
    expected = [f"AURORA-{n}" for n in range(60, 0, -1) if matches(n)]  # key DESC: no ORDER BY
    first = parallel_hub.api("GET", "/api/v1/issues", params={"jql": jql, "limit": 7})
    assert first.status_code == 200, first.json
    assert first.json["total"] == len(expected) > 7
    keys, page = [item["key"] for item in first.json["items"]], first.json
    while page["next_cursor"] is not None:
        page = parallel_hub.api("GET", "/api/v1/issues",
                                params={"jql": jql, "limit": 7, "cursor": page["next_cursor"]}).json
        assert "total" not in page
        keys += [item["key"] for item in page["items"]]
    assert keys == expected
