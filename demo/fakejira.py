"""A small fake of Jira Server's REST API v2, written from the payload shapes Jira documents.

Served by waitress on a free loopback port. It holds issues in Jira's own JSON shape and answers
the endpoints the agent uses: ``/myself``, ``/field``, ``POST /search`` (paged, ``maxResults``
clamped like ``jira.search.views.default.max``; ``expand=changelog``; comment and changelog
containers cut to a few with their ``total``), an issue's ``/comment`` pages and
``?expand=changelog``, ``/attachment/{id}`` and the ``content`` URLs. It can answer 429 with
``Retry-After``, 401 to a wrong credential, and an HTML login page in place of a file.

Its JQL is the little the tests send: ``project = P [AND labels in ("L")]``, ``key in (...)``,
``AND updated >= "yyyy/MM/dd HH:mm"`` (in the user's zone, Europe/Moscow) and a trailing ``ORDER BY``.
"""

from __future__ import annotations

import base64
import json
import re
import threading
import time
from datetime import datetime
from urllib.parse import parse_qs, quote, unquote
from zoneinfo import ZoneInfo

import waitress

SPRINT_FIELD, EPIC_FIELD, START_FIELD, END_FIELD = ("customfield_10100", "customfield_10101",
                                                     "customfield_10200", "customfield_10201")
FIELDS = [
    {"id": "summary", "name": "Summary", "custom": False, "schema": {"type": "string", "system": "summary"}},
    {"id": "labels", "name": "Labels", "custom": False, "schema": {"type": "array", "system": "labels"}},
    {"id": SPRINT_FIELD, "name": "Sprint", "custom": True,
     "schema": {"type": "array", "items": "string", "custom": "com.pyxis.greenhopper.jira:gh-sprint",
                "customId": 10100}},
    {"id": EPIC_FIELD, "name": "Epic Link", "custom": True,
     "schema": {"type": "any", "custom": "com.pyxis.greenhopper.jira:gh-epic-link", "customId": 10101}},
    {"id": "customfield_10199", "name": "Planned start (old)", "custom": True,
     "schema": {"type": "date", "custom": "com.atlassian.jira.plugin.system.customfieldtypes:datepicker"}},
    {"id": START_FIELD, "name": "Planned start", "custom": True,
     "schema": {"type": "date", "custom": "com.atlassian.jira.plugin.system.customfieldtypes:datepicker"}},
    {"id": END_FIELD, "name": "Planned end", "custom": True,
     "schema": {"type": "date", "custom": "com.atlassian.jira.plugin.system.customfieldtypes:datepicker"}},
]

ZONE = ZoneInfo("Europe/Moscow")
LOGIN_PAGE = b"<!DOCTYPE html><html><head><title>Log in</title></head><body><form>SSO</form></body></html>"
TIME = "2026-10-22T13:05:11.000+0300"


def user(name: str) -> dict:
    """A Jira user as the REST API writes it: ``name`` (login), ``key`` and ``displayName`` differ."""
    return {"name": name, "key": f"JIRAUSER{abs(hash(name)) % 100000}", "displayName": name.title(),
            "emailAddress": f"{name}@example.com", "active": True}


def legacy_sprint(sid: int, name: str, state: str, sequence: int, goal: str = "") -> str:
    """GreenHopper's toString() of a sprint, as Jira Server's REST API returns it in the Sprint field."""
    return (f"com.atlassian.greenhopper.service.sprint.Sprint@{sid:x}a2b[id={sid},rapidViewId=7,state={state},"
            f"name={name},goal={goal},startDate=2026-10-01T09:00:00.000+03:00,endDate=<null>,"
            f"completeDate=<null>,sequence={sequence}]")


