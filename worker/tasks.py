"""Huey tasks: idempotent housekeeping that calls services, nothing more; and
:func:`build_worker`, the queue with the tasks on the hub's services.

Every task calls the services the builder (:mod:`hub.assembly`) left on the
Huey instance (``huey.services``: the hub's own, with its metrics and clock) and
reads the hub's settings from it (``huey.config``), never from the environment.
The database is opened by the builder, and again on a consumer's start for a
consumer built elsewhere.

Periodic tasks run once per period however many workers run (:func:`periodic`):
each worker's consumer enqueues them on their schedule, and the copy that runs
first in a period claims it (:mod:`hub.services.operations.periods`); the others return
None. Called directly (``task.call_local()``), a task runs as asked.
"""

from __future__ import annotations

import functools
import inspect
import logging
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from huey import crontab

from hub import shapes, startup
from hub.assembly import Built, Services, build
from hub.config import Config, cron_schedule
from hub.db import database, open_hub_database
from worker.instance import HubHuey, huey

log = logging.getLogger(__name__)

EVERY_MINUTE = crontab(minute="*")
EVERY_HOUR = crontab(minute="7")
MINUTE = timedelta(minutes=1)
HOUR = timedelta(hours=1)


def _config() -> Config:
    if huey.config is None:
        raise RuntimeError("worker tasks need the hub's settings: build the hub with hub.assembly")
    return huey.config


def _services() -> Services:
    """The hub's services (``hub.assembly.Services``), as the builder wired them."""
    if huey.services is None:
        raise RuntimeError("worker tasks need the hub's services: build the hub with hub.assembly")
    return huey.services


def periodic(schedule: Callable[[datetime], bool], period: timedelta):
    """``huey.periodic_task(schedule)``, run at most once per ``period`` (the minute,
    the hour: a period holds one moment of ``schedule``) across every worker.

    A copy the consumer runs claims the period first and returns None when
    another copy has it (each outcome is logged at INFO, naming the task and the
    period's start); a task that takes ``now`` is given the moment claimed,
    so that what it decides by the time (a cron setting) is decided for that
    period. ``call_local`` (tests) runs the function as it is.
    """

    def decorate(func: Callable) -> Callable:
        takes_now = "now" in inspect.signature(func).parameters

        @functools.wraps(func)
        def once(*args, task=None, **kwargs):
            if task is None:  # called directly, not by a consumer
                return func(*args, **kwargs)
            claim = _services().periods.claim(func.__name__, period)
            if not claim.won:
                log.info("periodic task %s: the period from %s was run by another worker",
                         claim.task, claim.start)
                return None
            log.info("periodic task %s: running for the period from %s", claim.task, claim.start)
            if takes_now:
                kwargs.setdefault("now", claim.moment)
            return func(*args, **kwargs)

        return huey.periodic_task(schedule, context=True)(once)

    return decorate


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


@periodic(EVERY_MINUTE, MINUTE)
def pay_neighbour_marking() -> int:
    """Every minute: neighbour marking that full runs still owe (its task was lost,
    or could not be enqueued); returns how many runs were settled."""
    return _services().runs.mark_due()


@periodic(EVERY_MINUTE, MINUTE)
def note_worker_alive() -> None:
    """Every minute: tell /healthz, in every process, that periodic tasks run."""
    _services().health.worker_seen()


@periodic(EVERY_MINUTE, MINUTE)
def expire_leases() -> dict:
    """Every minute: claimed commands whose lease passed go back to the queue."""
    return _services().dispatcher.expire_leases()


@periodic(EVERY_MINUTE, MINUTE)
def drain_search_backlog() -> int:
    """Every minute: on PostgreSQL, index the issues that pages marked and no node's
    thread indexed (it was killed first, or lost its connection); returns how many."""
    return _services().backlog.drain()


@periodic(EVERY_HOUR, HOUR)
def forget_agents() -> int:
    """Every hour: delete the rows of agents unseen for HUB_AGENT_FORGET_HOURS
    (every reader ignores them already); returns how many went."""
    return _services().agents.forget()


@periodic(EVERY_HOUR, HOUR)
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


@periodic(EVERY_MINUTE, MINUTE)
def clean_file_store(now: datetime | None = None) -> dict | None:
    """On HUB_CLEANUP_CRON (checked every minute, since the schedule is a setting
    and tasks are declared before settings are read): keep the file store in
    bounds (see hub.services.files.cleanup). None when it is not the time."""
    config = _config()
    if not _due(config.cleanup_cron, now):
        return None
    return _services().cleanup.run().summary()


@periodic(EVERY_MINUTE, MINUTE)
def enqueue_incremental_refresh(now: datetime | None = None) -> dict | None:
    """On HUB_REFRESH_CRON (checked every minute, like clean_file_store): queue an
    incremental refresh of the base JQL (see hub.services.commands.schedule).
    The command queued, or None: not the time, one open already, no base JQL,
    or a full refresh is due this same minute (it loads everything anyway)."""
    config = _config()
    if not _due(config.refresh_cron, now) or _due(config.full_refresh_cron, now):
        return None
    return shapes.optional(shapes.command, _services().refresh_schedule.enqueue_incremental())


@periodic(EVERY_MINUTE, MINUTE)
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
