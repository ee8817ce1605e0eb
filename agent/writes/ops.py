"""Each write operation's requests to Jira, every object made carrying the write's marker; what
Jira made is the ``done``'s result (docs/agent-protocol.md, the command kind ``write``)."""

from __future__ import annotations

import contextlib
import logging
import os
import tempfile
from collections.abc import Callable, Iterator
from datetime import UTC, datetime

from agent.jira_writes import Refused
from agent.queries import BadCommand
from agent.writes import fields
from agent.writes.model import Outcome, Session

log = logging.getLogger("hub-agent")


class Unapplied(Exception):
    """The write cannot be applied as asked (no such transition, an unknown field): it fails with
    this message, and nothing was written."""


def jira_time(moment: datetime) -> str:
    """A time as Jira's worklog ``started`` takes it: ``2026-12-07T20:30:00.000+0000``."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.000+0000")


def started(session: Session) -> str:
    """The work log's start: as asked, else when the write was made (the same on every delivery, so
    a work log whose marker was lost is still found by it)."""
    asked = session.write.params.get("started")
    if asked:
        try:
            moment = datetime.fromisoformat(str(asked).replace("Z", "+00:00"))
        except ValueError:
            return str(asked)  # Jira's own form already; Jira says if it is wrong
        return jira_time(moment if moment.tzinfo else moment.replace(tzinfo=UTC))
    return jira_time(session.write.created_at)


def worklog_body(session: Session) -> dict:
    """A work log as Jira's POST takes it."""
    params = session.write.params
    spent = params.get("time_spent")
    body: dict = {"started": started(session)}
    if isinstance(spent, int | float) and not isinstance(spent, bool):
        body["timeSpentSeconds"] = int(spent)
    elif isinstance(spent, str) and spent.strip().isdigit():
        body["timeSpentSeconds"] = int(spent.strip())
    elif isinstance(spent, str) and spent.strip():
        body["timeSpent"] = spent.strip()
    else:
        raise BadCommand("a log_work write needs params.time_spent")
    comment = session.signed(params.get("comment"))
    if comment:
        body["comment"] = comment
    return body


def worklog_query(params: dict) -> dict:
    """The estimate adjustment of a work log, as Jira's query parameters."""
    query = {}
    if params.get("adjust_estimate"):
        query["adjustEstimate"] = params["adjust_estimate"]
    if params.get("new_estimate") is not None:
        query["newEstimate"] = fields.duration(params["new_estimate"])
    if params.get("reduce_by") is not None:
        query["reduceBy"] = fields.duration(params["reduce_by"])
    return query


def choose_transition(transitions: list[dict], to: object) -> dict | None:
    """The transition ``to`` names, matched against the issue's transitions: by target status name,
    then by transition name, then by id (names ignoring case)."""
    wanted = str(to or "").strip()
    for matches in (lambda t: str((t.get("to") or {}).get("name") or "").casefold() == wanted.casefold(),
                    lambda t: str(t.get("name") or "").casefold() == wanted.casefold(),
                    lambda t: str(t.get("id")) == wanted):
        found = next((t for t in transitions if matches(t)), None)
        if found is not None:
            return found
    return None


def link_body(session: Session) -> dict:
    """``POST /issueLink``: Jira makes the link from ``inwardIssue`` to ``outwardIssue`` (the source's
    outward description reads from it), so X → Y is ``inwardIssue`` X, ``outwardIssue`` Y."""
    params, key = session.write.params, session.write.key
    kind = params.get("type")
    if not kind:
        raise BadCommand("a link write needs params.type")
    if params.get("outward"):
        source, target = key, params["outward"]
    elif params.get("inward"):
        source, target = params["inward"], key
    else:
        raise BadCommand("a link write needs params.outward or params.inward")
    return {"type": {"name": kind}, "inwardIssue": {"key": source}, "outwardIssue": {"key": target}}


