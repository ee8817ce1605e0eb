"""A write checked at the edge against what the mirror knows, before anything is queued.

Each refusal is a ContractError (422) naming the field (``to``, ``fields.resolution``,
``issue_type``, ...). What the mirror cannot know is left to Jira, whose refusal ends the write
``failed`` in Jira's own words: a screen the mirror holds no copy of (``transitions``,
``edit_fields`` or a create screen still null, from an agent before protocol v19) is not checked,
nor a field a transition's screen does not list (Jira's ``transitions.fields`` is known to leave
some out).
"""

from __future__ import annotations

import re
from datetime import datetime

from peewee import fn

from hub.errors import ContractError
from hub.models import CreateMeta, Issue, IssueLink, JiraCatalogue, JiraUser
from hub.services.mirror.aliases import current_issue
from hub.services.writes import fields as names
from hub.services.writes.ops import LISTS
from hub.vocabulary import CREATE_ISSUE, EDIT, LINK, LOG_WORK, REMOVE_LINK, TRANSITION

# Jira's duration: numbers with its units (w, d, h, m), "1w 2d 3h 30m", "1.5h"; a bare number is minutes.
_DURATION = re.compile(r"^\s*(?:\d+(?:\.\d+)?\s*[wdhm]\s*)+$|^\s*\d+\s*$", re.IGNORECASE)
_AMOUNT = re.compile(r"(\d+(?:\.\d+)?)\s*([wdhm]?)", re.IGNORECASE)
# What a create screen always holds that a request gives otherwise (or Jira fills: the reporter).
_CREATE_OWN = frozenset({"project", "issuetype", "summary", "reporter"})
# A listing of a screen's choices is cut after this many, as a person reads it.
_LISTED = 20


def check(op: str, key: str | None, params: dict) -> Issue | None:
    """The issue ``key`` names (its current key, should it have moved), once the write is one the
    mirror does not refuse; None for a new issue."""
    if op == CREATE_ISSUE:
        _create_issue(params)
        return None
    issue = current_issue(key or "")
    if issue is None:
        raise ContractError(f"key: no issue {key!r} in the mirror; a write goes to an issue the hub "
                            "mirrors (refresh it first)", "key")
    if issue.gone_at is not None:
        raise ContractError(f"key: issue {issue.key} is gone from Jira ({issue.gone_reason}); "
                            "nothing can be written to it", "key")
    if op == TRANSITION:
        _transition(issue, params)
    elif op == EDIT:
        _edit(issue, params.get("fields") or {})
    elif op == LOG_WORK:
        _log_work(params)
    elif op == LINK:
        _link(params)
    elif op == REMOVE_LINK and "link_id" not in params:
        _remove_link(issue, params)
    return issue


def _transition(issue: Issue, params: dict) -> None:
    """``to`` among the issue's transitions (target status, then name, then id); its screen's
    required fields given, and each value given among the field's allowed values."""
    offered = issue.transitions
    if offered is None:
        return
    to = str(params["to"]).casefold()
    chosen = next((t for member in ("to", "name", "id") for t in offered
                   if str(t.get(member) or "").casefold() == to), None)
    if chosen is None:
        ways = ", ".join(f"{t.get('to')} ({t.get('name')})" for t in offered)
        ways = ways or "nowhere (Jira offers the agent no transition from it)"
        raise ContractError(f"to: {issue.key} is {issue.status}; it can go to: {ways}; {params['to']!r} is "
                            "none of those (a target status, a transition's name or its id)", "to")
    screen = chosen.get("fields") or {}
    given = params.get("fields") or {}
    for field_id, meta in screen.items():
        if isinstance(meta, dict) and meta.get("required") and not names.given(given, field_id, meta):
            name = names.mirror_name(field_id)
            raise ContractError(f"fields.{name}: the transition {chosen.get('name')} ({issue.key} to "
                                f"{chosen.get('to')}) requires {meta.get('name') or name}{_choices(meta)}",
                                f"fields.{name}")
    for name, value in given.items():
        found = names.on_screen(screen, name)
        if found is not None:
            _allowed(name, value, found[1], f"the transition {chosen.get('name')}'s screen")


