"""Jira Server/Data Center's REST API v2, the few endpoints a mirror needs."""

from __future__ import annotations

import contextlib
import re
import threading
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from typing import Any

import httpx
import orjson

from agent.pacing import Pacer
from agent.retry import Backoff, send

# The fields the state object names one by one (before protocol v15 the agent asked for these alone).
BASE_FIELDS = ["summary", "description", "issuetype", "status", "priority", "assignee", "reporter", "duedate",
               "labels", "created", "updated", "issuelinks", "comment", "attachment"]
# What a refresh asks for: every field. The mirror wants every field Jira returns (custom_fields), so
# the explicit alternative is the whole of /field's ids — hundreds on a real instance, a request body
# of kilobytes for the same answer, and blind to a field made after the agent read /field. ``*all``
# is one word, and Jira leaves out of the answer nothing the list would have brought.
SEARCH_FIELDS = ["*all"]
# What a search of issues to mirror expands: the changelog, and (protocol v19) the transitions open
# to the user with their screens' fields and the edit screen, which the mirror keeps so that writes
# are checked against them. Jira Server's search expands each issue as its issue endpoint does, so
# this costs no request of its own; ``transitions.fields`` is ignored where Jira does not honour it.
SEARCH_EXPAND = ["changelog", "transitions", "transitions.fields", "editmeta"]
# The catalogues a run reads once: the page's ``catalogues`` member → Jira's path.
CATALOGUE_PATHS = {"priorities": "/rest/api/2/priority", "statuses": "/rest/api/2/status",
                   "resolutions": "/rest/api/2/resolution", "issue_types": "/rest/api/2/issuetype",
                   "link_types": "/rest/api/2/issueLinkType"}


class JiraError(Exception):
    """Jira refused a request; ``status`` is its HTTP status, the message quotes Jira's own words."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


class JiraAuthError(JiraError):
    """401/403: the credentials are wrong, expired, or lack a permission."""


class JiraSignInPage(JiraError):
    """A 200 with an HTML page where JSON was asked for: a sign-in form, mostly an SSO proxy's in
    front of Jira that does not let the agent's credentials through. ``url`` is where it was served."""

    def __init__(self, what: str, url: str):
        super().__init__(200, f"Jira's address served a sign-in page instead of {what}, at {_shown(url)}: a"
                              " single sign-on proxy in front of Jira? Its REST API must take the agent's token")
        self.url = url


def _shown(url: str) -> str:
    """A URL as an error names it: a sign-in page's query can carry kilobytes of SAML request, and
    the heartbeat detail has room for a thousand characters in all."""
    return url if len(url) <= 300 else str(httpx.URL(url).copy_with(query=None, fragment=None))[:300] + "?…"


def _looks_like_html(response: httpx.Response) -> bool:
    kind = response.headers.get("Content-Type", "").split(";")[0].strip().lower()
    if kind in ("text/html", "application/xhtml+xml"):
        return True
    start = response.content.lstrip()[:15].lower()
    return start.startswith((b"<!doctype html", b"<html"))


def _decoded(response: httpx.Response, what: str) -> Any:
    """A 200's JSON; a sign-in page (by its Content-Type, or a body that opens as HTML) is told as one,
    and a body that is neither says what it was, never as a bare decoding error."""
    if _looks_like_html(response):
        raise JiraSignInPage(what, str(response.url))
    try:
        # A search page of 100 issues is a quarter of a megabyte: orjson decodes it in a third of json's time.
        return orjson.loads(response.content)
    except orjson.JSONDecodeError:
        kind = response.headers.get("Content-Type") or "no content type"
        raise JiraError(200, f"Jira answered {what} with {len(response.content)} bytes that are not JSON"
                             f" ({kind}), at {response.url}") from None


def _error(response: httpx.Response, what: str) -> JiraError:
    try:
        body = response.json()
        words = "; ".join([*body.get("errorMessages", []), *(body.get("errors") or {}).values()]) or response.text
    except ValueError:
        words = response.text[:200].strip()
    if response.status_code in (401, 403):
        return JiraAuthError(response.status_code,
                             f"Jira answered {response.status_code} to {what}: check the Jira token or user")
    return JiraError(response.status_code, f"Jira answered {response.status_code} to {what}: {words}")


# Answers that say Jira itself is not there: its proxy's gateway errors and a server out of service.
UNREACHABLE_STATUSES = {502, 503, 504}
# Jira's base URL as the hub takes it (the heartbeat's jira.base_url): an http(s) URL without
# credentials, query or fragment; another is not sent (the hub would refuse the heartbeat).
_BASE_URL = re.compile(r"https?://[^\s/?#@]+(/[^\s?#]*)?")
MAX_BASE_URL_CHARS = 2000


