"""The full-text index brought up to date after the pages that changed it: the
interface, one per engine.

Computing an issue's tsvectors is most of what a state page costs the server on
PostgreSQL, so there a page only marks the keys whose text it may change, and
:class:`hub.services.search.fulltext_backlog_postgres.PostgresSearchBacklog`
indexes them after the page commits. On SQLite a page writes its FTS5 rows itself
(FTS5 must be told the old text to remove it), and
:class:`hub.services.search.fulltext_backlog_sqlite.SqliteSearchBacklog` does
nothing. The builder (:mod:`hub.assembly`) picks one; the report service wakes
it after every committed page, the worker drains it every minute and /metrics
counts what waits.
"""

from __future__ import annotations

from abc import ABC, abstractmethod


class SearchBacklog(ABC):
    """What the report service, the worker and /metrics ask of the engine's search backlog."""

    @abstractmethod
    def wake(self) -> None:
        """A page committed: index what it marked (on this node, off the request's path)."""

    @abstractmethod
    def drain(self) -> int:
        """Index every marked key; how many were indexed."""

    @abstractmethod
    def waiting(self) -> int:
        """How many keys are marked now (for /metrics, in the caller's transaction)."""

    @abstractmethod
    def close(self) -> None:
        """Stop the thread, if any, and close its connection."""
