"""The fake Jira's writes, as Jira Server/DC 9's REST API v2 takes them, and its faults on demand.

``FakeJira`` hands every authenticated request to :class:`Writes` first (``jira.writes``); what is not
a write route falls through to the fake's reads. The write routes (all under ``/rest/api/2``):

- ``POST issue/{key}/comment`` ``{body, visibility?, properties?: [{key, value}]}`` -> 201 comment;
  ``PUT issue/{key}/comment/{id}`` -> 200; ``GET issue/{key}/comment[/{id}]?expand=properties``;
  ``comment/{id}/properties[/{key}]`` GET/PUT/DELETE.
- ``GET issue/{key}/transitions?expand=transitions.fields``; ``POST issue/{key}/transitions``
  ``{transition: {id}, fields?, update?: {comment: [{add: {body}}], worklog: [{add: {timeSpent}}]}}``
  -> 204. The workflow and its screens are in :mod:`demo.fakejira_meta`.
- ``GET issue/{key}/editmeta``; ``PUT issue/{key}`` ``{fields?, update?}`` -> 204 (set/add/remove/edit).
- ``GET issue/{key}?fields=&expand=changelog,transitions,editmeta&properties=``: the issue as Jira gives it.
- ``POST issue/{key}/worklog?adjustEstimate=auto|leave|new|manual&newEstimate=&reduceBy=`` -> 201;
  ``GET issue/{key}/worklog/{id}``; ``issue/{key}/worklog/{id}/properties[/{key}]`` GET/PUT/DELETE.
- ``issue/{key}/properties[/{key}]`` GET/PUT/DELETE; create, createmeta, links and attachments are in
  :mod:`demo.fakejira_create`.
- ``POST search`` honours ``expand`` ``transitions``, ``transitions.fields`` and ``editmeta`` and the
  ``properties`` (issue property keys) to return.

Who writes: ``jira.user_tokens = {"pat-alice": "alice"}`` are personal access tokens of other users; a
write made with one is authored by that user (comment and worklog author, reporter, changelog author),
and ``/myself`` names them. The fake's own token (and basic auth) is the user "ivanov".

The knobs a test sets, each taking effect on the next request:

- ``jira.faults``: a list of :class:`Fault` (or tuples ``(kind, method, path_regex[, times])``), tried in
  order against each request (method ``"*"`` for any; the regex searched in the path); one that matches
  fires ``times`` times (0: for ever) and is then taken off the list. ``jira.writes.fired`` lists the
  ``(kind, method, path)`` of each firing. Kinds:
  ``lose_answer`` applies the request, then closes the connection without a byte of answer (httpx
  raises ``RemoteProtocolError``); ``gateway_timeout`` applies it, then a proxy answers 504;
  ``drop`` closes the connection without applying it; ``unavailable`` answers a proxy's 503 without
  applying it. The client cannot tell the first two from the last two: that is the point.
- ``jira.down = True``: every request answers a proxy's 503; ``jira.down = "drop"``: every connection is
  closed unanswered. For a refused connection, ``port = jira.stop()`` and later ``jira.start(port)``
  (the serving loop lets go of the socket when it next wakes: a connection in between may be reset).
- ``jira.slow = seconds``: each write (not a GET, not a search) waits that long before it is applied.
- ``jira.writes.edit_others_comments = False``: a user may edit only their own comments (as one without
  Jira's "Edit All Comments" permission); editing another's is 403 in Jira's words.
"""

from __future__ import annotations

import re
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from waitress.channel import ClientDisconnected

from demo import fakejira_meta as meta
from demo.fakejira_create import Creation
from demo.fakejira_edits import Edits
from demo.fakejira_meta import Refusal, errors, expands, now
from demo.jirashapes import user

if TYPE_CHECKING:
    from demo.fakejira import FakeJira

