"""JQL's dates read as Jira reads them, at fixed clocks and in fixed zones: absolute values in
the zone, periods from now, the date functions with their increments, whole days where Jira
compares whole days, a DST change in Berlin and a +03:00 zone, and Jira's words for the rest."""

from __future__ import annotations

from datetime import UTC, date, datetime
from zoneinfo import ZoneInfo

import pytest

from hub.services.search.jql.dates import day, is_date_function, moment, span
from hub.services.search.jql.tree import Empty, Function, JqlError, Value, ValueList

THURSDAY = datetime(2026, 10, 22, 10, 5, 11, tzinfo=UTC)   # Moscow 13:05, Berlin 12:05 (CEST)
LATE = datetime(2026, 10, 22, 22, 30, tzinfo=UTC)           # already Friday the 23rd in Moscow
AFTER_DST = datetime(2026, 10, 26, 10, 0, tzinfo=UTC)       # Monday; Berlin left CEST on the 25th
END_OF_MARCH = datetime(2026, 3, 31, 12, 0, tzinfo=UTC)
UTC_ZONE, MOSCOW, BERLIN = ZoneInfo("UTC"), ZoneInfo("Europe/Moscow"), ZoneInfo("Europe/Berlin")


def utc(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def value(text: str, quoted: bool = False) -> Value:
    return Value(text, quoted, 10)


def call(name: str, *args: str) -> Function:
    return Function(name, tuple(Value(a, True, 20 + i) for i, a in enumerate(args)), 14)


LAST = ".999999"

# (operand, now, zone, first instant, last instant (None: the same), why)
CASES = [
    (value("2026/10/22"), THURSDAY, UTC_ZONE, "2026-10-22 00:00", "2026-10-22 23:59:59" + LAST, "a whole day"),
    (value("2026-10-22"), THURSDAY, UTC_ZONE, "2026-10-22 00:00", "2026-10-22 23:59:59" + LAST, "dashes too"),
    (value("2026/10/22 13:05", True), THURSDAY, UTC_ZONE, "2026-10-22 13:05", "2026-10-22 13:05:59" + LAST,
     "a whole minute"),
    (value("2026-10-22 13:05"), THURSDAY, UTC_ZONE, "2026-10-22 13:05", "2026-10-22 13:05:59" + LAST, "dashes"),
    (value("2026/1/5"), THURSDAY, UTC_ZONE, "2026-01-05 00:00", "2026-01-05 23:59:59" + LAST, "one digit"),
    (value("2026/10/22"), THURSDAY, MOSCOW, "2026-10-21 21:00", "2026-10-22 20:59:59" + LAST, "Moscow's day"),
    (value("2026-10-22 13:05"), THURSDAY, MOSCOW, "2026-10-22 10:05", "2026-10-22 10:05:59" + LAST,
     "Moscow's wall time"),
    (value("-7d"), THURSDAY, UTC_ZONE, "2026-10-15 10:05:11", None, "a week ago to the second"),
    (value("-2w"), THURSDAY, MOSCOW, "2026-10-08 10:05:11", None, "a period ignores the zone"),
    (value("4h"), THURSDAY, UTC_ZONE, "2026-10-22 14:05:11", None, "unsigned is ahead"),
    (value("+4h"), THURSDAY, UTC_ZONE, "2026-10-22 14:05:11", None, "signed ahead"),
    (value("-1d 2h"), THURSDAY, UTC_ZONE, "2026-10-21 08:05:11", None, "the sign covers both parts"),
    (value("-4w 2d", True), THURSDAY, UTC_ZONE, "2026-09-22 10:05:11", None, "quoted, Jira's own example"),
    (value("-1w2d"), THURSDAY, UTC_ZONE, "2026-10-13 10:05:11", None, "parts without a space"),
    (value("90m"), THURSDAY, UTC_ZONE, "2026-10-22 11:35:11", None, "m is minutes"),
    (value("-7D"), THURSDAY, UTC_ZONE, "2026-10-15 10:05:11", None, "units in any case"),
    (value("1792576800000"), THURSDAY, UTC_ZONE, "2026-10-21 10:00", None, "a number is milliseconds"),
    (call("now"), THURSDAY, MOSCOW, "2026-10-22 10:05:11", None, "now is now in every zone"),
    (call("NOW"), THURSDAY, UTC_ZONE, "2026-10-22 10:05:11", None, "names in any case"),
    (call("startOfDay"), THURSDAY, UTC_ZONE, "2026-10-22 00:00", None, "today's midnight"),
    (call("startOfDay", "-1"), THURSDAY, UTC_ZONE, "2026-10-21 00:00", None, "the day's own unit"),
    (call("startOfDay", "1"), THURSDAY, UTC_ZONE, "2026-10-23 00:00", None, "unsigned is ahead"),
    (call("startOfDay", "+2h"), THURSDAY, UTC_ZONE, "2026-10-22 02:00", None, "a smaller unit after"),
    (call("startOfDay", "-1M"), THURSDAY, UTC_ZONE, "2026-09-22 00:00", None, "a month ago's day"),
    (call("endOfDay"), THURSDAY, UTC_ZONE, "2026-10-22 23:59:59" + LAST, None, "the day's last instant"),
    (call("endofday", "-1"), THURSDAY, UTC_ZONE, "2026-10-21 23:59:59" + LAST, None, "yesterday's end"),
    (call("startOfDay"), THURSDAY, MOSCOW, "2026-10-21 21:00", None, "Moscow's midnight"),
    (call("startOfDay"), LATE, MOSCOW, "2026-10-22 21:00", None, "already the 23rd in Moscow"),
    (call("startOfDay"), LATE, UTC_ZONE, "2026-10-22 00:00", None, "still the 22nd in UTC"),
    (call("startOfWeek"), THURSDAY, UTC_ZONE, "2026-10-18 00:00", None, "weeks start on Sunday"),
    (call("startOfWeek", "-1"), THURSDAY, UTC_ZONE, "2026-10-11 00:00", None, "last week's Sunday"),
    (call("endOfWeek"), THURSDAY, UTC_ZONE, "2026-10-24 23:59:59" + LAST, None, "and end on Saturday"),
    (call("startOfWeek"), THURSDAY, MOSCOW, "2026-10-17 21:00", None, "Moscow's Sunday"),
    (call("startOfMonth"), THURSDAY, UTC_ZONE, "2026-10-01 00:00", None, "the 1st"),
    (call("startOfMonth", "-1"), THURSDAY, UTC_ZONE, "2026-09-01 00:00", None, "last month's 1st"),
    (call("startOfMonth", "+14d"), THURSDAY, UTC_ZONE, "2026-10-15 00:00", None, "Jira's example: the 15th"),
    (call("endOfMonth"), THURSDAY, UTC_ZONE, "2026-10-31 23:59:59" + LAST, None, "the 31st's end"),
    (call("endOfMonth", "-1"), THURSDAY, UTC_ZONE, "2026-09-30 23:59:59" + LAST, None, "September has 30"),
    (call("endOfMonth", "+15d"), THURSDAY, UTC_ZONE, "2026-11-15 23:59:59" + LAST, None,
     "Jira's example: the 15th of next month"),
    (call("startOfYear"), THURSDAY, UTC_ZONE, "2026-01-01 00:00", None, "new year"),
    (call("startOfYear", "-1"), THURSDAY, UTC_ZONE, "2025-01-01 00:00", None, "last year"),
    (call("endOfYear"), THURSDAY, MOSCOW, "2026-12-31 20:59:59" + LAST, None, "Moscow's new year's eve"),
    (call("startOfDay", "-1M"), END_OF_MARCH, UTC_ZONE, "2026-02-28 00:00", None, "31 March less a month"),
    (call("endOfMonth", "-1"), END_OF_MARCH, UTC_ZONE, "2026-02-28 23:59:59" + LAST, None, "February's end"),
    # Berlin left summer time at 03:00 CEST on Sunday 25 October 2026: that day has 25 hours.
    (call("startOfDay"), AFTER_DST, BERLIN, "2026-10-25 23:00", None, "CET midnight"),
    (call("startOfDay", "-1"), AFTER_DST, BERLIN, "2026-10-24 22:00", None, "a calendar day back is CEST"),
    (value("-1d"), AFTER_DST, BERLIN, "2026-10-25 10:00", None, "a period is 24 hours"),
    (value("2026/10/25"), AFTER_DST, BERLIN, "2026-10-24 22:00", "2026-10-25 22:59:59" + LAST,
     "the 25-hour day"),
    (call("startOfWeek"), AFTER_DST, BERLIN, "2026-10-24 22:00", None, "Sunday began in CEST"),
    (call("endOfWeek"), AFTER_DST, BERLIN, "2026-10-31 22:59:59" + LAST, None, "Saturday ends in CET"),
    (value("2026/10/25 02:30"), AFTER_DST, BERLIN, "2026-10-25 00:30", "2026-10-25 00:30:59" + LAST,
     "a twice-met time is the first"),
    (value("2026/03/29 02:30"), AFTER_DST, BERLIN, "2026-03-29 01:30", "2026-03-29 01:30:59" + LAST,
     "a skipped time reads after the gap"),
    (value("2026/03/29"), AFTER_DST, BERLIN, "2026-03-28 23:00", "2026-03-29 21:59:59" + LAST,
     "the 23-hour day"),
]


@pytest.mark.parametrize(("operand", "now", "zone", "first", "last", "why"), CASES,
                         ids=[f"{c[0].text if isinstance(c[0], Value) else c[0].name}-{c[5]}" for c in CASES])
def test_dates_read_as_jira_reads_them(operand, now, zone, first, last, why):
    expected = (utc(first), utc(last or first))
    assert span(operand, now=now, zone=zone) == expected, why
    assert moment(operand, now=now, zone=zone) == expected[0]
    assert moment(operand, now=now, zone=zone, end=True) == expected[1]
    assert moment(operand, now=now, zone=zone).tzinfo == UTC


FORMATS = ("Valid formats include: 'yyyy/MM/dd HH:mm', 'yyyy-MM-dd HH:mm', 'yyyy/MM/dd', 'yyyy-MM-dd', "
           "or a period format e.g. '-5d', '4w 2d'.")

# (operand, the message, the character it is at)
REFUSED = [
    (value("2026/13/01"), f"Date value '2026/13/01' for field 'created' is invalid. {FORMATS}", 10),
    (value("2026/02/30"), f"Date value '2026/02/30' for field 'created' is invalid. {FORMATS}", 10),
    (value("2026/10/22 25:00"), f"Date value '2026/10/22 25:00' for field 'created' is invalid. {FORMATS}", 10),
    (value("2026-10-22T13:05"), f"Date value '2026-10-22T13:05' for field 'created' is invalid. {FORMATS}", 10),
    (value("2026/10-22"), f"Date value '2026/10-22' for field 'created' is invalid. {FORMATS}", 10),
    (value("yesterday"), f"Date value 'yesterday' for field 'created' is invalid. {FORMATS}", 10),
    (value("-7x"), f"Date value '-7x' for field 'created' is invalid. {FORMATS}", 10),
    (value("- d"), f"Date value '- d' for field 'created' is invalid. {FORMATS}", 10),
    (value("1792576800000", True), f"Date value '1792576800000' for field 'created' is invalid. {FORMATS}", 10),
    (value("-999999999w"), "Date value for field 'created' is out of range.", 10),
    (Empty(12), "The field 'created' takes a date, not EMPTY.", 12),
    (ValueList((value("-1d"),), 12), "The field 'created' takes a date, not a list of values.", 12),
    (call("currentUser"), "A value provided by the function 'currentUser' is invalid for the field 'created'.", 14),
    (call("now", "1"), "Function 'now' expected '0' arguments but received '1'.", 14),
    (call("startOfDay", "1", "2"), "Function 'startOfDay' expected between '0' and '1' arguments but "
     "received '2'.", 14),
    (call("startOfMonth", "x"), "Duration for function 'startOfMonth' should have the format "
     "(+/-)n(yMwdhm), e.g -1M for 1 month earlier.", 20),
    (call("startOfMonth", "-1w 2d"), "Duration for function 'startOfMonth' should have the format "
     "(+/-)n(yMwdhm), e.g -1M for 1 month earlier.", 20),
    (call("startOfYear", "-99999"), "Date value for field 'created' is out of range.", 14),
]


@pytest.mark.parametrize(("operand", "message", "at"), REFUSED, ids=[m for _, m, _ in REFUSED])
def test_what_is_no_date_is_refused_in_jiras_words_at_its_place(operand, message, at):
    with pytest.raises(JqlError) as refused:
        moment(operand, now=THURSDAY, zone=UTC_ZONE)
    assert (refused.value.message, refused.value.at) == (message, at)
    assert str(refused.value).endswith(f"(line 1, character {at})")


def test_the_error_names_the_field_it_was_given():
    with pytest.raises(JqlError, match=r"^Date value 'soon' for field 'updated' is invalid"):
        moment(value("soon"), now=THURSDAY, zone=UTC_ZONE, field="updated")


# duedate holds a day without a time: (operand, now, zone, the day, why)
DAYS = [
    (value("2026/10/22"), THURSDAY, UTC_ZONE, date(2026, 10, 22), "the day written"),
    (value("2026/10/22 23:30"), THURSDAY, MOSCOW, date(2026, 10, 22), "a time written is dropped"),
    (value("-1d"), THURSDAY, UTC_ZONE, date(2026, 10, 21), "yesterday"),
    (call("now"), LATE, UTC_ZONE, date(2026, 10, 22), "today in UTC"),
    (call("now"), LATE, MOSCOW, date(2026, 10, 23), "already tomorrow in Moscow"),
    (call("endOfWeek"), THURSDAY, MOSCOW, date(2026, 10, 24), "Saturday"),
    (call("startOfMonth", "-1"), THURSDAY, BERLIN, date(2026, 9, 1), "last month's 1st"),
]


@pytest.mark.parametrize(("operand", "now", "zone", "expected", "why"), DAYS, ids=[d[4] for d in DAYS])
def test_a_due_date_is_a_day_in_the_zone(operand, now, zone, expected, why):
    assert day(operand, now=now, zone=zone) == expected, why


def test_due_date_errors_name_duedate():
    with pytest.raises(JqlError, match=r"for field 'duedate' is invalid"):
        day(value("never"), now=THURSDAY, zone=UTC_ZONE)


@pytest.mark.parametrize(("name", "known"), [("now", True), ("STARTOFDAY", True), ("endOfYear", True),
                                             ("currentUser", False), ("openSprints", False)])
def test_the_date_functions_are_known_by_name(name, known):
    assert is_date_function(name) is known
