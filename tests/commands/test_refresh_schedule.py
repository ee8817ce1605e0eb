"""The refreshes the hub queues on its own: incremental on HUB_REFRESH_CRON, full on
HUB_FULL_REFRESH_CRON, and refresh's ``params.updated_since`` through the API."""

from __future__ import annotations

from datetime import datetime

import pytest

from hub.config import Config, ConfigError
from hub.errors import ContractError
from hub.models import Command, Issue, SyncRun
from tests.support import BASE, claim, db_rows, enqueue, issue, report, with_projects
from tests.support.hubs import MovableClock
from worker import tasks

pytestmark = pytest.mark.backends("sqlite", "postgresql")

# Defaults: incremental "*/15 * * * *", full "0 2 * * *".
QUARTER = datetime(2026, 11, 30, 10, 15)
NOT_DUE = datetime(2026, 11, 30, 10, 16)
TWO_AM = datetime(2026, 11, 30, 2, 0)


@pytest.fixture
def clock():
    return MovableClock("2026-11-30T09:00:00+00:00")


def finished_refresh(hub, clock, started: str, issues=(), neighbors=(),
                     jql: str | None = None) -> dict:
    """One refresh of the base JQL (or ``jql``) claimed at ``started``, one page, done."""
    clock.moment = datetime.fromisoformat(started)
    command = enqueue(hub, jql)
    [claimed] = claim(hub)
    assert claimed["id"] == command["id"]
    if issues:
        page = {"issues": list(issues), "neighbors": list(neighbors)}
        assert report(hub, command["id"], "state", page).status_code == 200
    assert report(hub, command["id"], "done", {"result": {"total": len(issues)}}).status_code == 200
    return command


def open_refreshes() -> list[dict]:
    return [c.params for c in Command.select().where(Command.status.in_(("queued", "claimed")))
            .order_by(Command.id)]


def test_due_and_not_due_by_the_crons(make_hub):
    make_hub(refresh_cron="30 * * * *", full_refresh_cron="0 4 * * 1")
    with_projects()

    assert tasks.enqueue_incremental_refresh.call_local(datetime(2026, 11, 30, 10, 31)) is None
    assert tasks.enqueue_full_refresh.call_local(datetime(2026, 11, 29, 4, 0)) is None  # a Sunday
    assert open_refreshes() == []

    full = tasks.enqueue_full_refresh.call_local(datetime(2026, 11, 30, 4, 0))  # a Monday
    assert full["params"] == {"jql": BASE} and full["status"] == "queued"


def test_the_consumer_checks_both_schedules_every_minute():
    from worker.instance import huey

    periodic = {task.__name__: task for task in huey._registry._periodic_tasks}
    for name in ("enqueue_incremental_refresh", "enqueue_full_refresh"):
        assert periodic[name]().validate_datetime(datetime(2026, 11, 30, 10, 7))


def test_off_disables_a_schedule(make_hub):
    make_hub(refresh_cron=None, full_refresh_cron=None)
    with_projects()

    assert tasks.enqueue_incremental_refresh.call_local(QUARTER) is None
    assert tasks.enqueue_full_refresh.call_local(TWO_AM) is None
    assert open_refreshes() == []


def test_incremental_starts_at_the_last_finished_run_minus_the_overlap(make_hub, clock):
    hub = make_hub(clock=clock, refresh_overlap_minutes=7)
    with_projects()
    finished_refresh(hub, clock, "2026-11-30T08:00:00+00:00")
    finished_refresh(hub, clock, "2026-11-30T09:30:05+00:00")
    # A later run of another JQL, and a later run of the base JQL that failed,
    # are no start point.
    finished_refresh(hub, clock, "2026-11-30T09:50:00+00:00", jql="key = X-1")
    clock.moment = datetime.fromisoformat("2026-11-30T09:55:00+00:00")
    failed = enqueue(hub)
    claim(hub)
    assert report(hub, failed["id"], "failed", {"error": "Jira down"}).status_code == 200

    command = tasks.enqueue_incremental_refresh.call_local(QUARTER)

    assert command["params"] == {"jql": BASE, "updated_since": "2026-11-30T09:23:05+00:00"}


def test_the_default_overlap_is_ten_minutes(make_hub, clock):
    hub = make_hub(clock=clock)
    with_projects()
    finished_refresh(hub, clock, "2026-11-30T00:05:00+00:00")

    command = tasks.enqueue_incremental_refresh.call_local(QUARTER)

    assert command["params"]["updated_since"] == "2026-11-29T23:55:00+00:00"