class FakeJira:
    """The fake's data and knobs; ``url`` once started. Tests edit ``issues`` and ``files`` freely."""

    def __init__(self, token: str = "pat-123", max_results: int = 50, embedded: int = 2):
        self.token = token
        self.basic = ("jira-user", "secret")
        self.max_results = max_results  # Jira clamps maxResults to this, silently
        self.embedded = embedded  # comments and histories search embeds; the rest is behind the endpoints
        self.issues: dict[str, dict] = {}
        self.files: dict[str, bytes] = {}
        self.traps: set[str] = set()  # attachment ids whose content URL answers a login page
        self.throttle = 0  # the next N requests answer 429
        self.retry_after = 1  # seconds the 429 asks for
        self.delay = 0.0  # seconds each search takes, for a run that is still going when a test acts
        self.requests: list[tuple[str, str, dict | None]] = []
        self.arrivals: list[tuple[float, bool]] = []  # (monotonic time, throttled) of each request, in order
        self.lock = threading.Lock()
        self.url = ""
        self._server = None

    # --- building the data ----------------------------------------------------------

    def add_issue(self, key: str, *, summary: str | None = None, labels=(), status: str = "Open",
                  assignee: str | None = "ivanov", updated: str = TIME, **fields) -> dict:
        """An issue in Jira's shape; ``fields`` go into its ``fields`` as they are."""
        project = key.split("-")[0]
        issue = {"id": str(10000 + len(self.issues) + 1), "key": key, "self": f"/rest/api/2/issue/{key}",
                 "fields": {"summary": summary or f"Summary {key}", "description": f"h1. {key}",
                            "issuetype": {"name": "Story"}, "status": {"name": status},
                            "priority": {"name": "Major"}, "project": {"key": project},
                            "assignee": user(assignee) if assignee else None, "reporter": user("petrov"),
                            "duedate": None, "labels": list(labels), "created": "2026-10-01T09:00:00.000+0300",
                            "updated": updated, "issuelinks": [], "attachment": [],
                            "comment": {"comments": []}, **fields},
                 "changelog": {"histories": []}}
        self.issues[key] = issue
        return issue

    def link(self, source: str, target: str, kind: str = "Blocks") -> None:
        """A link source → target: Jira lists it on both issues, outward on one and inward on the other."""
        link_id = str(20000 + sum(len(i["fields"]["issuelinks"]) for i in self.issues.values()))
        names = {"name": kind, "inward": f"is {kind.lower()} by", "outward": kind.lower()}
        self.issues[source]["fields"]["issuelinks"].append(
            {"id": link_id, "type": names, "outwardIssue": {"key": target, "id": self.issues[target]["id"]}})
        self.issues[target]["fields"]["issuelinks"].append(
            {"id": link_id, "type": names, "inwardIssue": {"key": source, "id": self.issues[source]["id"]}})

    def add_comment(self, key: str, cid: str, body: str, author: str = "ivanov") -> None:
        self.issues[key]["fields"]["comment"]["comments"].append(
            {"id": cid, "author": user(author), "updateAuthor": user(author), "body": body,
             "created": TIME, "updated": TIME})

    def add_history(self, key: str, hid: str, field: str, from_string: str, to_string: str) -> None:
        self.issues[key]["changelog"]["histories"].append(
            {"id": hid, "author": user("ivanov"), "created": TIME,
             "items": [{"field": field, "fieldtype": "jira", "from": "1", "fromString": from_string,
                        "to": "3", "toString": to_string}]})

    def add_attachment(self, key: str, aid: str, filename: str, content: bytes,
                       mime_type: str = "application/pdf") -> None:
        self.files[aid] = content
        self.issues[key]["fields"]["attachment"].append(
            {"id": aid, "filename": filename, "author": user("ivanov"), "created": TIME, "size": len(content),
             "mimeType": mime_type, "content": f"{self.url}/secure/attachment/{aid}/{quote(filename)}",
             "self": f"{self.url}/rest/api/2/attachment/{aid}"})

    # --- serving ----------------------------------------------------------------------

    def start(self) -> FakeJira:
        self._server = waitress.create_server(self, host="127.0.0.1", port=0, threads=8)
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

    def stop(self) -> None:
        if self._server is not None:
            self._stopping = True
            self._server.close()

    def __call__(self, environ, start_response):
        method, path = environ["REQUEST_METHOD"], environ["PATH_INFO"]
        query = {k: v[0] for k, v in parse_qs(environ.get("QUERY_STRING", "")).items()}
        length = int(environ.get("CONTENT_LENGTH") or 0)
        body = json.loads(environ["wsgi.input"].read(length)) if length else None
        with self.lock:
            self.requests.append((method, path, body))
            throttled = self.throttle > 0
            if throttled:
                self.throttle -= 1
            self.arrivals.append((time.monotonic(), throttled))
        if throttled:
            return self._answer(start_response, 429, {"errorMessages": ["Rate limit exceeded."]},
                                [("Retry-After", str(self.retry_after))])
        if not self._authorised(environ):
            return self._answer(start_response, 401, {"errorMessages": ["You are not authenticated."]})
        try:
            status, payload, headers = self._route(method, path, query, body)
        except KeyError as exc:
            status, payload, headers = 404, {"errorMessages": [f"Not found: {exc}"]}, []
        if isinstance(payload, bytes):
            start_response(f"{status} X", [("Content-Length", str(len(payload))), *headers])
            return [payload]
        return self._answer(start_response, status, payload, headers)

    def _answer(self, start_response, status: int, payload, headers=()):
        data = json.dumps(payload).encode()
        start_response(f"{status} X", [("Content-Type", "application/json;charset=UTF-8"),
                                       ("Content-Length", str(len(data))), *headers])
        return [data]

    def _authorised(self, environ) -> bool:
        header = environ.get("HTTP_AUTHORIZATION", "")
        if header == f"Bearer {self.token}":
            return True
        if header.startswith("Basic "):
            return base64.b64decode(header[6:]).decode() == ":".join(self.basic)
        return False

    def _route(self, method: str, path: str, query: dict, body):
        if path == "/rest/api/2/myself":
            return 200, {**user("ivanov"), "timeZone": "Europe/Moscow", "locale": "ru_RU"}, []
        if path == "/rest/api/2/field":
            return 200, FIELDS, []
        if path == "/rest/api/2/search" and method == "POST":
            return self._search(body)
        match = re.fullmatch(r"/rest/api/2/issue/([^/]+)/comment", path)
        if match:
            comments = self.issues[match[1]]["fields"]["comment"]["comments"]
            start, size = int(query.get("startAt", 0)), min(int(query.get("maxResults", 50)), self.max_results)
            return 200, {"startAt": start, "maxResults": size, "total": len(comments),
                         "comments": comments[start:start + size]}, []
        match = re.fullmatch(r"/rest/api/2/issue/([^/]+)", path)
        if match:
            issue = self.issues[match[1]]
            return 200, {"id": issue["id"], "key": issue["key"], "fields": {"created": issue["fields"]["created"]},
                         "changelog": {"startAt": 0, "maxResults": len(issue["changelog"]["histories"]),
                                       "total": len(issue["changelog"]["histories"]),
                                       "histories": issue["changelog"]["histories"]}}, []
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

    def _attachment(self, aid: str) -> dict:
        for issue in self.issues.values():
            for attachment in issue["fields"]["attachment"]:
                if attachment["id"] == aid:
                    return attachment
        raise KeyError(aid)

    def select(self, jql: str, validate: bool = True) -> list[dict] | str:
        """The issues a JQL selects, ordered by key; an error text for a key that does not exist."""
        where = re.sub(r"\s+ORDER\s+BY\s+.*$", "", jql, flags=re.I)
        since = re.search(r'AND updated >= "([^"]+)"', where)
        keys = re.search(r"key in \(([^)]*)\)", where)
        if keys:
            wanted = [k.strip().strip('"') for k in keys[1].split(",")]
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
            floor = datetime.strptime(since[1], "%Y/%m/%d %H:%M")
            chosen = [i for i in chosen if _local(i["fields"]["updated"]) >= floor]
        return sorted(chosen, key=lambda i: (i["key"].split("-")[0], int(i["key"].split("-")[1])))

    def _search(self, body: dict):
        if self.delay:
            time.sleep(self.delay)
        chosen = self.select(body["jql"], body.get("validateQuery", True) is not False)
        if isinstance(chosen, str):
            return 400, {"errorMessages": [chosen], "errors": {}}, []
        start, size = int(body.get("startAt", 0)), min(int(body.get("maxResults", 50)), self.max_results)
        wanted = set(body.get("fields") or [])
        issues = []
        for issue in chosen[start:start + size]:
            fields = {k: v for k, v in issue["fields"].items() if k in wanted}
            if "comment" in fields:
                comments = fields["comment"]["comments"]
                fields["comment"] = {"comments": comments[:self.embedded], "maxResults": self.embedded,
                                     "total": len(comments), "startAt": 0}
            out = {"id": issue["id"], "key": issue["key"], "self": issue["self"], "fields": fields}
            if "changelog" in (body.get("expand") or []):
                histories = issue["changelog"]["histories"]
                out["changelog"] = {"startAt": 0, "maxResults": self.embedded, "total": len(histories),
                                    "histories": histories[:self.embedded]}
            issues.append(out)
        return 200, {"expand": "schema,names", "startAt": start, "maxResults": size, "total": len(chosen),
                     "issues": issues}, []


