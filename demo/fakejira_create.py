"""The fake Jira's writes that make things beside an issue's fields, as Jira Server/DC 9 takes them:
new issues (``POST issue``, with ``properties``), the create screens (``GET issue/createmeta/{project}/
issuetypes[/{id}]``, Jira 8.4+, paged ``values``; the older ``GET issue/createmeta?projectKeys=&expand=
projects.issuetypes.fields``), links (``POST issueLink`` -> 201 with no body, ``GET``/``DELETE
issueLink/{id}``) and attachments (``POST issue/{key}/attachments``, multipart field ``file``, refused
with 403 "XSRF check failed" without ``X-Atlassian-Token: no-check``; the bytes kept in ``jira.files``).

``jira.writes.creation.createmeta`` says which createmeta Jira answers: ``"new"`` (the default: Jira 9,
which removed the older one, so that it answers 404 "Issue Does Not Exist" as ``issue/{key}`` would),
``"old"`` (Jira before 8.4, which has only the older one) or ``"both"`` (Jira 8.4 to 8.20).
``jira.writes.creation.projects`` names projects that have no issues yet (issues' projects are known).
"""

from __future__ import annotations

import re
import zlib
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, unquote

from demo import fakejira_meta as meta
from demo.fakejira_meta import FieldError, Refusal, cannot_set, errors, now
from demo.jirashapes import ISSUE_TYPES, user

if TYPE_CHECKING:
    from demo.fakejira_writes import Writes

XSRF_FAILED = b"XSRF check failed"


