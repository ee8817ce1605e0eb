"""Waiting on a condition instead of sleeping, and reading a source file's imports."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path


def imported_modules(path: Path) -> set[str]:
    """The absolute imports of a Python source file, by module name."""
    import ast

    modules = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Import):
            modules.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            modules.add(node.module)
    return modules


def wait_until(condition: Callable[[], object], timeout: float = 30, every: float = 0.02,
               message: str = "the condition") -> object:
    """Poll ``condition`` until it is truthy; its value, or AssertionError after ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise AssertionError(f"{message} did not hold within {timeout} s")
        time.sleep(every)


def waiting_polls(hub) -> int:
    """How many long-polls hold a slot of the hub's gate now (claims and
    attachment waits share it): a test waits on this, not on a sleep."""
    resource, *_ = hub.app._router.find("/agent/v1/claim")
    return resource._polls.waiting


def next_second() -> None:
    """Wait until the wall clock enters its next whole second: the hub writes whole
    seconds, so a run started after this is later than anything fetched before it."""
    start = int(time.time())
    wait_until(lambda: int(time.time()) > start, timeout=2, every=0.01, message="the next second")
