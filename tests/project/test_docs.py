"""The docs keep step with the code: commands, routes, variables, spec Scenarios."""

from __future__ import annotations

import argparse
import ast
import re
from pathlib import Path

import pytest

from agent.cli import build_parser as build_agent_parser
from agent.config import ENVIRONMENT
from hub.api.app import build_services, routes
from hub.api.longpoll import LongPolls
from hub.cli import build_parser
from hub.config import VARIABLES, Config

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT.parent / "shared" / "openspec" / "changes" / "attachment-fetch" / "specs" / "data-model" / "spec.md"
# Requirements whose Scenarios later work covers; remove one when its tests land.
PENDING_REQUIREMENTS: set[str] = set()


def read(relative: str) -> str:
    return (ROOT / relative).read_text("utf-8")


def subcommands() -> list[str]:
    [action] = [a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)]
    return list(action.choices)


@pytest.mark.parametrize("command", subcommands())
def test_every_command_is_documented(command):
    assert re.search(rf"^## `hub {command}\b", read("docs/cli.md"), re.M), command
    assert f"`hub {command}" in read("README.md"), command


@pytest.mark.parametrize("path", [path for path, _ in routes(build_services(Config(), print), Config(), LongPolls(1))])
def test_every_route_is_documented(path):
    documented = re.sub(r"\{(\w+):\w+\}", r"{\1}", path)  # {command_id:id} -> {command_id}
    assert f"`{documented}`" in read("docs/api.md")


@pytest.mark.parametrize("name", [var.name for var in VARIABLES])
def test_every_variable_is_documented(name):
    assert f"`{name}`" in read("docs/configuration.md")
    assert re.search(rf"^{name}=", read("deploy/hub.env.example"), re.M)


def agent_flags() -> list[str]:
    [action] = [a for a in build_agent_parser()._actions if isinstance(a, argparse._SubParsersAction)]
    return [flag for a in action.choices["run"]._actions for flag in a.option_strings if flag not in ("-h", "--help")]


@pytest.mark.parametrize("flag", agent_flags())
def test_every_agent_flag_is_documented(flag):
    assert f"`{flag}`" in read("docs/agent.md")


@pytest.mark.parametrize("variable", [variable for variable, _ in ENVIRONMENT.values()])
def test_every_agent_variable_is_documented(variable):
    assert f"`{variable}`" in read("docs/agent.md")


def test_the_agent_is_in_the_readme():
    assert "`hub-agent run" in read("README.md") and "docs/agent.md" in read("README.md")


@pytest.mark.parametrize("page", sorted(p.name for p in (ROOT / "docs").glob("*.md")))
def test_every_docs_page_is_linked_from_the_readme(page):
    assert f"(docs/{page})" in read("README.md"), page


def spec_scenarios() -> dict[str, list[str]]:
    """Scenario titles of the data-model spec, by requirement."""
    scenarios, requirement = {}, None
    for line in SPEC.read_text("utf-8").splitlines():
        if line.startswith("### Requirement: "):
            requirement = line.removeprefix("### Requirement: ").strip()
            scenarios[requirement] = []
        elif line.startswith("#### Scenario: "):
            scenarios[requirement].append(line.removeprefix("#### Scenario: ").strip())
    return scenarios


def scenarios_with_tests() -> set[str]:
    """Titles named by test docstrings of the form ``Scenario: <title>.``"""
    titles = set()
    for path in (ROOT / "tests").glob("*/test_*.py"):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
                doc = ast.get_docstring(node) or ""
                match = re.match(r"Scenario: (.+?)\.?$", doc.splitlines()[0] if doc else "")
                if match:
                    titles.add(match.group(1))
    return titles


@pytest.mark.skipif(not SPEC.exists(), reason="the data-model spec is not beside the project")
def test_every_spec_scenario_has_a_test_named_after_it():
    tested = scenarios_with_tests()
    for requirement, titles in spec_scenarios().items():
        missing = [t for t in titles if t not in tested]
        if requirement in PENDING_REQUIREMENTS:
            assert missing, f"«{requirement}» is covered now: remove it from PENDING_REQUIREMENTS"
        else:
            assert not missing, f"«{requirement}»: no test for {missing}"


def test_the_readme_counts_the_tables_the_schema_creates():
    tables = re.findall(r"^CREATE TABLE (\w+)", read("hub/migrations/schema.sql"), re.MULTILINE)
    assert f"models of the {len(tables)} tables" in read("README.md")


def test_the_readme_names_every_frozen_schema():
    versions = sorted(int(p.stem[1:]) for p in (ROOT / "tests/fixtures/schema-history").glob("v*.sql"))
    assert versions == list(range(1, versions[-1] + 1))
    assert f"(v1–v{versions[-1]})" in read("README.md")


def test_the_readme_names_every_mcp_tool_module():
    tools = sorted(p.name for p in (ROOT / "hub/mcp").glob("*.py")
                   if "TOOLS" in p.read_text("utf-8") and p.name != "server.py" and p.name != "base.py")
    row = next(line for line in read("README.md").splitlines() if line.startswith("| `hub/mcp/`"))
    assert [name for name in tools if f"`{name}`" not in row] == []