class JiraClient:
    """One Jira connection: a PAT goes as ``Authorization: Bearer``, else basic auth with user and password."""

    def __init__(self, url: str, *, token: str | None = None, user: str | None = None,
                 password: str | None = None, backoff: Backoff | None = None, on_wait=None,
                 transport: httpx.BaseTransport | None = None):
        headers = {"Accept": "application/json"}
        auth = None
        if token:
            headers["Authorization"] = f"Bearer {token}"
        elif user is not None:
            auth = httpx.BasicAuth(user, password or "")
        self.backoff = backoff or Backoff()
        self.on_wait = on_wait
        # Set by the runner's stop: a retry's wait on an unreachable Jira ends at once.
        self.stopping = threading.Event()
        # One bucket for every thread of the agent: Jira counts the user's requests, not the thread's.
        self.pacer = Pacer()
        self.http = httpx.Client(base_url=url.rstrip("/"), headers=headers, auth=auth, transport=transport,
                                 timeout=httpx.Timeout(60.0, connect=15.0))
        # The outcome of the last request to Jira, for the heartbeat (protocol v18): None before the first.
        self._reach_lock = threading.Lock()
        self._reach: dict | None = None
        # Jira's own base URL (serverInfo's baseUrl), learned by each probe: None before one read it.
        self._base_url: str | None = None
        # Called when Jira answers again, or no longer does: the runner's heartbeat tells the hub at once.
        self.on_reach: Callable[[], None] | None = None

    def reachability(self) -> dict | None:
        """``{reachable, checked_at, error}`` of the last request to Jira (None before the first): reachable
        when Jira answered, whatever it said, but for a gateway's 502/503/504; unreachable on a network error.
        With ``base_url`` too once a probe read Jira's (the heartbeat's ``jira``, for the hub's links to Jira)."""
        with self._reach_lock:
            if self._reach is None:
                return None
            return {**self._reach, "base_url": self._base_url} if self._base_url else dict(self._reach)

    @property
    def base_url(self) -> str | None:
        """Jira's base URL as its ``serverInfo`` gives it (``baseUrl``, no trailing slash); None until a probe
        read one, or while Jira's is no http(s) URL the hub would take."""
        return self._base_url

    def probe(self) -> None:
        """Ask Jira once whether it answers (``/rest/api/2/serverInfo``: cheap, and open to any caller),
        without retries or waiting on the pacer, to keep :meth:`reachability` fresh while no command
        calls Jira. Its answer teaches the pacer all the same: a command waiting on a bucket Jira no
        longer announces (the limit lifted or configured anew) learns it from the probe."""
        ticket = self.pacer.unpaced()
        try:
            response = self.http.get("/rest/api/2/serverInfo", timeout=httpx.Timeout(10.0, connect=5.0))
        except httpx.TransportError as exc:
            self.pacer.after(ticket, None)
            self._reached(False, f"{exc.__class__.__name__}: {exc}"[:500])
            return
        response.close()
        self.pacer.after(ticket, response.headers, response.status_code)
        if response.status_code == 200:
            self._learn_base_url(response)
        if response.status_code in UNREACHABLE_STATUSES:
            self._reached(False, f"Jira answered {response.status_code}")
        else:
            self._reached(True, None)

    def _learn_base_url(self, response: httpx.Response) -> None:
        """Keep serverInfo's ``baseUrl`` when it is one the hub takes; a proxy's page, or an answer
        without one, keeps what an earlier probe learned."""
        try:
            info = orjson.loads(response.content)
        except orjson.JSONDecodeError:
            return
        said = info.get("baseUrl") if isinstance(info, dict) else None
        if isinstance(said, str) and len(said) <= MAX_BASE_URL_CHARS and _BASE_URL.fullmatch(said):
            self._base_url = said.rstrip("/")

    def checked_age(self) -> float | None:
        """Seconds since the last request to Jira; None before the first."""
        reach = self.reachability()
        if reach is None:
            return None
        return (datetime.now(UTC) - datetime.fromisoformat(reach["checked_at"])).total_seconds()

    def _reached(self, reachable: bool, error: str | None) -> None:
        # Whole seconds in UTC: the hub's format for checked_at.
        checked_at = datetime.now(UTC).replace(microsecond=0).isoformat()
        with self._reach_lock:
            turned = self._reach is None or self._reach["reachable"] != reachable
            self._reach = {"reachable": reachable, "checked_at": checked_at, "error": error}
        if turned and self.on_reach:
            self.on_reach()

    def close(self) -> None:
        self.http.close()

    def _paced(self, request) -> httpx.Response:
        """``request()`` once the rate limit Jira announced allows it; its answer teaches the pacer."""
        ticket = self.pacer.before()
        response = None
        try:
            response = request()
        except httpx.TransportError as exc:
            self._reached(False, f"{exc.__class__.__name__}: {exc}"[:500])
            raise
        finally:
            self.pacer.after(ticket, response.headers if response is not None else None,
                             response.status_code if response is not None else 0)
        if response.status_code in UNREACHABLE_STATUSES:
            self._reached(False, f"Jira answered {response.status_code}")
        else:
            self._reached(True, None)
        return response

    def _json(self, method: str, path: str, what: str, **kwargs) -> Any:
        # Redirects are followed so that a proxy's sign-in page is met, and named by its own address.
        response = send(lambda: self._paced(lambda: self.http.request(method, path, follow_redirects=True,
                                                                      **kwargs)),
                        self.backoff, "Jira", self.stopping, on_wait=self.on_wait)
        if response.status_code != 200:
            raise _error(response, what)
        return _decoded(response, what)

    def myself(self) -> dict:
        """The user the credentials belong to (``name``, ``timeZone``, ...)."""
        return self._json("GET", "/rest/api/2/myself", "/myself")

    def fields(self) -> list[dict]:
        """Every field, system and custom, with its ``schema``."""
        return self._json("GET", "/rest/api/2/field", "/field")

    def search_page(self, jql: str, start_at: int, max_results: int, fields: list[str], *,
                    expand: list[str] | None = None, validate: bool = True) -> dict:
        """One page of ``POST /rest/api/2/search`` as Jira answers it (it may clamp ``maxResults``)."""
        body = {"jql": jql, "startAt": start_at, "maxResults": max_results, "fields": fields}
        if expand:
            body["expand"] = expand
        if not validate:
            # Without it a `key in (...)` naming a deleted or moved key answers 400 for the whole batch.
            body["validateQuery"] = False
        return self._json("POST", "/rest/api/2/search", "search", json=body)

    def search(self, jql: str, fields: list[str], *, page_size: int = 100, expand: list[str] | None = None,
               validate: bool = True, start: int = 0) -> Iterator[tuple[dict, int]]:
        """Every page of a search as ``(page, total)``, following the ``startAt`` and ``total`` Jira returns.

        The next ``startAt`` counts the issues actually returned, since Jira may return fewer than asked
        (its ``jira.search.views.default.max`` clamps ``maxResults`` silently). ``start`` is the first
        ``startAt``.
        """
        while True:
            page = self.search_page(jql, start, page_size, fields, expand=expand, validate=validate)
            issues = page.get("issues") or []
            total = int(page.get("total") or 0)
            yield page, total
            start = int(page.get("startAt") or start) + len(issues)
            if not issues or start >= total:
                return

    def search_by_id(self, where: str, fields: list[str], *, page_size: int = 100,
                     expand: list[str] | None = None) -> Iterator[tuple[dict, int]]:
        """Every issue ``where`` selects, a page at a time as ``(page, total)``, paged by a keyset:
        ``(where) AND id > <the last id seen> ORDER BY id ASC``, each page from ``startAt`` 0.

        Data Center 9 refuses a ``startAt + maxResults`` past ``jira.search.platform.max.result.window``
        (10,000 by default), so a scope paged by ``startAt`` cannot be read past it; the keyset reads any
        number. An issue's id never changes, so one edited during the run keeps its place: it is
        neither skipped nor read twice, and one that leaves the scope shifts nothing after it.
        ``where`` is JQL without an ``ORDER BY`` (empty: every issue the user sees). ``total`` is the
        issues read before the page plus the page's own ``total`` (what is left from it on): the size
        of the scope as Jira counts it at that page. The last page is the one that holds all Jira
        counted from it on, so no empty page is asked for.
        """
        last: int | None = None
        loaded = 0
        seen: set[str] = set()  # the ids read: a page that repeats them read past, not twice
        order = " ORDER BY id ASC"
        while True:
            condition = [f"({where})"] if where.strip() else []
            if last is not None:
                condition.append(f"id > {last}")
            try:
                page = self.search_page((" AND ".join(condition) + order).strip(), 0, page_size, fields, expand=expand)
            except JiraError as exc:
                if exc.status != 400:
                    raise
                # A Jira, or a proxy before it, that does not take the keyset's clauses: the run goes
                # on by startAt from where it is (as agents paged before), which a scope within the
                # result window allows; a bad JQL of the user's is refused again, in Jira's words.
                if last is None:
                    order = ""
                yield from self._by_start(where, order, loaded, seen, page_size, fields, expand)
                return
            issues = page.get("issues") or []
            left = int(page.get("total") or 0)
            fresh = [issue for issue in issues if str(issue["id"]) not in seen]
            if issues and not fresh:
                # The condition on the id was not applied (the same issues again): by startAt instead.
                yield from self._by_start(where, order, loaded, seen, page_size, fields, expand)
                return
            seen.update(str(issue["id"]) for issue in fresh)
            yield {**page, "issues": fresh}, loaded + left
            loaded += len(fresh)
            if not issues or len(issues) >= left:
                return
            last = max(int(issue["id"]) for issue in issues)

    def _by_start(self, where: str, order: str, start: int, seen: set[str], page_size: int,
                  fields: list[str], expand: list[str] | None) -> Iterator[tuple[dict, int]]:
        """The rest of :meth:`search_by_id`'s pages by ``startAt`` from ``start``, each issue once."""
        jql = ((f"({where})" if where.strip() else "") + order).strip()
        for page, total in self.search(jql, fields, page_size=page_size, expand=expand, start=start):
            fresh = [issue for issue in page.get("issues") or [] if str(issue["id"]) not in seen]
            seen.update(str(issue["id"]) for issue in fresh)
            yield {**page, "issues": fresh}, total

    def _paged(self, key: str, what: str) -> list[dict]:
        """All of an issue's ``comment`` or ``worklog`` entries, paged from its own endpoint."""
        listed: list[dict] = []
        while True:
            page = self._json("GET", f"/rest/api/2/issue/{key}/{what}", f"{what}s of {key}",
                              params={"startAt": len(listed), "maxResults": 100})
            got = page.get(f"{what}s") or []
            listed.extend(got)
            if not got or len(listed) >= int(page.get("total") or 0):
                return listed

    def comments(self, key: str) -> list[dict]:
        """All of an issue's comments, paged from its own endpoint."""
        return self._paged(key, "comment")

    def worklogs(self, key: str) -> list[dict]:
        """All of an issue's worklogs, from its own endpoint (paged where Jira pages it)."""
        return self._paged(key, "worklog")

    def catalogue(self, name: str) -> list[dict]:
        """One of Jira's catalogues (a key of :data:`CATALOGUE_PATHS`) as Jira lists it, in its order."""
        answer = self._json("GET", CATALOGUE_PATHS[name], name.replace("_", " "))
        # /issueLinkType wraps its list; the others answer a bare one.
        return (answer.get("issueLinkTypes") or []) if isinstance(answer, dict) else answer

    def board_configuration(self, board_id: int) -> dict:
        """An agile board's configuration (Jira Software's ``/rest/agile/1.0/board/{id}/configuration``):
        its ``name``, and ``columnConfig.columns``, each with its ``name`` and ``statuses`` (``{"id"}``)."""
        what = f"board {board_id}'s configuration"
        answer = self._json("GET", f"/rest/agile/1.0/board/{board_id}/configuration", what)
        if not isinstance(answer, dict):
            raise JiraError(200, f"Jira answered {what} with no JSON object")
        return answer

    def board(self, board_id: int) -> dict:
        """An agile board (``/rest/agile/1.0/board/{id}``): its ``name`` and ``type`` (scrum, kanban)."""
        return self._json("GET", f"/rest/agile/1.0/board/{board_id}", f"board {board_id}")

    def changelog(self, key: str) -> list[dict]:
        """All of an issue's change histories: Jira Server's issue endpoint with ``expand=changelog``
        gives them whole, where search may have cut them short."""
        issue = self._json("GET", f"/rest/api/2/issue/{key}", f"changelog of {key}",
                           params={"fields": "created", "expand": "changelog"})
        return (issue.get("changelog") or {}).get("histories") or []

    def attachment(self, attachment_id: str) -> dict:
        """An attachment's metadata: ``filename``, ``size``, ``mimeType`` and its ``content`` URL."""
        return self._json("GET", f"/rest/api/2/attachment/{attachment_id}", f"attachment {attachment_id}")

    @contextlib.contextmanager
    def download(self, url: str) -> Iterator[httpx.Response]:
        """A streamed GET of an attachment's ``content`` URL exactly as Jira gave it (already percent-encoded)."""
        request = self.http.build_request("GET", httpx.URL(url), headers={"Accept": "*/*"})
        response = send(lambda: self._paced(lambda: self.http.send(request, stream=True, follow_redirects=True)),
                        self.backoff, "Jira", self.stopping, on_wait=self.on_wait)
        try:
            if response.status_code != 200:
                response.read()
                raise _error(response, f"attachment {url}")
            yield response
        finally:
            response.close()
