"""JQL's dates: absolute and relative values and the date functions, read as Jira reads them.

Pure functions over an operand of the tree (:mod:`hub.services.search.jql.tree`), the query's
``now`` and the time zone dates are read in (the Jira user's, see docs/jql.md "Dates and time
zones"); every answer is an aware UTC datetime, or a calendar date for ``duedate``.

What Jira accepts, and so what is read here:

- absolute ``yyyy/MM/dd``, ``yyyy-MM-dd``, each optionally followed by `` HH:mm``, read as wall
  time in the zone (a wall time that a DST change skips reads as the time after the gap, as
  Java's lenient calendar does; one that happens twice reads as its first occurrence);
- a period, ``-5d``, ``4w 2d``, ``-1w2d``, ``90m``: units ``w`` (7 days), ``d`` (24 hours), ``h``,
  ``m`` (minutes), optionally signed, added to ``now`` as elapsed time (so ``-1d`` is 24 hours
  even across a DST change, as in Jira);
- an unquoted whole number: milliseconds since 1970 (Jira reads a number so too);
- ``now()``, ``startOfDay()``, ``endOfDay()``, ``startOfWeek()``, ``endOfWeek()``,
  ``startOfMonth()``, ``endOfMonth()``, ``startOfYear()``, ``endOfYear()``, each with an optional
  increment ``(+/-)n(y|M|w|d|h|m)`` (``-1``: the function's own unit), calendar arithmetic in
  the zone. Weeks start on Sunday, as in Jira's default (US English) locale.

Precision: Jira's ``=``, ``!=``, ``<``, ``<=``, ``>``, ``>=`` and ``IN`` compare with one instant
(:func:`moment`): ``2026/10/22`` is that midnight in the zone, ``2026/10/22 13:05`` that minute's
first second. Only the history predicates (``ON``, ``DURING``, ``BEFORE``, ``AFTER``) read a
value with Jira's "implied precision": a value written to the day stands for that whole day, one
written to the minute for that whole minute; :func:`span` gives the first and last instant. A
period or a function is one instant. The ends of periods (``endOfDay()`` …) are their last
microsecond, which the comparisons take to the second (Jira's index keeps whole seconds).
"""

from __future__ import annotations

import calendar
import re
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

from hub.services.search.jql.tree import Empty, Function, JqlError, Operand, Value, ValueList

_FORMATS = "'yyyy/MM/dd HH:mm', 'yyyy-MM-dd HH:mm', 'yyyy/MM/dd', 'yyyy-MM-dd'"
_ABSOLUTE = re.compile(r"^(\d{4})([/-])(\d{1,2})\2(\d{1,2})(?:\s+(\d{1,2}):(\d{2}))?$")
_PERIOD = re.compile(r"^([+-])?\s*((?:\d+\s*[wdhmWDHM]\s*)+)$")
_PERIOD_PART = re.compile(r"(\d+)\s*([wdhmWDHM])")
_INCREMENT = re.compile(r"^([+-])?(\d+)([yMwdhm])?$")
_MILLIS = re.compile(r"^-?\d{1,15}$")
_PERIOD_SECONDS = {"w": 7 * 86400, "d": 86400, "h": 3600, "m": 60}
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_TICK = timedelta(microseconds=1)

# The date functions: name in lower case -> (period, whether it is the period's end). The
# period is also the unit of an increment written without one (startOfMonth(-1)).
_FUNCTIONS = {
    "startofday": ("d", False), "endofday": ("d", True),
    "startofweek": ("w", False), "endofweek": ("w", True),
    "startofmonth": ("M", False), "endofmonth": ("M", True),
    "startofyear": ("y", False), "endofyear": ("y", True),
}
# Units from the largest down: an increment in the period's own unit or a larger one moves the
# day before the period is taken (endOfMonth(-1) is the end of last month), a smaller one is
# added to the period's start or end (startOfMonth("+14d") is the 15th of this month).
_RANK = {"y": 6, "M": 5, "w": 4, "d": 3, "h": 2, "m": 1}

DATE_FUNCTIONS = ("now", "startOfDay", "endOfDay", "startOfWeek", "endOfWeek", "startOfMonth",
                  "endOfMonth", "startOfYear", "endOfYear")


