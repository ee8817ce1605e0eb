"""JQL's syntax: :func:`parse` reads a query's text into the tree of :mod:`.tree`.

The grammar is Jira's (Server 8/9, ``Jql.g``)::

    query     := [or] [ORDER BY sort {"," sort}]
    or        := and {(OR | "||") and}
    and       := not {(AND | "&&") not}
    not       := (NOT | "!") not | "(" or ")" | clause
    clause    := field operator [operand] {predicate}   (IN, NOT IN: a list or a function)
    field     := word | "quoted" | cf "[" digits "]"
    operator  := = | != | < | > | <= | >= | ~ | !~ | IN | NOT IN | IS | IS NOT
               | WAS | WAS NOT | WAS IN | WAS NOT IN | CHANGED
    operand   := EMPTY | NULL | value | function | "(" item {"," item} ")"
    function  := name "(" [value {"," value}] ")"
    predicate := (FROM | TO | BY | AFTER | BEFORE | ON | DURING) operand
    sort      := field [ASC | DESC]

NOT binds tighter than AND, AND tighter than OR. Errors are worded as Jira words them and
say where (the 1-based character of the query's text, every character counted, line breaks
too, all on "line 1"). A query is bounded as it is read: :data:`MAX_LENGTH` characters,
:data:`MAX_DEPTH` levels of parentheses and NOT, :data:`MAX_CLAUSES` clauses,
:data:`MAX_LIST` values in a list, :data:`MAX_ORDER` keys of ORDER BY; the descent recurses
only as deep as the depth limit allows, so no query reaches Python's recursion limit, and the
time is linear in the text.
"""

from __future__ import annotations

from hub.services.search.jql import lexer
from hub.services.search.jql.lexer import EOF, KEYWORD, OPERATOR, PREFIX, PUNCT, STRING, WORD, Token
from hub.services.search.jql.tree import (
    And,
    Clause,
    Empty,
    FieldRef,
    Function,
    JqlError,
    Node,
    Not,
    Operand,
    Or,
    OrderKey,
    Predicate,
    Query,
    Value,
    ValueList,
)

# The bounds of a query; docs/jql.md ("Limits") states the same numbers.
MAX_LENGTH = 10_000  # characters of text
MAX_DEPTH = 32  # parentheses and NOTs, nested
MAX_CLAUSES = 500  # clauses (field operator operand) in the whole query
MAX_LIST = 1_000  # values in one list, arguments of one function
MAX_ORDER = 100  # keys of ORDER BY (SQLite allows 2,000 terms; no one sorts by more than a few)

OPERATORS = "'=', '!=', '<', '>', '<=', '>=', '~', '!~', 'IN', 'NOT IN', 'IS' and 'IS NOT'"
HISTORY_OPERATORS = frozenset({"was", "was in", "was not", "was not in", "changed"})
PREDICATE_WORDS = frozenset({"from", "to", "by", "after", "before", "on", "during"})
# What may follow a whole clause: anything else wants an AND or an OR before it.
CLAUSE_ENDS = frozenset({"and", "or", "order"})


def parse(text: str) -> Query:
    """The tree of the JQL query ``text``; :class:`JqlError` (Jira's words, with the
    character) when it does not parse or exceeds a limit. An empty query, or ``ORDER BY``
    alone, has no condition (``where`` None)."""
    if len(text) > MAX_LENGTH:
        raise JqlError(f"{PREFIX}The query is longer than {MAX_LENGTH} characters.")
    return _Parser(lexer.tokens(text)).query()


def _is_number(text: str) -> bool:
    """Jira's numbers: ASCII digits, a minus before them or not (its POSNUMBER, NEGNUMBER)."""
    digits = text[1:] if text.startswith("-") else text
    return digits.isascii() and digits.isdigit()


def _beyond_64_bits(number: str) -> bool:
    """Whether a number (as :func:`_is_number` reads) lies beyond a signed 64-bit integer;
    its digits are counted first, so a number of thousands of digits is never converted."""
    digits = number.lstrip("-").lstrip("0") or "0"
    if len(digits) > 19:
        return True
    return int(digits) > (2**63 if number.startswith("-") else 2**63 - 1)


