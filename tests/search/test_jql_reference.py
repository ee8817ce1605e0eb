"""Random JQL, generated from the grammar (seeded), answered by the hub's SQL and by a slow,
obviously correct evaluator in Python over the same issues (tests/support/jql_reference.py): the keys,
in order, must be the same."""

from __future__ import annotations

import random

import falcon.testing
import pytest

from hub import startup
from hub.api.app import create_app
from hub.assembly import build
from hub.config import Config
from hub.services.search.jql.parser import parse
from tests.support import load
from tests.support.engine_rows import engine_database
from tests.support.jql_reference import CATALOGUES, GONE, ISSUES, NEIGHBOURS, FixedClock, Reference, mark_gone

pytestmark = pytest.mark.backends("sqlite", "postgresql", shared=True)

SEED = 19
QUERIES = 400
EQUALITY = ("=", "!=", "in", "not in", "is", "is not")
ORDERED = (*EQUALITY, ">", ">=", "<", "<=")
# Field -> (operators, values: as written in the query).
FIELDS = {
    "status": (EQUALITY, ["Open", "open", '"In Progress"', "Done", "Review", "сделать", "Closed"]),
    "priority": (ORDERED, ["Blocker", "major", "Minor", "Trivial", "Critical", "Nope"]),
    "resolution": (EQUALITY, ["Fixed", "Unresolved", "готово", '"Won\'t Fix"']),
    "type": (EQUALITY, ["Bug", "story", "Task", "Epic", '"Sub-task"']),
    "assignee": (EQUALITY, ["ivanov", "PETROV", "sidorova", '"Ivan Ivanov"', "'анна сидорова'", "nobody"]),
    "reporter": (EQUALITY, ["ivanov", "petrov", "sidorova"]),
    "labels": (EQUALITY, ["backend", "frontend", "срочно", "x"]),
    "component": (EQUALITY, ["Web", "payments", "none"]),
    "fixVersion": (EQUALITY, ["2.3", "2.2", "10100", "releasedVersions()", "unreleasedVersions()"]),
    "sprint": (EQUALITY, ["24", "23", '"AURORA Sprint 14"', "'спринт 2'", "openSprints()", "closedSprints()",
                          "futureSprints()"]),
    "project": (("=", "!=", "in", "not in"), ["AURORA", "other", "NOPE"]),
    "key": (("=", "!=", "in", "not in", ">", ">=", "<", "<="), ["AURORA-1", "AURORA-9", "AURORA-100", "OTHER-2"]),
    "created": (ORDERED, ["-1d", "-7d", "-30d", '"2026/10/15"', "startOfMonth()", "startOfWeek(-1)", "now()",
                          '"2026/10/31 20:30"']),
    "updated": (ORDERED, ["-1d", "-14d", '"2026-11-01"', "startOfDay()", "endOfDay(-1)"]),
    "duedate": (ORDERED, ["2026-11-01", "now()", "endOfWeek()", "'2026/11/05'"]),
    "cf[10002]": (ORDERED, ["3", "5", "8", "13.0"]),
    "cf[11902]": (EQUALITY, ["24", '"AURORA Sprint 14"', "openSprints()", "closedSprints()"]),
    "summary": (("~", "!~"), ["safari", "receipts", '"crash*"', "export", "отчет"]),
}
ORDER_FIELDS = ("priority", "created", "updated", "key", "status", "assignee", "duedate")


def _values_for(rng: random.Random, op: str, values: list[str]) -> str:
    plain = [v for v in values if not v.endswith(")")] if op in (">", ">=", "<", "<=") else values
    plain = [v for v in plain if not v.endswith("()") or op in ("in", "not in", "=", "!=")]
    if op in ("in", "not in"):
        items = rng.sample(values, k=min(len(values), rng.randint(1, 3)))
        if rng.random() < 0.2:
            items.append("EMPTY")
        return "(" + ", ".join(items) + ")"
    return rng.choice(plain or values)


def clause(rng: random.Random) -> str:
    field = rng.choice(list(FIELDS))
    operators, values = FIELDS[field]
    op = rng.choice(operators)
    if field in ("created", "updated", "key", "project", "summary") and op in ("is", "is not"):
        op = "="
    if op in ("is", "is not"):
        return f"{field} {op} {rng.choice(['EMPTY', 'null'])}"
    if field in ("fixVersion", "sprint") and op in ("=", "!="):
        values = [v for v in values if not v.endswith("()")]
    if field in ("created", "updated", "duedate") and op in ("in", "not in"):
        values = [v for v in values if not v.endswith(")")]
    return f"{field} {op.upper() if rng.random() < 0.5 else op} {_values_for(rng, op, values)}"


def condition(rng: random.Random, depth: int = 0) -> str:
    roll = rng.random()
    if depth >= 3 or roll < 0.4:
        return clause(rng)
    if roll < 0.55:
        return f"NOT ({condition(rng, depth + 1)})"
    joiner = rng.choice([" AND ", " OR ", " and ", " or "])
    return "(" + joiner.join(condition(rng, depth + 1) for _ in range(rng.randint(2, 3))) + ")"


def query(rng: random.Random) -> str:
    text = condition(rng)
    if rng.random() < 0.5:
        keys = rng.sample(ORDER_FIELDS, k=rng.randint(1, 2))
        text += " ORDER BY " + ", ".join(f"{key} {rng.choice(['', 'ASC', 'DESC'])}".strip() for key in keys)
    return text


QUERY_TEXTS = [query(random.Random(SEED * 1000 + n)) for n in range(QUERIES)]


@pytest.fixture(scope="module")
def mirror(tmp_path_factory, backend, request):
    with engine_database(request, backend) as url:
        yield _mirror(tmp_path_factory.mktemp("jqlref") / "data", url)


def _mirror(data_dir, database_url):
    config = Config(data_dir=data_dir, database_url=database_url)
    startup.prepare(config)
    built = build(config, lambda *args, **kwargs: None, FixedClock())
    client = falcon.testing.TestClient(create_app(built))
    tokens = built.services.tokens
    agent, interface = tokens.add("test-agent", "agent"), tokens.add("test-interface", "interface")

    class _Hub:
        def agent(self, method, path, body=None):
            return client.simulate_request(method, path, json=body, headers={"Authorization": f"Bearer {agent}"})

        def api(self, method, path, body=None, **kwargs):
            return client.simulate_request(method, path, json=body,
                                           headers={"Authorization": f"Bearer {interface}"}, **kwargs)

    hub = _Hub()
    load(hub, ISSUES, NEIGHBOURS, version=16, catalogues=CATALOGUES)
    mark_gone(GONE)
    return hub


def test_generated_queries_are_varied():
    assert len(set(QUERY_TEXTS)) > QUERIES * 0.95
    assert sum("ORDER BY" in text for text in QUERY_TEXTS) > QUERIES / 3


@pytest.mark.parametrize("text", [text for text in QUERY_TEXTS if "~" not in text])
def test_the_sql_answers_as_the_reference_evaluator(mirror, text):
    _answers_as_the_reference(mirror, text)


@pytest.mark.parametrize("text", [text for text in QUERY_TEXTS if "~" in text])
def test_the_sql_answers_words_as_the_reference_evaluator(mirror, text):
    _answers_as_the_reference(mirror, text)


def _answers_as_the_reference(mirror, text: str) -> None:
    resp = mirror.api("GET", "/api/v1/issues", params={"jql": text, "limit": 100})
    assert resp.status_code == 200, resp.json
    expected = Reference().run(parse(text))
    assert [item["key"] for item in resp.json["items"]] == expected
    assert resp.json["total"] == len(expected)