def is_date_function(name: str) -> bool:
    """Whether ``name`` (any case) is one of JQL's date functions read here."""
    return name.lower() == "now" or name.lower() in _FUNCTIONS


def moment(operand: Operand, *, now: datetime, zone: ZoneInfo, end: bool = False,
           field: str = "created") -> datetime:
    """The instant (UTC) ``operand`` names, for comparing a date-time field such as ``created``.

    ``end`` asks for the last instant of what a day- or minute-precision value stands for
    (``2026/10/22`` → 23:59:59.999999 of that day in ``zone``); for a period or a function it
    changes nothing. ``field`` is only for the error's words. Raises :class:`JqlError` at the
    operand for anything that is not a date.
    """
    first, last = span(operand, now=now, zone=zone, field=field)
    return last if end else first


def span(operand: Operand, *, now: datetime, zone: ZoneInfo,
         field: str = "created") -> tuple[datetime, datetime]:
    """The first and last instant (UTC) ``operand`` stands for: a whole day for
    ``2026/10/22``, a whole minute for ``2026/10/22 13:05``, one instant (both the same) for a
    period, a number or a function.

    How the history predicates read them, as Jira does (implied precision): ``ON`` first ≤ x ≤
    last, ``BEFORE`` x < first, ``AFTER`` x > last, ``DURING (a, b)`` from a's first to b's last.
    """
    now = _utc(now)
    try:
        return _span(operand, now=now, zone=zone, field=field)
    except OverflowError:  # a date before year 1 or after 9999, as -99999999w is
        raise JqlError(f"Date value for field '{field}' is out of range.",
                       getattr(operand, "at", None)) from None


def _span(operand: Operand, *, now: datetime, zone: ZoneInfo,
          field: str) -> tuple[datetime, datetime]:
    if isinstance(operand, Function):
        instant = _function(operand, now=now, zone=zone, field=field)
        return instant, instant
    if not isinstance(operand, Value):
        raise JqlError(f"The field '{field}' takes a date, not {_describe(operand)}.",
                       getattr(operand, "at", None))
    text = operand.text.strip()
    absolute = _ABSOLUTE.match(text)
    if absolute:
        year, _, month, day, hour, minute = absolute.groups()
        try:
            wall = datetime(int(year), int(month), int(day),
                            int(hour) if hour is not None else 0,
                            int(minute) if minute is not None else 0)
        except ValueError:
            raise _invalid(operand, field) from None
        first = _localise(wall, zone)
        # A day is the wall-clock day (23 or 25 hours across a DST change); a minute is 60 s.
        following = _localise(wall + timedelta(days=1), zone) if hour is None else first + timedelta(minutes=1)
        return first, following - _TICK
    period = _PERIOD.match(text)
    if period:
        seconds = sum(int(n) * _PERIOD_SECONDS[unit.lower()]
                      for n, unit in _PERIOD_PART.findall(period.group(2)))
        instant = now + timedelta(seconds=-seconds if period.group(1) == "-" else seconds)
        return instant, instant
    if not operand.quoted and _MILLIS.match(text):
        instant = _EPOCH + timedelta(milliseconds=int(text))
        return instant, instant
    raise _invalid(operand, field)


def day(operand: Operand, *, now: datetime, zone: ZoneInfo, field: str = "duedate") -> date:
    """The calendar day ``operand`` names in ``zone``, for a field that holds a date without
    a time (``duedate``): ``2026/10/22`` and ``2026/10/22 13:05`` are that day, ``-1d`` and the
    functions the day their instant falls on in ``zone`` (``duedate <= endOfWeek()``: due by
    Saturday). Compare ``duedate`` (``yyyy-MM-dd``) with :meth:`date.isoformat` of it."""
    first, _ = span(operand, now=now, zone=zone, field=field)
    return first.astimezone(zone).date()