def _quote(token: Token) -> str:
    return f"'{token.shown()}'"


class _Parser:
    """A recursive descent over the tokens; ``depth`` counts the open parentheses and NOTs,
    checked before each descent."""

    def __init__(self, tokens: list[Token]):
        self.tokens = tokens
        self.i = 0
        self.depth = 0
        self.clauses = 0
        self.parens = 0

    # -- tokens ---------------------------------------------------------------------------

    @property
    def token(self) -> Token:
        return self.tokens[self.i]

    def advance(self) -> Token:
        token = self.tokens[self.i]
        if token.kind != EOF:
            self.i += 1
        return token

    def is_keyword(self, *words: str) -> bool:
        return self.token.kind == KEYWORD and self.token.text in words

    def is_punct(self, char: str) -> bool:
        return self.token.kind == PUNCT and self.token.text == char

    def fail(self, got: str, at_end: str) -> JqlError:
        """An error about the current token: ``got`` names it ("… but got 'x'."), ``at_end``
        is said instead when the query ends there."""
        token = self.token
        if token.kind == EOF:
            return JqlError(PREFIX + at_end, token.at)
        return JqlError(PREFIX + got.format(got=_quote(token)), token.at)

    # -- the query ------------------------------------------------------------------------

    def query(self) -> Query:
        where = None
        if self.token.kind != EOF and not self.is_keyword("order"):
            where = self.or_()
        order = self.order_by() if self.is_keyword("order") else ()
        if self.token.kind != EOF:
            if order:
                raise self.fail("Expecting ',' but got {got}.", "")
            raise self.fail("Expecting either 'OR' or 'AND' but got {got}.", "")
        return Query(where, order)

    def or_(self) -> Node:
        at = self.token.at
        operands = [self.and_()]
        while self.is_keyword("or"):
            self.advance()
            operands.append(self.and_())
        return operands[0] if len(operands) == 1 else Or(tuple(operands), at)

    def and_(self) -> Node:
        at = self.token.at
        operands = [self.not_()]
        while self.is_keyword("and"):
            self.advance()
            operands.append(self.not_())
        return operands[0] if len(operands) == 1 else And(tuple(operands), at)

    def deeper(self, token: Token) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise JqlError(
                f"{PREFIX}The query is nested deeper than {MAX_DEPTH} levels of parentheses and NOT.", token.at
            )

    def not_(self) -> Node:
        token = self.token
        if self.is_keyword("not") or self.is_punct("!"):
            self.advance()
            self.deeper(token)
            operand = self.not_()
            self.depth -= 1
            return Not(operand, token.at)
        if self.is_punct("("):
            self.advance()
            self.deeper(token)
            self.parens += 1
            inner = self.or_()
            if not self.is_punct(")"):
                raise self.fail("Expecting ')' but got {got}.", "Expecting ')' before the end of the query.")
            self.advance()
            self.parens -= 1
            self.depth -= 1
            return inner
        return self.clause()

    # -- a clause -------------------------------------------------------------------------

    def clause(self) -> Clause:
        field = self.field()
        self.clauses += 1
        if self.clauses > MAX_CLAUSES:
            raise JqlError(f"{PREFIX}The query has more than {MAX_CLAUSES} clauses.", field.at)
        operator = self.operator()
        operand: Operand | None = None
        if operator in ("in", "not in"):
            operand = self.list_operand(operator)
        elif operator != "changed":
            operand = self.operand()
        elif self._starts_operand():
            raise self.fail(
                "The operator 'CHANGED' takes no value but got {got}.",
                "",
            )
        predicates = self.predicates(operator)
        self.clause_end()
        return Clause(field, operator, operand, field.at, predicates)

    def _starts_operand(self) -> bool:
        token = self.token
        return token.kind in (WORD, STRING) or self.is_keyword("empty", "null") or self.is_punct("(")

    def clause_end(self) -> None:
        token = self.token
        if token.kind == EOF or self.is_keyword(*CLAUSE_ENDS) or (self.parens and self.is_punct(")")):
            return
        raise self.fail("Expecting either 'OR' or 'AND' but got {got}.", "")

    def field(self) -> FieldRef:
        token = self.token
        if token.kind in (WORD, STRING):
            if not token.text.strip():
                raise JqlError(f"{PREFIX}The field name is empty. A field name needs at least one character.", token.at)
            self.advance()
            return FieldRef(token.text, token.at)
        if self.is_keyword("cf"):
            return self.custom_field()
        if self.is_punct("["):
            raise self.fail("Expecting a field name but got '['. Did you mean 'cf['?", "")
        raise self.fail(
            "Expecting a field name but got {got}. You must surround {got} in quotation marks to use it as a "
            "field name.",
            "Expecting a field name at the end of the query.",
        )

    def custom_field(self) -> FieldRef:
        start = self.advance()
        message = "Expecting a custom field id enclosed by '[ ]' after 'cf'. Example: 'cf[10021]'."
        if not self.is_punct("["):
            raise self.fail(message, message)
        self.advance()
        number = self.token
        if number.kind != WORD or not number.text.isascii() or not number.text.isdigit() or len(number.text) > 18:
            raise self.fail(message, message)
        self.advance()
        if not self.is_punct("]"):
            raise self.fail(message, message)
        self.advance()
        return FieldRef(f"cf[{int(number.text)}]", start.at, int(number.text))

    def operator(self) -> str:
        token = self.token
        if token.kind == OPERATOR:
            self.advance()
            return token.text
        if self.is_keyword("in", "changed"):
            self.advance()
            return token.text
        if self.is_keyword("not"):
            self.advance()
            self.expect_keyword("in")
            return "not in"
        if self.is_keyword("is"):
            self.advance()
            if self.is_keyword("not"):
                self.advance()
                return "is not"
            return "is"
        if self.is_keyword("was"):
            self.advance()
            words = ["was"]
            if self.is_keyword("not"):
                self.advance()
                words.append("not")
            if self.is_keyword("in"):
                self.advance()
                words.append("in")
            return " ".join(words)
        raise self.fail(
            f"Expecting operator but got {{got}}. The valid operators are {OPERATORS}.",
            f"Expecting operator before the end of the query. The valid operators are {OPERATORS}.",
        )

    def expect_keyword(self, word: str) -> None:
        if not self.is_keyword(word):
            shown = word.upper()
            raise self.fail(
                f"Expecting '{shown}' but got {{got}}.", f"Expecting '{shown}' before the end of the query."
            )
        self.advance()

    # -- operands -------------------------------------------------------------------------

    def operand(self) -> Operand:
        token = self.token
        if self.is_keyword("empty", "null"):
            self.advance()
            return Empty(token.at)
        if self.is_punct("("):
            return self.value_list()
        if token.kind in (WORD, STRING):
            return self.value_or_function()
        raise self.fail(
            "Expecting either a value, list or function but got {got}. You must surround {got} in quotation "
            "marks to use it as a value.",
            "Expecting either a value, list or function before the end of the query.",
        )

    def list_operand(self, operator: str) -> Operand:
        """The operand of IN and NOT IN: as Jira's grammar has it, a list in parentheses or a
        function (``status in Open`` is refused), or EMPTY."""
        token = self.token
        follows = self.tokens[self.i + 1] if token.kind != EOF else token
        if token.kind in (WORD, STRING) and not (follows.kind == PUNCT and follows.text == "("):
            raise self.fail(
                f"Expecting a list of values in parentheses or a function after '{operator.upper()}' but got "
                "{got}: write IN (a, b).",
                "",
            )
        return self.operand()

    def value_or_function(self) -> Value | Function:
        token = self.advance()
        if not self.is_punct("("):
            if token.kind == WORD and _is_number(token.text) and _beyond_64_bits(token.text):
                # As Jira (whose numbers are Java longs) refuses it; SQLite's integers are as wide.
                raise JqlError(
                    f"{PREFIX}The number '{token.text}' is not valid: a number lies between "
                    f"{-(2**63)} and {2**63 - 1}.",
                    token.at,
                )
            return Value(token.text, token.kind == STRING, token.at)
        if not token.text.strip():
            raise JqlError(
                f"{PREFIX}The function name is empty. A function name needs at least one character.", token.at
            )
        self.advance()
        args: list[Value] = []
        if not self.is_punct(")"):
            args.append(self.argument())
            while self.is_punct(","):
                self.advance()
                args.append(self.argument())
                if len(args) > MAX_LIST:
                    raise JqlError(f"{PREFIX}The function has more than {MAX_LIST} arguments.", args[-1].at)
        if not self.is_punct(")"):
            raise self.fail("Expecting ')' or ',' but got {got}.", "Expecting ')' or ',' before the end of the query.")
        self.advance()
        return Function(token.text, tuple(args), token.at)

    def argument(self) -> Value:
        token = self.token
        if token.kind in (WORD, STRING):
            self.advance()
            return Value(token.text, token.kind == STRING, token.at)
        if self.is_punct(",") or self.is_punct(")"):
            raise self.fail("The function argument before {got} is empty.", "")
        raise self.fail(
            "Expecting a function argument but got {got}. You must surround {got} in quotation marks to use it "
            "as a value.",
            "Expecting a function argument before the end of the query.",
        )

    def value_list(self) -> ValueList:
        start = self.advance()
        items = [self.list_item()]
        while self.is_punct(","):
            self.advance()
            items.append(self.list_item())
            if len(items) > MAX_LIST:
                raise JqlError(f"{PREFIX}The list has more than {MAX_LIST} values.", items[-1].at)
        if not self.is_punct(")"):
            raise self.fail("Expecting ',' or ')' but got {got}.", "Expecting ',' or ')' before the end of the query.")
        self.advance()
        return ValueList(tuple(items), start.at)

    def list_item(self) -> Value | Empty | Function:
        token = self.token
        if self.is_keyword("empty", "null"):
            self.advance()
            return Empty(token.at)
        if token.kind in (WORD, STRING):
            return self.value_or_function()
        # Jira's grammar would take a list in a list; no field means anything by one.
        raise self.fail(
            "Expecting a value or function but got {got}. You must surround {got} in quotation marks to use it "
            "as a value.",
            "Expecting a value or function before the end of the query.",
        )

    # -- history predicates ---------------------------------------------------------------

    def predicates(self, operator: str) -> tuple[Predicate, ...]:
        found: list[Predicate] = []
        while self.is_keyword(*PREDICATE_WORDS):
            token = self.advance()
            if operator not in HISTORY_OPERATORS:
                raise JqlError(
                    f"{PREFIX}The operator '{operator.upper()}' does not support the history predicate "
                    f"'{token.text.upper()}'; only WAS, WAS IN, WAS NOT, WAS NOT IN and CHANGED do.",
                    token.at,
                )
            operand = self.operand()
            if token.text == "during" and not (isinstance(operand, ValueList) and len(operand.items) == 2):
                raise JqlError(
                    f'{PREFIX}The predicate \'DURING\' takes a list of two dates: DURING ("2026/10/01", "2026/10/31").',
                    operand.at,
                )
            found.append(Predicate(token.text, operand, token.at))
        return tuple(found)

    # -- ORDER BY -------------------------------------------------------------------------

    def order_by(self) -> tuple[OrderKey, ...]:
        self.advance()
        if not self.is_keyword("by"):
            raise self.fail("Expecting 'by' but got {got}.", "Expecting 'by' before the end of the query.")
        self.advance()
        keys = [self.sort_key()]
        while self.is_punct(","):
            self.advance()
            keys.append(self.sort_key())
            if len(keys) > MAX_ORDER:
                raise JqlError(f"{PREFIX}The ORDER BY has more than {MAX_ORDER} fields.", keys[-1].at)
        return tuple(keys)

    def sort_key(self) -> OrderKey:
        field = self.field()
        descending: bool | None = None
        if self.is_keyword("asc", "desc"):
            descending = self.advance().text == "desc"
        elif self.token.kind != EOF and not self.is_punct(","):
            raise self.fail("Expecting either 'ASC' or 'DESC' but got {got}.", "")
        return OrderKey(field, descending, field.at)
