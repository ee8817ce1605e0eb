"""JQL's syntax: each query of the table with the tree it gives, printed compactly; where
each node's text begins; and queries generated from the grammar parsed back into the trees
they were generated from. The errors are in test_jql_parser_errors.py."""

from __future__ import annotations

import json
import random

import pytest

from hub.services.search.jql.parser import parse
from hub.services.search.jql.tree import (
    And,
    Clause,
    Empty,
    FieldRef,
    Function,
    Not,
    Or,
    Query,
    Value,
    ValueList,
)


def show(node: object) -> str:
    """A tree as compact text: ``And(status = "Open", Not(labels in (a, b)))``; quoted
    values in double quotes, unquoted ones bare, so the table shows which is which."""
    match node:
        case Query(where=where, order=order):
            keys = ", ".join(
                show(key.field) + ("" if key.descending is None else " DESC" if key.descending else " ASC")
                for key in order
            )
            parts = ([show(where)] if where is not None else []) + ([f"ORDER BY {keys}"] if order else [])
            return " ".join(parts)
        case Value(text=text, quoted=True):
            return json.dumps(text, ensure_ascii=False)
        case Value(text=text):
            return text
        case Empty():
            return "EMPTY"
        case Function(name=name, args=args):
            return f"{name}({', '.join(show(a) for a in args)})"
        case ValueList(items=items):
            return f"({', '.join(show(i) for i in items)})"
        case FieldRef(custom_id=int() as custom):
            return f"cf[{custom}]"
        case FieldRef(name=name):
            return name if name and " " not in name else json.dumps(name, ensure_ascii=False)
        case Clause(field=field, operator=operator, operand=operand, predicates=predicates):
            text = f"{show(field)} {operator}" + ("" if operand is None else f" {show(operand)}")
            return text + "".join(f" {p.word} {show(p.operand)}" for p in predicates)
        case Not(operand=operand):
            return f"Not({show(operand)})"
        case And(operands=operands) | Or(operands=operands):
            return f"{type(node).__name__}({', '.join(show(o) for o in operands)})"
    raise AssertionError(f"not a tree: {node!r}")