def _edit(issue: Issue, given: dict) -> None:
    """Each field on the issue's edit screen, its value among those allowed; a priority in Jira's
    catalogue and an assignee a user of Jira's, so far as the mirror knows them."""
    screen = issue.edit_fields
    for name, value in given.items():
        if screen is not None:
            found = names.on_screen(screen, name)
            if found is None:
                editable = ", ".join(sorted(names.mirror_name(f) for f in screen))
                raise ContractError(f"fields.{name}: not on {issue.key}'s edit screen in Jira; it can edit: "
                                    f"{editable or 'nothing'}", f"fields.{name}")
            _allowed(name, value, found[1], f"{issue.key}'s edit screen")
        if names.jira_id(name) == "priority":
            _catalogued("priority", "priorities", name, value)
        elif names.jira_id(name) == "assignee":
            _user(name, value)


def _allowed(name: str, value: object, meta: dict, where: str) -> None:
    """``value`` (a name, a list of names, or add/remove lists of them) among ``meta``'s allowed
    values, in any case; a field whose values Jira does not list takes anything here."""
    allowed = meta.get("allowed")
    if not isinstance(allowed, list):
        return
    if isinstance(value, dict) and name in LISTS:
        values = [*(value.get("add") or []), *(value.get("remove") or [])]
    elif isinstance(value, list):
        values = value
    else:
        values = [value]
    folded = {str(a).casefold() for a in allowed}
    for one in values:
        if isinstance(one, str | int | float) and not isinstance(one, bool) and str(one).casefold() not in folded:
            raise ContractError(f"fields.{name}: {one!r} is not allowed on {where}{_choices(meta)}",
                                f"fields.{name}")


def _choices(meta: dict) -> str:
    allowed = meta.get("allowed")
    if not isinstance(allowed, list) or not allowed:
        return ""
    more = f", … ({len(allowed) - _LISTED} more)" if len(allowed) > _LISTED else ""
    return f" (allowed: {', '.join(map(str, allowed[:_LISTED]))}{more})"


def _catalogued(kind: str, plural: str, name: str, value: object) -> None:
    """``value`` one of Jira's ``kind`` catalogue (by name, any case), once the mirror holds it."""
    if value is None:
        return
    known = [row.name for row in JiraCatalogue.select(JiraCatalogue.name)
             .where(JiraCatalogue.kind == kind).order_by(JiraCatalogue.position)]
    if known and str(value).casefold() not in {k.casefold() for k in known}:
        raise ContractError(f"fields.{name}: {value!r} is none of Jira's {plural}: {', '.join(known)}",
                            f"fields.{name}")


def _user(name: str, value: object) -> None:
    """An assignee the mirror knows as a Jira user (by login name or key, any case); None
    unassigns and ``-1`` is Jira's automatic assignee. The mirror knows only the users its issues
    name, so this refuses only once it knows some, and says it may not know them all."""
    if value is None or value == "-1" or not isinstance(value, str):
        return
    if JiraUser.select().limit(1).count() == 0:
        return
    folded = value.lower()
    if JiraUser.select().where((fn.LOWER(JiraUser.name) == folded) | (fn.LOWER(JiraUser.user_key) == folded)).exists():
        return
    raise ContractError(f"fields.{name}: {value!r} is no Jira user the mirror knows (it knows the users "
                        "its issues name; give the login name of one of them)", f"fields.{name}")


def seconds(duration: object) -> int | None:
    """Jira's duration in seconds ("1h 30m", "2d", "45m", a number of seconds; a day 8 hours and a
    week 5 days, Jira's defaults); None when it does not parse."""
    if isinstance(duration, int) and not isinstance(duration, bool):
        return duration
    if not isinstance(duration, str) or not _DURATION.match(duration):
        return None
    units = {"w": 5 * 8 * 3600, "d": 8 * 3600, "h": 3600, "m": 60, "": 60}
    return int(sum(float(n) * units[u.lower()] for n, u in _AMOUNT.findall(duration)))


def _duration(field: str, value: object) -> None:
    if (found := seconds(value)) is None or found <= 0:
        raise ContractError(f"{field}: {value!r} is no duration Jira reads; give it as Jira does "
                            "(1h 30m, 2d, 45m; units w, d, h, m) or as seconds", field)


def _log_work(params: dict) -> None:
    _duration("time_spent", params.get("time_spent"))
    started = params.get("started")
    if started is not None and not _a_time(started):
        raise ContractError(f"started: {started!r} is no time with its offset "
                            "(2026-12-07T20:30:00+00:00)", "started")
    adjust = params.get("adjust_estimate")
    for mode, companion in (("new", "new_estimate"), ("manual", "reduce_by")):
        if adjust == mode:
            if companion not in params:
                raise ContractError(f"{companion}: adjust_estimate {mode} takes {companion}", companion)
            _duration(companion, params[companion])
        elif companion in params:
            raise ContractError(f"{companion}: goes with adjust_estimate {mode} only", companion)


