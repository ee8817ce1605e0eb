"""Huey tasks: idempotent housekeeping that calls services, nothing more; and
:func:`build_worker`, the queue with the tasks on the hub's services.

Every task calls the services the builder (:mod:`hub.assembly`) left on the
Huey instance (``huey.services``: the hub's own, with its metrics and clock) and
reads the hub's settings from it (``huey.config``), never from the environment.
The database is opened by the builder, and again on a consumer's start for a
consumer built elsewhere.
"""

from __future__ import annotations

from datetime import UTC, datetime

from huey import crontab

from hub import startup
from hub.api import shapes
from hub.assembly import Built, Services, build
from hub.config import Config, cron_schedule
from hub.db import database, open_hub_database
from worker.instance import HubHuey, huey

EVERY_MINUTE = crontab(minute="*")
EVERY_HOUR = crontab(minute="7")


def _config() -> Config:
    if huey.config is None:
        raise RuntimeError("worker tasks need the hub's settings: build the hub with hub.assembly")
    return huey.config


def _services() -> Services:
    """The hub's services (``hub.assembly.Services``), as the builder wired them."""
    if huey.services is None:
        raise RuntimeError("worker tasks need the hub's services: build the hub with hub.assembly")
    return huey.services


@huey.on_startup()
def open_database_on_start() -> None:
    if database.obj is None:
        open_hub_database(_config())


def catch_up() -> None:
    """What a starting worker does first, before its periodic tasks come round: say
    it is alive, and do the neighbour marking that full runs still owe."""
    _services().health.worker_seen()
    _services().runs.mark_due()


@huey.task()
def mark_neighbours(run_id: int) -> int:
    """After a full run: issues it did not update become neighbours."""
    return _services().runs.mark_neighbours(run_id)


@huey.periodic_task(EVERY_MINUTE)
def pay_neighbour_marking() -> int:
    """Every minute: neighbour marking that full runs still owe (its task was lost,
    or could not be enqueued); returns how many runs were settled."""
    return _services().runs.mark_due()


@huey.periodic_task(EVERY_MINUTE)
def note_worker_alive() -> None:
    """Every minute: tell /healthz, in every process, that periodic tasks run."""
    _services().health.worker_seen()


@huey.periodic_task(EVERY_MINUTE)
def expire_leases() -> dict:
    """Every minute: claimed commands whose lease passed go back to the queue."""
    return _services().dispatcher.expire_leases()


@huey.periodic_task(EVERY_HOUR)
def forget_agents() -> int:
    """Every hour: delete the rows of agents unseen for HUB_AGENT_FORGET_HOURS
    (every reader ignores them already); returns how many went."""
    return _services().agents.forget()


@huey.periodic_task(EVERY_HOUR)
def expire_sessions() -> int:
    """Every hour: delete the web interface's sessions past their end (every request
    refuses them already); returns how many went."""
    return _services().sessions.expire()


def _due(cron: str | None, now: datetime | None) -> bool:
    """Whether ``cron`` (None: off) names the minute of ``now`` (default: the
    current time; a naive ``now`` is UTC)."""
    if cron is None:
        return False
    moment = now or datetime.now(UTC)
    if moment.tzinfo is not None:  # Huey's schedules read naive UTC
        moment = moment.astimezone(UTC).replace(tzinfo=None)
    return bool(cron_schedule(cron)(moment))


@huey.periodic_task(EVERY_MINUTE)
def clean_file_store(now: datetime | None = None) -> dict | None:
    """On HUB_CLEANUP_CRON (checked every minute, since the schedule is a setting
    and tasks are declared before settings are read): keep the file store in
    bounds (see hub.services.cleanup). None when it is not the time."""
    config = _config()
    if not _due(config.cleanup_cron, now):
        return None
    return _services().cleanup.run().summary()


@huey.periodic_task(EVERY_MINUTE)
def enqueue_incremental_refresh(now: datetime | None = None) -> dict | None:
    """On HUB_REFRESH_CRON (checked every minute, like clean_file_store): queue an
    incremental refresh of the base JQL (see hub.services.refresh_schedule).
    The command queued, or None: not the time, one open already, no base JQL,
    or a full refresh is due this same minute (it loads everything anyway)."""
    config = _config()
    if not _due(config.refresh_cron, now) or _due(config.full_refresh_cron, now):
        return None
    return shapes.optional(shapes.command, _services().refresh_schedule.enqueue_incremental())


@huey.periodic_task(EVERY_MINUTE)
def enqueue_full_refresh(now: datetime | None = None) -> dict | None:
    """On HUB_FULL_REFRESH_CRON (checked every minute): queue a full refresh of the
    base JQL. The command queued, or None: not the time, one open already, or no
    base JQL."""
    config = _config()
    if not _due(config.full_refresh_cron, now):
        return None
    return shapes.optional(shapes.command, _services().refresh_schedule.enqueue_full())


def build_worker(config: Config, built: Built | None = None) -> HubHuey:
    """The queue with these tasks registered, ready to consume, on the hub
    :func:`hub.assembly.build` makes of ``config`` — or on ``built``, when the
    API of this process was built already (``hub serve``), so that the tasks
    share its services, metrics and clock."""
    if built is None or built.config is not config:
        built = build(config, mark_neighbours)
    built.queue.services = built.services
    return built.queue


def assemble_worker(config: Config) -> HubHuey:
    """:func:`build_worker` after preparing the data dir: for Huey's own consumer."""
    startup.prepare(config)
    return build_worker(config)
