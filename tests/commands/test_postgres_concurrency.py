"""The command table's rules hold on PostgreSQL with several processes writing at once.

On SQLite every write transaction waits its turn (``BEGIN IMMEDIATE``); on
PostgreSQL writers run side by side, so each rule takes a lock of its own
(:mod:`hub.dialect.commands`). Each test here starts real processes on the
test run's PostgreSQL server, lets them go at the same moment, and checks the
rule on what they did and what the table holds.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from collections import Counter
from pathlib import Path

import pytest

from hub import startup
from hub.clock import Clock, iso
from hub.config import Config
from hub.db import open_hub_database
from hub.models import Command, Issue, IssueAttachment, SyncRun
from tests.support import wait_until, with_projects
from tests.support.hubs import built_services

# long: processes and threads racing on the queue, above a minute in all.
pytestmark = [pytest.mark.backends("postgresql"), pytest.mark.long]

ROOT = Path(__file__).resolve().parents[2]
PROCESSES = 6

# One program for every racer: open the database, wait for the go file, do the
# job named, print what it did as JSON.
RACER = textwrap.dedent(
    """
    import json, sys, time
    from pathlib import Path

    from dataclasses import replace

    from hub.clock import Clock, iso
    from hub.config import Config
    from hub.db import database, open_postgres
    from hub.errors import Conflict
    from hub.models import Command
    from tests.support.hubs import built_services

    url, data, go, name, job, arg = sys.argv[1:7]
    open_postgres(url)
    # A 300 s lease and 5 deliveries (the defaults); a worker's lease is arg seconds, with
    # deliveries enough never to give up.
    config = Config(data_dir=Path(data), database_url=url)
    if job == "work":
        config = replace(config, lease_seconds=int(arg), max_deliveries=1000)
    services = built_services(config)
    commands, dispatcher = services.commands, services.dispatcher
    (Path(go).parent / f"ready-{name}").touch()
    while not Path(go).exists():
        time.sleep(0.001)

    out = []
    if job == "claim":  # until the queue is empty
        while claimed := dispatcher.claim(name, 18, limit=int(arg)):
            out += [c["id"] for c in claimed]
    elif job == "fail":  # each command of arg, as the agent that holds them all
        for command_id in json.loads(arg):
            with database.atomic():
                if dispatcher.finish(command_id, None, "holder", None, "failed",
                                     iso(Clock().now()), error=name):
                    out.append(command_id)
    elif job == "schedule":  # both kinds, arg times each
        schedule = services.refresh_schedule  # an overlap of 10 minutes: the default
        for _ in range(int(arg)):
            for enqueue in (schedule.enqueue_full, schedule.enqueue_incremental):
                command = enqueue()
                if command is not None:
                    out.append(command.id)
    elif job == "fetch":  # each attachment of arg, in order
        for attachment_id in json.loads(arg):
            command, created = commands.enqueue("fetch_attachment", {"attachment_id": attachment_id})
            out.append([attachment_id, command.id, created])
    elif job == "cancel":  # each command of arg, in order
        for command_id in json.loads(arg):
            try:
                out.append([command_id, commands.cancel(command_id).status])
            except Conflict as exc:
                out.append([command_id, str(exc)])
    elif job == "work":  # claim and finish until every command is done; abandon some first deliveries
        worker = dispatcher
        while True:
            claimed = worker.claim(name, 18, wait=0.5)
            if not claimed:
                if not Command.select().where(Command.status != "done").exists():
                    break
                continue
            [command] = claimed
            if command["deliveries"] == 1 and command["id"] % 3 == 0:
                out.append([command["id"], 0])  # as an agent that died holding it would
                continue
            with database.atomic():
                if worker.finish(command["id"], None, name, command["deliveries"], "done",
                                 iso(Clock().now())):
                    out.append([command["id"], command["deliveries"]])
    elif job == "serial":  # claim writes until none is left; what else of each one's issue was open
        while True:
            claimed = dispatcher.claim(name, 19, limit=2)
            if not claimed:
                if not Command.select().where(Command.status == "queued").exists():
                    break
                continue
            for command in claimed:
                row = Command.get_by_id(command["id"])
                same = Command.select().where(Command.serial_key == row.serial_key, Command.id != row.id)
                out.append([row.id, same.where(Command.status == "claimed").count(),
                            same.where(Command.id < row.id, Command.status != "done").count()])
                with database.atomic():
                    dispatcher.finish(row.id, None, name, command["deliveries"], "done", iso(Clock().now()))
    elif job == "heartbeat":
        out = dispatcher.heartbeat(name, 18)["cancelled"]
    print(json.dumps(out))
    """
)


@pytest.fixture
def db(config: Config) -> Config:
    """The test's own PostgreSQL database, migrated, open in this process too."""
    startup.prepare(config)
    open_hub_database(config)
    return config


