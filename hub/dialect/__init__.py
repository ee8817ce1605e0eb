"""What differs between the hub's two engines, SQLite and PostgreSQL, in one place.

The services write their SQL once, in SQLite's spelling (``?`` parameters; the
``HubPostgres`` connection converts those). Where the engines differ beyond
spelling — a JSON function, a row lock, an upsert's shape — a service asks this
package for the piece (``dialect.current().…``, or a module of this package for
its area) rather than testing the engine itself. Full-text search, backups, the
health probe, migrations and the file store differ too much for pieces: each has
two implementations, chosen once by the builder (:mod:`hub.assembly`).
"""

from __future__ import annotations

from dataclasses import dataclass

from hub.db import HubPostgres, database


@dataclass(frozen=True)
class Dialect:
    """The SQL pieces of one engine."""

    name: str

    @property
    def postgres(self) -> bool:
        return self.name == "postgresql"

    def json_group_array(self, expression: str) -> str:
        """An aggregate of ``expression`` as a JSON array's text (``[]`` for no rows is the caller's)."""
        return f"json_agg({expression})::text" if self.postgres else f"json_group_array({expression})"

    @property
    def for_update_skip_locked(self) -> str:
        """The clause that takes a row lock and passes over rows others hold (SQLite: nothing,
        its one writer at a time gives the same)."""
        return " FOR UPDATE SKIP LOCKED" if self.postgres else ""


SQLITE = Dialect("sqlite")
POSTGRES = Dialect("postgresql")


def current() -> Dialect:
    """The dialect of the database the models are bound to now."""
    return POSTGRES if isinstance(database.obj, HubPostgres) else SQLITE