def test_with_no_finished_refresh_the_incremental_schedule_waits_for_a_full_run(make_hub, clock):
    hub = make_hub(clock=clock)
    with_projects()
    # A refresh of another JQL tells nothing of what the base JQL holds.
    finished_refresh(hub, clock, "2026-11-30T08:00:00+00:00", jql="key = X-1")

    assert tasks.enqueue_incremental_refresh.call_local(QUARTER) is None
    assert open_refreshes() == []
    # The full schedule loads everything once; the incremental one follows it.
    assert tasks.enqueue_full_refresh.call_local(TWO_AM)["params"] == {"jql": BASE}
    assert tasks.enqueue_incremental_refresh.call_local(datetime(2026, 11, 30, 10, 30)) is None
    assert open_refreshes() == [{"jql": BASE}]


def test_nothing_while_one_of_the_same_kind_is_queued_or_claimed(make_hub, clock):
    hub = make_hub(clock=clock)
    with_projects()
    finished_refresh(hub, clock, "2026-11-30T08:00:00+00:00")

    incremental = tasks.enqueue_incremental_refresh.call_local(QUARTER)
    assert tasks.enqueue_incremental_refresh.call_local(datetime(2026, 11, 30, 10, 30)) is None
    # The other kind is not held back by it.
    full = tasks.enqueue_full_refresh.call_local(TWO_AM)
    assert full["params"] == {"jql": BASE}
    assert tasks.enqueue_full_refresh.call_local(datetime(2026, 12, 1, 2, 0)) is None

    # Claimed still counts as open; once it is done, the next one is queued.
    clock.moment = datetime.fromisoformat("2026-11-30T09:00:00+00:00")
    claimed = {c["id"] for c in claim(hub, limit=2)}
    assert claimed == {incremental["id"], full["id"]}
    assert tasks.enqueue_incremental_refresh.call_local(datetime(2026, 11, 30, 10, 45)) is None
    assert report(hub, incremental["id"], "done", {"result": {"total": 0}}).status_code == 200
    again = tasks.enqueue_incremental_refresh.call_local(datetime(2026, 11, 30, 11, 0))
    assert again["params"]["updated_since"] == "2026-11-30T08:50:00+00:00"  # claimed 09:00


def test_a_refresh_of_another_jql_or_a_cancelled_one_holds_nothing_back(make_hub, clock):
    hub = make_hub(clock=clock)
    with_projects()
    enqueue(hub, "key = X-1")
    cancelled = enqueue(hub)
    assert hub.api("POST", f"/api/v1/commands/{cancelled['id']}/cancel").status_code == 200

    assert tasks.enqueue_full_refresh.call_local(TWO_AM)["params"] == {"jql": BASE}


def test_with_no_base_jql_nothing_is_queued(hub):
    assert tasks.enqueue_incremental_refresh.call_local(QUARTER) is None
    assert tasks.enqueue_full_refresh.call_local(TWO_AM) is None
    assert Command.select().count() == 0


def test_when_both_are_due_only_the_full_run_is_queued(make_hub, clock):
    hub = make_hub(clock=clock)
    with_projects()
    finished_refresh(hub, clock, "2026-11-30T01:00:00+00:00")

    assert tasks.enqueue_incremental_refresh.call_local(TWO_AM) is None  # 02:00 is a quarter too
    assert tasks.enqueue_full_refresh.call_local(TWO_AM)["params"] == {"jql": BASE}
    assert open_refreshes() == [{"jql": BASE}]


def test_an_incremental_run_is_not_full_and_marks_no_neighbours(make_hub, clock):
    hub = make_hub(clock=clock)
    with_projects()
    # A full run mirrors X-1 (a match) and X-2 (a neighbour).
    full = finished_refresh(hub, clock, "2026-11-30T08:00:00+00:00", [issue("X-1")],
                            [issue("X-2")])
    assert full["params"] == {"jql": BASE}
    assert dict(db_rows(hub, "SELECT key, neighbor FROM issue")) == {"X-1": 0, "X-2": 1}

    clock.moment = datetime.fromisoformat("2026-11-30T10:15:00+00:00")
    command = tasks.enqueue_incremental_refresh.call_local(QUARTER)
    claim(hub)
    # It loads X-2 as a match and a new X-3: X-2 keeps its flag, X-3 gets 1,
    # and X-1, which it did not load, is not marked afterwards.
    assert report(hub, command["id"], "state",
                  {"issues": [issue("X-2"), issue("X-3")]}).status_code == 200
    assert report(hub, command["id"], "done", {"result": {"total": 2}}).status_code == 200

    run = SyncRun.get(SyncRun.command == command["id"])
    assert run.status == "done" and run.neighbors_due == 0
    assert {i.key: i.neighbor for i in Issue.select()} == {"X-1": 0, "X-2": 1, "X-3": 1}


