"""The Huey instance, alone in its module.

It is created unconfigured: importing this module reads no environment and
creates no file. :func:`hub.assembly` configures it from the hub's settings
before anything enqueues or consumes: the queue in
``<HUB_DATA_DIR>/queue.sqlite``, apart from the hub's own database, or, when
``HUB_QUEUE_URL`` names one, Huey's own PostgreSQL storage (``postgresql://``:
its tables ``huey_*`` in that database) or Redis storage (``redis://``), which
several nodes and workers share. To run Huey's own consumer, point it at
``worker.main.huey``, which is configured from the environment.

Huey deletes a task when a worker takes it (at most once), so it runs only
idempotent housekeeping; the hub's ``command`` table owns agents' work.
"""

from __future__ import annotations

from typing import Any

from huey import Huey
from huey.storage import MemoryStorage, PostgresStorage, RedisStorage, SqliteStorage

from hub.config import Config

# A busy or broken queue must not hold an API request for long: what the API
# enqueues is also recorded in hub.sqlite and caught up periodically.
QUEUE_TIMEOUT_SECONDS = 5


class NotConfigured(RuntimeError):
    """The queue was used before the hub's settings named its file."""


class _Unconfigured(MemoryStorage):
    def enqueue(self, data, priority=None):
        raise NotConfigured("the worker queue is not configured: build the hub with "
                            "hub.assembly (or worker.instance.huey.configure(config)) first")

    dequeue = enqueue


class HubHuey(Huey):
    """The hub's Huey; :meth:`configure` names its queue and settings."""

    storage_class = SqliteStorage

    def __init__(self) -> None:
        self.config: Config | None = None
        # The hub's services (hub.assembly.Services), left here by the builder
        # for the tasks to call; typed loosely, since the builder imports this module.
        self.services: Any = None
        super().__init__("sdlc-hub", utc=True)

    def configure(self, config: Config) -> HubHuey:
        """Use ``config``'s queue (its file must exist when it is one: see
        hub.assembly); tasks read their settings from ``self.config``."""
        self.config = config
        self.services = None  # until the builder wires this config's services
        self.storage_class, self.storage_kwargs = queue_storage(config)
        self.storage = self.create_storage()
        return self

    def create_storage(self):
        if self.config is None and not self._immediate:
            return _Unconfigured(self.name)
        return super().create_storage()


# One number for "Huey's tables" among advisory locks: the ASCII of "hubqueue".
QUEUE_SCHEMA_LOCK = int.from_bytes(b"hubqueue", "big")


class HubPostgresStorage(PostgresStorage):
    """Huey's PostgreSQL storage, its tables created under an advisory lock.

    Every process that configures the queue creates Huey's tables if missing;
    two ``CREATE TABLE IF NOT EXISTS`` at once race in PostgreSQL's catalog and
    one fails (a unique violation on ``pg_type``), which stopped a node or a
    worker that started beside another. The lock makes them take turns.
    """

    def initialize_schema(self):
        with self.db(commit=True, close=True) as curs:
            curs.execute("SELECT pg_advisory_xact_lock(%s)", (QUEUE_SCHEMA_LOCK,))
            for sql in self.ddl:
                curs.execute(sql)


def queue_storage(config: Config) -> tuple[type, dict[str, Any]]:
    """Huey's storage class for ``config``'s queue, and its arguments."""
    timeout = min(config.busy_timeout_seconds, QUEUE_TIMEOUT_SECONDS)
    url = config.queue_url
    if url is None:
        return SqliteStorage, {"filename": str(config.queue_path), "timeout": timeout}
    scheme = url.partition("://")[0].lower()
    if scheme in ("redis", "rediss"):
        from redis import ConnectionPool

        # Huey blocks in BRPOP for read_timeout (1 s) when the queue is empty:
        # the socket's own timeout must outlast it.
        pool = ConnectionPool.from_url(url, socket_timeout=timeout, socket_connect_timeout=timeout)
        return RedisStorage, {"connection_pool": pool}
    # Huey's PostgreSQL storage: one connection per process (and one LISTENing
    # per consumer thread), its tables created if missing.
    return HubPostgresStorage, {"dsn": url, "connect_timeout": timeout}


huey = HubHuey()
