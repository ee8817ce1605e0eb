"""The write probe of a SQLite hub (:class:`hub.services.operations.health.WriteProbe`):
a committed write to hub.sqlite through a connection of its own."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from hub.services.operations.health import PROBE_KEY, WriteProbe


class SqliteWriteProbe(WriteProbe):
    """A committed write to hub.sqlite through a connection of its own."""

    def __init__(self, path: Path):
        self._path = path

    def __call__(self, now: str) -> str | None:
        """None if the write went in, else what stopped it."""
        try:
            conn = sqlite3.connect(self._path, timeout=2, isolation_level=None)
        except sqlite3.Error as exc:
            return f"cannot open the database: {exc}"
        try:
            conn.execute("BEGIN IMMEDIATE")
            conn.execute("INSERT OR REPLACE INTO setting (key, value) VALUES (?, ?)", (PROBE_KEY, now))
            conn.execute("COMMIT")
            return None
        except sqlite3.OperationalError as exc:
            if exc.sqlite_errorcode & 0xFF in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED):
                return None  # another writer holds the lock: busy, not broken
            return f"the database cannot be written: {exc}"
        except sqlite3.Error as exc:
            return f"the database cannot be written: {exc}"
        finally:
            conn.close()
