"""No module of the hub, the worker or the agent is in an import cycle (docs/architecture.md).

The import graph is grimp's (the library under import-linter), every import counted: at the
top of a module, inside a function, and under ``TYPE_CHECKING``. A loop is found two ways:
among modules, and among the children of one package, each with everything inside it
(``hub.services.commands`` importing ``hub.services.files`` while a module of files imports
one of commands is a loop of the two domains, whichever modules carry it). The hub and the
worker themselves use each other by design (the builder configures the worker's queue, the
tasks call the hub's services): the packages checked are those inside them.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping

import grimp
import pytest

ROOTS = ("hub", "worker", "agent")


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    return grimp.build_graph(*ROOTS, cache_dir=None)


def loops(edges: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one node of ``edges`` (node → the nodes it
    imports), each sorted: Tarjan's algorithm, iterative so that a deep chain needs no recursion."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, following = work[-1]
            for target in following:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(edges.get(target, ())))))
                    break
                if target in on_stack:
                    low[node] = min(low[node], index[target])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    group = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        group.append(member)
                        if member == node:
                            break
                    if len(group) > 1:
                        found.append(sorted(group))
    return found


def described(graph: grimp.ImportGraph, group: list[str]) -> str:
    """The imports that make a loop of ``group``'s members (modules or packages), with their lines."""
    inside = {member: graph.find_descendants(member) | {member} if graph.find_children(member) else {member}
              for member in group}
    lines: dict[str, None] = {}  # in order, each once
    for source in group:
        for target in group:
            if source == target:
                continue
            for importer in sorted(inside[source]):
                for imported in sorted(graph.find_modules_directly_imported_by(importer) & inside[target]):
                    at = [d["line_number"] for d in graph.get_import_details(importer=importer, imported=imported)]
                    lines[f"  {importer} -> {imported} (line {', '.join(map(str, at))})"] = None
    return "\n".join([" ↔ ".join(group), *lines])


def test_the_loop_finder_finds_a_loop_and_nothing_else():
    assert loops({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert loops({"a": {"b"}, "b": set(), "c": {"b"}}) == []


def test_no_module_of_the_hub_the_worker_or_the_agent_is_in_an_import_cycle(graph):
    edges = {module: graph.find_modules_directly_imported_by(module) for module in graph.modules}

    found = loops(edges)

    assert not found, "modules in an import cycle:\n" + "\n".join(described(graph, group) for group in found)


def test_no_package_s_children_import_each_other_in_a_loop(graph):
    packages = sorted(module for module in graph.modules if graph.find_children(module))
    found = []
    for package in packages:
        children = graph.find_children(package)
        owner = {}
        for child in children:
            owner[child] = child
            for descendant in graph.find_descendants(child):
                owner[descendant] = child
        edges: dict[str, set[str]] = defaultdict(set)
        for module, child in owner.items():
            edges[child] |= {owner[target] for target in graph.find_modules_directly_imported_by(module)
                             if target in owner and owner[target] != child}
        found += loops(edges)

    assert not found, "packages whose parts import each other in a loop:\n" + "\n".join(
        described(graph, group) for group in found)
