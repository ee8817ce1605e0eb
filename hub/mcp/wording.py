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


# -- writes to Jira: what a write's status means, and what to do next ---------------------------

# The tool that asks for each operation again (a conflict's way forward).
_TOOL_OF = {"edit": "update_issue", "transition": "transition_issue"}
# At most this many of a field's allowed values are named (a user picker may list thousands).
ALLOWED_SHOWN = 50


def write_said(write: Mapping[str, Any], hints: list[str] | None = None) -> str:
    """A write's status in words an assistant can act on: what happened in Jira, and what to do.

    ``hints`` are further sentences for a failed write (what the fields Jira named allow).
    """
    status, number, what = write["status"], write["id"], _asked(write)
    if status == "pending":
        return (f"Write {number} ({what}) is queued; the agent beside Jira has not taken it yet — Jira may "
                f"be out of reach. Nothing is in Jira yet; check later with get_write({number}).")
    if status == "applying":
        return (f"Write {number} ({what}) is being applied: the agent beside Jira has taken it. Check "
                f"again in a moment with get_write({number}).")
    if status == "done":
        return f"Done in Jira (write {number}): {_made(write)}. The mirror holds the issue as Jira has it now."
    if status == "conflict":
        return _conflict(write)
    if status == "failed":
        reason = write.get("error") or "no reason given"
        said = f"Write {number} ({what}) failed; nothing of it was written to Jira: {reason}"
        return " ".join([said.rstrip(".") + ".", *(hints or [])])
    if status == "cancelled":
        return f"Write {number} ({what}) was cancelled before any agent took it; nothing was written to Jira."
    return f"Write {number} ({what}) is {status}."


def allowed_text(name: str, allowed: list[Any]) -> str:
    """What a field allows, in a sentence: ``Resolution allows: Fixed, Won't Fix.``"""
    shown = ", ".join(str(value) for value in allowed[:ALLOWED_SHOWN])
    more = f" and {len(allowed) - ALLOWED_SHOWN} more" if len(allowed) > ALLOWED_SHOWN else ""
    return f"{name} allows: {shown}{more}."


def _value(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _asked(write: Mapping[str, Any]) -> str:
    """The write as asked, in a few words: ``comment on AURORA-1``, ``transition of AURORA-1 to Resolved``."""
    op, key, params = write["op"], write.get("key"), write.get("params") or {}
    if op == "transition":
        return f"transition of {key} to {params.get('to')}"
    if op == "edit":
        return f"edit of {key}: {', '.join(params.get('fields') or {})}"
    if op == "create_issue":
        return f"new {params.get('issue_type')} in {params.get('project')}"
    if op == "log_work":
        return f"work log of {params.get('time_spent')} on {key}"
    if op == "link":
        other = params.get("outward") or params.get("inward")
        return f"link {params.get('type')} between {key} and {other}"
    return f"{op.replace('_', ' ')} on {key}"


def _made(write: Mapping[str, Any]) -> str:
    """What Jira made of a done write, from its ``result``."""
    op, key, result = write["op"], write.get("key"), write.get("result") or {}
    if op == "comment" and result.get("comment_id"):
        return f"comment {result['comment_id']} added to {key}"
    if op == "edit_comment":
        return f"comment {result.get('comment_id') or (write.get('params') or {}).get('comment_id')} of {key} changed"
    if op == "transition":
        return f"{key} went through transition {result.get('transition')} ({_asked(write)})"
    if op == "edit":
        return f"{key}'s {', '.join(result.get('fields') or (write.get('params') or {}).get('fields') or {})} set"
    if op == "log_work" and result.get("worklog_id"):
        return f"work log {result['worklog_id']} added to {key}"
    if op == "create_issue" and result.get("key"):
        return f"issue {result['key']} created" + (f" (id {result['id']})" if result.get("id") else "")
    if op == "link" and result.get("link_id"):
        return f"link {result['link_id']} made ({_asked(write)})"
    if op == "attach" and result.get("attachment_id"):
        return f"attachment {result['attachment_id']} added to {key}"
    return f"{_asked(write)} applied"


def _conflict(write: Mapping[str, Any]) -> str:
    """A conflict: each field as the maker saw it and as Jira holds it now, and the way forward."""
    conflict = write.get("conflict") or {}
    fields = "; ".join(f"{field}: you saw {_value(values.get('base'))}, Jira has {_value(values.get('jira'))} now"
                       for field, values in conflict.items() if isinstance(values, Mapping))
    now = {field: values.get("jira") for field, values in conflict.items() if isinstance(values, Mapping)}
    again = _TOOL_OF.get(write["op"], "the same tool")
    # An edit writes nothing when any field conflicts; a transition, nothing of the conflicting fields.
    kept = "Nothing was written" if write["op"] == "edit" else "Nothing of those fields was written"
    return (f"Write {write['id']} ({_asked(write)}) was not written: Jira changed since the issue was read "
            f"({fields}). {kept}. Read the issue again (get_issue), decide "
            f"whether the change still makes sense, then call {again} again with base {_value(now)}.")
