"""The Huey instance, alone in its module: ``huey_consumer worker.instance.huey -k thread``.

Huey's SQLite storage lives in ``<HUB_DATA_DIR>/queue.sqlite``, apart from the
hub's own database. Huey deletes a task when a worker takes it (at most once),
so it runs only idempotent housekeeping. Importing this module reads the
``HUB_*`` environment and creates the queue file (and the data dir) if missing.
"""

from __future__ import annotations

from huey import SqliteHuey

from hub import datadir
from hub.config import Config


QUEUE_TIMEOUT_SECONDS = 5


def create_huey(config: Config) -> SqliteHuey:
    """A Huey on ``config``'s queue file."""
    datadir.prepare(config)
    datadir.create_private_file(config.queue_path)
    return SqliteHuey(
        "sdlc-hub",
        filename=str(config.queue_path),
        # A busy or broken queue must not hold an API request for long: what the
        # API enqueues is also recorded in hub.sqlite and caught up periodically.
        timeout=min(config.busy_timeout_seconds, QUEUE_TIMEOUT_SECONDS),
        utc=True,
    )


huey = create_huey(Config.from_env())