def _function(function: Function, *, now: datetime, zone: ZoneInfo, field: str) -> datetime:
    name = function.name.lower()
    if name == "now":
        if function.args:
            raise JqlError(f"Function 'now' expected '0' arguments but received "
                           f"'{len(function.args)}'.", function.at)
        return now
    if name not in _FUNCTIONS:
        raise JqlError(f"A value provided by the function '{function.name}' is invalid for the "
                       f"field '{field}'.", function.at)
    if len(function.args) > 1:
        raise JqlError(f"Function '{function.name}' expected between '0' and '1' arguments but "
                       f"received '{len(function.args)}'.", function.at)
    period, is_end = _FUNCTIONS[name]
    amount, unit = 0, period
    if function.args:
        increment = _INCREMENT.match(function.args[0].text.strip())
        if not increment:
            raise JqlError(f"Duration for function '{function.name}' should have the format "
                           "(+/-)n(yMwdhm), e.g -1M for 1 month earlier.", function.args[0].at)
        sign, digits, written = increment.groups()
        amount = -int(digits) if sign == "-" else int(digits)
        unit = written or period
    wall = now.astimezone(zone).replace(tzinfo=None)
    if _RANK[unit] >= _RANK[period]:
        wall = _add_wall(wall, amount, unit)
        amount = 0
    start, following = _period(wall, period)
    instant = _localise(following, zone) - _TICK if is_end else _localise(start, zone)
    if amount:
        if unit in ("h", "m"):
            instant += timedelta(hours=amount) if unit == "h" else timedelta(minutes=amount)
        else:
            instant = _localise(_add_wall(instant.astimezone(zone).replace(tzinfo=None),
                                          amount, unit), zone)
    return instant


def _period(wall: datetime, period: str) -> tuple[datetime, datetime]:
    """The wall-clock start of the day/week/month/year holding ``wall``, and the next one's."""
    midnight = wall.replace(hour=0, minute=0, second=0, microsecond=0)
    if period == "d":
        return midnight, midnight + timedelta(days=1)
    if period == "w":
        start = midnight - timedelta(days=(midnight.weekday() + 1) % 7)  # back to Sunday
        return start, start + timedelta(days=7)
    if period == "M":
        start = midnight.replace(day=1)
        return start, _add_wall(start, 1, "M")
    start = midnight.replace(month=1, day=1)
    return start, start.replace(year=start.year + 1)


def _add_wall(wall: datetime, amount: int, unit: str) -> datetime:
    """``wall`` moved by ``amount`` units as Java's calendar moves it: months and years keep
    the day of the month where it exists (31 January + 1 month is 28 or 29 February), days and
    weeks keep the wall time, hours and minutes are elapsed time (the caller's, here wall)."""
    if unit in ("y", "M"):
        months = wall.year * 12 + wall.month - 1 + (amount * 12 if unit == "y" else amount)
        year, month = divmod(months, 12)
        month += 1
        if not 1 <= year <= 9999:
            raise OverflowError(year)
        return wall.replace(year=year, month=month,
                            day=min(wall.day, calendar.monthrange(year, month)[1]))
    days = {"w": 7, "d": 1}.get(unit)
    if days is not None:
        return wall + timedelta(days=amount * days)
    return wall + (timedelta(hours=amount) if unit == "h" else timedelta(minutes=amount))


def _localise(wall: datetime, zone: ZoneInfo) -> datetime:
    """Wall time in ``zone`` as UTC; a skipped wall time reads as the same distance after the
    gap's start (02:30 on a spring-forward night is 03:30), a repeated one as the first."""
    # fold=0 reads a skipped time with the offset from before the gap (PEP 495), as Java does.
    return wall.replace(tzinfo=zone, fold=0).astimezone(UTC)


def _utc(value: datetime) -> datetime:
    if value.tzinfo is None:
        raise ValueError("now must be an aware datetime")
    return value.astimezone(UTC)


def _invalid(operand: Value, field: str) -> JqlError:
    return JqlError(f"Date value '{operand.text}' for field '{field}' is invalid. Valid formats "
                    f"include: {_FORMATS}, or a period format e.g. '-5d', '4w 2d'.", operand.at)


def _describe(operand: Operand) -> str:
    if isinstance(operand, Empty):
        return "EMPTY"
    if isinstance(operand, ValueList):
        return "a list of values"
    return "this value"
