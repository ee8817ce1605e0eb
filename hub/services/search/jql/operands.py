"""JQL's operands as the compiler reads them: values checked against their field's kind
(a key, an id, a number, a date) and functions, those the mirror answers as SQL and
those it cannot (which are errors naming them).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from hub import dialect
from hub.services.search.jql.fields import Field, Kind
from hub.services.search.jql.tree import Function, JqlError, Value
from hub.vocabulary import ISSUE_KEY_PATTERN, JIRA_ID_PATTERN

_KEY = re.compile(ISSUE_KEY_PATTERN)
_ID = re.compile(JIRA_ID_PATTERN)
_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")

# Jira's date functions, read by hub.services.search.jql.dates.
DATE_FUNCTIONS = frozenset({"now", "startofday", "endofday", "startofweek", "endofweek", "startofmonth",
                            "endofmonth", "startofyear", "endofyear"})
# Functions of Jira's that the mirror cannot answer: they need the user asking, Jira's
# permissions, or data the agent does not mirror.
NEEDS_JIRA = frozenset({
    "currentuser", "currentlogin", "lastlogin", "membersof", "issuehistory", "watchedissues", "votedissues",
    "projectsleadbyuser", "projectswhereuserhaspermission", "projectswhereuserhasrole", "componentsleadbyuser",
    "updatedby", "earliestunreleasedversion", "latestreleasedversion", "cascadeoption", "issuefieldvalue",
    "issueswithremotelinksbyglobalid", "standardissuetypes", "subtaskissuetypes", "parentepic",
    "earliestunreleasedversionbyreleasedate", "latestreleasedversionbyreleasedate",
})
_SPRINT_STATES = {"opensprints": "active", "closedsprints": "closed", "futuresprints": "future"}
_VERSION_STATES = {"releasedversions": 1, "unreleasedversions": 0}
# The functions the mirror answers, by the kinds of field that take them.
_TAKEN_BY = {**{name: (Kind.SPRINT,) for name in _SPRINT_STATES},
             **{name: (Kind.VERSION,) for name in _VERSION_STATES},
             "linkedissues": (Kind.KEY,),
             **{name: (Kind.DATETIME, Kind.DATE) for name in DATE_FUNCTIONS}}
# Issues linked to one, either way; the link named by its type's name or by its phrase
# from that issue's side ("blocks": the issues it blocks; "is blocked by": those blocking it).
_LINKED = ("issue.key IN (SELECT issue_link.target_key FROM issue_link WHERE issue_link.source_key IN ({keys}){out} "
           "UNION ALL SELECT issue_link.source_key FROM issue_link WHERE issue_link.target_key IN ({keys}){in_})")
_LINK_TYPE = (" AND (casefold(issue_link.link_type) = ? OR issue_link.link_type IN (SELECT name FROM "
              "jira_catalogue WHERE kind = 'link_type' AND casefold({phrase}) = ?))")


def function(f: Field, call: Function, date_equal: Callable[[Field, Function], tuple[str, list]]) -> tuple[str, list]:
    """The condition of ``f`` matching what ``call`` returns; a date function's is
    ``date_equal(f, call)``, the compiler's (passed in, so that this module needs none of it)."""
    name = call.name.casefold()
    if name in NEEDS_JIRA:
        raise JqlError(f"The function '{call.name}()' needs Jira itself: the mirror cannot answer it.", call.at)
    if name not in _TAKEN_BY:
        raise JqlError(f"Unable to find JQL function '{call.name}()'.", call.at)
    if f.kind not in _TAKEN_BY[name]:
        raise misplaced(call, f)
    if name in _SPRINT_STATES:
        _arguments(call, 0, 0)
        # The few sprints of the state first, then their issues on issue_sprint_sprint: a join
        # would let SQLite read every membership and look each one's sprint up.
        return ("issue.key IN (SELECT issue_sprint.key FROM issue_sprint WHERE issue_sprint.sprint_id IN "
                "(SELECT sprint.sprint_id FROM sprint WHERE lower(sprint.state) = ?))"), [_SPRINT_STATES[name]]
    if name in _VERSION_STATES:
        _arguments(call, 0, 1)
        pieces = dialect.jql.current()
        sql = (f"EXISTS (SELECT 1 FROM {pieces.objects(f.sql, 'v')} "
               f"WHERE {pieces.flag('v.value', 'released')} = ?)")
        params: list = [_VERSION_STATES[name]]
        if call.args:
            # A project's versions are on its issues only.
            project = call.args[0].text.strip().upper()
            sql, params = f"issue.key >= ? AND issue.key < ? AND {sql}", [project + "-", project + ".", *params]
        return sql, params
    if name == "linkedissues":
        _arguments(call, 1, 2)
        keys = [issue_key(f, call.args[0])]
        if len(call.args) == 1:
            return _LINKED.format(keys="?", out="", in_=""), [*keys, *keys]
        phrase = call.args[1].text.casefold()
        outward, inward = (_LINK_TYPE.format(phrase=dialect.jql.current().extract("detail", side))
                           for side in ("outward", "inward"))
        return (_LINKED.format(keys="?", out=outward, in_=inward),
                [*keys, phrase, phrase, *keys, phrase, phrase])
    return date_equal(f, call)


def _arguments(call: Function, least: int, most: int) -> None:
    if not least <= len(call.args) <= most:
        wanted = f"{least}" if least == most else f"{least} to {most}"
        raise JqlError(f"Function '{call.name}' expected {wanted} arguments but received {len(call.args)}.",
                       call.at)


def misplaced(call: Function, f: Field) -> JqlError:
    """The error of a function given to a field that does not take it."""
    name = call.name.casefold()
    if name in NEEDS_JIRA:
        return JqlError(f"The function '{call.name}()' needs Jira itself: the mirror cannot answer it.", call.at)
    if name not in _TAKEN_BY:
        return JqlError(f"Unable to find JQL function '{call.name}()'.", call.at)
    return JqlError(f"A value provided by the function '{call.name}' is invalid for the field '{f.name}'.",
                    call.at)


def issue_key(f: Field, value: Value) -> str:
    """An issue's key (upper case, as Jira keeps keys); JqlError when ``value`` cannot be one."""
    key = value.text.strip().upper()
    if not _KEY.match(key):
        raise JqlError(f"The issue key '{value.text}' for field '{f.name}' is invalid.", value.at)
    return key


def jira_id(f: Field, value: Value) -> str:
    """An issue's Jira id (digits); a key is read as the key's issue by the caller, not here."""
    text = value.text.strip()
    if not _ID.match(text):
        raise JqlError(f"The value '{value.text}' for field '{f.name}' is not a valid issue id.", value.at)
    return text


def number(f: Field, value: Value) -> float:
    """A number for a number field; JqlError when ``value`` is none."""
    text = value.text.strip()
    if not _NUMBER.fullmatch(text):
        raise JqlError(f"The value '{value.text}' is not a valid number for the field '{f.name}'.", value.at)
    return float(text)


def date_function(operand) -> None:
    """Refuse a function that is no date function as a date, in words naming it."""
    if isinstance(operand, Function) and operand.name.casefold() not in DATE_FUNCTIONS:
        name = operand.name.casefold()
        if name in NEEDS_JIRA:
            raise JqlError(f"The function '{operand.name}()' needs Jira itself: the mirror cannot answer it.",
                           operand.at)
        raise JqlError(f"Unable to find JQL function '{operand.name}()'.", operand.at)
