"""v4 → v5: the issue changelog, comment times in UTC, ``sync_run.history_at``.

``issue_comment.created_at`` is filled from ``created`` (a Jira time such as
``2026-10-22T13:05:11.000+0300``) converted to UTC at whole seconds
(``2026-10-22T10:05:11+00:00``). A time that does not parse, or carries no
offset and so names no instant, or whose instant falls outside the years
1–9999 once in UTC (``0001-01-01T00:00:00.000+0300``), gives NULL. Existing runs get
``history_at = NULL``.
"""

import sqlite3
from datetime import datetime

VERSION = 5


def jira_time_to_utc(value: object) -> str | None:
    """A Jira time string as the hub's UTC ISO-8601, or None if it names no instant."""
    if not isinstance(value, str):
        return None
    try:
        parsed = datetime.fromisoformat(value.strip())
    except ValueError:
        return None
    offset = parsed.utcoffset()
    if offset is None:
        return None
    # Naive arithmetic and formatting: the same instant as astimezone(utc),
    # at a third of the cost, which counts over a few hundred thousand comments.
    try:
        utc = parsed.replace(tzinfo=None, microsecond=0) - offset
    except OverflowError:  # at the calendar's ends: before year 1 or after 9999
        return None
    return utc.isoformat(timespec="seconds") + "+00:00"


def _two_digits(upper: int) -> frozenset[str]:
    return frozenset(f"{n:02d}" for n in range(upper))


_HOURS, _MINUTES, _DIGIT_PAIRS = _two_digits(24), _two_digits(60), _two_digits(100)
_MILLIS = frozenset(f"{n:03d}" for n in range(1000))


class JiraTimeConverter:
    """:func:`jira_time_to_utc` with a shortcut for Jira's own format.

    Jira writes ``YYYY-MM-DDTHH:MM:SS.mmm±HHMM``. For such a string the UTC
    date and hour depend only on its date, hour and offset (minutes too, for an
    offset such as +0530), which many comments share, so that part is converted
    once and cached; minutes and seconds are copied. Anything else takes the
    general path. Equal results are checked by tests/test_migration_steps.py.
    """

    def __init__(self) -> None:
        self._heads: dict[str, str | None] = {}

    def __call__(self, value: object) -> str | None:
        if not (
            type(value) is str
            and len(value) == 28
            and value[13] == ":" and value[16] == ":" and value[19] == "."
            and value[23] in "+-"
            and value[24:26] in _DIGIT_PAIRS
            and value[26:28] in _MINUTES
            and value[11:13] in _HOURS
            and value[14:16] in _MINUTES
            and value[17:19] in _MINUTES
            and value[20:23] in _MILLIS
        ):
            return jira_time_to_utc(value)
        cut = 13 if value[26:28] == "00" else 16
        key = value[:cut] + value[23:]
        head = self._heads.get(key, "")
        if head == "":
            probe = value[:cut] + ":00:00.000"[cut - 13:] + value[23:]
            utc = jira_time_to_utc(probe)
            head = self._heads[key] = utc[:cut] if utc else None
        if head is None:
            return None
        return head + value[cut:19] + "+00:00"


def apply(conn: sqlite3.Connection) -> None:
    conn.execute(
        """CREATE TABLE issue_change (
             key         TEXT NOT NULL,
             history_id  TEXT NOT NULL,
             item_no     INTEGER NOT NULL,
             author      TEXT,
             created     TEXT NOT NULL,
             created_at  TEXT,
             field       TEXT NOT NULL,
             field_type  TEXT,
             from_value  TEXT,
             from_string TEXT,
             to_value    TEXT,
             to_string   TEXT,
             PRIMARY KEY (key, history_id, item_no)
           )"""
    )
    conn.execute("CREATE INDEX issue_change_key_created ON issue_change (key, created_at)")
    conn.execute("CREATE INDEX issue_change_field_created ON issue_change (field, created_at)")
    conn.execute("ALTER TABLE issue_comment ADD COLUMN created_at TEXT")
    conn.execute("ALTER TABLE sync_run ADD COLUMN history_at TEXT")
    # One UPDATE with the conversion as an SQL function: the table is rewritten
    # once, inside SQLite, instead of a round trip per comment.
    conn.create_function("hub_v5_jira_time_to_utc", 1, JiraTimeConverter(), deterministic=True)
    conn.execute(
        "UPDATE issue_comment SET created_at = hub_v5_jira_time_to_utc(created)"
        " WHERE created IS NOT NULL"
    )
