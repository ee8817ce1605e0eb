"""Jira Server/DC's REST API v2 requests that change Jira: what the ``write`` kind applies.

Jira's POSTs are not idempotent: a comment posted twice is two comments. So a request that changes
Jira is never re-sent by the generic retry once it may have reached Jira: a network error after the
request went out (a read timeout, a connection reset), or a 500/502/504 (Jira or its proxy may have
applied it before failing), raises :class:`Ambiguous`, and the write's handler looks for its marker
before anything else. What certainly did not reach Jira — a refused connection, a 429, a 503 — is
retried as reads are.
"""

from __future__ import annotations

from typing import Any

import httpx

from agent.jira_client import JiraClient, JiraError, _decoded, _error
from agent.retry import GaveUp, retry_after

# The entity property every Jira object a write makes carries (docs/agent.md, markers).
MARKER = "sdlc-hub.write"
# Answers that say Jira did not take the request: the rate limit, a server out of service.
NOT_TAKEN = {429, 503}
# Network errors raised before a byte of the request left: safe to send again.
NOT_SENT = (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout)


class Ambiguous(JiraError):
    """A request that changes Jira may or may not have been applied (its answer was lost, or Jira
    failed while applying it): look for the write's marker before sending it again."""


class Refused(JiraError):
    """Jira refused a write and said why (a 400, 403 or 404): ``words`` are its ``errorMessages``,
    ``errors`` its ``{field id: message}``."""

    def __init__(self, status: int, message: str, words: list[str], errors: dict[str, str]):
        super().__init__(status, message)
        self.words = words
        self.errors = errors


def refused(response: httpx.Response, what: str) -> JiraError:
    """What a 4xx answer to a write means: a refused credential (401) as every request would meet it,
    else Jira's refusal of this write, in its own words."""
    if response.status_code == 401:
        return _error(response, what)
    words: list[str] = []
    errors: dict[str, str] = {}
    try:
        body = response.json()
        words = [str(w) for w in body.get("errorMessages") or []]
        errors = {str(k): str(v) for k, v in (body.get("errors") or {}).items()}
    except (ValueError, AttributeError):
        text = response.text[:200].strip()
        words = [text] if text else []
    said = "; ".join([*words, *(f"{k}: {v}" for k, v in errors.items())]) or f"HTTP {response.status_code}"
    return Refused(response.status_code, said, words, errors)


