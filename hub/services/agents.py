"""Agents as interfaces see them: who is there, and whether it is online."""

from __future__ import annotations

from datetime import timedelta

from hub.clock import Clock, iso
from hub.models import AgentStatus
from hub.services.pagination import listing

# An agent heard from within this long is online. Agents heartbeat every few
# seconds while they work, and at least once a minute while idle.
ONLINE_SECONDS = 120


class AgentService:
    def __init__(self, clock: Clock | None = None):
        self._clock = clock or Clock()

    def list(self) -> dict:
        """Every agent ever heard from, by id, each with whether it is online."""
        since = iso(self._clock.now() - timedelta(seconds=ONLINE_SECONDS))
        return listing({
            "agent_id": a.agent_id, "version": a.version, "last_seen_at": a.last_seen_at,
            "state": a.state, "detail": a.detail, "online": a.last_seen_at >= since,
        } for a in AgentStatus.select().order_by(AgentStatus.agent_id))
