"""The agent is a separate program: it speaks HTTP to the hub and imports nothing of it."""

from __future__ import annotations

from pathlib import Path

from tests.support import imported_modules

AGENT = Path(__file__).resolve().parent.parent / "agent"


def test_the_agent_imports_nothing_from_the_hub_or_the_worker():
    sources = sorted(AGENT.glob("*.py"))
    assert sources, "no agent sources found"
    for path in sources:
        for module in imported_modules(path):
            assert module.split(".")[0] not in ("hub", "worker"), f"{path.name} imports {module}"
