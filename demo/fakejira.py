"""A small fake of Jira Server's REST API v2, written from the payload shapes Jira documents.

Served by waitress on a free loopback port. It holds issues in Jira's own JSON shape and answers
the endpoints the agent uses: ``/myself``, ``/field``, the five catalogues (``/priority``,
``/status``, ``/resolution``, ``/issuetype``, ``/issueLinkType``), ``POST /search`` (paged,
``maxResults`` clamped like ``jira.search.views.default.max``; ``fields`` an explicit list or
``*all``; ``expand=changelog``; comment, worklog and changelog containers cut to a few with their
``total``), an issue's ``/comment`` and ``/worklog`` pages and ``?expand=changelog``,
``/attachment/{id}`` and the ``content`` URLs. It can answer 429 with ``Retry-After``, 401 to a
wrong credential, and an HTML login page in place of a file. ``rate_limit()`` runs a token bucket
as Data Center 8.6+ does (announced in every answer's ``X-RateLimit-*`` headers, 429 when empty,
the 429s counted; called again, the bucket is configured anew), ``spotty_limit()`` answers one
request in N with a 429 and an empty bucket's headers and the rest with none (a proxy's limit),
and ``sign_in`` makes REST calls answer an SSO proxy's login page. ``move(old, new)``
moves an issue to a new key as Jira does (the same id, a changelog ``Key`` item, the old key
still found). Issues carry every field ``*all`` returns on Jira Server, null where empty, as Jira
does; ``demo/jirashapes.py`` has the field catalogue and the builders of values.

Its JQL is the little the tests send: ``project = P [AND labels in ("L")]``, ``key in (...)``, ``key = K``,
``AND updated >= "yyyy/MM/dd HH:mm"`` (in the user's zone, Europe/Moscow), ``AND id > N`` (the agent's
keyset) and a trailing ``ORDER BY`` (``ORDER BY id`` orders by id; any other order is by key). Parentheses
around a part are read through. With ``max_result_window`` it refuses a search whose ``startAt +
maxResults`` passes the window with a 400, as Data Center 9 does past
``jira.search.platform.max.result.window`` (10,000 by default). ``delete(key)`` removes an issue as
Jira does (its links go from the other issues); with ``ignores_validate_query`` it answers a search naming
an unknown key with a 400 even when ``validateQuery`` is false, as older Jira versions do.

It takes writes as Jira Server/DC 9 does (comments, transitions, edits, work logs, new issues, links,
attachments, entity properties; ``GET /issue/{key}`` with ``fields``, ``expand`` and ``properties``),
and answers faults on demand (``faults``, ``down``, ``slow``) and other users' tokens (``user_tokens``):
see ``demo/fakejira_writes.py``. Jira Software's boards (``add_board``; a board's configuration and
name under ``/rest/agile/1.0/board/{id}``) are in ``demo/fakejira_agile.py``.
"""

from __future__ import annotations

import base64
import bisect
import json
import re
import threading
import time
from datetime import datetime
from urllib.parse import parse_qs, quote, unquote
from zoneinfo import ZoneInfo

import waitress

from demo.fakejira_agile import Boards
from demo.fakejira_writes import Writes
from demo.jirashapes import (  # several re-exported: the tests build issues from these
    CUSTOM,  # noqa: F401
    CUSTOM_IDS,
    END_FIELD,  # noqa: F401
    EPIC_FIELD,  # noqa: F401
    FIELDS,
    ISSUE_TYPES,
    LINK_TYPES,
    PRIORITIES,
    RESOLUTIONS,
    SPRINT_FIELD,  # noqa: F401
    START_FIELD,  # noqa: F401
    STATUSES,
    TIME,
    component,  # noqa: F401
    group,  # noqa: F401
    legacy_sprint,  # noqa: F401
    named,  # noqa: F401
    object_sprint,  # noqa: F401
    option,  # noqa: F401
    user,
    version,  # noqa: F401
    worklog,
)

ZONE = ZoneInfo("Europe/Moscow")
SIGN_IN_PATH = "/sso/login"
LOGIN_PAGE = b"<!DOCTYPE html><html><head><title>Log in</title></head><body><form>SSO</form></body></html>"
_LINK_TYPES = {t["name"]: t for t in LINK_TYPES}
# What /rest/api/2/<path> answers: Jira's catalogues, in Jira's configured order.
CATALOGUES = {"priority": PRIORITIES, "status": STATUSES, "resolution": RESOLUTIONS, "issuetype": ISSUE_TYPES,
              "issueLinkType": {"issueLinkTypes": LINK_TYPES}}


