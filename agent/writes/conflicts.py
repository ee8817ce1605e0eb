"""The maker's ``base`` against Jira's current values: one GET of the issue with those fields before
an edit or a transition is written. A field whose value differs is a conflict, and then nothing of
the write is made (an edit writes no field at all)."""

from __future__ import annotations

from agent.writes import fields
from agent.writes.model import Outcome, Session


def check(session: Session) -> Outcome | None:
    """The write's ``conflict`` outcome, or None when Jira still holds what the maker saw. Comments,
    work logs, links, attachments and the add/remove form of a list never conflict."""
    write = session.write
    base = write.base or {}
    if write.op == "transition":
        seen = base.get("status")
        if seen is None:
            return None
        # The transitions open now come with the status, in the same GET: the write needs them next.
        issue = session.requests.issue(write.key or "", ["status"], expand=["transitions.fields"])
        if isinstance(issue.get("transitions"), list):
            session.learnt["open"] = issue["transitions"]
        status = ((issue.get("fields") or {}).get("status") or {}).get("name")
        if fields.same(status, seen):
            return None
        return Outcome("conflict", conflict={"status": {"base": seen, "jira": status}}, key=write.key)
    if write.op != "edit":
        return None
    wanted = write.params.get("fields") or {}
    compared = {name: value for name, value in base.items()
                if name in wanted and not fields.is_add_remove(wanted[name])}
    if not compared:
        return None
    try:
        resolved = fields.jira_ids(compared, session.described)
    except fields.FieldError:
        return None  # the edit itself names the field Jira does not know, and fails for it
    issue = session.requests.issue(write.key or "", sorted({r.jira_id for r in resolved.values()}))
    differing = {}
    for name, seen in compared.items():
        if name not in resolved:
            continue
        now = fields.current(issue, resolved[name])
        if not fields.same(now, seen, estimate=name in fields.ESTIMATES):
            differing[name] = {"base": seen, "jira": now}
    return Outcome("conflict", conflict=differing, key=write.key) if differing else None