FAULT_KINDS = ("lose_answer", "gateway_timeout", "drop", "unavailable")
PROXY_504 = b"<html><head><title>504 Gateway Time-out</title></head><body><h1>504 Gateway Time-out</h1></body></html>"
PROXY_503 = (b"<html><head><title>503 Service Unavailable</title></head>"
             b"<body><h1>503 Service Unavailable</h1></body></html>")
NO_ISSUE = {"errorMessages": ["Issue Does Not Exist"], "errors": {}}
PROPERTY_KEY = r"([^/]{1,255})"


@dataclass
class Fault:
    """A fault on demand: ``kind`` (one of :data:`FAULT_KINDS`) for requests of ``method`` ("*": any)
    whose path matches ``path`` (a regex, searched), ``times`` times (0: every time)."""

    kind: str
    method: str = "*"
    path: str = ""
    times: int = 1

    def __post_init__(self):
        if self.kind not in FAULT_KINDS:
            raise ValueError(f"unknown fault {self.kind!r}; one of {FAULT_KINDS}")


class Writes(Edits):
    """The write routes' state (entity properties, ids) and the serving of every request."""

    def __init__(self, jira: FakeJira):
        self.jira = jira
        self.lock = threading.RLock()  # one write at a time, as the fake's dicts are shared
        self.comment_properties: dict[str, dict[str, Any]] = {}  # comment id -> {key: value}
        # False: a user edits only their own comments (no "Edit All Comments" permission), as Jira refuses.
        self.edit_others_comments = True
        self.worklog_properties: dict[str, dict[str, Any]] = {}
        self.issue_properties: dict[str, dict[str, Any]] = {}  # by issue id: it follows a moved issue
        self.fired: list[tuple[str, str, str]] = []
        self._serial = 0
        self.creation = Creation(self)

    def next_id(self, floor: int) -> str:
        """A fresh id above ``floor`` (ids the tests give by hand stay below those the fake makes)."""
        self._serial += 1
        return str(floor + self._serial)

    # --- serving ----------------------------------------------------------------------------

    def serve(self, start_response, method: str, path: str, query: dict, body, who: str, environ: dict):
        """Answer an authenticated request: faults first, then a write route, else the fake's reads."""
        fault = self._fault(method, path)
        if fault == "drop":
            raise ClientDisconnected("dropped on demand")
        if fault == "unavailable":
            return self.proxy(start_response, 503)
        if self.jira.slow and method != "GET" and not path.endswith("/search"):
            time.sleep(self.jira.slow)
        try:
            with self.lock:
                answer = self.route(method, path, query, body, who, environ)
            if answer is None:
                answer = self.jira._route(method, path, query, body)
        except Refusal as refusal:
            answer = refusal.status, refusal.payload, []
        except KeyError as exc:
            answer = 404, {"errorMessages": [f"Not found: {exc}"]}, []
        if fault == "lose_answer":
            # waitress closes the connection unanswered when the app says the client went away.
            raise ClientDisconnected("answer lost on demand")
        if fault == "gateway_timeout":
            return self.proxy(start_response, 504)
        status, payload, headers = answer
        if payload is None:
            start_response(f"{status} X", [("Content-Length", "0"), *headers])
            return [b""]
        if isinstance(payload, bytes):
            start_response(f"{status} X", [("Content-Length", str(len(payload))), *headers])
            return [payload]
        return self.jira._answer(start_response, status, payload, headers)

    def proxy(self, start_response, status: int):
        """A reverse proxy's own answer (HTML) in front of a Jira that is away or slow."""
        page = PROXY_504 if status == 504 else PROXY_503
        start_response(f"{status} X", [("Content-Type", "text/html"), ("Content-Length", str(len(page)))])
        return [page]

    def down(self, start_response):
        """What a request meets while ``jira.down`` is set."""
        if self.jira.down == "drop":
            raise ClientDisconnected("Jira is down")
        return self.proxy(start_response, 503)

    def _fault(self, method: str, path: str) -> str | None:
        with self.lock:
            faults = self.jira.faults
            for n, rule in enumerate(faults):
                fault = rule if isinstance(rule, Fault) else Fault(*rule)
                if fault.method not in ("*", method) or not re.search(fault.path, path):
                    continue
                if fault.times == 1:
                    del faults[n]
                elif fault.times > 1:
                    faults[n] = Fault(fault.kind, fault.method, fault.path, fault.times - 1)
                self.fired.append((fault.kind, method, path))
                return fault.kind
        return None

    def route(self, method: str, path: str, query: dict, body, who: str, environ: dict):
        """A write route's answer ``(status, payload, headers)``, or None for a path that is not one."""
        if not path.startswith("/rest/api/2/"):
            return None
        rest = path[len("/rest/api/2/"):]
        if rest == "myself" and method == "GET":
            return 200, {**user(who), "timeZone": "Europe/Moscow", "locale": "ru_RU"}, []
        answer = self.creation.route(method, rest, query, body, who, environ)
        if answer is not None:
            return answer
        for pattern, verbs in self._routes():
            match = re.fullmatch(pattern, rest)
            if match and method in verbs:
                return verbs[method](*match.groups(), query=query, body=body, who=who)
        return None

    def _routes(self):
        return [
            (r"issue/([^/]+)/comment", {"POST": self.post_comment, "GET": self.comments}),
            (r"issue/([^/]+)/comment/(\d+)", {"GET": self.get_comment, "PUT": self.put_comment}),
            (r"comment/(\d+)/properties", {"GET": self._props("comment", list_only=True)}),
            (rf"comment/(\d+)/properties/{PROPERTY_KEY}", self._props("comment")),
            (r"issue/([^/]+)/transitions", {"GET": self.transitions, "POST": self.transition}),
            (r"issue/([^/]+)/editmeta", {"GET": self.editmeta}),
            (r"issue/([^/]+)", {"GET": self.issue_view, "PUT": self.edit}),
            (r"issue/([^/]+)/worklog", {"POST": self.post_worklog}),
            (r"issue/([^/]+)/worklog/(\d+)", {"GET": self.get_worklog}),
            (r"issue/[^/]+/worklog/(\d+)/properties", {"GET": self._props("worklog", list_only=True)}),
            (rf"issue/[^/]+/worklog/(\d+)/properties/{PROPERTY_KEY}", self._props("worklog")),
            (r"issue/([^/]+)/properties", {"GET": self._props("issue", list_only=True)}),
            (rf"issue/([^/]+)/properties/{PROPERTY_KEY}", self._props("issue")),
        ]

    # --- lookups ----------------------------------------------------------------------------

    def issue(self, key_or_id: str) -> dict:
        """An issue by key (an old key of a moved issue too) or id; Jira's 404 when there is none."""
        issue = self.jira.issues.get(self.jira.current(key_or_id))
        if issue is None and key_or_id.isdigit():
            issue = next((i for i in self.jira.issues.values() if i["id"] == key_or_id), None)
        if issue is None:
            raise Refusal(404, NO_ISSUE)
        return issue

    def _comment(self, cid: str, issue: dict | None = None) -> tuple[dict, dict]:
        for one in [issue] if issue else list(self.jira.issues.values()):
            for comment in one["fields"]["comment"]["comments"]:
                if comment["id"] == cid:
                    return one, comment
        raise Refusal(404, {"errorMessages": [f"Can not find a comment for the id: {cid}."], "errors": {}})

    def _worklog(self, wid: str, issue: dict | None = None) -> tuple[dict, dict]:
        for one in [issue] if issue else list(self.jira.issues.values()):
            for entry in one["fields"]["worklog"]["worklogs"]:
                if entry["id"] == wid:
                    return one, entry
        raise Refusal(404, {"errorMessages": [f"Cannot find worklog with id: '{wid}'."], "errors": {}})

    def touched(self, issue: dict, who: str, items: list[dict]) -> None:
        """An issue changed: ``updated`` is now, and a changelog history by ``who`` holds the items."""
        issue["fields"]["updated"] = now()
        if items:
            issue["changelog"]["histories"].append(
                {"id": self.next_id(95000), "author": user(who), "created": issue["fields"]["updated"],
                 "items": items})
        self.jira._index.clear()

    # --- entity properties -----------------------------------------------------------------

    def _props(self, kind: str, list_only: bool = False):
        """GET/PUT/DELETE of an entity's property (a comment's, a worklog's, an issue's), or its list."""

        def store(owner: str) -> tuple[dict[str, Any], str]:
            if kind == "comment":
                self._comment(owner)
                return self.comment_properties.setdefault(owner, {}), f"comment/{owner}"
            if kind == "worklog":
                self._worklog(owner)
                return self.worklog_properties.setdefault(owner, {}), f"worklog/{owner}"
            issue = self.issue(owner)
            return self.issue_properties.setdefault(issue["id"], {}), f"issue/{issue['key']}"

        def listed(owner, query, body, who):
            held, where = store(owner)
            return 200, {"keys": [{"self": f"{self.jira.url}/rest/api/2/{where}/properties/{k}", "key": k}
                                  for k in held]}, []

        def get(owner, key, query, body, who):
            held, _ = store(owner)
            if key not in held:
                raise Refusal(404, {"errorMessages": [f"The property with key '{key}' does not exist."],
                                    "errors": {}})
            return 200, {"key": key, "value": held[key]}, []

        def put(owner, key, query, body, who):
            held, _ = store(owner)
            if body is None:
                raise errors({}, ["The property value cannot be empty."])
            created = key not in held
            held[key] = body
            return (201 if created else 200), None, []

        def delete(owner, key, query, body, who):
            held, _ = store(owner)
            if held.pop(key, None) is None:
                raise Refusal(404, {"errorMessages": [f"The property with key '{key}' does not exist."],
                                    "errors": {}})
            return 204, None, []

        if list_only:
            return lambda owner, query, body, who: listed(owner, query, body, who)
        return {"GET": lambda o, k, query, body, who: get(o, k, query, body, who),
                "PUT": lambda o, k, query, body, who: put(o, k, query, body, who),
                "DELETE": lambda o, k, query, body, who: delete(o, k, query, body, who)}

    @staticmethod
    def properties_list(held: dict[str, Any]) -> list[dict]:
        return [{"key": k, "value": v} for k, v in held.items()]

    def _set_properties(self, held: dict[str, Any], raw) -> None:
        for prop in raw or []:
            if not isinstance(prop, dict) or not prop.get("key"):
                raise errors({}, ["Property key cannot be empty."])
            held[prop["key"]] = prop.get("value")

    # --- comments ---------------------------------------------------------------------------

    def add_comment(self, issue: dict, body, who: str, properties=None) -> dict:
        """A new comment on the issue from a request's comment bean (checked first, as Jira does)."""
        if not isinstance(body, dict) or not isinstance(body.get("body"), str) or not body["body"].strip():
            raise errors({"comment": "Comment body can not be empty!"})
        visibility = body.get("visibility")
        if visibility is not None and (not isinstance(visibility, dict) or visibility.get("type") not in
                                       ("group", "role") or not visibility.get("value")):
            raise errors({"commentLevel": "You are currently not a member of the project role or group."})
        cid = self.next_id(700000)
        held: dict[str, Any] = {}
        self._set_properties(held, properties)
        moment = now()
        comment = {"self": f"{self.jira.url}/rest/api/2/issue/{issue['id']}/comment/{cid}", "id": cid,
                   "author": user(who), "body": body["body"], "updateAuthor": user(who),
                   "created": moment, "updated": moment}
        if visibility:
            comment["visibility"] = {"type": visibility["type"], "value": visibility["value"]}
        issue["fields"]["comment"]["comments"].append(comment)
        if held:
            self.comment_properties[cid] = held
        return comment

    def post_comment(self, key, query, body, who):
        issue = self.issue(key)
        comment = self.add_comment(issue, body, who, (body or {}).get("properties"))
        self.touched(issue, who, [])
        return 201, self._comment_view(comment, expands(query.get("expand"))), []

    def _comment_view(self, comment: dict, expand: set[str]) -> dict:
        if "properties" not in expand:
            return comment
        return {**comment, "properties": self.properties_list(self.comment_properties.get(comment["id"], {}))}

    def comments(self, key, query, body, who):
        listed = self.issue(key)["fields"]["comment"]["comments"]
        start = int(query.get("startAt", 0))
        size = min(int(query.get("maxResults", 50)), self.jira.max_results)
        expand = expands(query.get("expand"))
        return 200, {"startAt": start, "maxResults": size, "total": len(listed),
                     "comments": [self._comment_view(c, expand) for c in listed[start:start + size]]}, []

    def get_comment(self, key, cid, query, body, who):
        _, comment = self._comment(cid, self.issue(key))
        return 200, self._comment_view(comment, expands(query.get("expand"))), []

    def put_comment(self, key, cid, query, body, who):
        issue, comment = self._comment(cid, self.issue(key))
        if not self.edit_others_comments and comment["author"]["name"] != who:
            raise Refusal(403, {"errorMessages": ["You do not have the permission to edit this comment."],
                                "errors": {}})
        if not isinstance(body, dict) or not isinstance(body.get("body"), str) or not body["body"].strip():
            raise errors({"comment": "Comment body can not be empty!"})
        comment.update(body=body["body"], updateAuthor=user(who), updated=now())
        if body.get("visibility"):
            comment["visibility"] = body["visibility"]
        self._set_properties(self.comment_properties.setdefault(cid, {}), body.get("properties"))
        self.touched(issue, who, [])
        return 200, self._comment_view(comment, expands(query.get("expand"))), []

    # --- the issue, its screens -----------------------------------------------------------

    def issue_view(self, key, query, body, who):
        issue = self.issue(key)
        wanted = set((query.get("fields") or "*all").split(","))
        fields = {k: v for k, v in issue["fields"].items() if "*all" in wanted or k in wanted}
        out: dict = {"expand": "renderedFields,names,schema,operations,editmeta,changelog,versionedRepresentations",
                     "id": issue["id"], "self": f"{self.jira.url}/rest/api/2/issue/{issue['id']}",
                     "key": issue["key"], "fields": fields}
        for name in ("comment", "worklog"):
            if name in fields:
                listed = fields[name][f"{name}s"]
                fields[name] = {"startAt": 0, "maxResults": len(listed), "total": len(listed), f"{name}s": listed}
        expand = expands(query.get("expand"))
        if "changelog" in expand:
            histories = issue["changelog"]["histories"]
            out["changelog"] = {"startAt": 0, "maxResults": len(histories), "total": len(histories),
                                "histories": histories}
        self.expand(issue, out, expand, query.get("properties"))
        return 200, out, []

    def expand(self, issue: dict, out: dict, expand, properties) -> None:
        """What ``expand`` (transitions, transitions.fields, editmeta) and ``properties`` add to an issue
        that a search or ``GET issue`` answers."""
        expand = expands(expand)
        if "transitions" in expand or "transitions.fields" in expand:
            out["transitions"] = [meta.transition_bean(t, "transitions.fields" in expand)
                                  for t in meta.transitions_from(issue["fields"]["status"]["name"])]
        if "editmeta" in expand:
            out["editmeta"] = meta.edit_meta(issue)
        wanted = expands(properties)
        if wanted:
            held = self.issue_properties.get(issue["id"], {})
            everything = "*all" in wanted
            out["properties"] = {k: v for k, v in held.items() if everything or k in wanted}

