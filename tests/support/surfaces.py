"""The hub's public surfaces as files: ``/openapi.json``, every ``--help`` of ``hub`` and
``hub-agent``, and the MCP tools as an assistant lists them.

``tests/project/test_public_surfaces.py`` holds them to the copies in
``tests/fixtures/surfaces/``, so that a change inside the house shows whether it changed
what clients, operators and assistants see. A deliberate change of a surface rewrites
the copies (and says so in its commit)::

    .venv/bin/python -m tests.support.surfaces tests/fixtures/surfaces
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
from pathlib import Path

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "surfaces"
# argparse wraps help to the terminal's width: one width for every run.
COLUMNS = "100"


def openapi(client) -> bytes:
    """``GET /openapi.json`` through a Falcon test client of a hub."""
    return client.simulate_get("/openapi.json").content


def helps() -> dict[str, str]:
    """Every parser's help, ``help_<program>_<command>….txt`` → text."""
    from agent.cli import build_parser as agent_parser
    from hub.cli import build_parser as hub_parser

    found: dict[str, str] = {}

    def walk(parser: argparse.ArgumentParser, names: list[str]) -> None:
        found["help_" + "_".join(names) + ".txt"] = parser.format_help()
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    walk(sub, [*names, name])

    walk(hub_parser(), ["hub"])
    walk(agent_parser(), ["hub-agent"])
    return found


def mcp_tools() -> str:
    """The MCP server's tools as ``tools/list`` gives them, as sorted JSON."""
    from hub.mcp.server import build_server

    tools = asyncio.run(build_server("http://127.0.0.1:1", "unused").list_tools())
    return json.dumps([tool.model_dump(mode="json") for tool in tools], indent=1, sort_keys=True)


def capture(client) -> dict[str, bytes]:
    """Every surface, file name → bytes (``COLUMNS`` must be set before the parsers are built)."""
    files = {"openapi.json": openapi(client), "mcp_tools.json": mcp_tools().encode()}
    files.update({name: text.encode() for name, text in helps().items()})
    return files


def main(argv: list[str]) -> int:
    """Write every surface of a hub on a throw-away data dir into the directory named."""
    import falcon.testing

    os.environ["COLUMNS"] = COLUMNS
    os.environ["HUB_DATA_DIR"] = tempfile.mkdtemp()
    from hub.api.app import get_app

    out = Path(argv[0]) if argv else FIXTURES
    out.mkdir(parents=True, exist_ok=True)
    for name, content in capture(falcon.testing.TestClient(get_app())).items():
        (out / name).write_bytes(content)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