class JiraWrites:
    """The write requests, over one :class:`JiraClient` (its pacing, credentials and reachability)."""

    def __init__(self, jira: JiraClient):
        self.jira = jira

    # --- sending ---------------------------------------------------------------------------

    def _change(self, method: str, path: str, what: str, *, ok: tuple[int, ...] = (200, 201, 204),
                **kwargs) -> httpx.Response:
        """Send a request that changes Jira once, retrying only what surely did not reach it."""
        jira = self.jira
        backoff = jira.backoff
        for attempt in range(backoff.attempts):
            try:
                response = jira._paced(lambda: jira.http.request(method, path, **kwargs))
            except NOT_SENT as exc:
                reason = f"Jira unreachable: {exc.__class__.__name__}: {exc}"
            except httpx.TransportError as exc:
                raise Ambiguous(0, f"{what}: Jira's answer was lost ({exc.__class__.__name__}: {exc})") from exc
            else:
                if response.status_code in ok:
                    return response
                if response.status_code not in NOT_TAKEN:
                    if response.status_code >= 500:
                        raise Ambiguous(response.status_code,
                                        f"{what}: Jira answered {response.status_code} and may have applied it")
                    raise refused(response, what)
                reason = f"Jira answered {response.status_code}"
                told = retry_after(response)
                if attempt + 1 < backoff.attempts:
                    pause = min(told, backoff.longest_told) if told else backoff.pause(attempt)
                    response.close()
                    self._wait(reason, pause)
                    continue
                raise _error(response, what)
            if attempt + 1 < backoff.attempts:
                self._wait(reason, backoff.pause(attempt))
        raise GaveUp(f"{what}: Jira did not take it")

    def _wait(self, reason: str, pause: float) -> None:
        if self.jira.on_wait:
            self.jira.on_wait(reason)
        if self.jira.stopping.wait(pause):
            raise GaveUp(reason + " (stopping)")

    def _send_json(self, method: str, path: str, what: str, body: Any = None, **kwargs) -> Any:
        response = self._change(method, path, what, json=body, **kwargs)
        if response.status_code == 204 or not response.content:
            return None
        return _decoded(response, what)

    # --- reads the writes need ---------------------------------------------------------------

    def issue(self, key: str, fields: list[str], expand: list[str] | None = None) -> dict:
        """``GET /issue/{key}`` with just ``fields`` (and ``expand``)."""
        params = {"fields": ",".join(fields) or "status"}
        if expand:
            params["expand"] = ",".join(expand)
        return self.jira._json("GET", f"/rest/api/2/issue/{key}", f"issue {key}", params=params)

    def transitions(self, key: str) -> list[dict]:
        """The transitions open to the user on ``key`` now, each with its screen's ``fields``."""
        answer = self.jira._json("GET", f"/rest/api/2/issue/{key}/transitions", f"transitions of {key}",
                                 params={"expand": "transitions.fields"})
        return answer.get("transitions") or []

    def editmeta(self, key: str) -> dict:
        """The issue's edit screen: ``{field id: {name, required, schema, operations, allowedValues}}``."""
        return (self.jira._json("GET", f"/rest/api/2/issue/{key}/editmeta", f"edit screen of {key}")
                .get("fields") or {})

    def comments_with_properties(self, key: str) -> list[dict]:
        """Every comment of ``key`` with its entity properties (``expand=properties``)."""
        listed: list[dict] = []
        while True:
            page = self.jira._json("GET", f"/rest/api/2/issue/{key}/comment", f"comments of {key}",
                                   params={"startAt": len(listed), "maxResults": 100, "expand": "properties"})
            got = page.get("comments") or []
            listed.extend(got)
            if not got or len(listed) >= int(page.get("total") or 0):
                return listed

    def property(self, path: str, what: str) -> Any:
        """An entity property's value (``path`` ends with the property's key); None when Jira has none."""
        try:
            return self.jira._json("GET", path, what).get("value")
        except JiraError as exc:
            if exc.status == 404:
                return None
            raise

    def worklog_marker(self, key: str, worklog_id: str) -> Any:
        return self.property(f"/rest/api/2/issue/{key}/worklog/{worklog_id}/properties/{MARKER}",
                             f"marker of worklog {worklog_id}")

    def created_since(self, project: str, minutes: int) -> list[dict]:
        """The issues of ``project`` created within the last ``minutes`` (JQL's relative time, the
        same in every user's zone), newest first, each with the write marker's property."""
        body = {"jql": f'project = "{project}" AND created >= -{minutes}m ORDER BY created DESC',
                "startAt": 0, "maxResults": 100, "fields": ["summary", "created"], "properties": [MARKER]}
        return self.jira._json("POST", "/rest/api/2/search", "search", json=body).get("issues") or []

    def matches(self, key: str, jql: str) -> bool:
        """Whether ``key = K AND (jql)`` finds the issue: the agent's ``--writes-jql`` gate."""
        body = {"jql": f'key = "{key}" AND ({jql})', "startAt": 0, "maxResults": 1, "fields": ["key"]}
        try:
            return bool(self.jira._json("POST", "/rest/api/2/search", "search", json=body).get("issues"))
        except JiraError as exc:
            if exc.status == 400:
                return False
            raise

    def createmeta(self, project: str) -> list[dict]:
        """Each issue type of ``project`` with its create screen's fields: Jira 8.4+'s
        ``/createmeta/{project}/issuetypes`` (one more request a type), else the older
        ``/createmeta?expand=projects.issuetypes.fields``."""
        try:
            types = self._values(f"/rest/api/2/issue/createmeta/{project}/issuetypes", f"issue types of {project}")
        except JiraError as exc:
            if exc.status not in (404, 405):
                raise
            answer = self.jira._json("GET", "/rest/api/2/issue/createmeta", f"create screens of {project}",
                                     params={"projectKeys": project, "expand": "projects.issuetypes.fields"})
            projects = answer.get("projects") or []
            return [{"name": t.get("name"), "fields": t.get("fields") or {}}
                    for p in projects for t in p.get("issuetypes") or []]
        found = []
        for kind in types:
            fields = self._values(f"/rest/api/2/issue/createmeta/{project}/issuetypes/{kind['id']}",
                                  f"create screen of {project} {kind.get('name')}")
            found.append({"name": kind.get("name"), "fields": {f["fieldId"]: f for f in fields if f.get("fieldId")}})
        return found

    def _values(self, path: str, what: str) -> list[dict]:
        """Every ``values`` entry of one of Jira 8.4+'s paged lists (``startAt``, ``isLast``, ``total``)."""
        listed: list[dict] = []
        while True:
            page = self.jira._json("GET", path, what, params={"startAt": len(listed), "maxResults": 100})
            got = page.get("values") or []
            listed.extend(got)
            last, total = page.get("isLast"), page.get("total")
            if not got or last is True or (total is not None and len(listed) >= int(total)):
                return listed
            if last is None and total is None:  # not paged: the whole list at once
                return listed

    # --- the writes ----------------------------------------------------------------------------

    def add_comment(self, key: str, body: dict) -> dict:
        """``POST /issue/{key}/comment``; ``body`` holds ``body``, ``visibility`` and ``properties``."""
        return self._send_json("POST", f"/rest/api/2/issue/{key}/comment", f"comment on {key}", body)

    def edit_comment(self, key: str, comment_id: str, body: dict) -> dict:
        return self._send_json("PUT", f"/rest/api/2/issue/{key}/comment/{comment_id}",
                               f"comment {comment_id} of {key}", body)

    def do_transition(self, key: str, body: dict) -> None:
        self._send_json("POST", f"/rest/api/2/issue/{key}/transitions", f"transition of {key}", body)

    def edit_issue(self, key: str, body: dict) -> None:
        self._send_json("PUT", f"/rest/api/2/issue/{key}", f"edit of {key}", body)

    def add_worklog(self, key: str, body: dict, params: dict) -> dict:
        return self._send_json("POST", f"/rest/api/2/issue/{key}/worklog", f"work log on {key}", body,
                               params=params)

    def mark_worklog(self, key: str, worklog_id: str, value: dict) -> None:
        """The marker on a new work log (Jira's worklog bean takes no ``properties`` when made)."""
        self._send_json("PUT", f"/rest/api/2/issue/{key}/worklog/{worklog_id}/properties/{MARKER}",
                        f"marker of work log {worklog_id}", value)

    def create_issue(self, body: dict) -> dict:
        return self._send_json("POST", "/rest/api/2/issue", "new issue", body)

    def add_link(self, body: dict) -> None:
        self._send_json("POST", "/rest/api/2/issueLink", "new link", body)

    def remove_link(self, link_id: str) -> None:
        self._send_json("DELETE", f"/rest/api/2/issueLink/{link_id}", f"link {link_id}")

    def attach(self, key: str, path: str, filename: str, mime_type: str) -> list[dict]:
        """The file at ``path`` as a new attachment of ``key``: multipart, field ``file``, with the
        ``X-Atlassian-Token: no-check`` Jira's XSRF check asks of a form post."""
        with open(path, "rb") as stream:
            response = self._change("POST", f"/rest/api/2/issue/{key}/attachments", f"attachment on {key}",
                                     files={"file": (filename, stream, mime_type or "application/octet-stream")},
                                     headers={"X-Atlassian-Token": "no-check"})
        return _decoded(response, f"attachment on {key}") or []