# (query, the tree it gives)
PARSES = [
    # empty queries and ORDER BY alone
    ("", ""),
    ("   \n\t ", ""),
    ("ORDER BY updated", "ORDER BY updated"),
    ("order by created desc", "ORDER BY created DESC"),
    ("ORDER BY priority DESC, updated ASC, key", "ORDER BY priority DESC, updated ASC, key"),
    ("ORDER BY cf[10012] asc", "ORDER BY cf[10012] ASC"),
    ('ORDER BY "Epic Link"', 'ORDER BY "Epic Link"'),
    # the simple operators
    ("status = Open", "status = Open"),
    ("status=Open", "status = Open"),
    ("status != Open", "status != Open"),
    ("status!=Open", "status != Open"),
    ("votes > 5", "votes > 5"),
    ("votes >= 5", "votes >= 5"),
    ("votes < 5", "votes < 5"),
    ("votes <= 5", "votes <= 5"),
    ("votes<=5", "votes <= 5"),
    ("summary ~ crash", "summary ~ crash"),
    ("summary !~ crash", "summary !~ crash"),
    ("summary~crash", "summary ~ crash"),
    ("status in (Open, Closed)", "status in (Open, Closed)"),
    ("status IN (Open,Closed)", "status in (Open, Closed)"),
    ("status not in (Open, Closed)", "status not in (Open, Closed)"),
    ("status NOT IN (Open)", "status not in (Open)"),
    ("resolution is EMPTY", "resolution is EMPTY"),
    ("resolution IS NOT empty", "resolution is not EMPTY"),
    ("resolution is null", "resolution is EMPTY"),
    ("resolution is not NULL", "resolution is not EMPTY"),
    ("resolution = EMPTY", "resolution = EMPTY"),
    ("resolution != null", "resolution != EMPTY"),
    ("status in (Open, EMPTY)", "status in (Open, EMPTY)"),
    # keywords in any case
    ("a = b and c = d", "And(a = b, c = d)"),
    ("a = b And c = d", "And(a = b, c = d)"),
    ("a = b AND c = d", "And(a = b, c = d)"),
    ("a = b aNd c = d", "And(a = b, c = d)"),
    ("a = b or c = d", "Or(a = b, c = d)"),
    ("a = b Or c = d", "Or(a = b, c = d)"),
    ("not a = b", "Not(a = b)"),
    ("NoT a = b", "Not(a = b)"),
    # Jira's other spellings of AND, OR, NOT
    ("a = b && c = d", "And(a = b, c = d)"),
    ("a = b || c = d", "Or(a = b, c = d)"),
    ("!a = b", "Not(a = b)"),
    ("! a = b", "Not(a = b)"),
    ("!(a = b)", "Not(a = b)"),
    ("a=b&&c=d||e=f", "Or(And(a = b, c = d), e = f)"),
    # precedence: NOT over AND over OR, flattened runs, parentheses kept
    ("a = 1 AND b = 2 AND c = 3", "And(a = 1, b = 2, c = 3)"),
    ("a = 1 OR b = 2 OR c = 3", "Or(a = 1, b = 2, c = 3)"),
    ("a = 1 OR b = 2 AND c = 3", "Or(a = 1, And(b = 2, c = 3))"),
    ("a = 1 AND b = 2 OR c = 3", "Or(And(a = 1, b = 2), c = 3)"),
    ("a = 1 AND b = 2 OR c = 3 AND d = 4", "Or(And(a = 1, b = 2), And(c = 3, d = 4))"),
    ("(a = 1 OR b = 2) AND c = 3", "And(Or(a = 1, b = 2), c = 3)"),
    ("a = 1 AND (b = 2 OR c = 3)", "And(a = 1, Or(b = 2, c = 3))"),
    ("NOT a = 1 AND b = 2", "And(Not(a = 1), b = 2)"),
    ("NOT a = 1 OR b = 2", "Or(Not(a = 1), b = 2)"),
    ("NOT (a = 1 OR b = 2)", "Not(Or(a = 1, b = 2))"),
    ("NOT NOT a = 1", "Not(Not(a = 1))"),
    ("a = 1 AND NOT b = 2", "And(a = 1, Not(b = 2))"),
    ("((a = 1))", "a = 1"),
    ("(a = 1 AND b = 2) AND c = 3", "And(And(a = 1, b = 2), c = 3)"),
    ("((a = 1 OR b = 2) AND (c = 3 OR NOT d = 4))", "And(Or(a = 1, b = 2), Or(c = 3, Not(d = 4)))"),
    # quoted strings and escapes
    ('status = "In Progress"', 'status = "In Progress"'),
    ("status = 'In Progress'", 'status = "In Progress"'),
    ('summary ~ "say \\"hi\\""', 'summary ~ "say \\"hi\\""'),
    ("summary ~ 'it\\'s'", 'summary ~ "it\'s"'),
    ('summary ~ "it\'s"', 'summary ~ "it\'s"'),
    ("summary ~ 'say \"hi\"'", 'summary ~ "say \\"hi\\""'),
    ('summary ~ "a\\\\b"', 'summary ~ "a\\\\b"'),
    ('summary ~ "tab\\there"', 'summary ~ "tab\\there"'),
    ('summary ~ "line\\nbreak"', 'summary ~ "line\\nbreak"'),
    ('summary ~ "cr\\rhere"', 'summary ~ "cr\\rhere"'),
    ('summary ~ "\\u0041\\u00e9"', 'summary ~ "Aé"'),
    ('summary ~ "\\u041f\\u0440\\u0438\\u0432\\u0435\\u0442"', 'summary ~ "Привет"'),
    ('summary ~ "\\ud83d\\ude00"', 'summary ~ "\U0001f600"'),
    ("labels = \U0001f600", "labels = \U0001f600"),
    ('summary ~ "a line\nand the next"', 'summary ~ "a line\\nand the next"'),
    ('summary ~ ""', 'summary ~ ""'),
    ("summary ~ ''", 'summary ~ ""'),
    ('status = "EMPTY"', 'status = "EMPTY"'),
    ('status = "AND"', 'status = "AND"'),
    ('status = "select"', 'status = "select"'),
    ('summary ~ "50% done; #1 * {x}"', 'summary ~ "50% done; #1 * {x}"'),
    ('status = "-7d"', 'status = "-7d"'),
    # unquoted words: escapes, scripts, punctuation Jira allows
    ("summary ~ a\\ b", "summary ~ a b"),
    ("summary ~ 50\\u0025", "summary ~ 50%"),
    ("fixVersion = 2.3", "fixVersion = 2.3"),
    ("fixVersion = v2.3.1-rc_1", "fixVersion = v2.3.1-rc_1"),
    ("key = AURORA-12", "key = AURORA-12"),
    ("key > AURORA-100", "key > AURORA-100"),
    ("id = 10001", "id = 10001"),
    ("статус = Открыт", "статус = Открыт"),
    ("assignee = иванов AND labels = срочно", "And(assignee = иванов, labels = срочно)"),
    ("labels = ελληνικά", "labels = ελληνικά"),
    ("labels = 日本語", "labels = 日本語"),
    ("created > -7d", "created > -7d"),
    ("created > -2w", "created > -2w"),
    ("created < 4h", "created < 4h"),
    ("created > 2026-10-22", "created > 2026-10-22"),
    ("created > 2026/10/22", "created > 2026/10/22"),
    ('created > "2026-10-22 13:05"', 'created > "2026-10-22 13:05"'),
    ("created > 13:05", "created > 13:05"),
    ("assignee = ivanov@example.com", "assignee = ivanov@example.com"),
    ("due <= +1d", "due <= +1d"),
    ("votes = -1", "votes = -1"),
    ("votes = 9223372036854775807", "votes = 9223372036854775807"),
    ("votes = -9223372036854775808", "votes = -9223372036854775808"),
    ('votes = "9223372036854775808"', 'votes = "9223372036854775808"'),
    ("labels = 99999999999999999999x", "labels = 99999999999999999999x"),
    ("android = 1", "android = 1"),
    ("order_id = 1", "order_id = 1"),
    ("issueKey = AURORA-12", "issueKey = AURORA-12"),
    # field names: quoted, custom, as written
    ('"Epic Link" = AURORA-12', '"Epic Link" = AURORA-12'),
    ("'Epic Link' = AURORA-12", '"Epic Link" = AURORA-12'),
    ("cf[10012] = 5", "cf[10012] = 5"),
    ("CF[10012] > 5", "cf[10012] > 5"),
    ("cf [ 10012 ] = 5", "cf[10012] = 5"),
    ("Status = Open", "Status = Open"),
    ('"status" = Open', "status = Open"),
    # functions
    ("sprint in openSprints()", "sprint in openSprints()"),
    ("sprint in openSprints( )", "sprint in openSprints()"),
    ("created > startOfDay(-1)", "created > startOfDay(-1)"),
    ('created > startOfWeek("-2w")', 'created > startOfWeek("-2w")'),
    ("created < endOfMonth(+1M)", "created < endOfMonth(+1M)"),
    ('issue in linkedIssues(AURORA-12, "is blocked by")', 'issue in linkedIssues(AURORA-12, "is blocked by")'),
    ("issue in linkedIssues(AURORA-12,blocks)", "issue in linkedIssues(AURORA-12, blocks)"),
    ("assignee = currentUser()", "assignee = currentUser()"),
    ("assignee in (currentUser(), ivanov, EMPTY)", "assignee in (currentUser(), ivanov, EMPTY)"),
    ("created >= now()", "created >= now()"),
    ("f = fn(a, 'b c', -1, 2.5)", 'f = fn(a, "b c", -1, 2.5)'),
    # history operators and their predicates
    ("status was Open", "status was Open"),
    ("status WAS in (Open, Closed)", "status was in (Open, Closed)"),
    ("status was not Open", "status was not Open"),
    ("status was not in (Open, Closed)", "status was not in (Open, Closed)"),
    ("status was EMPTY", "status was EMPTY"),
    ("status changed", "status changed"),
    ("status CHANGED", "status changed"),
    ("status changed AND a = b", "And(status changed, a = b)"),
    ("status changed from Open to Closed", "status changed from Open to Closed"),
    ("status changed FROM Open TO Closed BY ivanov", "status changed from Open to Closed by ivanov"),
    ("status changed after -7d", "status changed after -7d"),
    ('status changed before "2026/10/22"', 'status changed before "2026/10/22"'),
    ("status changed on 2026-10-22", "status changed on 2026-10-22"),
    ("status changed during (2026-10-01, 2026-10-31)", "status changed during (2026-10-01, 2026-10-31)"),
    ("status was Open on startOfDay(-1)", "status was Open on startOfDay(-1)"),
    ("status was Open by (ivanov, petrov)", "status was Open by (ivanov, petrov)"),
    (
        "status was in (Open) during ('2026/10/01', now()) by ivanov",
        'status was in (Open) during ("2026/10/01", now()) by ivanov',
    ),
    ("assignee was currentUser() after startOfWeek()", "assignee was currentUser() after startOfWeek()"),
    ("status changed to Closed OR status was Done", "Or(status changed to Closed, status was Done)"),
    # whole queries as teams write them
    (
        "assignee = ivanov AND status in ('In Progress', Review) ORDER BY priority DESC",
        'And(assignee = ivanov, status in ("In Progress", Review)) ORDER BY priority DESC',
    ),
    ("fixVersion = 2.3 AND resolution is EMPTY", "And(fixVersion = 2.3, resolution is EMPTY)"),
    ("sprint in openSprints() AND type = Bug", "And(sprint in openSprints(), type = Bug)"),
    (
        "project = AURORA AND (labels in (a, b) OR NOT component = UI) ORDER BY updated",
        "And(project = AURORA, Or(labels in (a, b), Not(component = UI))) ORDER BY updated",
    ),
    ('text ~ "login fails" ORDER BY key', 'text ~ "login fails" ORDER BY key'),
    ("a = b\nAND\nc = d\r\nORDER BY e", "And(a = b, c = d) ORDER BY e"),
]


