"""The one place that builds a running hub from its settings.

In order: the data dir and the database (:func:`hub.startup.prepare`, which the
caller runs first so it can report the migration), the worker's queue (the Huey
instance pointed at ``queue.sqlite``), then what runs on them — the API, whose
full runs enqueue the neighbour marking on that queue, or the worker's tasks.
``hub serve``, ``hub worker``, :func:`hub.api.app.get_app` and ``worker.main``
all build here; nothing reads the environment or creates a file at import.
"""

from __future__ import annotations

import falcon

from hub import datadir
from hub.api.app import create_app
from hub.clock import Clock
from hub.config import Config
from hub.db import database, open_database
from worker.instance import HubHuey, huey


def configure_queue(config: Config) -> HubHuey:
    """The Huey instance on ``config``'s queue file, created private if missing."""
    datadir.create_private_file(config.queue_path)
    return huey.configure(config)


def build_app(config: Config, clock: Clock | None = None) -> falcon.App:
    """The API on a prepared data dir, enqueueing onto the configured queue."""
    configure_queue(config)
    from worker.tasks import mark_neighbours

    return create_app(config, mark_neighbours, clock)


def build_worker(config: Config) -> HubHuey:
    """The queue with the tasks registered and the database open, ready to consume."""
    queue = configure_queue(config)
    import worker.tasks  # noqa: F401  (registers the tasks with the consumer)

    if database.obj is None:
        open_database(config.db_path, busy_timeout_seconds=config.busy_timeout_seconds)
    return queue


def assemble_worker(config: Config) -> HubHuey:
    """:func:`build_worker` after preparing the data dir: for Huey's own consumer."""
    from hub import startup

    startup.prepare(config)
    return build_worker(config)
