"""What differs between the hub's two engines, SQLite and PostgreSQL, in one place.

The services write their SQL once, in SQLite's spelling (``?`` parameters; the
``HubPostgres`` connection converts those). Where the engines differ beyond
spelling — a JSON function, a row lock, an upsert's shape — a service asks this
package for the piece (``dialect.current().…``, or a module of this package for
its area) rather than testing the engine itself. Full-text search, backups, the
health probe, migrations and the file store differ too much for pieces: each has
two implementations, chosen once by the builder (:mod:`hub.assembly`).

The services know the package by one name, ``from hub import dialect``: ``dialect.current()``,
``dialect.hold(…)``, and each area's module as ``dialect.commands``, ``dialect.jql``,
``dialect.mirror``, ``dialect.fulltext``. The pieces every module builds on are in
:mod:`hub.dialect.engines`, which the modules import, so that the package importing them
here makes no loop.
"""

from hub.dialect import commands, fulltext, jql, mirror
from hub.dialect.engines import POSTGRES, SQLITE, Dialect, current, hold

__all__ = ["POSTGRES", "SQLITE", "Dialect", "commands", "current", "fulltext", "hold", "jql", "mirror"]