def find_link(issue: dict, params: dict) -> dict | None:
    """The link ``params`` describes (``type`` and ``outward`` or ``inward``) as Jira lists it on the issue."""
    kind = str(params.get("type") or "").casefold()
    for link in (issue.get("fields") or {}).get("issuelinks") or []:
        names = {str((link.get("type") or {}).get(n) or "").casefold() for n in ("name", "inward", "outward")}
        if kind not in names:
            continue
        if params.get("outward") and (link.get("outwardIssue") or {}).get("key") == params["outward"]:
            return link
        if params.get("inward") and (link.get("inwardIssue") or {}).get("key") == params["inward"]:
            return link
    return None


# --- the operations --------------------------------------------------------------------------


def comment(session: Session) -> Outcome:
    params = session.write.params
    body: dict = {"body": session.signed(params.get("body")), "properties": [session.write.property]}
    if params.get("visibility"):
        body["visibility"] = params["visibility"]
    made = session.requests.add_comment(session.write.key or "", body) or {}
    return Outcome("done", {"comment_id": str(made.get("id"))}, key=session.write.key)


def edit_comment(session: Session) -> Outcome:
    params = session.write.params
    if not params.get("comment_id"):
        raise BadCommand("an edit_comment write needs params.comment_id")
    session.requests.edit_comment(session.write.key or "", str(params["comment_id"]),
                                  {"body": session.signed(params.get("body"))})
    return Outcome("done", {"comment_id": str(params["comment_id"])}, key=session.write.key)


def transition(session: Session) -> Outcome:
    key, params = session.write.key or "", session.write.params
    # Those the base check read with the status, once; else (no base, or a retry) asked for now.
    listed = session.learnt.pop("open", None)
    if listed is None:
        listed = session.requests.transitions(key)
    chosen = choose_transition(listed, params.get("to"))
    if chosen is None:
        names = ", ".join(f"{t.get('name')} (to {(t.get('to') or {}).get('name')})" for t in listed) or "none"
        raise Unapplied(f"no transition to {params.get('to')!r} is open on {key}; open: {names}")
    session.learnt["transition"] = chosen
    screen = chosen.get("fields") or {}
    try:
        values, update = fields.to_jira(params.get("fields") or {}, session.described, screen)
    except fields.FieldError as exc:
        raise Unapplied(str(exc)) from None
    body: dict = {"transition": {"id": str(chosen["id"])}}
    if values:
        body["fields"] = values
    if update:
        body["update"] = update
    session.requests.do_transition(key, body)
    made: dict[str, str | None] = {"transition": str(chosen["id"])}
    if params.get("comment"):
        made["comment_id"] = transition_comment(session)
    return Outcome("done", made, key=key)


def transition_comment(session: Session) -> str | None:
    """The comment a transition carries, posted after it with the write's marker. Not sent in the
    transition's ``update``: Jira drops that silently when the transition has no screen, and a
    comment made there carries no marker, so a redelivery could not tell it was made."""
    body = {"body": session.signed(session.write.params["comment"]), "properties": [session.write.property]}
    made = session.requests.add_comment(session.write.key or "", body) or {}
    return str(made.get("id")) if made.get("id") is not None else None


def edit(session: Session) -> Outcome:
    key, wanted = session.write.key or "", session.write.params.get("fields") or {}
    if not wanted:
        raise BadCommand("an edit write needs params.fields")
    try:
        values, update = fields.to_jira(wanted, session.described)
    except fields.FieldError as exc:
        raise Unapplied(str(exc)) from None
    body: dict = {}
    if values:
        body["fields"] = values
    if update:
        body["update"] = update
    session.requests.edit_issue(key, body)
    return Outcome("done", {"fields": sorted(wanted)}, key=key)


