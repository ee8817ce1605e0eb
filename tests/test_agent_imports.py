"""The agent is a separate program: it speaks HTTP to the hub and imports nothing of it."""

from __future__ import annotations

import ast
from pathlib import Path

AGENT = Path(__file__).resolve().parent.parent / "agent"


def imported_modules(path: Path) -> set[str]:
    modules = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Import):
            modules.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            modules.add(node.module)
    return modules


def test_the_agent_imports_nothing_from_the_hub_or_the_worker():
    sources = sorted(AGENT.glob("*.py"))
    assert sources, "no agent sources found"
    for path in sources:
        for module in imported_modules(path):
            assert module.split(".")[0] not in ("hub", "worker"), f"{path.name} imports {module}"