class Creation:
    """New issues, the create screens, links and attachments."""

    def __init__(self, writes: Writes):
        self.writes = writes
        self.jira = writes.jira
        self.createmeta = "new"
        self.projects: set[str] = set()

    def route(self, method: str, rest: str, query: dict, body, who: str, environ: dict):
        """The answer to one of these routes, or None for another path."""
        if rest == "issue" and method == "POST":
            return self.create(body, who)
        if rest == "issue/createmeta" and method == "GET":
            return self.old_createmeta(query)
        match = re.fullmatch(r"issue/createmeta/([^/]+)/issuetypes(?:/([^/]+))?", rest)
        if match and method == "GET":
            return self.createmeta_fields(match[1], match[2], query) if match[2] else self.createmeta_types(
                match[1], query)
        if rest == "issueLink" and method == "POST":
            return self.link(body, who)
        match = re.fullmatch(r"issueLink/(\d+)", rest)
        if match and method in ("GET", "DELETE"):
            return self.get_link(match[1]) if method == "GET" else self.unlink(match[1], who)
        match = re.fullmatch(r"issue/([^/]+)/attachments", rest)
        if match and method == "POST":
            return self.attach(match[1], body, who, environ)
        return None

    # --- projects and the create screens -----------------------------------------------------

    def project(self, key_or_id: str) -> dict | None:
        """A project as Jira writes it, by key or id; None if Jira has none such."""
        keys = {i["fields"]["project"]["key"] for i in self.jira.issues.values()} | self.projects
        for key in keys:
            pid = str(10000 + zlib.crc32(key.encode()) % 90000)
            if key_or_id in (key, pid):
                return {"self": f"{self.jira.url}/rest/api/2/project/{pid}", "id": pid, "key": key,
                        "name": key.title(), "avatarUrls": {"48x48": f"{self.jira.url}/secure/projectavatar?pid={pid}"}}
        return None

    def _project_or_404(self, key_or_id: str) -> dict:
        project = self.project(key_or_id)
        if project is None:
            raise Refusal(404, {"errorMessages": [f"No project could be found with key '{key_or_id}'."],
                                 "errors": {}})
        return project

    @staticmethod
    def type_bean(kind: dict) -> dict:
        return {"self": f"/rest/api/2/issuetype/{kind['id']}", "id": kind["id"], "description": kind["description"],
                "iconUrl": f"/images/icons/issuetypes/{kind['id']}.svg", "name": kind["name"],
                "subtask": kind["subtask"]}

    def screen(self, project: dict, kind: dict, with_id: bool) -> list[tuple[str, dict]]:
        """The create screen of an issue type: (field id, its metadata), project and issue type first."""
        fields = [("project", {"required": True, "schema": {"type": "project", "system": "project"},
                               "name": "Project", **({"fieldId": "project", "hasDefaultValue": False}
                                                     if with_id else {"hasDefaultValue": False}),
                               "operations": ["set"], "allowedValues": [project]})]
        for fid, required in meta.CREATE_SCREENS[kind["name"]].items():
            one = meta.field_meta(fid, required, with_id=with_id, issue_type=kind["name"])
            one.setdefault("hasDefaultValue", fid in ("priority", "reporter"))
            fields.append((fid, one))
        return fields

    def createmeta_types(self, project_key: str, query: dict):
        if self.createmeta == "old":
            raise KeyError(project_key)
        self._project_or_404(project_key)
        return 200, self._page([self.type_bean(k) for k in ISSUE_TYPES], query), []

    def createmeta_fields(self, project_key: str, type_id: str, query: dict):
        if self.createmeta == "old":
            raise KeyError(project_key)
        project = self._project_or_404(project_key)
        kind = next((k for k in ISSUE_TYPES if k["id"] == type_id), None)
        if kind is None:
            raise Refusal(404, {"errorMessages": [f"Issue type with id '{type_id}' does not exist."], "errors": {}})
        return 200, self._page([one for _, one in self.screen(project, kind, True)], query), []

    def _page(self, values: list, query: dict) -> dict:
        start, size = int(query.get("startAt", 0)), min(int(query.get("maxResults", 50)), self.jira.max_results)
        chosen = values[start:start + size]
        return {"maxResults": size, "startAt": start, "total": len(values),
                "isLast": start + len(chosen) >= len(values), "values": chosen}

    def old_createmeta(self, query: dict):
        """The createmeta of Jira before 9: every project and type asked for, fields when expanded."""
        if self.createmeta == "new":
            raise Refusal(404, {"errorMessages": ["Issue Does Not Exist"], "errors": {}})
        asked = [p for p in (query.get("projectKeys", "") + "," + query.get("projectIds", "")).split(",") if p]
        names = {n for n in query.get("issuetypeNames", "").split(",") if n}
        ids = {n for n in query.get("issuetypeIds", "").split(",") if n}
        expanded = "projects.issuetypes.fields" in query.get("expand", "")
        projects = []
        for project in filter(None, (self.project(p) for p in asked)):
            kinds = []
            for kind in ISSUE_TYPES:
                if (names and kind["name"] not in names) or (ids and kind["id"] not in ids):
                    continue
                bean = self.type_bean(kind)
                if expanded:
                    bean.update(expand="fields", fields=dict(self.screen(project, kind, False)))
                kinds.append(bean)
            projects.append({"expand": "issuetypes", **project, "issuetypes": kinds})
        return 200, {"expand": "projects", "projects": projects}, []

    # --- new issues ---------------------------------------------------------------------------

    def create(self, body, who: str):
        fields = dict((body or {}).get("fields") or {})
        project, kind = self._project_and_type(fields.pop("project", None), fields.pop("issuetype", None))
        screen = meta.CREATE_SCREENS[kind["name"]]
        problems = {fid: cannot_set(fid).message for fid in fields if fid not in screen}
        for fid, required in screen.items():
            if required and fid not in fields and fid not in ("issuetype", "reporter"):
                problems[fid] = ("You must specify a summary of the issue." if fid == "summary" else
                                 f"{meta.SCREEN_FIELDS[fid][0]} is required.")
        if kind["subtask"] and "parent" not in fields:
            problems = {"issuetype": "Issue type is a sub-task but parent issue key or id not specified."}
        parent = None
        if "parent" in fields and "parent" in screen:
            raw_parent = fields.pop("parent") or {}
            found = [i for i in self.jira.issues.values() if i["key"] == raw_parent.get("key")
                     or i["id"] == str(raw_parent.get("id"))]
            if found:
                parent = found[0]["key"]
            else:
                problems["parent"] = "Could not find issue by id or key."
        values: dict[str, Any] = {}
        for fid, raw in fields.items():
            try:
                values[fid] = self._create_value(fid, raw)
            except FieldError as refused:
                problems.setdefault(refused.field, refused.message)
        if problems:
            raise errors(problems)
        held: dict[str, Any] = {}
        self.writes._set_properties(held, (body or {}).get("properties"))
        return 201, self._make(project, kind, values, parent, who, held), []

    def _project_and_type(self, raw_project, raw_type) -> tuple[dict, dict]:
        """A create's project and issue type, or Jira's 400 naming what is missing or wrong."""
        problems: dict[str, str] = {}
        project = kind = None
        if not isinstance(raw_project, dict) or not (raw_project.get("key") or raw_project.get("id")):
            problems["project"] = "project is required"
        else:
            project = self.project(str(raw_project.get("key") or raw_project.get("id")))
            if project is None:
                problems["project"] = "valid project is required"
        if not isinstance(raw_type, dict) or not (raw_type.get("name") or raw_type.get("id")):
            problems["issuetype"] = "issue type is required"
        else:
            kind = next((k for k in ISSUE_TYPES if k["name"] == raw_type.get("name")
                         or k["id"] == str(raw_type.get("id"))), None)
            if kind is None:
                problems["issuetype"] = "valid issue type is required"
        if problems or project is None or kind is None:
            raise errors(problems)
        return project, kind

    def _create_value(self, fid: str, raw):
        if fid == "timetracking":
            return self.writes._estimates(raw)
        return meta.value(fid, raw)

    def _make(self, project: dict, kind: dict, values: dict, parent: str | None, who: str, held: dict) -> dict:
        numbers = [int(k.split("-")[1]) for k in [*self.jira.issues, *self.jira.moved]
                   if k.split("-")[0] == project["key"]]
        key = f"{project['key']}-{max(numbers, default=0) + 1}"
        moment = now()
        issue = self.jira.add_issue(key, summary=values.pop("summary"), assignee=None, parent=parent, updated=moment)
        issue_id = str(max(int(i["id"]) for i in self.jira.issues.values()) + 1)
        if parent:
            self.jira.issues[parent]["fields"]["subtasks"][-1]["id"] = issue_id
        f = issue["fields"]
        issue["id"], issue["self"] = issue_id, f"{self.jira.url}/rest/api/2/issue/{issue_id}"
        f.update(issuetype=self.type_bean(kind), status=meta.status_bean("Open"), description=None,
                 reporter=user(who), creator=user(who), created=moment,
                 project={"self": project["self"], "id": project["id"], "key": project["key"], "name": project["name"]})
        f["priority"] = meta.value("priority", {"name": "Major"})
        for fid, stored in values.items():
            if fid == "timetracking":
                f.update(stored)
            else:
                f[fid] = stored
        self.writes._timetracking(issue)
        if held:
            self.writes.issue_properties[issue_id] = held
        self.jira._index.clear()
        return {"id": issue_id, "key": key, "self": issue["self"]}

    # --- links --------------------------------------------------------------------------------

    def _linked(self, raw) -> dict:
        if not isinstance(raw, dict) or not (raw.get("key") or raw.get("id")):
            raise errors({}, ["Issue Does Not Exist"])
        return self.writes.issue(str(raw.get("key") or raw.get("id")))

    def link(self, body, who: str):
        if not self.jira.linking:
            raise Refusal(404, {"errorMessages": ["Issue linking is currently disabled."], "errors": {}})
        body = body or {}
        raw_type = body.get("type") or {}
        from demo.fakejira import LINK_TYPES

        kind = next((t for t in LINK_TYPES if t["name"] == raw_type.get("name") or t["id"] == str(raw_type.get("id"))),
                    None)
        if kind is None:
            raise Refusal(404, {"errorMessages": [f"No issue link type with name '{raw_type.get('name')}' found."],
                                 "errors": {}})
        # Jira links inwardIssue -> outwardIssue: the inward issue is the link's source ("A blocks B").
        source, target = self._linked(body.get("inwardIssue")), self._linked(body.get("outwardIssue"))
        existing = [link for link in source["fields"]["issuelinks"] if link["type"]["name"] == kind["name"]
                    and (link.get("outwardIssue") or {}).get("id") == target["id"]]
        if not existing:  # Jira makes no second link of one type between the same two issues
            self.jira.link(source["key"], target["key"], kind["name"])
            link_id = source["fields"]["issuelinks"][-1]["id"]
            for link in (source["fields"]["issuelinks"][-1], target["fields"]["issuelinks"][-1]):
                link["self"] = f"{self.jira.url}/rest/api/2/issueLink/{link_id}"
                link["type"] = {**kind, "self": f"{self.jira.url}/rest/api/2/issueLinkType/{kind['id']}"}
            said = f"This issue {kind['outward']} {target['key']}", f"This issue {kind['inward']} {source['key']}"
            self.writes.touched(source, who, [_link_item(target["key"], said[0])])
            self.writes.touched(target, who, [_link_item(source["key"], said[1])])
        if isinstance(body.get("comment"), dict):
            self.writes.add_comment(source, body["comment"], who)
        return 201, None, []

    def _find_link(self, link_id: str) -> tuple[dict, dict, dict, dict]:
        """(source issue, its entry, target issue, its entry) of a link; Jira's 404 if there is none."""
        for issue in self.jira.issues.values():
            for link in issue["fields"]["issuelinks"]:
                if link["id"] == link_id and "outwardIssue" in link:
                    target = self.jira.issues[self.jira.current(link["outwardIssue"]["key"])]
                    back = next(x for x in target["fields"]["issuelinks"] if x["id"] == link_id)
                    return issue, link, target, back
        raise Refusal(404, {"errorMessages": [f"No issue link with id '{link_id}' exists."], "errors": {}})

    def get_link(self, link_id: str):
        source, link, target, _ = self._find_link(link_id)

        def brief(issue: dict) -> dict:
            f = issue["fields"]
            return {"id": issue["id"], "key": issue["key"], "self": f"{self.jira.url}/rest/api/2/issue/{issue['id']}",
                    "fields": {k: f.get(k) for k in ("summary", "status", "priority", "issuetype")}}

        return 200, {"id": link_id, "self": f"{self.jira.url}/rest/api/2/issueLink/{link_id}", "type": link["type"],
                     "inwardIssue": brief(source), "outwardIssue": brief(target)}, []

    def unlink(self, link_id: str, who: str):
        source, link, target, back = self._find_link(link_id)
        source["fields"]["issuelinks"].remove(link)
        target["fields"]["issuelinks"].remove(back)
        kind = link["type"]
        self.writes.touched(source, who, [_link_item(target["key"], f"This issue {kind['outward']} {target['key']}",
                                                     removed=True)])
        self.writes.touched(target, who, [_link_item(source["key"], f"This issue {kind['inward']} {source['key']}",
                                                     removed=True)])
        return 204, None, []

    # --- attachments ----------------------------------------------------------------------------

    def attach(self, key: str, body, who: str, environ: dict):
        if environ.get("HTTP_X_ATLASSIAN_TOKEN", "").lower() not in ("no-check", "nocheck"):
            return 403, XSRF_FAILED, [("Content-Type", "text/plain")]
        issue = self.writes.issue(key)
        parts = _multipart(environ.get("CONTENT_TYPE", ""), body if isinstance(body, bytes) else b"")
        files = [p for p in parts if p[0] == "file" and p[1] is not None]
        if not files:
            raise errors({}, ["No file was attached."])
        made, items = [], []
        for _, filename, mime_type, data in files:
            aid = self.writes.next_id(600000)
            self.jira.files[aid] = data
            bean = {"self": f"{self.jira.url}/rest/api/2/attachment/{aid}", "id": aid, "filename": filename,
                    "author": user(who), "created": now(), "size": len(data), "mimeType": mime_type,
                    "content": f"{self.jira.url}/secure/attachment/{aid}/{quote(filename)}"}
            issue["fields"]["attachment"].append(bean)
            made.append(bean)
            items.append({"field": "Attachment", "fieldtype": "jira", "from": None, "fromString": None,
                          "to": aid, "toString": filename})
        self.writes.touched(issue, who, items)
        return 200, made, []


