"""The search backlog of a SQLite hub
(:class:`hub.services.search.fulltext_backlog.SearchBacklog`): none, as a page
writes its own FTS5 rows (FTS5 must be told the old text to remove it)."""

from __future__ import annotations

from hub.services.search.fulltext_backlog import SearchBacklog


class SqliteSearchBacklog(SearchBacklog):
    """The backlog of an engine whose pages index their own issues: nothing ever waits."""

    def wake(self) -> None:
        """A page committed: index what it marked (nothing to do here)."""

    def drain(self) -> int:
        """Index every marked key; how many were indexed (none)."""
        return 0

    def waiting(self) -> int:
        """How many keys are marked now (none)."""
        return 0

    def close(self) -> None:
        """Stop the thread, if any, and close its connection (there is none)."""
