"""The time zone JQL's dates are read in: the one the Jira user's own Jira would read them in.

Jira reads ``"2026/10/22"``, ``startOfDay()`` and ``-1d`` in the searching user's time zone.
The hub answers for the agent's Jira user: the agent reads the zone from Jira's ``/myself``
and reports it with each heartbeat (protocol v17, ``jira_time_zone``), and the hub keeps the
last one reported in ``setting`` (``jira_time_zone``). ``HUB_JQL_TIME_ZONE`` overrides it; with
neither, UTC.
"""

from __future__ import annotations

from dataclasses import dataclass
from zoneinfo import ZoneInfo

from hub.clock import known_zone
from hub.db import database
from hub.errors import ContractError
from hub.models import Setting

SETTING = "jira_time_zone"
UTC_ZONE = ZoneInfo("UTC")
# Where the zone in use comes from, as /api/v1/overview says it.
CONFIGURED, JIRA, DEFAULT = "HUB_JQL_TIME_ZONE", "jira", "default"


@dataclass(frozen=True)
class ZoneInUse:
    """The zone JQL reads dates in, and where it comes from: ``HUB_JQL_TIME_ZONE``, ``jira``
    (the agent's report of the Jira user's zone) or ``default`` (UTC: neither is known)."""

    zone: ZoneInfo
    source: str

    @property
    def name(self) -> str:
        return self.zone.key


def reported_zone(name: str) -> ZoneInfo:
    """The zone an agent reported, or a ContractError naming ``jira_time_zone``."""
    zone = known_zone(name)
    if zone is None:
        raise ContractError(f"jira_time_zone: {name[:64]!r} is no IANA time zone this hub knows "
                            "(such as Europe/Moscow or UTC)", "jira_time_zone")
    return zone


def remember_jira_zone(name: str) -> None:
    """Keep the zone an agent reported (already checked by :func:`reported_zone`); written only
    when it differs, so that heartbeats cost no more. Called inside the heartbeat's transaction."""
    (Setting.insert(key=SETTING, value=name)
     .on_conflict(conflict_target=[Setting.key], update={Setting.value: name},
                  where=(Setting.value != name))
     .execute())


class JqlZone:
    """The zone in use, read at each query (an agent may report a new one at any heartbeat)."""

    def __init__(self, configured: str | None = None):
        self._configured = known_zone(configured) if configured else None

    def in_use(self) -> ZoneInUse:
        if self._configured is not None:
            return ZoneInUse(self._configured, CONFIGURED)
        row = database.execute_sql("SELECT value FROM setting WHERE key = ?", (SETTING,)).fetchone()
        reported = known_zone(row[0]) if row else None
        if reported is not None:
            return ZoneInUse(reported, JIRA)
        return ZoneInUse(UTC_ZONE, DEFAULT)

    def __call__(self) -> ZoneInfo:
        """The zone JQL's dates are read in now."""
        return self.in_use().zone


def jql_zone(configured: str | None = None) -> ZoneInfo:
    """The zone JQL's dates are read in: ``configured`` (HUB_JQL_TIME_ZONE) if given, else the
    Jira user's as the agent last reported it, else UTC."""
    return JqlZone(configured)()