@pytest.mark.parametrize("variable", ["HUB_REFRESH_CRON", "HUB_FULL_REFRESH_CRON"])
@pytest.mark.parametrize("cron", ["*/15 * * *", "every quarter", "*/0 * * * *", "5/2 * * * *",
                                  "0 2 * * mon"])
def test_a_bad_cron_is_refused_at_start_naming_the_variable(variable, cron):
    with pytest.raises(ConfigError, match=variable):
        Config.from_env({variable: cron})


@pytest.mark.parametrize("value, expected", [("", 10), ("0", 0), ("90", 90)])
def test_the_overlap_is_read_as_minutes(value, expected):
    assert Config.from_env({"HUB_REFRESH_OVERLAP_MINUTES": value}).refresh_overlap_minutes == expected


@pytest.mark.parametrize("value", ["-1", "ten", "1.5"])
def test_a_bad_overlap_is_refused_naming_the_variable(value):
    with pytest.raises(ConfigError, match="HUB_REFRESH_OVERLAP_MINUTES"):
        Config.from_env({"HUB_REFRESH_OVERLAP_MINUTES": value})


def test_the_crons_read_off_and_their_defaults():
    assert Config.from_env({"HUB_REFRESH_CRON": "off", "HUB_FULL_REFRESH_CRON": " OFF "}
                           ).refresh_cron is None
    config = Config.from_env({})
    assert (config.refresh_cron, config.full_refresh_cron) == ("*/15 * * * *", "0 2 * * *")
    assert Config.from_env({"HUB_FULL_REFRESH_CRON": "off"}).full_refresh_cron is None


def test_the_api_takes_updated_since_on_a_refresh(hub):
    with_projects()
    resp = hub.api("POST", "/api/v1/commands",
                   {"type": "refresh", "params": {"updated_since": "2026-11-30T09:00:00Z"}})
    assert resp.status_code == 201, resp.json
    # Written back in the hub's own format; without jql, the base JQL.
    assert resp.json["params"] == {"jql": BASE, "updated_since": "2026-11-30T09:00:00+00:00"}

    resp = hub.api("POST", "/api/v1/commands",
                   {"type": "refresh", "params": {"jql": "key = X-1",
                                                  "updated_since": "2026-11-30T09:00:00+00:00"}})
    assert resp.status_code == 201
    assert resp.json["params"] == {"jql": "key = X-1", "updated_since": "2026-11-30T09:00:00+00:00"}


@pytest.mark.parametrize("since", ["2026-11-30 09:00:00+00:00", "2026-11-30T09:00:00+03:00",
                                   "2026-11-30T09:00:00", "2026-11-30T09:00:00.5Z",
                                   "2026-02-30T09:00:00Z", "2026-11-30T09:00:00Z\n", "", 1700000000])
def test_a_malformed_updated_since_is_refused_with_422(hub, since):
    with_projects()
    resp = hub.api("POST", "/api/v1/commands",
                   {"type": "refresh", "params": {"updated_since": since}})
    assert resp.status_code == 422, resp.json
    assert "updated_since" in str(resp.json)
    assert Command.select().count() == 0


def test_a_fetch_attachment_takes_no_updated_since(hub):
    resp = hub.api("POST", "/api/v1/commands",
                   {"type": "fetch_attachment",
                    "params": {"attachment_id": "1", "updated_since": "2026-11-30T09:00:00Z"}})
    assert resp.status_code == 422
    assert Command.select().count() == 0


def test_the_service_checks_updated_since_too(hub):
    """Callers that do not pass the request schema (the CLI, other services) meet the
    same rule."""
    with_projects()
    commands = hub.built.services.commands
    with pytest.raises(ContractError) as refused:
        commands.enqueue("refresh", {"updated_since": "yesterday"})
    assert refused.value.extra == {"field": "params.updated_since"}
