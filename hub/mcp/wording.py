"""How the tools word what the hub answers as data: durations, custom field values, links.

The hub keeps Jira's values as Jira gave them (seconds, flattened JSON); an
assistant reads them best as a person reads Jira's own issue page: ``2h 30m``,
``Story Points: 5``, ``blocks AURORA-13``. Pure functions, no requests.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

# Jira's time tracking notation with its default working time: a day of 8 hours, a week of 5 days.
MINUTE = 60
HOUR = 60 * MINUTE
DAY = 8 * HOUR
WEEK = 5 * DAY
_UNITS = (("w", WEEK), ("d", DAY), ("h", HOUR), ("m", MINUTE))

# A custom field's value is shown up to this many characters (a text field can hold a
# whole document): enough to read it, bounded however much a team writes into one.
CUSTOM_VALUE_CHARS = 1000


def duration(seconds: int | None) -> str | None:
    """``seconds`` in Jira's notation (``1w 2d 3h 30m``); seconds under a minute are left out.

    ``0`` is ``0m``, as Jira writes an exhausted estimate; None stays None (no value).
    """
    if seconds is None:
        return None
    left, parts = max(0, int(seconds)), []
    for unit, size in _UNITS:
        count, left = divmod(left, size)
        if count:
            parts.append(f"{count}{unit}")
    return " ".join(parts) or "0m"


def custom_value(value: Any) -> str:
    """A custom field's flattened value as text: lists joined with ``, ``, a cascading select
    as ``parent / child``, numbers without a needless ``.0``, anything else as compact JSON;
    cut to :data:`CUSTOM_VALUE_CHARS`, ending in ``…`` when cut."""
    return _cut(_text(value))


def custom_fields(fields: Mapping[str, Mapping[str, Any]]) -> dict[str, str]:
    """The stored ``custom_fields`` (id → {name, type, custom, value}) by display name, in name order.

    Two fields may share a display name in Jira: each such one is named with its id too,
    ``Team (customfield_10201)``, so that none hides another.
    """
    names = [str(field.get("name") or field_id) for field_id, field in fields.items()]
    shared = {name for name in names if names.count(name) > 1}
    shown = {}
    for (field_id, field), name in zip(fields.items(), names, strict=True):
        shown[f"{name} ({field_id})" if name in shared else name] = custom_value(field.get("value"))
    return dict(sorted(shown.items(), key=lambda item: (item[0].casefold(), item[0])))


def link_text(phrase: str, key: str) -> str:
    """A link as Jira words it from this issue's side: ``blocks AURORA-13``, ``is blocked by OTHER-7``."""
    return f"{phrase} {key}"


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, int | float | str):
        return str(value)
    if isinstance(value, list):
        return ", ".join(_text(item) for item in value)
    if isinstance(value, dict) and set(value) <= {"parent", "child"} and "parent" in value:
        return _text(value["parent"]) + (f" / {_text(value['child'])}" if value.get("child") is not None else "")
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def _cut(text: str) -> str:
    return text if len(text) <= CUSTOM_VALUE_CHARS else text[:CUSTOM_VALUE_CHARS - 1] + "…"


def moved(asked: str, key: str, moved_from: list[str]) -> str | None:
    """What to say of an issue Jira moved: the key asked is an old one, and the keys it had."""
    if not moved_from:
        return None
    had = ", ".join(moved_from)
    if asked != key:
        return f"{asked} is an old key: Jira moved the issue to {key} (its keys before: {had})"
    return f"Jira moved this issue to {key} from {had}"
