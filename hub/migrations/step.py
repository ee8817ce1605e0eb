"""One named schema step."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType


@dataclass(frozen=True)
class Step:
    """Takes the database from ``version - 1`` to ``version``.

    ``apply`` runs inside the runner's transaction and must not commit; it
    raises to abort the whole migration.
    """

    version: int
    name: str
    apply: Callable[[sqlite3.Connection], None]

    @classmethod
    def from_module(cls, module: ModuleType) -> Step:
        """A step from a module that defines ``VERSION`` and ``apply(conn)``."""
        return cls(module.VERSION, module.__name__.rsplit(".", 1)[-1], module.apply)
