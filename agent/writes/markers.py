"""Whether Jira already holds a write: looked for before a redelivered write is applied, and after a
request whose answer was lost, so that no write is applied twice (docs/agent.md, exactly once).

Each finder answers the write's ``done`` outcome when it finds the write in Jira, None when it does
not (then the write is applied).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime

from agent.jira_writes import JiraError
from agent.writes import fields
from agent.writes.model import Outcome, Session, marked
from agent.writes.ops import find_link, started, transition_comment, worklog_body

log = logging.getLogger("hub-agent")


def _instant(text: object) -> datetime | None:
    """One of Jira's times (``2026-12-07T20:30:00.000+0000``) as an instant; None if it is none."""
    if not isinstance(text, str):
        return None
    try:
        return datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%f%z")
    except ValueError:
        try:
            return datetime.fromisoformat(text)
        except ValueError:
            return None


def comment(session: Session) -> Outcome | None:
    """A comment whose properties hold the marker (Jira lists them with ``expand=properties``)."""
    key = session.write.key or ""
    for listed in session.requests.comments_with_properties(key):
        if marked(listed.get("properties"), session.write):
            return Outcome("done", {"comment_id": str(listed.get("id"))}, key=key)
    return None


def transition(session: Session) -> Outcome | None:
    """Done when Jira shows the target status already (:func:`_transitioned`); then the comment the
    transition carries is looked for by its marker, and posted if the first delivery did not."""
    found = _transitioned(session)
    if found is None or not session.write.params.get("comment"):
        return found
    said = comment(session)
    result = dict(found.result or {})
    result["comment_id"] = (said.result or {}).get("comment_id") if said else transition_comment(session)
    return Outcome("done", result, key=found.key)


def _transitioned(session: Session) -> Outcome | None:
    """Done when Jira shows the target status already: the one ``to`` names as a status, or that of
    the transition this delivery chose before its answer was lost; or, for a ``to`` that names a
    transition (whose target a redelivery cannot know), when the changelog holds a change from the
    ``base`` status to the current one, made since the write by the user who makes it."""
    key, write = session.write.key or "", session.write
    issue = session.requests.issue(key, ["status"], expand=["changelog"])
    status = ((issue.get("fields") or {}).get("status") or {}).get("name")
    chosen = session.learnt.get("transition") or {}
    targets = {str(write.params.get("to") or "").casefold(),
               str((chosen.get("to") or {}).get("name") or "").casefold()} - {""}
    if isinstance(status, str) and status.casefold() in targets:
        return Outcome("done", {"transition": str(chosen["id"]) if chosen.get("id") else None}, key=key)
    seen = (write.base or {}).get("status")
    if not seen or not isinstance(status, str):
        return None
    me = session.jira.myself().get("name")
    since = write.created_at.timestamp() - 60
    for history in reversed((issue.get("changelog") or {}).get("histories") or []):
        created = _instant(history.get("created"))
        if created is None or created.timestamp() < since or (history.get("author") or {}).get("name") != me:
            continue
        for item in history.get("items") or []:
            if (item.get("field") == "status" and fields.same(item.get("fromString"), seen)
                    and fields.same(item.get("toString"), status)):
                return Outcome("done", {"transition": None}, key=key)
    return None


def edit(session: Session) -> Outcome | None:
    """Done when every edited field already holds the write's value (an edit is one request: Jira
    applies all of it or none)."""
    key, wanted = session.write.key or "", session.write.params.get("fields") or {}
    try:
        resolved = fields.jira_ids(wanted, session.described)
    except fields.FieldError:
        return None
    issue = session.requests.issue(key, sorted({r.jira_id for r in resolved.values()}))
    for name, value in wanted.items():
        if name in resolved and not fields.holds(fields.current(issue, resolved[name]), value,
                                                 estimate=name in fields.ESTIMATES):
            return None
    return Outcome("done", {"fields": sorted(wanted)}, key=key)


def log_work(session: Session) -> Outcome | None:
    """A work log with the marker; else one of the same start, time and comment that carries no
    marker (its marker's request was lost), which is given its marker now."""
    key = session.write.key or ""
    body = worklog_body(session)
    start = _instant(started(session))
    spent = body.get("timeSpentSeconds") or fields.seconds(body.get("timeSpent"))
    alike = []
    for listed in session.jira.worklogs(key):
        if _instant(listed.get("started")) != start:
            continue
        wid = str(listed.get("id"))
        value = session.requests.worklog_marker(key, wid)
        if isinstance(value, dict) and value.get("write") == session.write.id:
            return Outcome("done", {"worklog_id": wid}, key=key)
        if value is None and (spent is None or listed.get("timeSpentSeconds") == spent) and fields.same(
                listed.get("comment"), body.get("comment")):
            alike.append(wid)
    if not alike:
        return None
    wid = alike[0]
    try:
        session.requests.mark_worklog(key, wid, session.write.marker)
    except JiraError as exc:
        log.warning("write %s: work log %s found without its marker, which Jira did not take: %s",
                    session.write.id, wid, exc)
    return Outcome("done", {"worklog_id": wid}, key=key)


def create_issue(session: Session) -> Outcome | None:
    """An issue of the project created since a minute before the write whose properties hold the marker."""
    project = session.write.project or ""
    for issue in session.requests.created_since(project, session.write.minutes_ago()):
        if marked(issue.get("properties"), session.write):
            return Outcome("done", {"key": issue.get("key"), "id": str(issue.get("id"))}, key=issue.get("key"))
    return None


def link(session: Session) -> Outcome | None:
    """The link as Jira lists it on the issue (Jira keeps one link of a type between two issues)."""
    key = session.write.key or ""
    listed = find_link(session.requests.issue(key, ["issuelinks"]), session.write.params)
    return Outcome("done", {"link_id": str(listed["id"])}, key=key) if listed else None


def remove_link(session: Session) -> Outcome | None:
    """Done when the issue no longer lists the link."""
    key, params = session.write.key or "", session.write.params
    issue = session.requests.issue(key, ["issuelinks"])
    links = (issue.get("fields") or {}).get("issuelinks") or []
    if params.get("link_id"):
        gone = all(str(link.get("id")) != str(params["link_id"]) for link in links)
    else:
        gone = find_link(issue, params) is None
    return Outcome("done", {"link_id": str(params["link_id"]) if params.get("link_id") else None},
                   key=key) if gone else None


def attach(session: Session) -> Outcome | None:
    """An attachment of the same name and size made since a minute before the write."""
    key, meta = session.write.key or "", session.write.file or {}
    since = session.write.created_at.timestamp() - 60
    for listed in (session.requests.issue(key, ["attachment"]).get("fields") or {}).get("attachment") or []:
        created = _instant(listed.get("created"))
        if (listed.get("filename") == meta.get("filename") and str(listed.get("size")) == str(meta.get("size"))
                and (created is None or created.timestamp() >= since)):
            return Outcome("done", {"attachment_id": str(listed.get("id"))}, key=key)
    return None


def edit_comment(session: Session) -> Outcome | None:
    """None: a comment's edit sets its text, so sending it again changes nothing more."""
    return None


FIND: dict[str, Callable[[Session], Outcome | None]] = {
    "comment": comment, "edit_comment": edit_comment, "transition": transition, "edit": edit,
    "log_work": log_work, "create_issue": create_issue, "link": link, "remove_link": remove_link,
    "attach": attach,
}