@pytest.mark.parametrize(("text", "tree"), PARSES, ids=[text or "(empty)" for text, _ in PARSES])
def test_each_query_of_the_table_parses_into_its_tree(text: str, tree: str) -> None:
    assert show(parse(text)) == tree


def test_every_node_knows_the_character_its_text_begins_at() -> None:
    query = parse('NOT (a = "x") OR cf[12] in (b, fn(c)) AND d changed by e ORDER BY f DESC')
    assert isinstance(query.where, Or)
    first, second = query.where.operands
    assert query.where.at == 1
    assert isinstance(first, Not) and first.at == 1
    assert isinstance(first.operand, Clause)
    assert (first.operand.at, first.operand.field.at, first.operand.operand) == (6, 6, Value("x", True, 10))
    assert isinstance(second, And) and second.at == 18
    clause, changed = second.operands
    assert isinstance(clause, Clause) and isinstance(clause.operand, ValueList)
    assert (clause.field, clause.operand.at) == (FieldRef("cf[12]", 18, 12), 28)
    assert clause.operand.items == (Value("b", False, 29), Function("fn", (Value("c", False, 35),), 32))
    assert isinstance(changed, Clause) and changed.operand is None
    assert [(p.word, p.at, p.operand) for p in changed.predicates] == [("by", 53, Value("e", False, 56))]
    assert [(k.field.name, k.descending, k.at) for k in query.order] == [("f", True, 67)]


