"""JQL's syntax: each query of the tables with the tree it gives (printed compactly) or the
error it gets, worded as Jira words it, at the character Jira would name."""

from __future__ import annotations

import json
import random

import pytest

from hub.services.jql.lexer import PREFIX
from hub.services.jql.parser import MAX_CLAUSES, MAX_DEPTH, MAX_LENGTH, MAX_LIST, parse
from hub.services.jql.tree import (
    And,
    Clause,
    Empty,
    FieldRef,
    Function,
    JqlError,
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
    ("a = b & c = d", "And(a = b, c = d)"),
    ("a = b || c = d", "Or(a = b, c = d)"),
    ("a = b | c = d", "Or(a = b, c = d)"),
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


OPERATORS = "'=', '!=', '<', '>', '<=', '>=', '~', '!~', 'IN', 'NOT IN', 'IS' and 'IS NOT'"
ESCAPES = "\\', \\\", \\t, \\n, \\r, \\\\, '\\ ' and \\uXXXX"
RESERVED = "is a reserved JQL word. You must surround it in quotation marks to use it in a query."
NEEDS_FIELD = "You must surround {0} in quotation marks to use it as a field name."
NEEDS_VALUE = "You must surround {0} in quotation marks to use it as a value."
CUSTOM = "Expecting a custom field id enclosed by '[ ]' after 'cf'. Example: 'cf[10021]'."

# (query, Jira's words without "Error in the JQL Query: ", the character named)
ERRORS = [
    # an operator missing or wrong
    ("foo", f"Expecting operator before the end of the query. The valid operators are {OPERATORS}.", 4),
    ("foo bar", f"Expecting operator but got 'bar'. The valid operators are {OPERATORS}.", 5),
    ("status == Open", "Expecting either a value, list or function but got '='. " + NEEDS_VALUE.format("'='"), 9),
    ("status not Open", "Expecting 'IN' but got 'Open'.", 12),
    ("status not", "Expecting 'IN' before the end of the query.", 11),
    ("status isnot EMPTY", f"Expecting operator but got 'isnot'. The valid operators are {OPERATORS}.", 8),
    ("status ! in (a)", f"Expecting operator but got '!'. The valid operators are {OPERATORS}.", 8),
    ("status (a)", f"Expecting operator but got '('. The valid operators are {OPERATORS}.", 8),
    ("a = b AND c", f"Expecting operator before the end of the query. The valid operators are {OPERATORS}.", 12),
    # a field missing or wrong
    ("a = b AND", "Expecting a field name at the end of the query.", 10),
    ("a = b OR", "Expecting a field name at the end of the query.", 9),
    ("NOT", "Expecting a field name at the end of the query.", 4),
    ("= Open", "Expecting a field name but got '='. " + NEEDS_FIELD.format("'='"), 1),
    ("AND a = b", "Expecting a field name but got 'AND'. " + NEEDS_FIELD.format("'AND'"), 1),
    ("a = b AND OR c = d", "Expecting a field name but got 'OR'. " + NEEDS_FIELD.format("'OR'"), 11),
    ("() ", "Expecting a field name but got ')'. " + NEEDS_FIELD.format("')'"), 2),
    ("[10012] = 5", "Expecting a field name but got '['. Did you mean 'cf['?", 1),
    ("empty = 5", "Expecting a field name but got 'empty'. " + NEEDS_FIELD.format("'empty'"), 1),
    ("cf = 5", CUSTOM, 4),
    ("cf[abc] = 5", CUSTOM, 4),
    ("cf[10012 = 5", CUSTOM, 10),
    ("cf[-1] = 5", CUSTOM, 4),
    ("cf[", CUSTOM, 4),
    ('"" = x', "The field name is empty. A field name needs at least one character.", 1),
    ("' ' = x", "The field name is empty. A field name needs at least one character.", 1),
    ('a = ""()', "The function name is empty. A function name needs at least one character.", 5),
    # a value missing or wrong
    ("status =", "Expecting either a value, list or function before the end of the query.", 9),
    ("status = ", "Expecting either a value, list or function before the end of the query.", 10),
    ("status = AND", "Expecting either a value, list or function but got 'AND'. " + NEEDS_VALUE.format("'AND'"), 10),
    ("status = )", "Expecting either a value, list or function but got ')'. " + NEEDS_VALUE.format("')'"), 10),
    (
        "status = during",
        "Expecting either a value, list or function but got 'during'. " + NEEDS_VALUE.format("'during'"),
        10,
    ),
    ("status in ()", "Expecting a value or function but got ')'. " + NEEDS_VALUE.format("')'"), 12),
    ("status in (a,)", "Expecting a value or function but got ')'. " + NEEDS_VALUE.format("')'"), 14),
    ("status in (a, (b))", "Expecting a value or function but got '('. " + NEEDS_VALUE.format("'('"), 15),
    ("status in (a b)", "Expecting ',' or ')' but got 'b'.", 14),
    ("status in (a", "Expecting ',' or ')' before the end of the query.", 13),
    ("status in (a,", "Expecting a value or function before the end of the query.", 14),
    ("status was", "Expecting either a value, list or function before the end of the query.", 11),
    ("status was not in", "Expecting either a value, list or function before the end of the query.", 18),
    # functions
    ("f = fn(a", "Expecting ')' or ',' before the end of the query.", 9),
    ("f = fn(a b)", "Expecting ')' or ',' but got 'b'.", 10),
    ("f = fn(,)", "The function argument before ',' is empty.", 8),
    ("f = fn(a,)", "The function argument before ')' is empty.", 10),
    ("f = fn(now())", "Expecting ')' or ',' but got '('.", 11),
    ("f = fn(EMPTY)", "Expecting a function argument but got 'EMPTY'. " + NEEDS_VALUE.format("'EMPTY'"), 8),
    # clauses not joined
    ("a = b c = d", "Expecting either 'OR' or 'AND' but got 'c'.", 7),
    ("a = b x", "Expecting either 'OR' or 'AND' but got 'x'.", 7),
    ("a = 'b' 'c'", "Expecting either 'OR' or 'AND' but got 'c'.", 9),
    ("a = b)", "Expecting either 'OR' or 'AND' but got ')'.", 6),
    ("(a = b) c = d", "Expecting either 'OR' or 'AND' but got 'c'.", 9),
    ("(a = b", "Expecting ')' before the end of the query.", 7),
    ("((a = b)", "Expecting ')' before the end of the query.", 9),
    ("(a = b ORDER BY c)", "Expecting ')' but got 'ORDER'.", 8),
    ("NOT a = b c", "Expecting either 'OR' or 'AND' but got 'c'.", 11),
    ("status changed open", "The operator 'CHANGED' takes no value but got 'open'.", 16),
    # history predicates where they do not belong, or wrong
    (
        "status = Open BY ivanov",
        "The operator '=' does not support the history predicate 'BY'; only WAS, WAS IN, "
        "WAS NOT, WAS NOT IN and CHANGED do.",
        15,
    ),
    (
        "status in (a) after -1d",
        "The operator 'IN' does not support the history predicate 'AFTER'; only WAS, "
        "WAS IN, WAS NOT, WAS NOT IN and CHANGED do.",
        15,
    ),
    ("status changed by", "Expecting either a value, list or function before the end of the query.", 18),
    (
        "status changed during (a)",
        'The predicate \'DURING\' takes a list of two dates: DURING ("2026/10/01", "2026/10/31").',
        23,
    ),
    (
        "status changed during -1d",
        'The predicate \'DURING\' takes a list of two dates: DURING ("2026/10/01", "2026/10/31").',
        23,
    ),
    (
        "status changed during (a, b, c)",
        'The predicate \'DURING\' takes a list of two dates: DURING ("2026/10/01", "2026/10/31").',
        23,
    ),
    # ORDER BY
    ("ORDER updated", "Expecting 'by' but got 'updated'.", 7),
    ("ORDER", "Expecting 'by' before the end of the query.", 6),
    ("ORDER BY", "Expecting a field name at the end of the query.", 9),
    ("a = b ORDER BY", "Expecting a field name at the end of the query.", 15),
    ("ORDER BY updated up", "Expecting either 'ASC' or 'DESC' but got 'up'.", 18),
    ("ORDER BY updated DESC key", "Expecting ',' but got 'key'.", 23),
    ("ORDER BY updated,", "Expecting a field name at the end of the query.", 18),
    ("ORDER BY updated DESC AND a = b", "Expecting ',' but got 'AND'.", 23),
    ("ORDER BY a, AND", "Expecting a field name but got 'AND'. " + NEEDS_FIELD.format("'AND'"), 13),
    # strings that do not end
    ('status = "Open', "The quoted string 'Open' has not been completed.", 10),
    ("status = 'Open", "The quoted string 'Open' has not been completed.", 10),
    ('status = "', "The quoted string has not been completed.", 10),
    ('status = "a\nb', "The quoted string 'a b' has not been completed.", 10),
    ('"Epic Link = x', "The quoted string 'Epic Link = x' has not been completed.", 1),
    ("status = 'it\\'s", "The quoted string 'it's' has not been completed.", 10),
    # escapes
    ("status = a\\q", f"'\\q' is an illegal JQL escape sequence. The valid escape sequences are {ESCAPES}.", 11),
    ('status = "a\\q"', f"'\\q' is an illegal JQL escape sequence. The valid escape sequences are {ESCAPES}.", 12),
    ("status = \\u12", f"'\\u12' is an illegal JQL escape sequence. The valid escape sequences are {ESCAPES}.", 10),
    ("status = \\u12g4", f"'\\u12g4' is an illegal JQL escape sequence. The valid escape sequences are {ESCAPES}.", 10),
    ('a = "\\ud83d"', f"'\\ud83d' is an illegal JQL escape sequence. The valid escape sequences are {ESCAPES}.", 6),
    ("a = \\ude00x", f"'\\ude00' is an illegal JQL escape sequence. The valid escape sequences are {ESCAPES}.", 5),
    ("a = \ud800", "The character 'U+D800' is half of a UTF-16 pair, not a character.", 5),
    ("status = a\\", f"The escape sequence has not been completed. The valid escape sequences are {ESCAPES}.", 11),
    # reserved characters
    (
        "status = %",
        "The character '%' is a reserved JQL character. You must enclose it in a string or use the "
        "escape '\\u0025' instead.",
        10,
    ),
    (
        "status = 50%",
        "The character '%' is a reserved JQL character. You must enclose it in a string or use the "
        "escape '\\u0025' instead.",
        12,
    ),
    (
        "summary ~ a*",
        "The character '*' is a reserved JQL character. You must enclose it in a string or use the "
        "escape '\\u002a' instead.",
        12,
    ),
    (
        "labels = #1",
        "The character '#' is a reserved JQL character. You must enclose it in a string or use the "
        "escape '\\u0023' instead.",
        10,
    ),
    (
        "a = b; c = d",
        "The character ';' is a reserved JQL character. You must enclose it in a string or use the "
        "escape '\\u003b' instead.",
        6,
    ),
    (
        "a = {b}",
        "The character '{' is a reserved JQL character. You must enclose it in a string or use the "
        "escape '\\u007b' instead.",
        5,
    ),
    (
        "a = $x",
        "The character '$' is a reserved JQL character. You must enclose it in a string or use the "
        "escape '\\u0024' instead.",
        5,
    ),
    (
        "a = b?",
        "The character '?' is a reserved JQL character. You must enclose it in a string or use the "
        "escape '\\u003f' instead.",
        6,
    ),
    (
        "a = b^2",
        "The character '^' is a reserved JQL character. You must enclose it in a string or use the "
        "escape '\\u005e' instead.",
        6,
    ),
    # control characters
    ("a = b\x07", "The character 'U+0007' must be escaped. Use the escape '\\u0007' instead.", 6),
    ('a = "b\tc"', "The character 'TAB' must be escaped. Use the escape '\\t' instead.", 7),
    ("a = \x00", "The character 'U+0000' must be escaped. Use the escape '\\u0000' instead.", 5),
    # reserved words, unquoted
    ("status = select", f"'select' {RESERVED}", 10),
    ("status = Next", f"'Next' {RESERVED}", 10),
    ("fixVersion = next AND a = b", f"'next' {RESERVED}", 14),
    ("user = ivanov", f"'user' {RESERVED}", 1),
    ("status in (Open, current)", f"'current' {RESERVED}", 18),
    ("status = notin", f"'notin' {RESERVED}", 10),
    ("status = \\u0061nd", f"'and' {RESERVED}", 10),
    ("created > date(1)", f"'date' {RESERVED}", 11),
    ("f = fn(true)", f"'true' {RESERVED}", 8),
    ("ORDER BY field", f"'field' {RESERVED}", 10),
    # a reserved word is found before a later syntax error, as Jira's lexer finds it first
    ("a b c = select", f"'select' {RESERVED}", 9),
]


@pytest.mark.parametrize(("text", "message", "at"), ERRORS, ids=[text for text, _, _ in ERRORS])
def test_each_bad_query_of_the_table_gets_jiras_words_and_the_character(text: str, message: str, at: int) -> None:
    with pytest.raises(JqlError) as caught:
        parse(text)
    assert (caught.value.message, caught.value.at) == (PREFIX + message, at)


def test_an_error_says_line_1_and_the_character_as_jira_does() -> None:
    with pytest.raises(JqlError) as caught:
        parse("a = b c")
    assert (
        str(caught.value) == "Error in the JQL Query: Expecting either 'OR' or 'AND' but got 'c'. (line 1, character 7)"
    )


def test_line_breaks_count_as_one_character_each_on_line_1() -> None:
    with pytest.raises(JqlError) as caught:
        parse("a = b\nAND\r\nc = %")
    # "a = b" 1-5, "\n" 6, "AND" 7-9, "\r" 10, "\n" 11, "c = " 12-15
    assert caught.value.at == 16


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


# -- the bounds ---------------------------------------------------------------------------


def refused(text: str) -> JqlError:
    with pytest.raises(JqlError) as caught:
        parse(text)
    return caught.value


def test_a_query_longer_than_the_limit_is_refused_before_it_is_read() -> None:
    text = "summary ~ " + "a" * (MAX_LENGTH - 10)
    assert len(text) == MAX_LENGTH
    assert show(parse(text)).startswith("summary ~ aaa")
    error = refused(text + "a")
    assert error.message == f"{PREFIX}The query is longer than {MAX_LENGTH} characters."
    assert error.at is None


def test_nesting_up_to_the_limit_parses_and_one_more_is_refused() -> None:
    assert show(parse("(" * MAX_DEPTH + "a = b" + ")" * MAX_DEPTH)) == "a = b"
    error = refused("(" * (MAX_DEPTH + 1) + "a = b" + ")" * (MAX_DEPTH + 1))
    assert error.message == f"{PREFIX}The query is nested deeper than {MAX_DEPTH} levels of parentheses and NOT."
    assert error.at == MAX_DEPTH + 1
    assert refused("NOT " * (MAX_DEPTH + 1) + "a = b").at == 4 * MAX_DEPTH + 1
    assert refused("!" * (MAX_DEPTH + 1) + "a = b").at == MAX_DEPTH + 1
    assert show(parse("NOT (" * (MAX_DEPTH // 2) + "a = b" + ")" * (MAX_DEPTH // 2))).count("Not(") == MAX_DEPTH // 2


def test_more_clauses_than_the_limit_are_refused() -> None:
    assert len(parse(" OR ".join(["a=b"] * MAX_CLAUSES)).where.operands) == MAX_CLAUSES  # type: ignore[union-attr]
    error = refused(" OR ".join(["a=b"] * (MAX_CLAUSES + 1)))
    assert error.message == f"{PREFIX}The query has more than {MAX_CLAUSES} clauses."
    assert error.at == MAX_CLAUSES * 7 + 1


def test_a_list_longer_than_the_limit_is_refused() -> None:
    clause = parse("a in (" + ",".join(["1"] * MAX_LIST) + ")").where
    assert isinstance(clause, Clause) and isinstance(clause.operand, ValueList)
    assert len(clause.operand.items) == MAX_LIST
    error = refused("a in (" + ",".join(["1"] * (MAX_LIST + 1)) + ")")
    assert error.message == f"{PREFIX}The list has more than {MAX_LIST} values."
    assert error.at == 6 + 2 * MAX_LIST + 1
    error = refused("a = fn(" + ",".join(["1"] * (MAX_LIST + 1)) + ")")
    assert error.message == f"{PREFIX}The function has more than {MAX_LIST} arguments."


# Shapes that make naive parsers slow or deep, each about MAX_LENGTH characters. Each parses
# or is refused in well under a tenth of a second (20-80 ms on a shared two-core machine): the
# lexer and parser are linear in the text and never recurse deeper than MAX_DEPTH levels.
ADVERSARIAL = [
    ("(" * MAX_LENGTH, "nested"),
    (")" * MAX_LENGTH, "field"),
    ("NOT " * (MAX_LENGTH // 4), "nested"),
    ("!" * MAX_LENGTH, "nested"),
    ("a=b AND " * (MAX_LENGTH // 8 - 1) + "a=b", "clauses"),
    ("a in (" + "1," * (MAX_LENGTH // 2 - 4) + "1)", "list"),
    ('"' * MAX_LENGTH, "field name is empty"),
    ('a = "' + "\\\\" * (MAX_LENGTH // 2 - 3), "completed"),
    ("a = " + "\\ " * (MAX_LENGTH // 2 - 2), "parses"),
    ("a = " + "x" * (MAX_LENGTH - 4), "parses"),
    ("a = '" + "\\'" * (MAX_LENGTH // 2 - 3) + "'", "parses"),
    ("a = " + "-" * (MAX_LENGTH - 4), "parses"),
    ("a = b " * (MAX_LENGTH // 6), "OR"),
    ("ORDER BY " + "a, " * (MAX_LENGTH // 3 - 4) + "a", "parses"),
    ("a = fn(" + "x, " * (MAX_LENGTH // 3 - 3) + "x)", "arguments"),
    ("a" * MAX_LENGTH, "operator"),
    ("(a=b OR " * (MAX_DEPTH - 1) + "a=b" + ")" * (MAX_DEPTH - 1) + " AND a=b" * 600, "clauses"),
    ("status changed " + "by x " * (MAX_LENGTH // 5 - 3), "parses"),
]


@pytest.mark.parametrize(("text", "outcome"), ADVERSARIAL, ids=[f"{t[:12]}…{o}" for t, o in ADVERSARIAL])
def test_adversarial_queries_of_the_longest_length_parse_or_are_refused_cleanly(text: str, outcome: str) -> None:
    assert len(text) <= MAX_LENGTH
    if outcome == "parses":
        parse(text)
        return
    with pytest.raises(JqlError) as caught:
        parse(text)
    assert outcome in caught.value.message


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


ALPHABET = [
    "a",
    "b",
    "=",
    "!",
    "<",
    ">",
    "~",
    "(",
    ")",
    ",",
    "[",
    "]",
    '"',
    "'",
    "\\",
    " ",
    "\n",
    "-",
    "&",
    "|",
    "%",
    "AND",
    "OR",
    "NOT",
    "IN",
    "IS",
    "EMPTY",
    "WAS",
    "CHANGED",
    "BY",
    "DURING",
    "ORDER",
    "ASC",
    "cf",
    "10",
    "u00",
    "fn(",
    "select",
    "я",
    "\x07",
]


def test_random_text_either_parses_or_gets_a_jql_error_never_another_exception() -> None:
    rng = random.Random(1919)
    outcomes = {"parsed": 0, "refused": 0}
    for _ in range(3000):
        text = "".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 30)))
        try:
            parse(text)
        except JqlError as error:
            assert error.message.startswith(PREFIX), text
            assert error.at is None or 1 <= error.at <= len(text) + 1, text
            outcomes["refused"] += 1
        else:
            outcomes["parsed"] += 1
    assert outcomes["parsed"] and outcomes["refused"]
