"""Huey tasks: idempotent housekeeping that calls services, nothing more.

The database is opened when a consumer starts (``hub serve``, ``hub worker``
or ``huey_consumer worker.instance.huey``); in ``hub serve`` the API has
opened it already.
"""

from __future__ import annotations

from huey import crontab

from hub.config import Config, cron_schedule
from hub.db import database, open_database
from hub.services.work_signal import WorkSignal
from hub.services.dispatch import Dispatcher
from hub.services.cleanup import CleanupService
from hub.services.health import HealthService
from hub.services.sync_runs import SyncRunService
from worker.instance import huey

config = Config.from_env()


@huey.on_startup()
def open_hub_database() -> None:
    if database.obj is None:
        open_database(config.db_path, busy_timeout_seconds=config.busy_timeout_seconds)


def catch_up() -> None:
    """What a starting worker does first, before its periodic tasks come round: say
    it is alive, and do the neighbour marking that full runs still owe."""
    if database.obj is None:
        open_database(config.db_path, busy_timeout_seconds=config.busy_timeout_seconds)
    HealthService(config).worker_seen()
    SyncRunService().mark_due()


@huey.task()
def mark_neighbours(run_id: int) -> int:
    """After a full run: issues it did not update become neighbours."""
    return SyncRunService().mark_neighbours(run_id)


@huey.periodic_task(crontab(minute="*"))
def pay_neighbour_marking() -> int:
    """Every minute: neighbour marking that full runs still owe (its task was lost,
    or could not be enqueued); returns how many runs were settled."""
    return SyncRunService().mark_due()


@huey.periodic_task(crontab(minute="*"))
def note_worker_alive() -> None:
    """Every minute: tell /healthz, in every process, that periodic tasks run."""
    HealthService(config).worker_seen()


@huey.periodic_task(crontab(minute="*"))
def expire_leases() -> dict:
    """Every minute: claimed commands whose lease passed go back to the queue."""
    return Dispatcher(config.lease_seconds, config.max_deliveries, WorkSignal()).expire_leases()


def cleanup_schedule(cron: str):
    """HUB_CLEANUP_CRON as a Huey schedule, read as strictly as the settings checked it."""
    return cron_schedule(cron)


@huey.periodic_task(cleanup_schedule(config.cleanup_cron))
def clean_file_store() -> dict:
    """On HUB_CLEANUP_CRON: keep the file store in bounds (see hub.services.cleanup)."""
    return CleanupService.from_config(config).run().summary()
