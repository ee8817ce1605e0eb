"""Handing commands to agents: claims, leases, heartbeats, lease expiry.

The ``command`` table alone owns who holds what. Every change here runs in one
``BEGIN IMMEDIATE`` transaction, so however many agents claim at once — in
threads or in processes — each queued command goes to exactly one of them.

A claim gives the agent a lease of ``HUB_LEASE_SECONDS``; heartbeats and
reports extend it. A command whose lease has passed goes back to ``queued``
(checked at every claim and by a periodic task), or, once it has been
delivered ``HUB_MAX_DELIVERIES`` times, to ``failed`` with an error that says so.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from hub import dialect
from hub.clock import Clock, after, iso, parse_utc
from hub.db import database
from hub.errors import Conflict, ContractError, NotFound, Unauthenticated
from hub.metrics import Metrics
from hub.models import Command
from hub.services.access.tokens import token_exists
from hub.services.commands.agents import AgentService
from hub.services.commands.kinds import claimable, opening_runs, unbounded
from hub.services.commands.runs import fail_runs_of_expired, open_runs
from hub.services.commands.work_signal import WorkSignal
from hub.services.mirror.jira_site import remember_base_url
from hub.services.search.jql.zone import remember_jira_zone, reported_zone
from hub.services.tallies import LEASE_EXPIRED, add_tallies
from hub.vocabulary import CANCELLED, CLAIMED, FAILED, QUEUED

log = logging.getLogger(__name__)

# A long-polling claim looks for work this often even without a signal, to
# see commands enqueued by another process.
POLL_SECONDS = 1.0
# An agent's last_seen_at is written at most once per this many seconds (the
# column holds whole seconds anyway); a change of version, state or detail is
# written at once.
SEEN_EVERY_SECONDS = 1
# Agents remembered as written (with their token); past this many the memory
# starts over, which costs one write per agent.
SEEN_MEMORY = 10_000

# The columns of ``command`` in model order, for RETURNING.
_COMMAND_FIELDS = Command._meta.sorted_fields
_RETURN_COMMAND = "RETURNING " + ", ".join(f.column_name for f in _COMMAND_FIELDS)
# A report comes from the holder: the token that claimed the command (or, for
# a command claimed before tokens were recorded, a report naming an agent),
# narrowed by agent_id and delivery when the report carries them
# (hub.dialect.commands.held_by). On PostgreSQL a second report on the same
# command waits for the first's row lock, then finds it no longer held.


def command_from_row(row) -> Command:
    """A Command built from a row in ``_COMMAND_FIELDS`` order, without a query."""
    return Command(**{f.name: f.python_value(v) for f, v in zip(_COMMAND_FIELDS, row, strict=True)})


def _holder(command_id: int, token_id: int | None, agent_id: str | None,
            delivery: int | None) -> tuple:
    return (command_id, token_id, agent_id, agent_id, agent_id, delivery, delivery)


def _claimed_with(token_id: int | None):
    """Commands claimed with this token, or before tokens were recorded."""
    return (Command.token_id == token_id) | Command.token_id.is_null()


class Dispatcher:
    """Claims, leases and the holder check, over the ``command`` table."""

    def __init__(self, lease_seconds: int, max_deliveries: int, signal: WorkSignal,
                 clock: Clock, *, metrics: Metrics, agents: AgentService):
        self._lease_seconds = lease_seconds
        self._metrics = metrics
        self._max_deliveries = max_deliveries
        self._signal = signal
        self._clock = clock
        # Writes agent rows, and bounds the agent ids each token registers.
        self._agents = agents
        # (token_id, agent_id) -> (last_seen_at, version, state, detail) as last
        # committed by this process. Threads may race on it; the worst is one
        # extra write.
        self._written: dict[tuple[int | None, str], tuple[datetime, int, str | None, str | None]] = {}

    # -- agents ---------------------------------------------------------------

    def heartbeat(self, agent_id: str, version: int, state: str | None = None,
                  detail: str | None = None, *, token_id: int | None = None,
                  jira_time_zone: str | None = None, jira: dict | None = None,
                  holding: list[int] | None = None) -> dict:
        """Record the agent as seen, extend its leases, name its cancelled commands.

        Only commands that this agent claimed with this token are its own. An
        ``agent_id`` new to this token past its bound raises Conflict. A
        ``jira_time_zone`` (the Jira user's, from ``/myself``) is kept for JQL's
        dates (:mod:`hub.services.search.jql.zone`); one the hub does not know is a ContractError.
        ``jira`` (v18: ``{reachable, checked_at, error}``, the outcome of the agent's last
        call to Jira) is kept for the operations page (:meth:`AgentService.record_jira`); its
        ``base_url`` (Jira's own, optional) is kept for the links to Jira's issues.
        ``holding`` (v19) names the commands the agent's process is running: only their leases
        are extended, so that what a process killed under the same ``agent_id`` held runs out
        and is delivered again, rather than kept alive by its successor's heartbeats.
        """
        if jira_time_zone is not None:
            reported_zone(jira_time_zone)
        if jira is not None and jira.get("checked_at") is not None:
            checked = parse_utc(jira["checked_at"])
            if checked is None:
                raise ContractError("jira.checked_at must be a real UTC time like 2026-10-22T10:05:11Z, "
                                    f"got {jira['checked_at']!r}", "jira.checked_at")
            jira = {**jira, "checked_at": iso(checked)}
        now = self._clock.now()
        with database.atomic():
            if jira_time_zone is not None:
                remember_jira_zone(jira_time_zone)
            written = self._seen(agent_id, token_id, version, now, state, detail)
            if jira is not None:
                self._agents.record_jira(agent_id, jira, now)
                if jira.get("base_url"):
                    remember_base_url(jira["base_url"])
            if holding is None or holding:
                extended = (Command.update(lease_until=after(now, self._lease_seconds))
                            .where(Command.status == CLAIMED, Command.agent_id == agent_id, _claimed_with(token_id)))
                (extended if holding is None else extended.where(Command.id.in_(holding))).execute()
            # Cancelled while this agent held it, within the last lease: an
            # agent that heartbeats at all within its lease hears of each one
            # (perhaps more than once, which is harmless).
            since = iso(now - timedelta(seconds=self._lease_seconds))
            cancelled = [c.id for c in Command.select(Command.id).where(
                Command.status == CANCELLED, Command.agent_id == agent_id,
                _claimed_with(token_id), Command.finished_at >= since).order_by(Command.id)]
        self._remember(token_id, agent_id, written)
        return {"now": iso(now), "cancelled": cancelled}

    # -- claims ---------------------------------------------------------------

    def claim(self, agent_id: str, version: int, types: list[str] | None = None,
              limit: int = 1, wait: float = 0, *, token_id: int | None = None,
              gone: Callable[[], bool] = lambda: False) -> list[dict]:
        """Claim up to ``limit`` of the oldest queued commands the agent can run.

        With ``wait`` > 0, hold the call until work arrives or ``wait`` seconds pass,
        or until ``gone()`` says the client has left (checked every POLL_SECONDS):
        a waiting thread is worth more than an answer nobody will read. An
        ``agent_id`` new to this token past its bound raises Conflict.

        ``token_id`` is the claiming token's: a command is handed out only while
        it still exists, in the transaction that hands it out, and a claim that
        finds it gone (revoked while the poll waited, by the API or by another
        process) raises Unauthenticated within POLL_SECONDS, the queue untouched.
        """
        # Each kind names the lowest protocol version it is given to.
        allowed = claimable(version, types)
        deadline = time.monotonic() + wait
        while True:
            seen = self._signal.generation()
            claimed = self._claim_once(agent_id, version, allowed, limit, token_id)
            remaining = deadline - time.monotonic()
            if claimed or remaining <= 0:
                break
            self._signal.wait(seen, min(POLL_SECONDS, remaining))
            # Checked before the next claim: commands claimed for a client
            # that has gone would sit out their lease unworked.
            if gone():
                break
        self._metrics.claims.labels("commands" if claimed else "empty").inc()
        return claimed

    def _claim_once(self, agent_id: str, version: int, allowed: list[str],
                    limit: int, token_id: int | None) -> list[dict]:
        now = self._clock.now()
        claimed_at, lease_until = iso(now), after(now, self._lease_seconds)
        if allowed and dialect.current().postgres and not self._seen_due(agent_id, token_id, version, now):
            alone = self._claim_alone(agent_id, version, allowed, limit, token_id, now)
            if alone is not None:
                return alone
        rows: list[tuple] = []
        with database.atomic():
            written = self._seen(agent_id, token_id, version, now)
            self._expire(now)
            if allowed:
                engine = dialect.current()
                # One statement picks and takes the oldest: inside BEGIN
                # IMMEDIATE no other writer runs between the two; on PostgreSQL
                # the rows picked are locked, passing over those another claim
                # holds, and the outer condition is checked again on them.
                marks = ", ".join("?" * len(allowed))
                # The token's row is looked up in the same statement: a token
                # revoked since the request was authenticated takes nothing.
                rows = database.execute_sql(
                    f"UPDATE command SET status = '{CLAIMED}', agent_id = ?, token_id = ?, "
                    "claimed_at = ?, lease_until = ?, deliveries = deliveries + 1 "
                    "WHERE " + dialect.commands.picked(
                        f"SELECT id FROM command WHERE status = '{QUEUED}' AND type IN ({marks}) "
                        f"AND {dialect.commands.SERIAL_FREE} "
                        f"ORDER BY id LIMIT ?{engine.for_update_skip_locked}", engine) + " "
                    f"{dialect.commands.still_queued(engine)}AND {dialect.commands.token_alive(engine)} "
                    "RETURNING id, type, params, deliveries, lease_until",
                    (agent_id, token_id, claimed_at, lease_until, *allowed, limit,
                     token_id, token_id)).fetchall()
                rows.sort()  # RETURNING promises no order; oldest first
                # The agent's version goes with the run: whether its full run is followed
                # by check_issues depends on the agent that ran it.
                with_runs = opening_runs()
                runs = [(row[0], (_params(row[2]) or {}).get("jql", ""), claimed_at, version)
                        for row in rows if row[1] in with_runs]
                if runs:
                    open_runs(runs)
            # Nothing taken: no work, or no token. Only then is the token looked
            # up on its own, so a claim that hands out work costs no statement more.
            revoked = not rows and token_id is not None and not token_exists(token_id)
        self._remember(token_id, agent_id, written)
        if revoked:
            # After the commit: the leases found expired on the way stay taken back.
            raise Unauthenticated("The token was revoked while the claim waited; no command was handed out.")
        return [{"id": id_, "type": type_, "params": _params(params), "deliveries": deliveries,
                 "lease_until": lease} for id_, type_, params, deliveries, lease in rows]

    def _claim_alone(self, agent_id: str, version: int, allowed: list[str], limit: int,
                     token_id: int | None, now) -> list[dict] | None:
        """PostgreSQL, when the agent's status needs no write: the claim in one statement
        and no transaction (each round trip to the server counts: BEGIN and COMMIT were two
        of a claim's five). None when leases had run out and nothing was taken: the claim is
        then made again the usual way, after they are taken back, as on SQLite."""
        with_runs = sorted(opening_runs())
        result = database.execute_sql(
            dialect.commands.claim_alone(", ".join("?" * len(allowed)), ", ".join("?" * len(with_runs))),
            (agent_id, token_id, iso(now), after(now, self._lease_seconds), *allowed, limit,
             token_id, token_id, version, *with_runs, iso(now))).fetchall()
        expired = bool(result[0][0])
        rows = sorted(row[1:] for row in result if row[1] is not None)  # oldest first
        if expired:
            self.expire_leases()
            if not rows:
                return None
        if not rows and token_id is not None and not token_exists(token_id):
            raise Unauthenticated("The token was revoked while the claim waited; no command was handed out.")
        return [{"id": id_, "type": type_, "params": _params(params), "deliveries": deliveries,
                 "lease_until": lease} for id_, type_, params, deliveries, lease in rows]

    # -- reports --------------------------------------------------------------

    def held(self, command_id: int, token_id: int | None, agent_id: str | None,
             delivery: int | None) -> Command:
        """The command, if the reporting agent holds it; extends its lease.

        The holder is the token that claimed the command; ``agent_id`` and
        ``delivery``, when the report carries them, narrow it further. Call
        inside the report's transaction. Raises NotFound for an unknown id and
        Conflict for a report from anyone but the current holder.
        """
        row = database.execute_sql(
            f"UPDATE command SET lease_until = ? {dialect.commands.held_by()} {_RETURN_COMMAND}",
            (after(self._clock.now(), self._lease_seconds),
             *_holder(command_id, token_id, agent_id, delivery))).fetchone()
        if row is None:
            raise self.refusal(self.find(command_id), token_id, agent_id, delivery)
        return command_from_row(row)

    def finish(self, command_id: int, token_id: int | None, agent_id: str | None,
               delivery: int | None, status: str, finished_at: str, *,
               error: str | None = None, results: dict[str, Any] | None = None) -> Command | None:
        """End a held command as ``status`` in one statement; None if not held.

        ``results`` maps each command type to the result to record for it (the
        type is known only once the row is found); ``error``, when given, is
        recorded. Call inside the report's transaction; a caller that finds
        the result wrong raises, and the transaction undoes this.
        """
        params: list[Any] = [status, finished_at]
        sets = "status = ?, finished_at = ?, lease_until = NULL"
        if error is not None:
            sets += ", error = ?"
            params.append(error)
        if results:
            cases = " ".join("WHEN ? THEN ?" for _ in results)
            sets += f", result = CASE type {cases} ELSE result END"
            for type_, result in results.items():
                params += [type_, None if result is None else json.dumps(result, ensure_ascii=False)]
        row = database.execute_sql(
            f"UPDATE command SET {sets} {dialect.commands.held_by()} {_RETURN_COMMAND}",
            (*params, *_holder(command_id, token_id, agent_id, delivery))).fetchone()
        return command_from_row(row) if row else None

    @staticmethod
    def find(command_id: int) -> Command:
        """The command, or NotFound."""
        command = Command.get_or_none(Command.id == command_id)
        if command is None:
            raise NotFound(f"no command {command_id}")
        return command

    @staticmethod
    def refusal(command: Command, token_id: int | None, agent_id: str | None,
                delivery: int | None) -> Conflict:
        """Why a report about ``command`` does not come from its holder.

        Asked only after the holder check in SQL failed, so one of the reasons
        applies; the last line is there should the two ever disagree.
        """
        command_id = command.id
        if command.status != CLAIMED:
            return Conflict(f"command {command_id} is {command.status}, not held by any agent: "
                            "stop working on it")
        if command.token_id is not None and command.token_id != token_id:
            return Conflict(f"command {command_id} is held by another agent (claimed with "
                            "another token): stop working on it")
        if command.token_id is None and agent_id is None:
            # Claimed before the hub recorded tokens: agent_id is all that tells.
            return Conflict(f"command {command_id} was claimed before this hub recorded claiming "
                            "tokens: report with the agent_id that claimed it")
        if agent_id is not None and agent_id != command.agent_id:
            return Conflict(f"command {command_id} is held by another agent: stop working on it")
        if delivery is not None and delivery != command.deliveries:
            return Conflict(f"command {command_id} was delivered again after this delivery's "
                            f"lease ran out (delivery {delivery}, now {command.deliveries}): "
                            "stop working on it")
        return Conflict(f"command {command_id} is not held by this agent: stop working on it")

    # -- leases ---------------------------------------------------------------

    def expire_leases(self) -> dict:
        """Re-queue (or fail) every claimed command whose lease has passed."""
        with database.atomic():
            return self._expire(self._clock.now())

    def _expire(self, now) -> dict:
        """One UPDATE takes back every expired lease; when it took any, one more
        closes their runs and one clears the re-queued commands' agent_id, which
        stays until then because the runs' error names it."""
        stamp, most = iso(now), self._max_deliveries
        # A kind whose deliveries are not bounded (a write, which waits out a Jira away) is
        # re-queued however many times its lease ran out.
        spent = "deliveries >= ?" + "".join(f" AND type <> '{name}'" for name in sorted(unbounded()))
        rows = database.execute_sql(
            "UPDATE command SET "
            f"status = CASE WHEN {spent} THEN '{FAILED}' ELSE '{QUEUED}' END, "
            f"finished_at = CASE WHEN {spent} THEN ? ELSE finished_at END, "
            f"error = CASE WHEN {spent} THEN 'lease expired on delivery ' || deliveries "
            "|| ' of ' || ? || ' (HUB_MAX_DELIVERIES): given up' ELSE error END, "
            # Failed keeps who held it and when; re-queued forgets it.
            f"claimed_at = CASE WHEN {spent} THEN claimed_at END, "
            f"token_id = CASE WHEN {spent} THEN token_id END, "
            "lease_until = NULL "
            f"{dialect.commands.expired_leases()} RETURNING id, status, type",
            (most, most, stamp, most, most, most, most, *dialect.commands.expired_params(stamp))).fetchall()
        counts = {"requeued": sum(1 for r in rows if r[1] == QUEUED), "failed": 0}
        counts["failed"] = len(rows) - counts["requeued"]
        if not rows:
            return counts
        add_tallies({f"{LEASE_EXPIRED}.{outcome}": n for outcome, n in counts.items()})
        with_runs = opening_runs()
        running = [r[0] for r in rows if r[2] in with_runs]
        if running:
            fail_runs_of_expired(running, stamp)
        if counts["requeued"]:
            database.execute_sql(
                f"UPDATE command SET agent_id = NULL WHERE id IN {dialect.commands.id_list()}",
                (json.dumps([r[0] for r in rows if r[1] == QUEUED]),))
        log.info("leases expired: %(requeued)d re-queued, %(failed)d failed", counts)
        if counts["requeued"]:
            self._signal.notify()
        return counts

    def _seen(self, agent_id: str, token_id: int | None, version: int, now, state=None,
              detail=None):
        """Write the agent's status (registering it for the token if need be)
        unless this process wrote the same for the same token within
        SEEN_EVERY_SECONDS; returns what to remember once the transaction
        commits, or None when nothing was written."""
        if not self._seen_due(agent_id, token_id, version, now, state, detail):
            return None
        stamp = iso(now)
        last = self._written.get((token_id, agent_id))
        changes_state = state is not None or detail is not None
        values = {"version": version, "last_seen_at": stamp}
        if changes_state:
            values.update(state=state, detail=detail)
        self._agents.record(agent_id, token_id, values, now)
        if changes_state or last is None:
            return (now, version, state, detail)
        # state and detail were left as they were: remember the last ones written.
        return (now, version, last[2], last[3])

    def _seen_due(self, agent_id: str, token_id: int | None, version: int, now, state=None,
                  detail=None) -> bool:
        """Whether :meth:`_seen` would write: not when this process wrote the same for the
        same token within SEEN_EVERY_SECONDS."""
        last = self._written.get((token_id, agent_id))
        if last is None:
            return True
        seen_at, last_version, last_state, last_detail = last
        changes_state = state is not None or detail is not None
        fresh = now - seen_at < timedelta(seconds=SEEN_EVERY_SECONDS)
        same = version == last_version and (
            not changes_state or (state, detail) == (last_state, last_detail))
        return not (fresh and same)

    def _remember(self, token_id: int | None, agent_id: str, written) -> None:
        """After COMMIT: what ``_seen`` wrote is now there for every reader.

        Called inside an outer transaction, the write may still be undone:
        nothing is remembered, which costs at most one more write.
        """
        if written is None or database.in_transaction():
            return
        key = (token_id, agent_id)
        if len(self._written) >= SEEN_MEMORY and key not in self._written:
            self._written.clear()
        self._written[key] = written


def _params(value):
    """A command's params as stored (JSON text) in Python."""
    return Command.params.python_value(value)