def _local(jira_time: str) -> datetime:
    """A Jira time as naive wall time in the user's zone, as JQL compares dates."""
    return datetime.strptime(jira_time, "%Y-%m-%dT%H:%M:%S.%f%z").astimezone(ZONE).replace(tzinfo=None)


def sample_project(jira: FakeJira, issues: int = 120, seed: int = 7) -> FakeJira:
    """A sample AURORA project for the demo: issues labelled AWPCA (the base JQL) with sprints, epics,
    comments, changes and attachments, a few linked to issues outside it (neighbours)."""
    import random

    rng = random.Random(seed)
    people = ["ivanov", "petrov", "sidorova", "kuznetsov"]
    sprints = [legacy_sprint(20, "AURORA Sprint 13", "CLOSED", 13),
               legacy_sprint(21, "AURORA Sprint 14, [hot]", "ACTIVE", 14, goal="Cards, then lists")]
    for n in range(1, issues + 1):
        jira.add_issue(f"AURORA-{n}", labels=["AWPCA"], status=rng.choice(["Open", "In Progress", "Done"]),
                       assignee=rng.choice(people),
                       **{SPRINT_FIELD: sprints[: rng.randint(1, 2)], EPIC_FIELD: "AURORA-1",
                          START_FIELD: "2026-11-02", END_FIELD: "2026-12-20"})
        for c in range(rng.randint(0, 4)):
            jira.add_comment(f"AURORA-{n}", str(n * 10 + c), f"Comment {c} on AURORA-{n}", rng.choice(people))
        for h in range(rng.randint(0, 3)):
            jira.add_history(f"AURORA-{n}", str(n * 10 + h), "status", "Open", "In Progress")
    for n in range(1, 11):
        jira.add_issue(f"OTHER-{n}", labels=[])
        jira.link(f"AURORA-{n * 3}", f"OTHER-{n}", "Relates")
    for n in range(2, issues, 7):
        jira.link(f"AURORA-{n}", f"AURORA-{n + 1}", "Blocks")
    jira.add_attachment("AURORA-1", "31337", "Техническое задание №1.pdf", rng.randbytes(2 * 1024 * 1024))
    jira.add_attachment("AURORA-2", "31338", "spec.pdf", b"%PDF-1.7 " + rng.randbytes(4096))
    return jira
