"""The Huey instance, alone in its module.

It is created unconfigured: importing this module reads no environment and
creates no file. :func:`hub.assembly` configures it from the hub's settings —
the queue in ``<HUB_DATA_DIR>/queue.sqlite``, apart from the hub's own database
— before anything enqueues or consumes. To run Huey's own consumer, point it at
``worker.main.huey``, which is configured from the environment.

Huey deletes a task when a worker takes it (at most once), so it runs only
idempotent housekeeping; the hub's ``command`` table owns agents' work.
"""

from __future__ import annotations

from typing import Any

from huey import SqliteHuey
from huey.storage import MemoryStorage

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


class HubHuey(SqliteHuey):
    """The hub's Huey; :meth:`configure` names its queue file and settings."""

    def __init__(self) -> None:
        self.config: Config | None = None
        # The hub's services (hub.assembly.Services), left here by the builder
        # for the tasks to call; typed loosely, since the builder imports this module.
        self.services: Any = None
        super().__init__("sdlc-hub", utc=True)

    def configure(self, config: Config) -> HubHuey:
        """Use ``config``'s queue file (which must exist: see hub.assembly); tasks read
        their settings from ``self.config``."""
        self.config = config
        self.services = None  # until the builder wires this config's services
        self.storage_kwargs = {
            "filename": str(config.queue_path),
            "timeout": min(config.busy_timeout_seconds, QUEUE_TIMEOUT_SECONDS),
        }
        self.storage = self.create_storage()
        return self

    def create_storage(self):
        if self.config is None and not self._immediate:
            return _Unconfigured(self.name)
        return super().create_storage()


huey = HubHuey()
