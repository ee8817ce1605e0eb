"""Agents: who is there, whether it is online, and how many ids one token may hold.

An agent is known by the ``agent_id`` its heartbeats and claims carry; its row in
``agent_status`` records the token that last wrote it. The rows are bounded
twice over. An agent token may register at most ``per_token`` agent ids
(``HUB_AGENTS_PER_TOKEN``): a heartbeat or claim with an id the token does not
hold yet is refused once it holds that many. And an agent unseen for
``forget_hours`` (``HUB_AGENT_FORGET_HOURS``) is forgotten: it is no longer
listed, counted or in the metrics, no longer counts against its token, and
:meth:`AgentService.forget` (the worker, hourly) deletes its row. A forgotten
or removed agent that is heard from again simply registers again, within the
bound. Rows from before schema v9 have no token and count against none until
they are written again.
"""

from __future__ import annotations

import builtins
import json
from dataclasses import dataclass, field
from datetime import timedelta

from peewee import SQL, fn

from hub import dialect
from hub.clock import Clock, iso
from hub.config import Config
from hub.db import database
from hub.errors import Conflict, NotFound
from hub.models import AgentStatus, Command, Setting
from hub.services.pagination import page
from hub.vocabulary import CLAIMED

# An agent heard from within this long is online. Agents heartbeat every few
# seconds while they work, and at least once a minute while idle.
ONLINE_SECONDS = 120
# The longest detail and state an agent may send (docs/agent-protocol.md): one
# line for a person to read on the operations page, not a log.
MAX_DETAIL_CHARS = 1000
MAX_STATE_CHARS = 100
# The rowid grows as agents register (a removed agent that comes back gets a
# new one), so it pages the newest registered first.
_ROWID = SQL("rowid")
# Jira's reachability as each agent last reported it (protocol v18) is kept in
# ``setting`` under this prefix and the agent's id, a JSON object, so that it
# needs no schema step; it goes when the agent's row goes.
JIRA_KEY = "agent_jira:"


@dataclass(frozen=True)
class Held:
    """A command an agent holds now: what it is and until when its lease runs."""

    id: int
    type: str
    params: dict
    claimed_at: str | None
    lease_until: str | None
    deliveries: int


@dataclass(frozen=True)
class ListedAgent:
    """An agent's row and whether it is online by the service's clock; with the
    commands it holds and Jira's reachability as it last reported it (None: never
    reported, e.g. an agent before v18)."""

    row: AgentStatus
    online: bool
    holds: tuple[Held, ...] = ()
    jira: dict | None = field(default=None)


