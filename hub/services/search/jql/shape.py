"""A query's condition reshaped, its meaning unchanged, so that its SQL stays shallow.

SQLite's parser keeps a stack of 100 entries (``YYSTACKDEPTH``): SQL nested as deep as a JQL
query may be (32 levels of parentheses and NOT, docs/jql.md "Limits") overflowed it ("parser
stack overflow"). :func:`normal` takes the nesting out that means nothing:

- NOT is pushed down to the clauses: ``NOT NOT x`` is ``x``, ``NOT (a AND b)`` is
  ``NOT a OR NOT b`` (De Morgan). The laws hold because every condition the compiler writes
  matches or does not (NULL is "does not match", and a NOT is written ``coalesce(NOT …, true)``);
- an AND within an AND (an OR within an OR) is one AND (``a AND (b AND c)``).

What is left alternates AND and OR, with NOTs on clauses only; the compiler then writes each
AND and OR with its deepest operand first (see :meth:`hub.services.search.jql.compiler._Compiler.node`).
"""

from __future__ import annotations

from hub.services.search.jql.tree import And, Node, Not, Or


def normal(node: Node, negated: bool = False) -> Node:
    """``node`` (negated when ``negated``) with its NOTs on clauses alone and no AND directly
    within an AND, nor OR within an OR; operands keep their order. Recursion is as deep as the
    query's nesting, which the parser bounds."""
    if isinstance(node, Not):
        return normal(node.operand, not negated)
    if isinstance(node, And | Or):
        kind: type[And] | type[Or] = type(node)
        if negated:
            kind = Or if kind is And else And
        operands: list[Node] = []
        for operand in node.operands:
            child = normal(operand, negated)
            operands.extend(child.operands if isinstance(child, kind) else (child,))
        return kind(tuple(operands), node.at)
    return Not(node, node.at) if negated else node
