"""Real engines the tests run the hub on: PostgreSQL's server, started once per test run
(:mod:`devservers.postgres`, which the benchmarks start theirs with too), and :func:`require`.

When no server can be had, :func:`require` skips the test with the reason, and fails it
under ``CI=true``: CI installs what the tests need.
"""

from __future__ import annotations

import os

import pytest

from devservers.launch import PORT_ATTEMPTS, PortTaken, Unavailable, free_port, on_free_ports, once
from devservers.postgres import PostgresServer, postgres_server

__all__ = ["PORT_ATTEMPTS", "PortTaken", "PostgresServer", "Unavailable", "free_port", "on_free_ports", "once",
           "postgres_server", "require"]


def require(reason: str | None) -> None:
    """Skip (or, with CI=true, fail) the calling test when ``reason`` says an engine is missing."""
    if reason is None:
        return
    if os.environ.get("CI") == "true":
        pytest.fail(f"cannot run in CI: {reason}")
    pytest.skip(reason)
