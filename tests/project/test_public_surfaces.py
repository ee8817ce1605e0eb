"""What clients, operators and assistants see stays what it was unless a change means it to:
``/openapi.json``, every ``--help`` and the MCP tool listing, byte for byte as the copies in
tests/fixtures/surfaces/ (tests/support/surfaces.py writes them again for a deliberate change)."""

from __future__ import annotations

from tests.support import surfaces


def test_every_public_surface_is_byte_for_byte_its_copy(hub, monkeypatch):
    monkeypatch.setenv("COLUMNS", surfaces.COLUMNS)
    captured = surfaces.capture(hub.client)
    copies = {path.name: path.read_bytes() for path in surfaces.FIXTURES.iterdir()}
    assert sorted(captured) == sorted(copies), "a surface without its copy, or a copy without its surface"
    changed = [name for name in sorted(copies) if captured[name] != copies[name]]
    assert not changed, (f"changed: {', '.join(changed)}; if the change is meant, write the copies again "
                         "(.venv/bin/python -m tests.support.surfaces) and say so in the commit")