def test_empty_and_null_are_the_keyword_and_quoted_they_are_values() -> None:
    assert parse("a = EMPTY").where == Clause(FieldRef("a", 1), "=", Empty(5), 1)
    assert parse("a = null").where == Clause(FieldRef("a", 1), "=", Empty(5), 1)
    assert parse('a = "null"').where == Clause(FieldRef("a", 1), "=", Value("null", True, 5), 1)


# -- generated queries --------------------------------------------------------------------

FIELDS = [("status", "status"), ('"Epic Link"', '"Epic Link"'), ("cf[10012]", "cf[10012]"), ("статус", "статус")]
VALUES = [
    ("Open", "Open"),
    ("'In Progress'", '"In Progress"'),
    ("-7d", "-7d"),
    ('"a\\"b"', '"a\\"b"'),
    ("AURORA-12", "AURORA-12"),
    ("EMPTY", "EMPTY"),
    ("now()", "now()"),
    ("fn(1, 'x')", 'fn(1, "x")'),
]
SIMPLE = ["=", "!=", ">", ">=", "<", "<=", "~", "!~", "is", "is not"]
LISTED = ["in", "not in", "was in", "was not in"]
HISTORY = ["was", "was not"]


def generated_clause(rng) -> tuple[str, str]:
    """A random clause as JQL text and as the tree :func:`show` prints for it."""
    field, shown = rng.choice(FIELDS)
    kind = rng.randrange(4)
    if kind == 0:
        operator = rng.choice(SIMPLE)
        value, value_shown = rng.choice(VALUES)
        return f"{field} {operator.upper()} {value}", f"{shown} {operator} {value_shown}"
    if kind == 1:
        operator = rng.choice(LISTED)
        items = [rng.choice(VALUES) for _ in range(rng.randint(1, 3))]
        text = f"{field} {operator} ({', '.join(v for v, _ in items)})"
        return text, f"{shown} {operator} ({', '.join(s for _, s in items)})"
    predicates = [(w, *rng.choice(VALUES[:3])) for w in rng.sample(["from", "to", "by", "after", "on"], 2)]
    tail_text = "".join(f" {w.upper()} {v}" for w, v, _ in predicates)
    tail_shown = "".join(f" {w} {s}" for w, _, s in predicates)
    if kind == 2:
        operator = rng.choice(HISTORY)
        value, value_shown = rng.choice(VALUES)
        return f"{field} {operator} {value}{tail_text}", f"{shown} {operator} {value_shown}{tail_shown}"
    return f"{field} changed{tail_text}", f"{shown} changed{tail_shown}"


