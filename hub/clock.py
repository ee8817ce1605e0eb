"""The hub's notion of now, and the one format of the times it writes.

Times the hub writes are UTC ISO-8601 at whole seconds
(``2026-10-22T10:05:11+00:00``), so that equal-format strings compare in time
order, which the lease queries rely on.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

# A UTC time as the hub writes it, or with Z for +00:00: whole seconds, no other
# offset, so that what a client sends reads the same to every agent. Written for
# both JSON Schema (ECMA-262) and Python's re, like the hub's other patterns.
UTC_TIME_PATTERN = (r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(Z|\+00:00)"
                    r"(?![\s\S])")
_UTC_TIME = re.compile(UTC_TIME_PATTERN)
# An IANA time zone's name as Jira's /myself gives it (``Europe/Moscow``, ``UTC``,
# ``America/Argentina/Buenos_Aires``, ``Etc/GMT+3``): no path of a file, no spaces.
TIME_ZONE_PATTERN = r"^[A-Za-z][A-Za-z0-9_+\-]*(/[A-Za-z0-9_+\-]+){0,2}(?![\s\S])"
_TIME_ZONE = re.compile(TIME_ZONE_PATTERN)


class Clock:
    """Wall-clock UTC time; services take one so tests can move time on."""

    def now(self) -> datetime:
        return datetime.now(UTC).replace(microsecond=0)


def iso(moment: datetime) -> str:
    """``moment`` in the hub's format."""
    return moment.astimezone(UTC).replace(microsecond=0).isoformat()


def parse_utc(value: object) -> datetime | None:
    """A UTC time in the hub's format (or with ``Z``) as a datetime; None when
    ``value`` is not one, or names no real date (``2026-02-30T…``)."""
    if not isinstance(value, str) or not _UTC_TIME.match(value):
        return None
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        return None


def after(moment: datetime, seconds: float) -> str:
    """The hub-format time ``seconds`` after ``moment``."""
    return iso(moment + timedelta(seconds=seconds))


def jira_to_utc(value: object) -> str | None:
    """A Jira time (``2026-10-22T13:05:11.000+0300``) in the hub's format, or None
    when it does not parse, names no instant (no offset), or names one that UTC
    cannot write (``0001-01-01T00:00:00.000+0300`` falls before year 1)."""
    if not isinstance(value, str):
        return None
    try:
        parsed = datetime.fromisoformat(value.strip())
    except ValueError:
        return None
    if parsed.utcoffset() is None:
        return None
    try:
        return iso(parsed)
    except OverflowError:
        return None


def known_zone(name: object) -> ZoneInfo | None:
    """The IANA time zone ``name`` names, or None when it has not the shape of a zone's name
    or the zone database does not hold it."""
    if not isinstance(name, str) or len(name) > 64 or not _TIME_ZONE.match(name):
        return None
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return None
