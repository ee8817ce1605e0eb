"""Time and Jira's shapes for the demo's sample project (``demo/sample.py``): a clock of working
hours over the six weeks before the demo's "now", its sprints as Jira's Sprint field writes them, and
small builders of changelog items, durations and a screenshot."""

from __future__ import annotations

import bisect
import struct
import zlib
from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from demo.jirashapes import object_sprint, user

ZONE = ZoneInfo("Europe/Moscow")
NOW = datetime(2026, 12, 2, 16, 40, tzinfo=ZONE)  # the demo's "now": a Wednesday of sprint 14
START = NOW - timedelta(days=42)
BOARD = 1  # the scrum board the sprints belong to
SPRINTS = [  # id, name, state, first day (a Monday), goal
    (20, "AURORA Sprint 12", "closed", date(2026, 10, 26), "The agent pages by id"),
    (21, "AURORA Sprint 13, [hotfix]", "closed", date(2026, 11, 9), "Writes through the agent"),
    (22, "AURORA Sprint 14", "active", date(2026, 11, 23), "Act on issues from the page"),
    (23, "AURORA Sprint 15", "future", date(2026, 12, 7), None),
]


class Clock:
    """Working time (09:00–19:00 on weekdays) from :data:`START` to :data:`NOW` as one line: ``at(x)``
    is the moment a fraction ``x`` of it along, so events drawn in order stay in order."""

    def __init__(self):
        self.starts: list[datetime] = []
        self.lengths: list[float] = []
        day = START.date()
        while day <= NOW.date():
            opens = datetime.combine(day, time(9), ZONE)
            length = min(10 * 3600, (NOW - opens).total_seconds())
            if day.weekday() < 5 and length > 0:
                self.starts.append(opens)
                self.lengths.append(length)
            day += timedelta(days=1)
        self.total = sum(self.lengths)
        self.ends = [sum(self.lengths[:i + 1]) for i in range(len(self.lengths))]

    def at(self, x: float) -> datetime:
        seconds = min(max(x, 0.0), 0.999999) * self.total
        i = bisect.bisect_right(self.ends, seconds)
        return self.starts[i] + timedelta(seconds=int(seconds - (self.ends[i - 1] if i else 0)))


def stamp(moment: datetime) -> str:
    """A moment as Jira writes it in the user's zone: ``2026-11-23T10:15:00.000+0300``."""
    return moment.strftime("%Y-%m-%dT%H:%M:%S.000%z")


def sprint_dates(first: date) -> tuple[datetime, datetime]:
    """A two-week sprint's start (its first Monday, 10:00) and end (the second Friday, 18:00)."""
    return datetime.combine(first, time(10), ZONE), datetime.combine(first + timedelta(days=11), time(18), ZONE)


def sprint_value(sid: int, name: str, state: str, first: date, goal: str | None) -> str | dict:
    """A sprint as the Sprint field holds it: GreenHopper's text for a started one (Jira Server), the
    object form later Data Center versions write for the future one."""
    starts, ends = sprint_dates(first)
    if state == "future":
        return {**object_sprint(sid, name, state, board=BOARD, goal=goal),
                "startDate": starts.isoformat(timespec="milliseconds"),
                "endDate": ends.isoformat(timespec="milliseconds")}
    begins, ends_at = starts.isoformat(timespec="milliseconds"), ends.isoformat(timespec="milliseconds")
    complete = ends_at if state == "closed" else "<null>"
    return (f"com.atlassian.greenhopper.service.sprint.Sprint@{sid:x}a2b[id={sid},rapidViewId={BOARD},"
            f"state={state.upper()},name={name},goal={goal or ''},startDate={begins},endDate={ends_at},"
            f"completeDate={complete},sequence={sid}]")


def item(field: str, old: dict | None, new: dict | None) -> dict:
    """A changelog item of a field whose values are named things (a status, a priority, a resolution)."""
    return {"field": field, "fieldtype": "jira", "from": old and old["id"], "fromString": old and old["name"],
            "to": new and new["id"], "toString": new and new["name"]}


def user_item(old: str | None, new: str | None) -> dict:
    """An assignee change as Jira Server logs it: the users' keys and display names."""
    was, now = old and user(old), new and user(new)
    return {"field": "assignee", "fieldtype": "jira", "from": was and was["key"],
            "fromString": was and was["displayName"], "to": now and now["key"], "toString": now and now["displayName"]}


def duration(seconds: int) -> str:
    """Seconds as Jira writes a duration (8-hour days): "1d 4h", "30m"."""
    days, rest = divmod(seconds, 8 * 3600)
    hours, minutes = divmod(rest // 60, 60)
    return " ".join(f"{n}{u}" for n, u in ((days, "d"), (hours, "h"), (minutes, "m")) if n) or "0m"


def png(width: int, height: int, rgb: tuple[int, int, int]) -> bytes:
    """A plain PNG of one colour: the screenshot a bug report shows inline."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    rows = b"".join(b"\x00" + bytes(rgb) * width for _ in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))