class FakeJira:
    """The fake's data and knobs; ``url`` once started. Tests edit ``issues`` and ``files`` freely."""

    def __init__(self, token: str = "pat-123", max_results: int = 50, embedded: int = 2,
                 max_result_window: int | None = None, indexed: bool = False):
        self.token = token
        self.basic = ("jira-user", "secret")
        self.max_results = max_results  # Jira clamps maxResults to this, silently
        self.embedded = embedded  # comments, worklogs and histories search embeds; the rest is behind the endpoints
        self.max_result_window = max_result_window  # jira.search.platform.max.result.window; None: none
        # True: a search ordered by id is answered from each scope's matches, kept from its first page,
        # so a page costs the same in a scope of 25,000 as of 2,000 (Jira answers from its index). Only
        # for issues not edited in place (the benchmarks): an edit does not reach the kept matches.
        self.indexed = indexed
        self._index: dict[tuple[str, bool], tuple[int, list[int], list[dict]]] = {}
        self._links_listed = 0
        self.on_search = None  # called with each search body before it is answered: a test edits issues mid-run
        self.issues: dict[str, dict] = {}
        self.moved: dict[str, str] = {}  # an old key -> the key its issue has now (see move())
        self._moves = 0  # moves made: their changelog entries' ids
        self.files: dict[str, bytes] = {}
        self.traps: set[str] = set()  # attachment ids whose content URL answers a login page
        self.throttle = 0  # the next N requests answer 429
        self.retry_after: int | None = 1  # seconds the 429 asks for; None: no Retry-After header
        self.spotty: tuple[int, list[tuple[str, str]]] | None = None  # see spotty_limit()
        self.delay = 0.0  # seconds each search takes, for a run that is still going when a test acts
        self.linking = True  # False: issue linking is off, and /issueLinkType answers 404 as Jira does
        self.ignores_validate_query = False  # True: an unknown key is a 400 whatever validateQuery says
        self.bucket: Bucket | None = None  # see rate_limit()
        # "page": REST calls answer a 200 login page; "redirect": a 302 to one first; "mislabelled":
        # the page, said to be JSON
        self.sign_in = ""
        self.requests: list[tuple[str, str, dict | None]] = []
        self.arrivals: list[tuple[float, bool]] = []  # (monotonic time, throttled) of each request, in order
        self.lock = threading.Lock()
        self.url = ""
        self.base_url = ""  # Jira's configured base URL, as serverInfo says it; empty: the fake's own address
        self._server = None
        # Writes (demo/fakejira_writes.py): other users' personal access tokens (token -> user name),
        # faults on demand, a Jira away (True: 503s; "drop": connections closed), seconds each write waits.
        self.user_tokens: dict[str, str] = {}
        self.faults: list = []
        self.down: bool | str = False
        self.slow = 0.0
        self.writes = Writes(self)
        self.agile = Boards(lambda: self.url)  # agile boards: demo/fakejira_agile.py

    # --- building the data ----------------------------------------------------------

    def add_issue(self, key: str, *, summary: str | None = None, labels=(), status: str = "Open",
                  assignee: str | None = "ivanov", updated: str = TIME, parent: str | None = None,
                  **fields) -> dict:
        """An issue in Jira's shape; ``fields`` go into its ``fields`` as they are (by field id).
        Every other field ``*all`` returns is there, null or empty, as Jira has it. With ``parent``
        it is a sub-task of that issue, listed in the parent's ``subtasks``."""
        project = key.split("-")[0]
        issue = {"id": str(10000 + len(self.issues) + 1), "key": key, "self": f"/rest/api/2/issue/{key}",
                 "fields": {"summary": summary or f"Summary {key}", "description": f"h1. {key}",
                            "issuetype": {"name": "Sub-task" if parent else "Story", "subtask": bool(parent)},
                            "status": {"name": status}, "priority": {"name": "Major"},
                            "project": {"key": project, "name": project.title()},
                            "assignee": user(assignee) if assignee else None, "reporter": user("petrov"),
                            "creator": user("petrov"), "duedate": None, "labels": list(labels),
                            "created": "2026-10-01T09:00:00.000+0300", "updated": updated, "lastViewed": None,
                            "issuelinks": [], "attachment": [], "comment": {"comments": []},
                            "worklog": {"worklogs": []}, "resolution": None, "resolutiondate": None,
                            "components": [], "fixVersions": [], "versions": [], "environment": None,
                            "subtasks": [], "timeoriginalestimate": None, "timeestimate": None,
                            "timespent": None, "timetracking": {}, "workratio": -1,
                            "votes": {"self": f"/rest/api/2/issue/{key}/votes", "votes": 0, "hasVoted": False},
                            "watches": {"self": f"/rest/api/2/issue/{key}/watchers", "watchCount": 1,
                                        "isWatching": False},
                            **{fid: None for fid in CUSTOM_IDS}, **fields},
                 "changelog": {"histories": []}}
        if parent:
            up = self.issues[parent]
            brief = {"summary": issue["fields"]["summary"], "status": issue["fields"]["status"],
                     "priority": issue["fields"]["priority"], "issuetype": issue["fields"]["issuetype"]}
            issue["fields"]["parent"] = {"id": up["id"], "key": parent, "self": up["self"],
                                         "fields": {k: up["fields"][k] for k in brief}}
            up["fields"]["subtasks"].append({"id": issue["id"], "key": key, "self": issue["self"], "fields": brief})
        self.issues[key] = issue
        return issue

    def add_board(self, board_id: int, name: str, type: str, columns: list[tuple[str, list[str]]]) -> dict:
        """An agile board (``scrum`` or ``kanban``) whose configuration maps ``columns``, each a column's
        name and the names of its statuses (see demo/fakejira_agile.py)."""
        return self.agile.add(board_id, name, type, columns)

    def link(self, source: str, target: str, kind: str = "Blocks") -> None:
        """A link source → target: Jira lists it on both issues, outward on one and inward on the other."""
        # The ids a count of the links listed on every issue gave, kept as a count: summing them anew
        # made a sample project of 25,000 issues take minutes to build.
        link_id = str(20000 + self._links_listed)
        self._links_listed += 2
        names = _LINK_TYPES.get(kind) or {"name": kind, "inward": f"is {kind.lower()} by", "outward": kind.lower()}
        self.issues[source]["fields"]["issuelinks"].append(
            {"id": link_id, "type": names, "outwardIssue": {"key": target, "id": self.issues[target]["id"]}})
        self.issues[target]["fields"]["issuelinks"].append(
            {"id": link_id, "type": names, "inwardIssue": {"key": source, "id": self.issues[source]["id"]}})

    def delete(self, key: str) -> None:
        """Delete an issue as Jira does: it is gone from every search, and its links from the issues
        it was linked to (their ``updated`` stays: Jira does not count a removed link as an edit)."""
        gone = self.issues.pop(key)
        for other in self.issues.values():
            links = other["fields"]["issuelinks"]
            links[:] = [link for link in links
                        if (link.get("outwardIssue") or link.get("inwardIssue") or {}).get("id") != gone["id"]]
            other["fields"]["subtasks"] = [task for task in other["fields"]["subtasks"] if task["id"] != gone["id"]]
        self._index.clear()

    def add_comment(self, key: str, cid: str, body: str, author: str = "ivanov") -> None:
        self.issues[key]["fields"]["comment"]["comments"].append(
            {"id": cid, "author": user(author), "updateAuthor": user(author), "body": body,
             "created": TIME, "updated": TIME})

    def add_history(self, key: str, hid: str, field: str, from_string: str, to_string: str,
                    author: str = "ivanov", from_value: str | None = "1", to_value: str | None = "3") -> None:
        self.issues[key]["changelog"]["histories"].append(
            {"id": hid, "author": user(author), "created": TIME,
             "items": [{"field": field, "fieldtype": "jira", "from": from_value, "fromString": from_string,
                        "to": to_value, "toString": to_string}]})

    def add_worklog(self, key: str, wid: str, seconds: int, author: str = "ivanov", comment: str = "",
                    started: str = TIME) -> None:
        """A worklog; the issue's ``timespent`` grows by it, as Jira's does."""
        fields = self.issues[key]["fields"]
        fields["worklog"]["worklogs"].append(worklog(wid, seconds, author, comment, started))
        fields["timespent"] = (fields["timespent"] or 0) + seconds

    def add_attachment(self, key: str, aid: str, filename: str, content: bytes,
                       mime_type: str = "application/pdf") -> None:
        self.files[aid] = content
        self.issues[key]["fields"]["attachment"].append(
            {"id": aid, "filename": filename, "author": user("ivanov"), "created": TIME, "size": len(content),
             "mimeType": mime_type, "content": f"{self.url}/secure/attachment/{aid}/{quote(filename)}",
             "self": f"{self.url}/rest/api/2/attachment/{aid}"})

    def move(self, old: str, new: str, updated: str | None = None) -> dict:
        """Move an issue to a new key, as Jira's "Move" (or a project's new key) does: the issue keeps
        its id, its changelog gets ``Key`` (and ``project``) items, links and sub-tasks of other issues
        name the new key, and the old key still answers: ``key = OLD``, ``key in (OLD)`` and
        ``/issue/OLD`` give the issue under its new key. ``updated`` defaults to now."""
        issue = self.issues.pop(old)
        self._moves += 1
        fields = issue["fields"]
        project = new.split("-")[0]
        was = fields["project"]["key"]
        issue["key"], issue["self"] = new, f"/rest/api/2/issue/{new}"
        fields["project"] = {"key": project, "name": project.title()}
        fields["updated"] = updated or datetime.now(ZONE).strftime("%Y-%m-%dT%H:%M:%S.000%z")
        items = [{"field": "Key", "fieldtype": "jira", "from": None, "fromString": old, "to": None, "toString": new}]
        if project != was:
            items.append({"field": "project", "fieldtype": "jira", "from": None, "fromString": was.title(),
                          "to": None, "toString": project.title()})
        issue["changelog"]["histories"].append(
            {"id": str(90000 + self._moves),
             "author": user("ivanov"), "created": fields["updated"], "items": items})
        self.issues[new] = issue
        # Jira keeps every old key of an issue: each now leads to the new one.
        self.moved = {o: (new if k == old else k) for o, k in self.moved.items() if o != new}
        self.moved[old] = new
        for other in self.issues.values():
            for link in other["fields"]["issuelinks"]:
                for side in ("outwardIssue", "inwardIssue"):
                    if side in link and link[side]["key"] == old:
                        link[side]["key"] = new
            for task in other["fields"]["subtasks"]:
                if task["key"] == old:
                    task["key"] = new
            parent = other["fields"].get("parent")
            if parent and parent["key"] == old:
                parent["key"] = new
        return issue

    def current(self, key: str) -> str:
        """The key an issue has now, for a key it had (Jira redirects an old key to the issue)."""
        return self.moved.get(key, key)

    def rate_limit(self, limit: int, fill_rate: int, interval: int = 1) -> Bucket:
        """Limit requests as Data Center's rate limiting does: a bucket of ``limit`` tokens, one a
        request, ``fill_rate`` more every ``interval`` seconds; ``bucket.refused`` counts its 429s."""
        self.bucket = Bucket(limit, fill_rate, interval)
        return self.bucket

    def spotty_limit(self, every: int, limit: int = 9, fill_rate: int = 1, interval: int = 1,
                     retry_after: int | None = 1) -> None:
        """Answer one request in ``every`` with a 429 announcing an empty bucket of ``limit`` tokens
        (``X-RateLimit-*``, and ``Retry-After`` unless None) and the others with no such header at all:
        a proxy in front of Jira that limits the rate, or a Jira that limits some endpoints only."""
        headers = [("X-RateLimit-Limit", str(limit)), ("X-RateLimit-Remaining", "0"),
                   ("X-RateLimit-FillRate", str(fill_rate)), ("X-RateLimit-Interval-Seconds", str(interval))]
        if retry_after is not None:
            headers.append(("Retry-After", str(retry_after)))
        self.spotty = (every, headers)

    # --- serving ----------------------------------------------------------------------

    def start(self, port: int = 0) -> FakeJira:
        """Serve on ``port`` (0: a free one); a stopped fake started again on its old port comes back."""
        self._server = waitress.create_server(self, host="127.0.0.1", port=port, threads=8)
        self.url = f"http://127.0.0.1:{self._server.effective_port}"
        self._stopping = False
        threading.Thread(target=self._serve, daemon=True).start()
        return self

    def _serve(self) -> None:
        try:
            self._server.run()
        except OSError:
            # Closing the server from another thread pulls the socket from under its loop.
            if not self._stopping:
                raise

    def stop(self) -> int:
        """Stop serving (connections are then refused); the port it served on."""
        port = int(self.url.rsplit(":", 1)[1]) if self.url else 0
        if self._server is not None:
            self._stopping = True
            self._server.close()
        return port

    def __call__(self, environ, start_response):
        method, path = environ["REQUEST_METHOD"], environ["PATH_INFO"]
        query = {k: v[0] for k, v in parse_qs(environ.get("QUERY_STRING", "")).items()}
        length = int(environ.get("CONTENT_LENGTH") or 0)
        raw = environ["wsgi.input"].read(length) if length else b""
        # An attachment's upload is multipart: the write routes read it raw.
        body = raw if environ.get("CONTENT_TYPE", "").startswith("multipart/") else json.loads(raw) if raw else None
        with self.lock:
            self.requests.append((method, path, body))
            throttled = self.throttle > 0
            if throttled:
                self.throttle -= 1
            spotty = self.spotty is not None and len(self.requests) % self.spotty[0] == 0
            self.arrivals.append((time.monotonic(), throttled or spotty))
        if self.down:
            return self.writes.down(start_response)
        if throttled:
            told = [] if self.retry_after is None else [("Retry-After", str(self.retry_after))]
            return self._answer(start_response, 429, {"errorMessages": ["Rate limit exceeded."]}, told)
        if spotty and self.spotty is not None:
            return self._answer(start_response, 429, {"message": "Rate limit exceeded."}, self.spotty[1])
        if self.sign_in and (path.startswith("/rest/") or path == SIGN_IN_PATH):
            return self._sign_in_page(start_response, path)
        if self.bucket is not None:
            granted, announced = self.bucket.take()
            if not granted:
                return self._answer(start_response, 429, {"message": "Rate limit exceeded."}, announced)
            start_response = _announcing(start_response, announced)
        who = self._user(environ)
        if who is None:
            return self._answer(start_response, 401, {"errorMessages": ["You are not authenticated."]})
        return self.writes.serve(start_response, method, path, query, body, who, environ)

    def _sign_in_page(self, start_response, path: str):
        """What an SSO proxy in front of Jira answers a call it lets no token through: its login form."""
        if self.sign_in == "redirect" and path != SIGN_IN_PATH:
            start_response("302 Found", [("Location", f"{self.url}{SIGN_IN_PATH}?destination={quote(path)}"),
                                         ("Content-Length", "0")])
            return [b""]
        # "mislabelled": some proxies send their page as JSON; only the body tells it apart.
        kind = "application/json" if self.sign_in == "mislabelled" else "text/html;charset=UTF-8"
        start_response("200 OK", [("Content-Type", kind),
                                  ("Content-Length", str(len(LOGIN_PAGE)))])
        return [LOGIN_PAGE]

    def _answer(self, start_response, status: int, payload, headers=()):
        data = json.dumps(payload).encode()
        start_response(f"{status} X", [("Content-Type", "application/json;charset=UTF-8"),
                                       ("Content-Length", str(len(data))), *headers])
        return [data]

    def _user(self, environ) -> str | None:
        """The user a request's credentials are: "ivanov" for the fake's own, the owner of a token in
        ``user_tokens``; None for a wrong one."""
        header = environ.get("HTTP_AUTHORIZATION", "")
        if header == f"Bearer {self.token}":
            return "ivanov"
        if header.startswith("Bearer ") and header[7:] in self.user_tokens:
            return self.user_tokens[header[7:]]
        if header.startswith("Basic ") and base64.b64decode(header[6:]).decode() == ":".join(self.basic):
            return "ivanov"
        return None

    def _route(self, method: str, path: str, query: dict, body):
        if path == "/rest/api/2/serverInfo":
            return 200, self.server_info(), []
        if path == "/rest/api/2/field":
            return 200, FIELDS, []
        if path == "/rest/api/2/issueLinkType" and not self.linking:
            return 404, {"errorMessages": ["Issue linking is currently disabled."], "errors": {}}, []
        if path.startswith("/rest/api/2/") and path[12:] in CATALOGUES:
            return 200, CATALOGUES[path[12:]], []
        if path == "/rest/api/2/search" and method == "POST":
            return self._search(body)
        if path.startswith("/rest/agile/"):
            return self.agile.route(method, path)
        match = re.fullmatch(r"/rest/api/2/issue/([^/]+)/(comment|worklog)", path)
        if match:
            plural = f"{match[2]}s"
            listed = self.issues[self.current(match[1])]["fields"][match[2]][plural]
            start, size = int(query.get("startAt", 0)), min(int(query.get("maxResults", 50)), self.max_results)
            return 200, {"startAt": start, "maxResults": size, "total": len(listed),
                         plural: listed[start:start + size]}, []
        match = re.fullmatch(r"/rest/api/2/attachment/(\d+)", path)
        if match:
            return 200, self._attachment(match[1]), []
        match = re.fullmatch(r"/secure/attachment/(\d+)/(.+)", path)
        if match:
            aid = match[1]
            if aid in self.traps:
                return 200, LOGIN_PAGE, [("Content-Type", "text/html;charset=UTF-8")]
            meta = self._attachment(aid)
            # PATH_INFO is the decoded path as latin-1 (PEP 3333); the name must be the attachment's own.
            if unquote(match[2].encode("latin-1").decode("utf-8")) != meta["filename"]:
                raise KeyError(path)
            return 200, self.files[aid], [("Content-Type", meta["mimeType"])]
        raise KeyError(path)

    def server_info(self) -> dict:
        """What Jira Server 9 answers ``/rest/api/2/serverInfo``: ``baseUrl`` is Jira's configured base URL
        (``base_url``: by default the fake's own address)."""
        return {"baseUrl": self.base_url or self.url, "version": "9.12.2", "versionNumbers": [9, 12, 2],
                "deploymentType": "Server", "buildNumber": 912002, "buildDate": "2023-12-05T00:00:00.000+0300",
                "serverTime": datetime.now(ZONE).strftime("%Y-%m-%dT%H:%M:%S.000%z"),
                "scmInfo": "0000000000000000000000000000000000000000", "serverTitle": "Jira"}

    def _attachment(self, aid: str) -> dict:
        for issue in self.issues.values():
            for attachment in issue["fields"]["attachment"]:
                if attachment["id"] == aid:
                    return attachment
        raise KeyError(aid)

    def _indexed(self, jql: str, validate: bool) -> list[dict] | str:
        """:meth:`select` of an ``ORDER BY id`` search from the scope's kept matches (``indexed``)."""
        after = re.search(r"(?:^|\s+AND\s+)id > (\d+)\s*", jql)
        scope = (jql[:after.start()] + (" " if after.start() else "") + jql[after.end():]).strip() if after else jql
        kept = self._index.get((scope, validate))
        if kept is None or kept[0] != len(self.issues):
            chosen = self.select(scope, validate, index=False)
            if isinstance(chosen, str):
                return chosen
            kept = self._index[(scope, validate)] = (len(self.issues), [int(i["id"]) for i in chosen], chosen)
        return kept[2][bisect.bisect_right(kept[1], int(after[1])):] if after else kept[2]

    def select(self, jql: str, validate: bool = True, index: bool = True) -> list[dict] | str:
        """The issues a JQL selects, ordered by key (by id with ``ORDER BY id``); an error text for a key
        that does not exist."""
        order = re.search(r"(?:^|\s)ORDER\s+BY\s+(\w+)", jql, flags=re.I)
        if index and self.indexed and order and order[1].lower() == "id":
            return self._indexed(jql, validate)
        where = re.sub(r"(?:^|\s+)ORDER\s+BY\s+.*$", "", jql, flags=re.I)
        since = re.search(r'\b(updated|created) >= "([^"]+)"', where)
        after = re.search(r"\bid > (\d+)", where)
        keys = re.search(r"key in \(([^)]*)\)", where) or re.search(r'\bkey = ("?[\w-]+"?)', where)
        if keys:
            # An old key of a moved issue finds it under its new key, once.
            wanted = list(dict.fromkeys(self.current(k.strip().strip('"')) for k in keys[1].split(",")))
            missing = [k for k in wanted if k not in self.issues]
            if missing and validate:
                return f"An issue with key '{missing[0]}' does not exist for field 'key'."
            chosen = [self.issues[k] for k in wanted if k in self.issues]
        else:
            project = re.search(r"project = (\w+)", where)
            label = re.search(r'labels in \("([^"]+)"\)', where)
            chosen = [i for i in self.issues.values()
                      if (not project or i["fields"]["project"]["key"] == project[1])
                      and (not label or label[1] in i["fields"]["labels"])]
        if since:
            floor = datetime.strptime(since[2], "%Y/%m/%d %H:%M")
            chosen = [i for i in chosen if _local(i["fields"][since[1]]) >= floor]
        if after:
            chosen = [i for i in chosen if int(i["id"]) > int(after[1])]
        if order and order[1].lower() == "id":
            return sorted(chosen, key=lambda i: int(i["id"]))
        return sorted(chosen, key=lambda i: (i["key"].split("-")[0], int(i["key"].split("-")[1])))

    def _search(self, body: dict):
        if self.delay:
            time.sleep(self.delay)
        if self.on_search:
            self.on_search(body)
        start, size = int(body.get("startAt", 0)), min(int(body.get("maxResults", 50)), self.max_results)
        refused = self._past_window(start, int(body.get("maxResults", 50)))
        if refused:
            return 400, {"errorMessages": [refused], "errors": {}}, []
        chosen = self.select(body["jql"], self.ignores_validate_query or body.get("validateQuery", True) is not False)
        if isinstance(chosen, str):
            return 400, {"errorMessages": [chosen], "errors": {}}, []
        wanted = set(body.get("fields") or ["*all"])
        issues = []
        for issue in chosen[start:start + size]:
            fields = {k: v for k, v in issue["fields"].items() if k in wanted or "*all" in wanted}
            for name in ("comment", "worklog"):
                if name in fields:
                    listed = fields[name][f"{name}s"]
                    fields[name] = {f"{name}s": listed[:self.embedded], "maxResults": self.embedded,
                                    "total": len(listed), "startAt": 0}
            out = {"id": issue["id"], "key": issue["key"], "self": issue["self"], "fields": fields}
            if "changelog" in (body.get("expand") or []):
                histories = issue["changelog"]["histories"]
                out["changelog"] = {"startAt": 0, "maxResults": self.embedded, "total": len(histories),
                                    "histories": histories[:self.embedded]}
            self.writes.expand(issue, out, body.get("expand"), body.get("properties"))
            issues.append(out)
        return 200, {"expand": "schema,names", "startAt": start, "maxResults": size, "total": len(chosen),
                     "issues": issues}, []


    def _past_window(self, start: int, asked: int) -> str | None:
        """Data Center 9's refusal of a page past its result window, in Jira's error shape; None if within."""
        window = self.max_result_window
        if window is None or start + asked <= window:
            return None
        return (f"The requested page is outside the search result window: startAt + maxResults ({start + asked})"
                f" must not exceed {window} (jira.search.platform.max.result.window). Narrow the search.")