def race(config: Config, tmp_path: Path, jobs: list[tuple[str, str]]) -> list:
    """Run each ``(job, arg)`` in a process of its own, all let go at once; what each printed."""
    go = tmp_path / "go"
    go.unlink(missing_ok=True)
    for ready in tmp_path.glob("ready-*"):
        ready.unlink()
    procs = [subprocess.Popen([sys.executable, "-c", RACER, config.database_url, str(config.data_dir),
                               str(go), f"racer-{n}", job, arg],
                              cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for n, (job, arg) in enumerate(jobs)]
    wait_until(lambda: len(list(tmp_path.glob("ready-*"))) == len(jobs) or any(
        p.poll() is not None for p in procs), timeout=60, message="every racer ready")
    go.touch()
    outputs = []
    for proc in procs:
        out, err = proc.communicate(timeout=180)
        assert proc.returncode == 0, err
        outputs.append(json.loads(out))
    return outputs


def refreshes(config: Config, count: int) -> list[int]:
    commands = built_services(config).commands
    return [commands.enqueue("refresh", {"jql": f"key = AURORA-{n}"})[0].id for n in range(count)]


def test_processes_claiming_at_once_get_each_command_once(db, tmp_path):
    ids = refreshes(db, 600)

    claimed = race(db, tmp_path, [("claim", "3")] * PROCESSES)

    counts = Counter(i for got in claimed for i in got)
    assert sorted(counts) == ids
    assert set(counts.values()) == {1}
    rows = Command.select(Command.id, Command.agent_id, Command.deliveries).order_by(Command.id)
    holder = {i: f"racer-{n}" for n, got in enumerate(claimed) for i in got}
    assert {(c.id, c.agent_id, c.deliveries) for c in rows} == {(i, holder[i], 1) for i in ids}
    # Every claim opened its command's run, once.
    assert sorted(r.command_id for r in SyncRun.select(SyncRun.command)) == ids


def test_racing_reports_on_a_command_one_wins(db, tmp_path):
    ids = refreshes(db, 200)
    now = iso(Clock().now())
    Command.update(status="claimed", agent_id="holder", claimed_at=now, deliveries=1,
                   lease_until="2999-01-01T00:00:00+00:00").execute()

    won = race(db, tmp_path, [("fail", json.dumps(ids))] * PROCESSES)

    winners = Counter(i for got in won for i in got)
    assert sorted(winners) == ids and set(winners.values()) == {1}
    # The row says who won: the one whose report was taken.
    recorded = {c.id: c.error for c in Command.select(Command.id, Command.error)}
    assert recorded == {i: f"racer-{n}" for n, got in enumerate(won) for i in got}
    assert {c.status for c in Command.select(Command.status)} == {"failed"}


def test_racing_scheduled_refreshes_leave_one_open_of_each_kind(db, tmp_path):
    with_projects()
    base = built_services(db).projects.base_jql()
    # A finished run of the base JQL: the incremental kind has a start point.
    SyncRun.create(query=base, status="done", started_at="2026-11-02T08:00:00+00:00", issues_loaded=1)

    queued = race(db, tmp_path, [("schedule", "25")] * PROCESSES)

    made = [i for got in queued for i in got]
    open_ones = list(Command.select().where(Command.status == "queued").order_by(Command.id))
    assert sorted(made) == [c.id for c in open_ones]
    kinds = sorted("incremental" if c.params.get("updated_since") else "full" for c in open_ones)
    assert kinds == ["full", "incremental"]
    assert all(c.params["jql"] == base for c in open_ones)


def test_racing_fetch_requests_for_an_attachment_make_one_command(db, tmp_path):
    ids = [str(10001 + n) for n in range(60)]
    Issue.create(key="AURORA-12", id="10012", fetched_at="2026-11-02T09:00:00+00:00")
    for attachment_id in ids:
        IssueAttachment.create(attachment_id=attachment_id, key="AURORA-12", filename=f"{attachment_id}.pdf")

    asked = race(db, tmp_path, [("fetch", json.dumps(ids))] * PROCESSES)

    commands = list(Command.select().order_by(Command.id))
    assert sorted(c.params["attachment_id"] for c in commands) == ids
    by_attachment = {c.params["attachment_id"]: c.id for c in commands}
    created = Counter(aid for got in asked for aid, _command, made in got if made)
    assert created == Counter(ids)  # one request created each; every other was given it
    assert all(command_id == by_attachment[aid] for got in asked for aid, command_id, _made in got)


def test_cancel_racing_claims_loses_no_cancellation(db, tmp_path):
    ids = refreshes(db, 300)

    outputs = race(db, tmp_path, [("cancel", json.dumps(ids))] + [("claim", "2")] * (PROCESSES - 1))

    cancels, claims = outputs[0], outputs[1:]
    # Every command was queued or claimed when its cancel came: each one is cancelled.
    assert cancels == [[i, "cancelled"] for i in ids]
    rows = {c.id: c for c in Command.select()}
    assert {c.status for c in rows.values()} == {"cancelled"}
    claimed = Counter(i for got in claims for i in got)
    assert set(claimed.values()) <= {1}
    # A command claimed before its cancel keeps its holder (who hears of the cancel);
    # one cancelled first was handed to nobody.
    holder = {i: f"racer-{n + 1}" for n, got in enumerate(claims) for i in got}
    assert {i: c.agent_id for i, c in rows.items() if c.agent_id is not None} == holder
    heard = race(db, tmp_path, [("heartbeat", "")] * PROCESSES)
    for n, got in enumerate(heard):  # racer-0 cancelled, and holds nothing
        assert got == sorted(i for i, who in holder.items() if who == f"racer-{n}"), n


def test_leases_that_run_out_are_redelivered_and_only_the_current_delivery_finishes(db, tmp_path):
    ids = refreshes(db, 60)

    worked = race(db, tmp_path, [("work", "2")] * PROCESSES)

    finished = Counter(i for got in worked for i, delivery in got if delivery)
    abandoned = Counter(i for got in worked for i, delivery in got if not delivery)
    assert sorted(finished) == ids and set(finished.values()) == {1}
    assert sorted(abandoned) == [i for i in ids if i % 3 == 0] and set(abandoned.values()) == {1}
    rows = {c.id: c for c in Command.select()}
    assert {c.status for c in rows.values()} == {"done"}
    # The finish taken was the last delivery's; an abandoned command went out again.
    assert {i: d for got in worked for i, d in got if d} == {i: c.deliveries for i, c in rows.items()}
    assert all(rows[i].deliveries >= 2 for i in abandoned)
    # Each delivery had its run: the abandoned ones' closed as their lease ran out.
    runs = Counter(r.command_id for r in SyncRun.select(SyncRun.command))
    assert runs == Counter({i: c.deliveries for i, c in rows.items()})
    assert {r.error for r in SyncRun.select().where(SyncRun.status == "failed")} <= {
        f"lease of agent racer-{n} expired" for n in range(PROCESSES)}


def test_writes_to_one_issue_racing_claims_are_taken_one_at_a_time_in_order(db, tmp_path):
    now = iso(Clock().now())
    ids = [Command.create(type="write", params={"write_id": n, "op": "comment"}, status="queued",
                          created_at=now, serial_key=f"issue:AURORA-{n % 4}").id for n in range(1, 161)]

    claimed = race(db, tmp_path, [("serial", "")] * PROCESSES)

    seen = [entry for got in claimed for entry in got]
    assert sorted(entry[0] for entry in seen) == ids
    # No other write of the issue held at once, and every older one done first.
    assert {(others, older) for _, others, older in seen} == {(0, 0)}