def generated(rng, depth: int = 0) -> tuple[str, str, str]:
    """A random condition: its text, its tree printed, and its kind ("or", "and", "not",
    "clause"), so that a caller knows when it needs parentheses."""
    kind = rng.choice(["clause", "clause", "not", "and", "or"]) if depth < 4 else "clause"
    if kind == "clause":
        return (*generated_clause(rng), "clause")
    if kind == "not":
        text, shown, inner = generated(rng, depth + 1)
        text = text if inner in ("clause", "not") else f"({text})"
        return f"{rng.choice(['NOT ', 'not ', '!'])}{text}", f"Not({shown})", "not"
    parts = [generated(rng, depth + 1) for _ in range(rng.randint(2, 3))]
    word = rng.choice([" AND ", " and ", " && "] if kind == "and" else [" OR ", " or ", " || "])
    # An operand of the same kind, or an OR inside an AND, is parenthesised: it stays nested.
    texts = [text if inner in ("clause", "not") else f"({text})" for text, _, inner in parts]
    name = "And" if kind == "and" else "Or"
    return word.join(texts), f"{name}({', '.join(shown for _, shown, _ in parts)})", kind


def test_generated_queries_parse_into_the_trees_they_were_generated_from() -> None:
    rng = random.Random(19)
    for _ in range(500):
        text, shown, _ = generated(rng)
        if rng.random() < 0.3:
            text, shown = f"{text} ORDER BY updated DESC, key", f"{shown} ORDER BY updated DESC, key"
        assert show(parse(text)) == shown, text
