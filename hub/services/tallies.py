"""Running totals kept in the ``setting`` table, for figures no row records.

A lease that runs out and a file that cleanup removes leave no row behind to
count, and they happen in whichever process runs the periodic tasks; ``GET
/metrics`` in the API process reads the totals from here. Keys are
``tally.<what>``, values whole numbers as text; they only grow.

- ``tally.lease_expired.requeued``, ``tally.lease_expired.failed``
- ``tally.cleanup.<rule>.files``, ``tally.cleanup.<rule>.bytes`` (rules of
  :mod:`hub.services.files.cleanup`)
"""

from __future__ import annotations

from collections.abc import Mapping

from hub.db import database

PREFIX = "tally."
LEASE_EXPIRED = PREFIX + "lease_expired"
CLEANUP = PREFIX + "cleanup"

_ADD = ("INSERT INTO setting (key, value) VALUES {rows} "
        "ON CONFLICT (key) DO UPDATE SET value = CAST(setting.value AS BIGINT) + CAST(excluded.value AS BIGINT)")


def add_tallies(amounts: Mapping[str, int]) -> None:
    """Add each amount to its total. Call inside the write transaction of what
    is counted, so that the two commit (or roll back) together; zeros are skipped.
    One statement however many totals change."""
    # In key order: two writers adding to the same totals lock their rows in the same order.
    rows = [(key, str(int(n))) for key, n in sorted(amounts.items()) if n]
    if rows:
        database.execute_sql(_ADD.format(rows=", ".join("(?, ?)" for _ in rows)),
                             [v for row in rows for v in row])


def read_tallies() -> dict[str, int]:
    """Every total, by key."""
    rows = database.execute_sql("SELECT key, value FROM setting WHERE key >= ? AND key < ?",
                                (PREFIX, PREFIX[:-1] + chr(ord(PREFIX[-1]) + 1)))
    return {key: int(value) for key, value in rows}