def _local(jira_time: str) -> datetime:
    """A Jira time as naive wall time in the user's zone, as JQL compares dates."""
    return datetime.strptime(jira_time, "%Y-%m-%dT%H:%M:%S.%f%z").astimezone(ZONE).replace(tzinfo=None)


class Bucket:
    """A token bucket as Data Center's rate limiting runs it: ``limit`` tokens at most; ``fill_rate``
    come back in one batch every ``interval`` seconds, counted from when the bucket was made."""

    def __init__(self, limit: int, fill_rate: int, interval: int = 1):
        self.limit, self.fill_rate, self.interval = limit, fill_rate, interval
        self.tokens = limit
        self.refused = 0  # the 429s it answered
        self.granted = 0
        self._lock = threading.Lock()
        self._next = time.monotonic() + interval

    def take(self) -> tuple[bool, list[tuple[str, str]]]:
        """A token for a request if there is one, and the headers that announce the bucket after it."""
        with self._lock:
            now = time.monotonic()
            if now >= self._next:
                batches = int((now - self._next) // self.interval) + 1
                self.tokens = min(self.limit, self.tokens + batches * self.fill_rate)
                self._next += batches * self.interval
            granted = self.tokens > 0
            if granted:
                self.tokens -= 1
                self.granted += 1
            else:
                self.refused += 1
            # Retry-After: 0 while tokens are left, else the whole seconds until the next batch.
            wait = 0 if self.tokens > 0 else max(1, int(-(-(self._next - now) // 1)))
            return granted, [("X-RateLimit-Limit", str(self.limit)), ("X-RateLimit-Remaining", str(self.tokens)),
                             ("X-RateLimit-FillRate", str(self.fill_rate)),
                             ("X-RateLimit-Interval-Seconds", str(self.interval)), ("Retry-After", str(wait))]


def _announcing(start_response, headers: list[tuple[str, str]]):
    """``start_response`` with the bucket's headers added to whatever the answer sends."""
    return lambda status, sent, *rest: start_response(status, [*sent, *headers], *rest)
