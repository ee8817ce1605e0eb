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

import logging
import time
from datetime import timedelta
from typing import Callable

from hub.clock import Clock, after, iso
from hub.db import database
from hub.errors import Conflict, NotFound
from hub.models import AgentStatus, Command
from hub.services.work_signal import WorkSignal
from hub.services.sync_runs import close_open_run, open_run

log = logging.getLogger(__name__)

# Agents before this protocol version do not know fetch_attachment.
FETCH_ATTACHMENT_SINCE = 14
ALL_TYPES = ("refresh", "fetch_attachment")
# A long-polling claim looks for work this often even without a signal, to
# see commands enqueued by another process.
POLL_SECONDS = 1.0


def claimable_types(version: int, types: list[str] | None) -> list[str]:
    allowed = [t for t in (types or ALL_TYPES) if t in ALL_TYPES]
    if version < FETCH_ATTACHMENT_SINCE:
        allowed = [t for t in allowed if t != "fetch_attachment"]
    return allowed


def _claimed_with(token_id: int | None):
    """Commands claimed with this token, or before tokens were recorded."""
    return (Command.token_id == token_id) | Command.token_id.is_null()


class Dispatcher:
    def __init__(self, lease_seconds: int, max_deliveries: int, signal: WorkSignal,
                 clock: Clock | None = None):
        self._lease_seconds = lease_seconds
        self._max_deliveries = max_deliveries
        self._signal = signal
        self._clock = clock or Clock()

    # -- agents ---------------------------------------------------------------

    def heartbeat(self, agent_id: str, version: int, state: str | None = None,
                  detail: str | None = None, *, token_id: int | None = None) -> dict:
        """Record the agent as seen, extend its leases, name its cancelled commands.

        Only commands that this agent claimed with this token are its own.
        """
        now = self._clock.now()
        with database.atomic():
            self._seen(agent_id, version, now, state, detail)
            (Command.update(lease_until=after(now, self._lease_seconds))
             .where(Command.status == "claimed", Command.agent_id == agent_id,
                    _claimed_with(token_id))
             .execute())
            # Cancelled while this agent held it, within the last lease: an
            # agent that heartbeats at all within its lease hears of each one
            # (perhaps more than once, which is harmless).
            since = iso(now - timedelta(seconds=self._lease_seconds))
            cancelled = [c.id for c in Command.select(Command.id).where(
                Command.status == "cancelled", Command.agent_id == agent_id,
                _claimed_with(token_id), Command.finished_at >= since).order_by(Command.id)]
        return {"now": iso(now), "cancelled": cancelled}

    # -- claims ---------------------------------------------------------------

    def claim(self, agent_id: str, version: int, types: list[str] | None = None,
              limit: int = 1, wait: float = 0, *, token_id: int | None = None,
              gone: Callable[[], bool] = lambda: False) -> list[dict]:
        """Claim up to ``limit`` of the oldest queued commands the agent can run.

        With ``wait`` > 0, hold the call until work arrives or ``wait`` seconds pass,
        or until ``gone()`` says the client has left (checked every POLL_SECONDS):
        a waiting thread is worth more than an answer nobody will read.
        """
        allowed = claimable_types(version, types)
        deadline = time.monotonic() + wait
        while True:
            seen = self._signal.generation()
            claimed = self._claim_once(agent_id, version, allowed, limit, token_id)
            remaining = deadline - time.monotonic()
            if claimed or remaining <= 0:
                return claimed
            self._signal.wait(seen, min(POLL_SECONDS, remaining))
            # Checked before the next claim: commands claimed for a client
            # that has gone would sit out their lease unworked.
            if gone():
                return []

    def _claim_once(self, agent_id: str, version: int, allowed: list[str],
                    limit: int, token_id: int | None) -> list[dict]:
        now = self._clock.now()
        claimed_at, lease_until = iso(now), after(now, self._lease_seconds)
        with database.atomic():
            self._seen(agent_id, version, now)
            self._expire(now)
            if not allowed:
                return []
            commands = list(Command.select()
                            .where(Command.status == "queued", Command.type.in_(allowed))
                            .order_by(Command.id)
                            .limit(limit))
            for command in commands:
                command.status, command.agent_id = "claimed", agent_id
                command.token_id = token_id
                command.claimed_at, command.lease_until = claimed_at, lease_until
                command.deliveries += 1
                command.save()
                if command.type == "refresh":
                    open_run(command.id, (command.params or {}).get("jql", ""), claimed_at)
        return [{"id": c.id, "type": c.type, "params": c.params, "deliveries": c.deliveries,
                 "lease_until": c.lease_until} for c in commands]

    # -- reports --------------------------------------------------------------

    def held(self, command_id: int, token_id: int | None, agent_id: str | None,
             delivery: int | None) -> Command:
        """The command, if the reporting agent holds it; extends its lease.

        The holder is the token that claimed the command; ``agent_id`` and
        ``delivery``, when the report carries them, narrow it further. Call
        inside the report's transaction. Raises NotFound for an unknown id and
        Conflict for a report from anyone but the current holder.
        """
        command = Command.get_or_none(Command.id == command_id)
        if command is None:
            raise NotFound(f"no command {command_id}")
        if command.status != "claimed":
            raise Conflict(f"command {command_id} is {command.status}, not held by any agent: "
                           "stop working on it")
        if command.token_id is not None and command.token_id != token_id:
            raise Conflict(f"command {command_id} is held by another agent (claimed with "
                           "another token): stop working on it")
        if command.token_id is None and agent_id is None:
            # Claimed before the hub recorded tokens: agent_id is all that tells.
            raise Conflict(f"command {command_id} was claimed before this hub recorded claiming "
                           "tokens: report with the agent_id that claimed it")
        if agent_id is not None and agent_id != command.agent_id:
            raise Conflict(f"command {command_id} is held by another agent: stop working on it")
        if delivery is not None and delivery != command.deliveries:
            raise Conflict(f"command {command_id} was delivered again after this delivery's "
                           f"lease ran out (delivery {delivery}, now {command.deliveries}): "
                           "stop working on it")
        command.lease_until = after(self._clock.now(), self._lease_seconds)
        command.save()
        return command

    # -- leases ---------------------------------------------------------------

    def expire_leases(self) -> dict:
        """Re-queue (or fail) every claimed command whose lease has passed."""
        with database.atomic():
            return self._expire(self._clock.now())

    def _expire(self, now) -> dict:
        stamp = iso(now)
        expired = list(Command.select()
                       .where(Command.status == "claimed", Command.lease_until < stamp))
        counts = {"requeued": 0, "failed": 0}
        for command in expired:
            holder = command.agent_id
            if command.deliveries >= self._max_deliveries:
                # Failed: agent_id stays, naming the last agent that held it.
                command.status, command.finished_at = "failed", stamp
                command.error = (f"lease expired on delivery {command.deliveries} of "
                                 f"{self._max_deliveries} (HUB_MAX_DELIVERIES): given up")
                counts["failed"] += 1
            else:
                command.status, command.agent_id, command.claimed_at = "queued", None, None
                command.token_id = None
                counts["requeued"] += 1
            command.lease_until = None
            command.save()
            close_open_run(command.id, "failed", stamp,
                           error=f"lease of agent {holder} expired")
        if expired:
            log.info("leases expired: %(requeued)d re-queued, %(failed)d failed", counts)
            if counts["requeued"]:
                self._signal.notify()
        return counts

    def _seen(self, agent_id: str, version: int, now, state=None, detail=None) -> None:
        values = {"version": version, "last_seen_at": iso(now)}
        if state is not None or detail is not None:
            values.update(state=state, detail=detail)
        (AgentStatus.insert(agent_id=agent_id, **values)
         .on_conflict(conflict_target=[AgentStatus.agent_id], update=values)
         .execute())