def _a_time(value: object) -> bool:
    if not isinstance(value, str):
        return False
    text = value[:-1] + "+00:00" if value.endswith(("Z", "z")) else value
    try:
        return datetime.fromisoformat(text).utcoffset() is not None
    except ValueError:
        return False


def _create_issue(params: dict) -> None:
    """A project the mirror knows, an issue type of its create screens, their required fields
    given and their values allowed; a sub-task's parent."""
    project, issue_type = params["project"], params["issue_type"]
    screens = list(CreateMeta.select().where(CreateMeta.project == project))
    if not screens and not Issue.select().where(Issue.key.startswith(f"{project}-")).exists():
        raise ContractError(f"project: the mirror knows no project {project!r} (none of its issues, no "
                            "create screen); refresh one of its issues first", "project")
    if screens:
        screen = next((s for s in screens if s.issue_type.casefold() == str(issue_type).casefold()), None)
        if screen is None:
            raise ContractError(f"issue_type: {project} has no issue type {issue_type!r} to create; it has: "
                                f"{', '.join(sorted(s.issue_type for s in screens))}", "issue_type")
        given = {**(params.get("fields") or {}), "summary": params.get("summary"),
                 "description": params.get("description"), "parent": params.get("parent")}
        for field_id, meta in (screen.fields or {}).items():
            if (field_id not in _CREATE_OWN and isinstance(meta, dict) and meta.get("required")
                    and not names.given(given, field_id, meta)):
                name = names.mirror_name(field_id)
                raise ContractError(f"fields.{name}: a {screen.issue_type} of {project} requires "
                                    f"{meta.get('name') or name}{_choices(meta)}", f"fields.{name}")
        for name, value in (params.get("fields") or {}).items():
            found = names.on_screen(screen.fields or {}, name)
            if found is not None:
                _allowed(name, value, found[1], f"{project}'s create screen of {screen.issue_type}")
    subtask = (JiraCatalogue.select(JiraCatalogue.detail)
               .where(JiraCatalogue.kind == "issue_type", JiraCatalogue.name == issue_type).first())
    if subtask is not None and (subtask.detail or {}).get("subtask") and not params.get("parent"):
        raise ContractError(f"parent: a {issue_type} is a sub-task; give the key of its parent issue", "parent")


def _link_type(given: str) -> str | None:
    """The name of the link type ``given`` names (its name, or its outward or inward phrase, any
    case); ``given`` itself when the mirror holds no link types; None when none is it."""
    types = list(JiraCatalogue.select(JiraCatalogue.name, JiraCatalogue.detail)
                 .where(JiraCatalogue.kind == "link_type").order_by(JiraCatalogue.position))
    if not types:
        return given
    folded = given.casefold()
    for member in ("name", "outward", "inward"):
        for row in types:
            said = row.name if member == "name" else (row.detail or {}).get(member)
            if isinstance(said, str) and said.casefold() == folded:
                return row.name
    return None


def _link(params: dict) -> None:
    if ("outward" in params) == ("inward" in params):
        raise ContractError("outward: give exactly one of outward and inward (the other issue's key)", "outward")
    if _link_type(params["type"]) is None:
        known = [row.name for row in JiraCatalogue.select(JiraCatalogue.name)
                 .where(JiraCatalogue.kind == "link_type").order_by(JiraCatalogue.position)]
        raise ContractError(f"type: {params['type']!r} is no link type of Jira's (by name or phrase); "
                            f"it has: {', '.join(known)}", "type")


def _remove_link(issue: Issue, params: dict) -> None:
    """The link named by its type and the other issue is one the mirror holds."""
    _link(params)
    link_type = _link_type(params["type"])
    side = "outward" if "outward" in params else "inward"
    source, target = (issue.key, params[side]) if side == "outward" else (params[side], issue.key)
    if not IssueLink.select().where(IssueLink.source_key == source, IssueLink.target_key == target,
                                    IssueLink.link_type == link_type).exists():
        raise ContractError(f"{side}: the mirror holds no {link_type} link from {source} to {target}; "
                            f"see {issue.key}'s links", side)