def log_work(session: Session) -> Outcome:
    key = session.write.key or ""
    made = session.requests.add_worklog(key, worklog_body(session), worklog_query(session.write.params)) or {}
    worklog_id = str(made.get("id"))
    # Jira's worklog bean takes no properties when made: the marker follows at once. Should it be
    # lost, the work log is still found by its author, start, time and comment (agent/writes/markers.py).
    try:
        session.requests.mark_worklog(key, worklog_id, session.write.marker)
    except Refused as exc:  # the work log is made: the write is done, found by its fields if redelivered
        log.warning("write %s: work log %s of %s left without its marker: %s", session.write.id, worklog_id,
                    key, exc)
    return Outcome("done", {"worklog_id": worklog_id}, key=key)


def create_issue(session: Session) -> Outcome:
    params = session.write.params
    project, kind, summary = session.write.project, params.get("issue_type"), params.get("summary")
    if not (project and kind and summary):
        raise BadCommand("a create_issue write needs params.project, params.issue_type and params.summary")
    try:
        values, _ = fields.to_jira(params.get("fields") or {}, session.described)
    except fields.FieldError as exc:
        raise Unapplied(str(exc)) from None
    values.update({"project": {"key": project}, "issuetype": {"name": kind}, "summary": summary})
    if params.get("description") is not None:
        values["description"] = params["description"]
    if params.get("parent"):
        values["parent"] = {"key": params["parent"]}
    made = session.requests.create_issue({"fields": values, "properties": [session.write.property]}) or {}
    return Outcome("done", {"key": made.get("key"), "id": str(made.get("id"))}, key=made.get("key"))


def link(session: Session) -> Outcome:
    key = session.write.key or ""
    session.requests.add_link(link_body(session))
    # Jira Server answers 201 without a body: the new link's id is read from the issue's fresh state,
    # which the handler reads next anyway (linked_id).
    return Outcome("done", {"link_id": None}, key=key)


def linked_id(outcome: Outcome, write_params: dict, issue: dict | None) -> None:
    """A new link's id, from the issue as the fresh state read it, into ``outcome``'s result."""
    if issue is not None and outcome.result is not None and outcome.result.get("link_id") is None:
        listed = find_link(issue, write_params)
        outcome.result["link_id"] = str(listed["id"]) if listed else None


def remove_link(session: Session) -> Outcome:
    key, params = session.write.key or "", session.write.params
    link_id = params.get("link_id")
    if not link_id:
        listed = find_link(session.requests.issue(key, ["issuelinks"]), params)
        if listed is None:
            other = f"to {params['outward']}" if params.get("outward") else f"from {params.get('inward')}"
            raise Unapplied(f"{key} has no link {params.get('type')!r} {other}")
        link_id = listed["id"]
    try:
        session.requests.remove_link(str(link_id))
    except Refused as exc:
        if exc.status != 404:
            raise
        # Gone already (removed in Jira, or by this write's first delivery): what was asked holds.
    return Outcome("done", {"link_id": str(link_id)}, key=key)


@contextlib.contextmanager
def downloaded(session: Session) -> Iterator[str]:
    """The write's upload, from the hub to a temp file removed after."""
    fd, path = tempfile.mkstemp(prefix="hub-agent-upload-")
    os.close(fd)
    try:
        session.hub.get_file(session.command, path)
        yield path
    finally:
        os.unlink(path)


def attach(session: Session) -> Outcome:
    key, meta = session.write.key or "", session.write.file or {}
    filename = meta.get("filename") or session.write.params.get("filename")
    if not filename:
        raise BadCommand("an attach write needs file.filename")
    with downloaded(session) as path:
        if meta.get("size") is not None and os.path.getsize(path) != int(meta["size"]):
            raise BadCommand(f"the hub sent {os.path.getsize(path)} bytes of {filename}, not {meta['size']}")
        made = session.requests.attach(key, path, filename, meta.get("mime_type") or "application/octet-stream")
    return Outcome("done", {"attachment_id": str(made[0]["id"]) if made else None}, key=key)


APPLY: dict[str, Callable[[Session], Outcome]] = {
    "comment": comment, "edit_comment": edit_comment, "transition": transition, "edit": edit,
    "log_work": log_work, "create_issue": create_issue, "link": link, "remove_link": remove_link,
    "attach": attach,
}