class AgentService:
    """The ``agent_status`` rows: listing, counting, registering, removing, forgetting."""

    def __init__(self, clock: Clock, *, per_token: int = Config.agents_per_token,
                 forget_hours: int = Config.agent_forget_hours):
        self._clock = clock
        self._per_token = per_token
        self._forget_hours = forget_hours

    @classmethod
    def from_config(cls, config: Config, clock: Clock) -> AgentService:
        """The agents the hub's settings bound, for the app, the CLI and the worker."""
        return cls(clock, per_token=config.agents_per_token, forget_hours=config.agent_forget_hours)

    def _forget_line(self, now=None) -> str:
        """Agents last seen before this are forgotten."""
        return iso((now or self._clock.now()) - timedelta(hours=self._forget_hours))

    def _online_line(self) -> str:
        return iso(self._clock.now() - timedelta(seconds=ONLINE_SECONDS))

    def list(self, cursor: int | None = None, limit: int = 50, online: bool | None = None) -> dict:
        """Agents not forgotten (each a :class:`ListedAgent`), newest registered first,
        one page of ``limit``; ``online`` True or False keeps those that are (or are not) online."""
        since = self._online_line()
        query = AgentStatus.select().where(AgentStatus.last_seen_at >= self._forget_line())
        if online is True:
            query = query.where(AgentStatus.last_seen_at >= since)
        elif online is False:
            query = query.where(AgentStatus.last_seen_at < since)
        listed = page(query, _ROWID, cursor, limit, lambda row: row)
        rows = listed["items"]
        ids = [row.agent_id for row in rows]
        holds = self.holds(ids)
        jira = self.jira(ids)
        listed["items"] = [ListedAgent(row, row.last_seen_at >= since, tuple(holds.get(row.agent_id, ())),
                                       jira.get(row.agent_id)) for row in rows]
        return listed

    @staticmethod
    def holds(agent_ids: builtins.list[str]) -> dict[str, builtins.list[Held]]:
        """The claimed commands of each of ``agent_ids``, oldest claim first: one query."""
        held: dict[str, builtins.list[Held]] = {}
        if not agent_ids:
            return held
        query = (Command.select(Command.id, Command.type, Command.params, Command.agent_id, Command.claimed_at,
                                Command.lease_until, Command.deliveries)
                 .where(Command.status == CLAIMED, Command.agent_id.in_(agent_ids)).order_by(Command.id))
        for command in query:
            held.setdefault(str(command.agent_id), []).append(Held(
                command.id, command.type, command.params or {}, command.claimed_at, command.lease_until,
                command.deliveries))
        return held

    @staticmethod
    def jira(agent_ids: builtins.list[str]) -> dict[str, dict]:
        """Jira's reachability as each of ``agent_ids`` last reported it (v18): one query."""
        if not agent_ids:
            return {}
        rows = Setting.select().where(Setting.key.in_([JIRA_KEY + agent_id for agent_id in agent_ids]))
        return {row.key[len(JIRA_KEY):]: json.loads(row.value) for row in rows}

    @staticmethod
    def record_jira(agent_id: str, reported: dict, now) -> None:
        """Keep Jira's reachability as the agent reports it in a heartbeat (v18):
        ``{reachable, checked_at, error}``, to which the hub adds ``since``, when
        Jira was first reported unreachable in the present spell (None while
        reachable), and ``reported_at``. Call inside the heartbeat's transaction."""
        key = JIRA_KEY + agent_id
        reachable = bool(reported["reachable"])
        checked_at = reported.get("checked_at") or iso(now)
        since = None
        if not reachable:
            before = Setting.get_or_none(Setting.key == key)
            last = json.loads(before.value) if before is not None else None
            since = last["since"] if last and not last.get("reachable") and last.get("since") else checked_at
        value = json.dumps({"reachable": reachable, "checked_at": checked_at,
                            "error": None if reachable else reported.get("error"),
                            "since": since, "reported_at": iso(now)}, ensure_ascii=False)
        (Setting.insert(key=key, value=value)
         .on_conflict(conflict_target=[Setting.key], update={Setting.value: value}).execute())

    def counts(self) -> dict:
        """``{total, online}`` of the agents not forgotten: one index range, no rows loaded."""
        since = self._online_line()
        # Peewee's stubs type the rows of .tuples() as models, hence the ignore.
        counted: tuple[int, int] = (AgentStatus  # type: ignore[assignment]
                                    .select(fn.COUNT(SQL("*")),
                                            fn.COUNT(SQL("CASE WHEN last_seen_at >= ? THEN 1 END", [since])))
                                    .where(AgentStatus.last_seen_at >= self._forget_line()).tuples().get())
        total, online = counted
        return {"total": total, "online": online}

    def seen(self) -> builtins.list[tuple[str, str]]:
        """``(agent_id, last_seen_at)`` of every agent not forgotten, for the metrics'
        per-agent series: at most ``HUB_AGENTS_PER_TOKEN`` per agent token."""
        # Peewee's stubs type the rows of .tuples() as models, hence the ignore.
        return list(AgentStatus.select(AgentStatus.agent_id, AgentStatus.last_seen_at)  # type: ignore[arg-type]
                    .where(AgentStatus.last_seen_at >= self._forget_line())
                    .order_by(AgentStatus.agent_id).tuples())

    def record(self, agent_id: str, token_id: int | None, values: dict, now) -> None:
        """Write the agent as seen with ``values`` (version, last_seen_at, maybe state
        and detail) for ``token_id``, registering the id if the token does not hold it.

        Call inside the caller's write transaction. An id the token holds is one
        UPDATE; a new one (or one forgotten, or last written by another token or
        before v9) is counted against the token first, and refused with a
        Conflict once the token holds ``per_token`` ids seen since the forget line.
        Without a token (a caller inside the hub) nothing is counted: one upsert.
        """
        forget_line = self._forget_line(now)
        if token_id is not None:
            updated = (AgentStatus.update(**values)
                       .where(AgentStatus.agent_id == agent_id, AgentStatus.token_id == token_id,
                              AgentStatus.last_seen_at >= forget_line)
                       .execute())
            if updated:
                return
            # Count and register as one: two new ids of one token at once must not both pass the bound.
            dialect.hold(f"agent ids of token {token_id}")
            held = (AgentStatus.select(fn.COUNT(SQL("*")))
                    .where(AgentStatus.token_id == token_id, AgentStatus.last_seen_at >= forget_line,
                           AgentStatus.agent_id != agent_id).scalar())
            if held >= self._per_token:
                raise Conflict(
                    f"this agent token already holds {held} agent ids heard from within the last "
                    f"{self._forget_hours} h, its bound (HUB_AGENTS_PER_TOKEN = {self._per_token}), "
                    f"so agent_id {agent_id!r} is not registered: send one of the ids it holds "
                    "(see GET /api/v1/agents), or free one with 'hub agent remove ID' or "
                    "DELETE /api/v1/agents/{agent_id}; an id unheard of for "
                    "HUB_AGENT_FORGET_HOURS is freed on its own",
                    agents_per_token=self._per_token)
        values = {**values, "token_id": token_id}
        (AgentStatus.insert(agent_id=agent_id, **values)
         .on_conflict(conflict_target=[AgentStatus.agent_id], update=values)
         .execute())

    def remove(self, agent_id: str) -> None:
        """Forget one agent now; NotFound if the hub has no row for it. Heard from
        again, it registers again (within its token's bound)."""
        with database.atomic():
            if not AgentStatus.delete().where(AgentStatus.agent_id == agent_id).execute():
                raise NotFound(f"no agent {agent_id!r}")
            Setting.delete().where(Setting.key == JIRA_KEY + agent_id).execute()

    def forget(self) -> int:
        """Delete the rows of agents unseen for ``forget_hours``; how many went."""
        with database.atomic():
            gone = AgentStatus.delete().where(AgentStatus.last_seen_at < self._forget_line()).execute()
            # What forgotten agents reported of Jira goes with them.
            database.execute_sql(
                "DELETE FROM setting WHERE key >= ? AND key < ? AND substr(key, ?) NOT IN "
                "(SELECT agent_id FROM agent_status)", (JIRA_KEY, JIRA_KEY[:-1] + ";", len(JIRA_KEY) + 1))
            return gone
