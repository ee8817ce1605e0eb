"""The dialect of each engine: :class:`Dialect`'s pieces of SQL, :data:`SQLITE` and
:data:`POSTGRES`, the one the models are bound to now (:func:`current`), and :func:`hold` for an
"at most one" rule. The package's other modules build on these; the services reach them as
``dialect.current()``, ``dialect.hold(…)`` (:mod:`hub.dialect`).
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

    def json_values(self, param: str = "?", cast: str | None = None) -> str:
        """A subquery of the elements of the JSON array bound at ``param`` (one parameter,
        e.g. ``json.dumps(ids)``), for ``x IN <this>``; ``cast`` (``BIGINT``) types them on
        PostgreSQL, which compares a number with text only when told."""
        if not self.postgres:
            return f"(SELECT value FROM json_each({param}))"
        value = f"CAST(value AS {cast})" if cast else "value"
        return f"(SELECT {value} FROM jsonb_array_elements_text(CAST({param} AS jsonb)) AS value)"

    def seconds_between(self, start: str, end: str) -> str:
        """Seconds from the hub time ``start`` to ``end`` (ISO text), never below 0;
        NULL when either is NULL."""
        if self.postgres:
            return (f"CASE WHEN {start} IS NULL OR {end} IS NULL THEN NULL ELSE GREATEST(0.0, "
                    f"EXTRACT(EPOCH FROM CAST({end} AS timestamptz) - CAST({start} AS timestamptz))::float8) END")
        return f"MAX(0.0, (julianday({end}) - julianday({start})) * 86400.0)"

    def lock(self, name: str, space: int | None = None) -> str | None:
        """A statement that holds ``name`` until the transaction ends, for "at most one X"
        rules where no row exists yet to lock (one bound parameter: the name); None on
        SQLite, whose BEGIN IMMEDIATE already lets one writer in at a time.

        PostgreSQL's advisory locks are numbers: the name's 64-bit hash, or with ``space``
        (a number below 2**31 that keeps an area's locks apart) the pair of ``space`` and
        the name's 32-bit hash."""
        if not self.postgres:
            return None
        if space is None:
            return "SELECT pg_advisory_xact_lock(hashtextextended(?, 0))"
        return f"SELECT pg_advisory_xact_lock({int(space)}, hashtext(?))"

    @property
    def for_update(self) -> str:
        """The clause that locks the rows a SELECT reads until the transaction ends, so that
        a check and the write it allows see the same rows (SQLite: nothing, its one writer
        at a time gives the same)."""
        return " FOR UPDATE" if self.postgres else ""

    @property
    def for_update_skip_locked(self) -> str:
        """The clause that takes a row lock and passes over rows others hold (SQLite: nothing,
        its one writer at a time gives the same)."""
        return " FOR UPDATE SKIP LOCKED" if self.postgres else ""


SQLITE = Dialect("sqlite")
POSTGRES = Dialect("postgresql")


def hold(name: str, space: int | None = None) -> None:
    """Inside a write transaction, wait until no other transaction holds ``name`` (in
    ``space``, when given: see :meth:`Dialect.lock`), then hold it to the end of this one
    (PostgreSQL's advisory lock; nothing on SQLite)."""
    statement = current().lock(name, space)
    if statement is not None:
        database.execute_sql(statement, (name,))


def current() -> Dialect:
    """The dialect of the database the models are bound to now."""
    return POSTGRES if isinstance(database.obj, HubPostgres) else SQLITE
