"""The JQL a refresh asks Jira: the command's own, its order dropped, narrowed by ``updated_since``."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

_ORDER_BY = re.compile(r"ORDER\s+BY(\s|$)", re.I)


class BadCommand(Exception):
    """The command's params are not something the agent can run; it fails with this message."""


# The instants an ``updated_since`` is clamped to. Every issue was updated after the first (Jira
# began in 2002), so an earlier bound selects the same; the last is a day short of the end of
# datetime's range, so that no zone's offset carries it past the year 9999.
EARLIEST_UPDATED = datetime(1970, 1, 1, tzinfo=UTC)
LATEST_UPDATED = datetime(9999, 12, 30, tzinfo=UTC)


def updated_clause(updated_since: str, zone: str | None) -> str:
    """``AND updated >= "yyyy/MM/dd HH:mm"``: JQL reads dates in the Jira user's time zone, to the minute,
    so the instant is converted to that zone and floored (never later than asked). An instant outside
    what the zone can be written in is clamped to EARLIEST_UPDATED or LATEST_UPDATED (the same issues
    match); a value that is no time is a BadCommand."""
    try:
        moment = datetime.fromisoformat(updated_since)
    except (TypeError, ValueError):
        raise BadCommand(f"params.updated_since must be a time like 2026-10-22T10:05:11+00:00,"
                         f" got {updated_since!r}") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    moment = min(max(moment, EARLIEST_UPDATED), LATEST_UPDATED)
    try:
        tz = ZoneInfo(zone) if zone else UTC
    except (ZoneInfoNotFoundError, ValueError):
        tz = UTC
    return f' AND updated >= "{moment.astimezone(tz):%Y/%m/%d %H:%M}"'


def strip_order(jql: str) -> str:
    """The JQL without its ``ORDER BY`` (the first outside quoted strings): the agent orders by id."""
    quote, cut, i = None, len(jql), 0
    while i < len(jql):
        ch = jql[i]
        if quote:
            if ch == "\\":
                i += 1  # an escaped character, a quote among them, stays inside the string
            elif ch == quote:
                quote = None
        elif ch in "\"'":
            quote = ch
        elif (i == 0 or jql[i - 1].isspace() or jql[i - 1] == ")") and _ORDER_BY.match(jql, i):
            cut = i  # JQL has one ORDER BY, at its end: what follows is the order
            break
        i += 1
    return jql[:cut].strip()


def search_where(jql: str, updated_since: str | None, zone: str | None) -> str:
    """The command's JQL as the condition the keyset search narrows: its own ``ORDER BY`` dropped (the
    search orders by id, the one order that stays put while issues are edited), narrowed by
    ``updated_since``, in parentheses so that its ``OR`` binds inside."""
    where = strip_order(jql.strip())
    if updated_since:
        moment = updated_clause(updated_since, zone)
        where = f"({where}){moment}" if where else moment.removeprefix(" AND ")
    return where
