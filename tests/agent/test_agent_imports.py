"""The agent is a separate program: it speaks HTTP to the hub and imports nothing of it.

The rule is an import-linter contract in pyproject.toml (``lint-imports`` runs it
in ``make test``); this checks that the contract says so and holds.
"""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

pytestmark = pytest.mark.backends("sqlite", "postgresql")

ROOT = Path(__file__).resolve().parents[2]


def test_the_contracts_forbid_the_agent_the_hub_and_the_worker():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["tool"]["importlinter"]
    [contract] = [c for c in config["contracts"] if c.get("id") == "agent"]
    assert (contract["type"], contract["source_modules"]) == ("forbidden", ["agent"])
    assert set(contract["forbidden_modules"]) == {"hub", "worker"}
    assert not contract.get("ignore_imports") and not contract.get("allow_indirect_imports")


def test_the_agent_imports_nothing_from_the_hub_or_the_worker():
    # In a process of its own: lint-imports configures logging, which would
    # silence the loggers other tests read.
    linter = Path(sys.executable).parent / "lint-imports"
    done = subprocess.run([str(linter), "--config", str(ROOT / "pyproject.toml"), "--contract", "agent",
                           "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
