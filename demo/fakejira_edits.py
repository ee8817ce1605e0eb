"""The fake Jira's writes to an issue's own fields, as Jira Server/DC 9 takes them: transitions (the
workflow and screens of :mod:`demo.fakejira_meta`; ``POST issue/{key}/transitions`` -> 204, 400 with
``errors`` for a required field left out or a field not on the screen, with ``errorMessages`` for a
transition the status does not offer), edits (``PUT issue/{key}`` -> 204, ``fields`` set and ``update``
set/add/remove/edit, every field checked against the edit screen first) and work logs (``POST
issue/{key}/worklog`` -> 201, the remaining estimate adjusted as ``adjustEstimate`` asks). Each change
appends a changelog history by the user who made it and bumps ``updated``.

A mixin of :class:`demo.fakejira_writes.Writes`, which holds the lookups (``issue``, ``touched``, ...).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from demo import fakejira_meta as meta
from demo.fakejira_meta import FieldError, cannot_set, errors, expands, now
from demo.jirashapes import user


class Edits:
    """Transitions, edits and work logs (see the module's docstring)."""

    def editmeta(self, key, query, body, who):
        return 200, meta.edit_meta(self.issue(key)), []

    def transitions(self, key, query, body, who):
        issue = self.issue(key)
        expand = expands(query.get("expand"))
        offered = meta.transitions_from(issue["fields"]["status"]["name"])
        if query.get("transitionId"):
            offered = [t for t in offered if t[0] == query["transitionId"]]
        return 200, {"expand": "transitions",
                     "transitions": [meta.transition_bean(t, "transitions.fields" in expand) for t in offered]}, []

    def transition(self, key, query, body, who):
        issue = self.issue(key)
        body = body or {}
        chosen = self._offered(issue, str((body.get("transition") or {}).get("id") or ""))
        _, _, _, to, screen, resolves = chosen
        values, adds = self._transition_fields(screen, body.get("fields") or {}, body.get("update") or {})
        items = []
        current = issue["fields"]
        old_status, new_status = current["status"], meta.status_bean(to)
        items.append({"field": "status", "fieldtype": "jira", "from": old_status.get("id"),
                      "fromString": old_status["name"], "to": new_status["id"], "toString": new_status["name"]})
        current["status"] = new_status
        if resolves:  # the workflow's post-function: "-" clears the resolution, a name sets it
            values["resolution"] = None if resolves == "-" else meta.value("resolution", {"name": resolves})
        for fid, stored in values.items():
            items.extend(self.set_field(issue, fid, stored))
        if "resolution" in values:
            current["resolutiondate"] = now() if values["resolution"] else None
        for entry in adds.get("worklog", []):
            items.extend(self.add_worklog(issue, entry, who, "auto", None, None)[1])
        for entry in adds.get("comment", []):
            self.add_comment(issue, entry, who)
        self.touched(issue, who, items)
        return 204, None, []

    def _offered(self, issue: dict, tid: str) -> tuple:
        """The transition a request names, if the issue's status offers it; Jira's 400 if not."""
        if not tid:
            raise errors({}, ["Missing 'transition' identifier"])
        chosen = next((t for t in meta.transitions_from(issue["fields"]["status"]["name"]) if t[0] == tid), None)
        if chosen is not None:
            return chosen
        known = next((t for t in meta.WORKFLOW if t[0] == tid), None)
        if known is None:
            raise errors({}, [f"Transition id '{tid}' is not valid for this issue."])
        raise errors({}, [f"It seems that you have tried to perform a workflow operation ({known[1]}) that is "
                          f"not valid for the current state of this issue ({issue['key']}). The likely cause is "
                          "that somebody has changed the issue recently, please look at the issue history for "
                          "details."])

    def _transition_fields(self, screen: dict | None, fields: dict, update: dict) -> tuple[dict, dict]:
        """A transition's ``fields`` (values to store) and ``update`` adds (worklog, comment), all
        checked against its screen (None: it has none) before anything is written."""
        has_screen, screen = screen is not None, screen or {}
        problems = {fid: cannot_set(fid).message for fid in [*fields, *update]
                    if fid not in screen and fid != "comment"}
        given = {*fields, *update}
        problems.update({fid: f"{meta.SCREEN_FIELDS[fid][0]} is required." for fid, required in screen.items()
                         if required and fid not in given})
        if problems:
            raise errors(problems)
        values: dict[str, Any] = {}
        try:
            for fid, raw in fields.items():
                if fid in ("worklog", "comment"):
                    raise FieldError(fid, f"Field '{fid}' cannot be set, use 'update' to add one.")
                values[fid] = meta.value(fid, raw)
        except FieldError as refused:
            raise errors({refused.field: refused.message}) from None
        adds = {fid: [op["add"] for op in (ops if isinstance(ops, list) else [])
                      if isinstance(op, dict) and "add" in op] for fid, ops in update.items()}
        for entry in adds.get("worklog", []):
            self.worklog_entry(entry)
        if screen.get("worklog") and not adds.get("worklog"):
            raise errors({"worklog": "Log Work is required."})
        for entry in adds.get("comment", []):
            if not isinstance(entry, dict) or not str(entry.get("body") or "").strip():
                raise errors({"comment": "Comment body can not be empty!"})
        if not has_screen:
            adds.pop("comment", None)  # Jira drops it without a word: no screen, no comment
        return values, adds

    def set_field(self, issue: dict, fid: str, stored) -> list[dict]:
        """Store a field's new value; the changelog items of the change (none when nothing changed)."""
        before = issue["fields"].get(fid)
        if before == stored:
            return []
        issue["fields"][fid] = stored
        name, kind = meta.history_name(fid)

        def ids(v):
            if isinstance(v, list):
                return ", ".join(str(x.get("id") if isinstance(x, dict) else x) for x in v) or None
            return (v.get("id") or v.get("name")) if isinstance(v, dict) else (None if v is None else str(v))

        return [{"field": name, "fieldtype": kind, "from": ids(before), "fromString": meta.shown(before),
                 "to": ids(stored), "toString": meta.shown(stored)}]

    # --- edits ------------------------------------------------------------------------------

    def edit(self, key, query, body, who):
        issue = self.issue(key)
        body = body or {}
        steps: list[tuple[str, str, Any]] = [(fid, "set", raw) for fid, raw in (body.get("fields") or {}).items()]
        for fid, ops in (body.get("update") or {}).items():
            for op in ops if isinstance(ops, list) else [ops]:
                steps.extend((fid, verb, raw) for verb, raw in (op.items() if isinstance(op, dict) else []))
        self._check_edit(issue, body, steps)
        try:
            planned, comments = self._plan_edit(issue, steps)
        except FieldError as refused:
            raise errors({refused.field: refused.message}) from None
        items = []
        for fid, stored in planned.items():
            items.extend(self.set_field(issue, fid, stored))
        self._timetracking(issue)
        for raw in comments:
            self.add_comment(issue, raw, who)
        self.touched(issue, who, items)
        return 204, None, []

    @staticmethod
    def _check_edit(issue: dict, body: dict, steps: list[tuple[str, str, Any]]) -> None:
        """Every field of an edit must be on the edit screen, with an operation it takes."""
        screen = meta.edit_meta(issue)["fields"]
        problems = {fid: f"Field '{fid}' cannot appear in both 'fields' and 'update'"
                    for fid in set(body.get("fields") or {}) & set(body.get("update") or {})}
        for fid, verb, _ in steps:
            if fid not in screen or not screen[fid]["operations"]:
                problems[fid] = cannot_set(fid).message
            elif verb not in screen[fid]["operations"]:
                problems[fid] = (f"Field '{fid}' does not support operation '{verb}'; supported: "
                                 + ", ".join(screen[fid]["operations"]))
        if problems:
            raise errors(problems)

    def _plan_edit(self, issue: dict, steps: list[tuple[str, str, Any]]) -> tuple[dict[str, Any], list]:
        """The fields' new values (by field id) and the comments to add; FieldError for a refused value."""
        planned: dict[str, Any] = {}
        comments = []
        for fid, verb, raw in steps:
            if fid == "comment":
                if not isinstance(raw, dict) or not str(raw.get("body") or "").strip():
                    raise FieldError("comment", "Comment body can not be empty!")
                comments.append(raw)
            elif fid == "timetracking":
                planned.update(self._estimates(raw))
            elif verb == "set":
                planned[fid] = meta.value(fid, raw)
            else:
                one = meta.item_value(fid, meta.SCREEN_FIELDS[fid][2], raw)
                have = list(planned.get(fid, issue["fields"].get(fid) or []))
                kept = [h for h in have if not _same(h, one)]
                planned[fid] = (have if len(kept) < len(have) else [*have, one]) if verb == "add" else kept
        return planned, comments

    @staticmethod
    def _estimates(raw) -> dict[str, int | None]:
        if not isinstance(raw, dict):
            raise FieldError("timetracking", "Operation value must be an object")
        out: dict[str, int | None] = {}
        if "originalEstimate" in raw:
            out["timeoriginalestimate"] = meta.seconds(raw["originalEstimate"], "timetracking") \
                if raw["originalEstimate"] else None
        if "remainingEstimate" in raw:
            out["timeestimate"] = meta.seconds(raw["remainingEstimate"], "timetracking") \
                if raw["remainingEstimate"] else None
        return out

    @staticmethod
    def _timetracking(issue: dict) -> None:
        """``timetracking`` as Jira shows it, from the issue's estimates and time spent."""
        f = issue["fields"]
        shown = {}
        for name, fid in (("originalEstimate", "timeoriginalestimate"), ("remainingEstimate", "timeestimate"),
                          ("timeSpent", "timespent")):
            if f.get(fid) is not None:
                shown[name], shown[f"{name}Seconds"] = meta.pretty(int(f[fid])), int(f[fid])
        f["timetracking"] = shown

    # --- work logs --------------------------------------------------------------------------

    @staticmethod
    def worklog_entry(data) -> tuple[int, str, str]:
        """A worklog request's (seconds, started, comment), checked as Jira checks it."""
        if not isinstance(data, dict):
            raise errors({"timeLogged": "You must indicate the time spent working."})
        try:
            if data.get("timeSpentSeconds") is not None:
                spent = int(data["timeSpentSeconds"])
            elif data.get("timeSpent"):
                spent = meta.seconds(data["timeSpent"])
            else:
                spent = 0
        except FieldError as refused:
            raise errors({refused.field: refused.message}) from None
        if spent <= 0:
            raise errors({"timeLogged": "You must indicate the time spent working."})
        started = data.get("started") or now()
        try:
            datetime.strptime(started, "%Y-%m-%dT%H:%M:%S.%f%z")
        except (TypeError, ValueError):
            raise errors({"started": "Invalid date format. Please enter the date in the format "
                                     "\"yyyy-MM-dd'T'HH:mm:ss.SSSZ\"."}) from None
        return spent, started, str(data.get("comment") or "")

    def add_worklog(self, issue: dict, data, who: str, adjust: str, new_estimate, reduce_by):
        """Log work as Jira does: the worklog, ``timespent`` and the remaining estimate adjusted; the
        worklog and the changelog items it makes."""
        spent, started, comment = self.worklog_entry(data)
        f = issue["fields"]
        remaining = f.get("timeestimate")
        try:
            if adjust == "new":
                if not new_estimate:
                    raise errors({"newEstimate": "You must supply a valid new estimate."})
                remaining = meta.seconds(new_estimate, "newEstimate")
            elif adjust == "manual":
                if not reduce_by:
                    raise errors({"reduceBy": "You must supply a valid amount of time to reduce the estimate by."})
                remaining = max(0, (remaining or 0) - meta.seconds(reduce_by, "reduceBy"))
            elif adjust == "auto":
                remaining = None if remaining is None else max(0, remaining - spent)
            elif adjust != "leave":
                raise errors({}, [f"Invalid value for adjustEstimate: '{adjust}'"])
        except FieldError as refused:
            raise errors({refused.field: refused.message}) from None
        wid = self.next_id(800000)
        moment = now()
        entry = {"self": f"{self.jira.url}/rest/api/2/issue/{issue['id']}/worklog/{wid}", "author": user(who),
                 "updateAuthor": user(who), "comment": comment, "created": moment, "updated": moment,
                 "started": started, "timeSpent": meta.pretty(spent), "timeSpentSeconds": spent, "id": wid,
                 "issueId": issue["id"]}
        f["worklog"]["worklogs"].append(entry)
        before = f.get("timespent")
        f["timespent"] = (before or 0) + spent
        items = [{"field": "timespent", "fieldtype": "jira", "from": None if before is None else str(before),
                  "fromString": None if before is None else str(before), "to": str(f["timespent"]),
                  "toString": str(f["timespent"])},
                 {"field": "WorklogId", "fieldtype": "jira", "from": None, "fromString": None, "to": wid,
                  "toString": wid}]
        if remaining != f.get("timeestimate"):
            items.extend(self.set_field(issue, "timeestimate", remaining))
        self._timetracking(issue)
        return entry, items

    def post_worklog(self, key, query, body, who):
        issue = self.issue(key)
        entry, items = self.add_worklog(issue, body, who, query.get("adjustEstimate") or "auto",
                                        query.get("newEstimate"), query.get("reduceBy"))
        self.touched(issue, who, items)
        return 201, entry, []

    def get_worklog(self, key, wid, query, body, who):
        return 200, self._worklog(wid, self.issue(key))[1], []


def _same(have, one) -> bool:
    """Whether an array field's member is the one an add or remove names (by id, else equal)."""
    if isinstance(have, dict) and isinstance(one, dict) and have.get("id"):
        return have.get("id") == one.get("id")
    return have == one