def _link_item(other: str, said: str, removed: bool = False) -> dict:
    if removed:
        return {"field": "Link", "fieldtype": "jira", "from": other, "fromString": said, "to": None, "toString": None}
    return {"field": "Link", "fieldtype": "jira", "from": None, "fromString": None, "to": other, "toString": said}


def _multipart(content_type: str, body: bytes) -> list[tuple[str, str | None, str, bytes]]:
    """The parts of a multipart/form-data body: (name, filename, content type, bytes). Filenames as
    browsers and httpx send them (UTF-8 in quotes) or as RFC 5987 ``filename*``."""
    found = re.search(r'boundary="?([^";]+)"?', content_type)
    if not found:
        raise errors({}, ["The request is not multipart/form-data."])
    out = []
    for chunk in body.split(b"--" + found[1].encode())[1:]:
        if chunk.startswith(b"--"):
            break
        head, _, data = chunk.lstrip(b"\r\n").partition(b"\r\n\r\n")
        data = data[:-2] if data.endswith(b"\r\n") else data
        headers = head.decode("utf-8", "replace")
        name = re.search(r'\bname="([^"]*)"', headers)
        starred = re.search(r"filename\*=UTF-8''([^;\r\n]+)", headers, flags=re.I)
        quoted = re.search(r'filename="((?:[^"\\]|\\.)*)"', headers)
        filename = unquote(starred[1]) if starred else (quoted[1].replace('\\"', '"') if quoted else None)
        kind = re.search(r"content-type:\s*([^\r\n;]+)", headers, flags=re.I)
        out.append((name[1] if name else "", filename, kind[1].strip() if kind else "application/octet-stream", data))
    return out
