"""JQL's syntax errors and bounds: each bad query with the error Jira would give, in Jira's
words and at the character Jira would name; queries past the limits, adversarial shapes at
the longest length, and random text, all refused with a JqlError and nothing else."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from hub.services.search.jql.lexer import KEYWORDS, PREFIX, RESERVED_CHARS, RESERVED_WORDS
from hub.services.search.jql.parser import MAX_CLAUSES, MAX_DEPTH, MAX_LENGTH, MAX_LIST, MAX_ORDER, parse
from hub.services.search.jql.tree import Clause, FieldRef, JqlError, Not, Value, ValueList

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
    # numbers beyond Jira's (and SQLite's) 64 bits
    (
        "votes = 9223372036854775808",
        "The number '9223372036854775808' is not valid: a number lies between "
        "-9223372036854775808 and 9223372036854775807.",
        9,
    ),
    (
        "votes in (1, -9223372036854775809)",
        "The number '-9223372036854775809' is not valid: a number lies "
        "between -9223372036854775808 and 9223372036854775807.",
        14,
    ),
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
    # a lone & or | is reserved, as in Jira: only AND, &&, OR and || join clauses
    (
        "a = b & c = d",
        "The character '&' is a reserved JQL character. You must enclose it in a string or use the "
        "escape '\\u0026' instead.",
        7,
    ),
    (
        "a = b | c = d",
        "The character '|' is a reserved JQL character. You must enclose it in a string or use the "
        "escape '\\u007c' instead.",
        7,
    ),
    (
        "a = b &&& c = d",
        "The character '&' is a reserved JQL character. You must enclose it in a string or use the "
        "escape '\\u0026' instead.",
        9,
    ),
    # IN and NOT IN take a list in parentheses or a function, as Jira's grammar has it
    ("status in Open", "Expecting a list of values in parentheses or a function after 'IN' but got 'Open': "
                       "write IN (a, b).", 11),
    ("status not in 'In Progress' AND a = b", "Expecting a list of values in parentheses or a function after "
                                             "'NOT IN' but got 'In Progress': write IN (a, b).", 15),
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


# -- the bounds ---------------------------------------------------------------------------


def refused(text: str) -> JqlError:
    with pytest.raises(JqlError) as caught:
        parse(text)
    return caught.value


def test_a_query_longer_than_the_limit_is_refused_before_it_is_read() -> None:
    text = "summary ~ " + "a" * (MAX_LENGTH - 10)
    assert len(text) == MAX_LENGTH
    assert parse(text).where == Clause(FieldRef("summary", 1), "~", Value("a" * (MAX_LENGTH - 10), False, 11), 1)
    error = refused(text + "a")
    assert error.message == f"{PREFIX}The query is longer than {MAX_LENGTH} characters."
    assert error.at is None


def test_nesting_up_to_the_limit_parses_and_one_more_is_refused() -> None:
    deepest = MAX_DEPTH + 1
    assert parse("(" * MAX_DEPTH + "a = b" + ")" * MAX_DEPTH).where == Clause(
        FieldRef("a", deepest), "=", Value("b", False, deepest + 4), deepest
    )
    error = refused("(" * (MAX_DEPTH + 1) + "a = b" + ")" * (MAX_DEPTH + 1))
    assert error.message == f"{PREFIX}The query is nested deeper than {MAX_DEPTH} levels of parentheses and NOT."
    assert error.at == MAX_DEPTH + 1
    assert refused("NOT " * (MAX_DEPTH + 1) + "a = b").at == 4 * MAX_DEPTH + 1
    assert refused("!" * (MAX_DEPTH + 1) + "a = b").at == MAX_DEPTH + 1
    node = parse("NOT (" * (MAX_DEPTH // 2) + "a = b" + ")" * (MAX_DEPTH // 2)).where
    nots = 0
    while isinstance(node, Not):
        node, nots = node.operand, nots + 1
    assert nots == MAX_DEPTH // 2 and isinstance(node, Clause)


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


def test_an_order_by_of_more_keys_than_the_limit_is_refused() -> None:
    assert len(parse("ORDER BY " + ", ".join(["key"] * MAX_ORDER)).order) == MAX_ORDER
    error = refused("ORDER BY " + ", ".join(["key"] * (MAX_ORDER + 1)))
    assert (error.message, error.at) == (f"{PREFIX}The ORDER BY has more than {MAX_ORDER} fields.", 10 + 5 * MAX_ORDER)


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
    ("a = " + "9" * (MAX_LENGTH - 4), "number"),
    ("a = -" + "0" * (MAX_LENGTH - 6) + "1", "parses"),
    ("a = '" + "\\'" * (MAX_LENGTH // 2 - 3) + "'", "parses"),
    ("a = " + "-" * (MAX_LENGTH - 4), "parses"),
    ("a = b " * (MAX_LENGTH // 6), "OR"),
    ("ORDER BY " + "a, " * (MAX_LENGTH // 3 - 4) + "a", "ORDER BY"),
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


# -- Jira's reserved words ----------------------------------------------------------------


@pytest.mark.parametrize("word", sorted(RESERVED_WORDS - KEYWORDS))
def test_each_reserved_word_is_an_error_unquoted_and_a_value_quoted(word: str) -> None:
    error = refused(f"labels = {word.upper()}")
    assert (error.message, error.at) == (
        f"{PREFIX}'{word.upper()}' is a reserved JQL word. You must surround it in quotation marks to use it in a "
        "query.",
        10,
    )
    assert parse(f'labels = "{word}"').where == Clause(FieldRef("labels", 1), "=", Value(word, True, 10), 1)


def test_the_docs_list_every_reserved_word_and_character() -> None:
    page = (Path(__file__).resolve().parents[2] / "docs" / "jql.md").read_text("utf-8")
    section = page[page.index("### Reserved words and characters") :]
    section = section[: section.index("\n### ", 1)]
    listed = set(re.findall(r"[a-z]+", " ".join(re.findall(r"`([a-z ]+)`", section.replace("\n", " ")))))
    assert RESERVED_WORDS - listed == set()
    assert all(char in section for char in RESERVED_CHARS)


def test_the_docs_state_each_limit_as_the_parser_has_it() -> None:
    page = (Path(__file__).resolve().parents[2] / "docs" / "jql.md").read_text("utf-8")
    for limit in (MAX_LENGTH, MAX_DEPTH, MAX_CLAUSES, MAX_LIST, MAX_ORDER):
        assert f"**{limit:,}**" in page, limit
