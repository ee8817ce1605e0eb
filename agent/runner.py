"""The agent's loop: check both ends, heartbeat, claim, and run refreshes, attachment fetches and
checks of issues a full run did not load."""

from __future__ import annotations

import hashlib
import logging
import math
import os
import re
import signal
import tempfile
import threading
import time
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from agent import checks, mapping
from agent.ahead import OneAhead
from agent.config import AgentConfig
from agent.heartbeat import LEAST_GAP, Status
from agent.hub_client import Claimed, Command, Dropped, HubAuthError, HubClient, HubError
from agent.jira_client import CATALOGUE_PATHS, SEARCH_FIELDS, JiraAuthError, JiraClient, JiraError, JiraSignInPage
from agent.queries import BadCommand, search_where
from agent.retry import GaveUp

log = logging.getLogger("hub-agent")

REFRESH, FETCH_ATTACHMENT, CHECK_ISSUES = "refresh", "fetch_attachment", "check_issues"
NEIGHBOUR_BATCH = 100  # the hub takes at most 100 neighbours a page; one search fetches them


class StartupError(Exception):
    """The agent cannot start; ``code`` is the exit status (2: a credential is wrong)."""

    def __init__(self, message: str, code: int = 1):
        super().__init__(message)
        self.code = code


class Interrupted(BaseException):
    """Raised by the signal handler into a claim's long-poll, so stopping does not wait out the poll.

    A BaseException so that no handler meant for HTTP errors swallows it."""


class Stopped(Exception):
    """The command stopped between pages: cancelled by an interface, or the agent is stopping."""


# The shape of a zone's name the hub accepts in a heartbeat (docs/agent-protocol.md, v17).
_ZONE_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_+\-]*(/[A-Za-z0-9_+\-]+){0,2}\Z")


def known_zone(name: object) -> str | None:
    """``name`` if it names a time zone this machine's zone database holds (Jira's ``timeZone`` is
    an IANA name, e.g. ``Europe/Moscow``), in the shape the hub accepts; None otherwise, which the
    hub and JQL read as UTC."""
    if not isinstance(name, str) or len(name) > 64 or not _ZONE_NAME.match(name):
        return None
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return None
    return name


def looks_like_html(content_type: str | None, expected_mime: str | None, head: bytes) -> bool:
    """An HTML page where a file was expected: an SSO proxy's login form answers 200 with one."""
    if (expected_mime or "").startswith("text/html"):
        return False
    if (content_type or "").split(";")[0].strip().lower() in ("text/html", "application/xhtml+xml"):
        return True
    start = head.lstrip()[:15].lower()
    return start.startswith(b"<!doctype html") or start.startswith(b"<html")


class Runner:
    """One agent process: ``start()`` checks Jira and the hub, ``run()`` loops until ``stop()``."""

    def __init__(self, config: AgentConfig, hub: HubClient | None = None, jira: JiraClient | None = None):
        self.config = config
        self.hub = hub or HubClient(config.hub_url, config.hub_token, config.agent_id, claim_wait=config.claim_wait)
        self.jira = jira or JiraClient(config.jira_url, token=config.jira_token, user=config.jira_user,
                                       password=config.jira_password, on_wait=self._jira_waits)
        self.stopping = threading.Event()
        self.cancelled: set[int] = set()
        self.status = Status()
        self.lock = threading.Lock()
        self.heartbeat_every = 30.0
        # An agent that has not called Jira for this long asks it once before a heartbeat, so that
        # an idle agent's heartbeat still says whether Jira answers (protocol v18's jira).
        self.probe_every = 60.0
        self.time_zone: str | None = None
        self.custom = mapping.CustomFields()
        # The main thread is in a call a signal may cut (a claim's long-poll, the start's checks).
        self._claiming = False
        # What the last heartbeat told (Status.news and Jira's reachability), and when it went.
        self._told: tuple = ()
        self._told_at = 0.0
        self.jira.pacer.on_wait = self.status.rate_waits
        self.jira.on_reach = self.status.changed.set
        # One flag for every wait: the pacer's, and the retries of both clients, so that a stop is not
        # held by a Jira or a hub that no longer answers (docs/agent.md, stopping).
        self.jira.pacer.stopping = self.jira.stopping = self.hub.stopping = self.stopping

    # --- start and stop -------------------------------------------------------------------

    def start(self) -> None:
        """Check Jira (``/myself``; learns the user's time zone) and the hub (a heartbeat); StartupError if not.

        A signal meanwhile raises Interrupted out of it (``install_signals``), whatever Jira and the hub do.
        """
        self._claiming = True
        try:
            self._start()
        finally:
            self._claiming = False

    def _start(self) -> None:
        try:
            me = self.jira.myself()
            self.time_zone = known_zone(me.get("timeZone"))
            self.custom = mapping.find_custom_fields(self.jira.fields(), self.config.planned_start_field,
                                                     self.config.planned_end_field)
        except JiraAuthError as exc:
            raise StartupError(f"Jira refused the credentials ({exc.status}): check JIRA_TOKEN or JIRA_USER",
                               2) from exc
        except (JiraError, GaveUp) as exc:
            raise StartupError(f"Jira: {exc}") from exc
        try:
            self._told, self._told_at = self._news(), time.monotonic()
            self.hub.heartbeat("starting", f"Jira user {me.get('name')}", self.time_zone,
                               self.jira.reachability())
        except HubAuthError as exc:
            raise StartupError(f"the hub refused the token ({exc.status}): check HUB_AGENT_TOKEN", 2) from exc
        except (HubError, GaveUp) as exc:
            raise StartupError(f"hub: {exc}") from exc
        log.info("started as %s; Jira user %s (%s)", self.config.agent_id, me.get("name"), self.time_zone)

    def stop(self) -> None:
        """Finish the pages in flight, then exit the loop."""
        self.stopping.set()
        self.status.changed.set()  # the heartbeat loop ends at once

    def _jira_waits(self, reason: str) -> None:
        self.status.problem = reason

    # --- the loop -------------------------------------------------------------------------

    def run(self) -> None:
        """Claim and execute commands, ``concurrency`` at once, until ``stop()``."""
        beat = threading.Thread(target=self._heartbeats, name="heartbeat", daemon=True)
        beat.start()
        slots = threading.Semaphore(self.config.concurrency)
        with ThreadPoolExecutor(self.config.concurrency, thread_name_prefix="command") as pool:
            while not self.stopping.is_set():
                # Claim only as many as there are free slots, so no claimed command waits out its lease here.
                if not slots.acquire(timeout=1):
                    continue
                if self.stopping.is_set():  # stopped while waiting for the slot
                    break
                free = 1
                while free < self.config.concurrency and slots.acquire(blocking=False):
                    free += 1
                claimed = self._claim(free)
                for _ in range(free - len(claimed.commands)):
                    slots.release()
                for command in claimed.commands:
                    pool.submit(self._execute, command, slots)
                self._learn_lease(claimed.commands)
                if claimed.pause:
                    self.stopping.wait(claimed.pause)
        self._beat("stopped", None)

    def _claim(self, limit: int) -> Claimed:
        try:
            self._claiming = True
            # Checked after the flag is up: a signal from here on cuts the claim, one before it is seen here.
            if self.stopping.is_set():
                return Claimed([])
            return self.hub.claim(limit=limit)
        except Interrupted:
            return Claimed([])  # what this claim took, if anything, returns to the queue with its lease
        except (HubError, GaveUp) as exc:
            if isinstance(exc, HubAuthError):
                self.stopping.set()
                raise
            log.warning("claim: %s", exc)
            self.stopping.wait(5)
            return Claimed([])
        finally:
            self._claiming = False

    def _learn_lease(self, commands: list[Command]) -> None:
        for command in commands:
            if command.lease_until:
                left = (datetime.fromisoformat(command.lease_until) - datetime.now(UTC)).total_seconds()
                if left > 3:
                    self.heartbeat_every = max(1.0, left / 3)  # a third of the lease: two may be lost

    def _heartbeats(self) -> None:
        """A heartbeat every ``heartbeat_every`` seconds, and one at once (no closer than LEAST_GAP to
        the last) when what it tells operators changed: a problem, a wait on the rate limit, Jira's
        reachability (agent/heartbeat.py)."""
        due = time.monotonic() + self.heartbeat_every
        while not self.stopping.is_set():
            # In slices: a stop set straight on the flag (not by stop()) is seen within a second.
            woken = self.status.changed.wait(min(1.0, max(0.0, due - time.monotonic())))
            if woken:  # cleared before what changed is read: a change from here on wakes it again
                self.status.changed.clear()
            if self.stopping.is_set():
                return
            if time.monotonic() < due:
                if not woken or self._news() == self._told:
                    continue
                if self.stopping.wait(max(0.0, self._told_at + LEAST_GAP - time.monotonic())):
                    return
            else:
                checked = self.jira.checked_age()
                if checked is None or checked >= self.probe_every:
                    self.jira.probe()
            self._beat(*self.status.report())
            due = time.monotonic() + self.heartbeat_every

    def _news(self) -> tuple:
        reach = self.jira.reachability()
        return *self.status.news(), reach["reachable"] if reach else None

    def _beat(self, state: str, detail: str | None) -> None:
        # Taken before the report is sent: a change meanwhile wakes the loop and is told next.
        self._told, self._told_at = self._news(), time.monotonic()
        try:
            cancelled = self.hub.heartbeat(state, detail, self.time_zone, self.jira.reachability())
        except (HubError, GaveUp) as exc:
            log.warning("heartbeat: %s", exc)
            return
        with self.lock:
            self.cancelled.update(cancelled)

    def _execute(self, command: Command, slots: threading.Semaphore) -> None:
        self.status.begin(command.id)
        try:
            if command.type == REFRESH:
                self.refresh(command)
            elif command.type == FETCH_ATTACHMENT:
                self.fetch_attachment(command)
            elif command.type == CHECK_ISSUES:
                self.check_issues(command)
            else:
                self._fail(command, f"this agent does not run {command.type!r} commands")
            self.status.problem = None  # Jira answered the whole command: what went wrong before is over
        except Dropped as exc:
            log.info("command %s dropped: %s", command.id, exc)
        except Stopped as exc:
            log.info("command %s stopped: %s", command.id, exc)
        except (JiraAuthError, JiraSignInPage) as exc:  # every command would meet it: told in each heartbeat
            self.status.problem = str(exc)
            self._fail(command, str(exc))
        except GaveUp as exc:
            if self.stopping.is_set():  # cut short by the stop: the lease returns the command, not a failure
                log.info("command %s stopped: %s", command.id, exc)
            else:
                self._fail(command, str(exc))
        except (JiraError, HubError, BadCommand) as exc:
            self._fail(command, str(exc))
        except Exception as exc:  # a bug must fail the one command and leave the loop running, not hang it
            log.exception("command %s", command.id)
            self._fail(command, f"agent error: {exc.__class__.__name__}: {exc}")
        finally:
            self.status.end(command.id)
            slots.release()

    def _fail(self, command: Command, error: str) -> None:
        log.warning("command %s failed: %s", command.id, error)
        try:
            self.hub.failed(command, error)
        except (HubError, GaveUp) as exc:
            log.warning("command %s: could not report failure: %s", command.id, exc)

    def _check(self, command: Command) -> None:
        """Between pages: stop if an interface cancelled the command or the agent is stopping."""
        with self.lock:
            if command.id in self.cancelled:
                raise Stopped("cancelled")
        if self.stopping.is_set():
            raise Stopped("the agent is stopping; the lease returns the command to the queue")

    def _say(self, command: Command, detail: str) -> None:
        self.status.say(command.id, detail)

    # --- refresh ------------------------------------------------------------------------

    def refresh(self, command: Command) -> None:
        """Search pages → state pages of at most 100 issues and 100 neighbours → done {total, history_at}.

        Jira's field list and its five catalogues are read once per run (six requests, whatever the
        number of issues): the catalogues go with the run's first state page, and each page carries
        the users its issues name."""
        jql = command.params.get("jql")
        if not jql or not isinstance(jql, str):
            raise BadCommand("the refresh has no params.jql")
        query = search_where(jql, command.params.get("updated_since"), self.time_zone)
        history_at = datetime.now(UTC).replace(microsecond=0).isoformat()
        # Read again each run: a field made in Jira since the last one gets its name and type.
        self.custom = custom = mapping.find_custom_fields(self.jira.fields(), self.config.planned_start_field,
                                                          self.config.planned_end_field)
        catalogues = self._catalogues()
        total, number, loaded = 0, 0, 0
        label = jql if len(jql) <= 40 else jql[:37] + "..."
        # The next page is fetched and mapped while the hub stores this one: Jira and the hub each
        # take about half of a page's time, so overlapping them nearly halves a refresh.
        with OneAhead(self._state_pages(query, custom), name=f"pages-{command.id}") as pages:
            for total, per_page, states, neighbours, users in pages:
                self._check(command)
                if per_page:
                    loaded += len(states)
                    number += 1
                    self._say(command, f"{label}: page {number} of {max(number, math.ceil(total / per_page))}")
                else:
                    self._say(command, f"{label}: linked issues")
                for start in range(0, max(len(states), len(neighbours), 1), 100):
                    sent = {}
                    if start == 0:
                        sent = {**catalogues, **({"users": users} if users else {})}
                        catalogues = {}
                    self._send(command, states[start:start + 100], neighbours[start:start + 100], sent)
        # The issues the run loaded, each once: Jira's count of the scope moves while issues are edited,
        # and the keyset's pages each count only what is left after them.
        self.hub.done(command, {"total": loaded, "history_at": history_at})
        log.info("command %s: refresh done, %s issues", command.id, loaded)

    def _send(self, command: Command, states: list[dict], neighbours: list[dict], catalogues: dict) -> None:
        """One state page; one the hub finds too large (413: past its ``HUB_MAX_JSON_BYTES``) goes again
        as two halves, each a page of its own, down to one issue a page: a page is applied whole, so
        halves end where the page would have."""
        try:
            self.hub.state(command, states, neighbours, catalogues)
        except HubError as exc:
            if exc.status != 413 or len(states) + len(neighbours) <= 1:
                raise
            log.info("command %s: the hub took no page of %s issues; sending it in halves", command.id,
                     len(states) + len(neighbours))
            # Halves of issues-then-neighbours, the order the hub applies a page in; each holds one at least.
            half = (len(states) + len(neighbours)) // 2
            cut = min(half, len(states))
            self._send(command, states[:cut], neighbours[:half - cut], catalogues)
            self._send(command, states[cut:], neighbours[half - cut:], {})

    def _catalogues(self) -> dict[str, list[dict]]:
        """Jira's five catalogues, and the custom fields the state keeps in fields of its own, as the
        page's ``catalogues``. One Jira does not serve (a plugin
        in the way, a permission) is left out, so the hub keeps the one it holds; the refresh goes on."""
        found = {}
        for name in CATALOGUE_PATHS:
            try:
                found[name] = mapping.catalogue(name, self.jira.catalogue(name))
            except JiraAuthError:
                raise
            except JiraError as exc:
                log.warning("catalogue %s left out: %s", name, exc)
        # From Jira's field list, read with the run's start: no request of its own.
        found["fields"] = mapping.column_fields(self.custom)
        return found

    def _state_pages(self, query: str, custom: mapping.CustomFields) -> Iterator[tuple]:
        """Each search page as ``(total, issues on the page, states, [], users)``, then the
        neighbours in batches as ``(total, 0, [], neighbours, users)``."""
        search = self.jira.search_by_id(query, SEARCH_FIELDS, page_size=self.config.page_size, expand=["changelog"])
        # Jira serves the next page while this one is mapped (and the hub stores the one before): three
        # processes at work on three pages.
        with OneAhead(search, name="search") as pages:
            yield from self._mapped(pages, custom)

    def _mapped(self, pages: Iterable[tuple[dict, int]], custom: mapping.CustomFields) -> Iterator[tuple]:
        seen_ids: set[str] = set()
        loaded_keys: set[str] = set()
        linked: set[str] = set()
        total = 0
        for page, total in pages:
            issues = page.get("issues") or []
            states: list[dict] = []
            users: dict[str, dict] = {}
            for issue in issues:
                if str(issue["id"]) in seen_ids:
                    continue  # the keyset reads each id once; one a Jira lists twice is still sent once
                seen_ids.add(str(issue["id"]))
                states.append(self._issue_state(issue, custom, users))
            loaded_keys.update(s["key"] for s in states)
            linked.update(k for issue in issues for k in mapping.linked_keys(issue))
            yield total, max(1, len(issues)), states, [], list(users.values())
        # Neighbours once the matches are all in: a linked key on a later page is a match, not a
        # neighbour, and reading it twice would cost its follow-ups twice; one search reads 100.
        wanted = sorted(linked - loaded_keys)
        for start in range(0, len(wanted), NEIGHBOUR_BATCH):
            users = {}
            neighbours = self._neighbours(wanted[start:start + NEIGHBOUR_BATCH], custom, users, seen_ids)
            yield total, 0, [], neighbours, list(users.values())

    def _issue_state(self, issue: dict, custom: mapping.CustomFields, users: dict[str, dict]) -> dict:
        """An issue's full state, its truncated containers completed from their own endpoints; the
        users it names are added to ``users``."""
        f = issue.get("fields") or {}
        comments = histories = worklogs = None
        if mapping.truncated(f.get("comment"), "comments"):
            comments = self.jira.comments(issue["key"])
        if mapping.truncated(f.get("worklog"), "worklogs"):
            try:
                worklogs = self.jira.worklogs(issue["key"])
            except JiraError as exc:
                if exc.status != 404:
                    raise
                # No worklog endpoint (an older Jira, or a proxy that serves search alone): the
                # issue's worklogs are left out of its state, so the mirror keeps the ones it has
                # rather than take the few search embedded as the whole list.
                log.warning("%s: Jira has no worklogs to give (%s); its worklogs are left as the hub has them",
                            issue["key"], exc)
                issue = {**issue, "fields": {k: v for k, v in f.items() if k != "worklog"}}
        if mapping.truncated(issue.get("changelog"), "histories"):
            histories = self.jira.changelog(issue["key"])
        users.update(mapping.users(issue, comments, histories, worklogs))
        return mapping.state(issue, custom, comments, histories, worklogs)

    def _neighbours(self, keys: list[str], custom: mapping.CustomFields, users: dict[str, dict],
                    seen_ids: set[str]) -> list[dict]:
        """Linked issues outside the query, read with the scope's own fields and expand (batches of
        100 cost one search each) and mapped as fully: comments, changes, attachments, worklogs, links.
        One the run has already sent (a moved issue answers to its old key too) is not sent again."""
        found: list[dict] = []
        for start in range(0, len(keys), NEIGHBOUR_BATCH):
            batch = keys[start:start + NEIGHBOUR_BATCH]
            quoted = ", ".join(f'"{k}"' for k in batch)
            jql = f"key in ({quoted})"
            for page, _ in self.jira.search(jql, SEARCH_FIELDS, page_size=NEIGHBOUR_BATCH, expand=["changelog"],
                                            validate=False):
                for issue in page.get("issues") or []:
                    if str(issue["id"]) not in seen_ids:
                        seen_ids.add(str(issue["id"]))
                        found.append(self._issue_state(issue, custom, users))
        return found

    # --- check_issues -------------------------------------------------------------------

    def check_issues(self, command: Command) -> None:
        """Ask Jira for the keys a full run did not load, 100 to a search (``key in (...)`` with
        ``validateQuery=false``, so a key Jira does not know is left out rather than refusing the
        batch); what it returns goes to the hub as neighbours, mapped in full; then done with
        ``{checked, missing}``: ``checked`` the keys asked for, ``missing`` those Jira returned no issue
        under (a moved key is answered under its new one, which the hub knows by its id)."""
        keys = [str(key) for key in command.params.get("keys") or []]
        custom = self.custom = mapping.find_custom_fields(self.jira.fields(), self.config.planned_start_field,
                                                          self.config.planned_end_field)
        returned: set[str] = set()
        batches = math.ceil(len(keys) / NEIGHBOUR_BATCH)
        for number, start in enumerate(range(0, len(keys), NEIGHBOUR_BATCH), 1):
            self._check(command)
            self._say(command, f"checking {len(keys)} issues outside the full run: batch {number} of {batches}")
            users: dict[str, dict] = {}
            issues = checks.issues_of(self.jira, keys[start:start + NEIGHBOUR_BATCH])
            states = [self._issue_state(issue, custom, users) for issue in issues]
            returned.update(str(issue["key"]) for issue in issues)
            for part in range(0, len(states), 100):
                self._send(command, [], states[part:part + 100],
                           {"users": list(users.values())} if users and part == 0 else {})
        missing = [key for key in keys if key not in returned]
        self.hub.done(command, {"checked": len(keys), "missing": missing})
        log.info("command %s: %s issues checked, %s not found in Jira", command.id, len(keys), len(missing))

    # --- fetch_attachment ---------------------------------------------------------------

    def fetch_attachment(self, command: Command) -> None:
        """Stream the attachment to a temp file while hashing, refuse an HTML page, PUT it, then done."""
        aid = str(command.params.get("attachment_id"))
        self._say(command, f"attachment {aid}")
        meta = self.jira.attachment(aid)
        digest, size = hashlib.sha256(), 0
        fd, path = tempfile.mkstemp(prefix="hub-agent-")
        try:
            with os.fdopen(fd, "wb") as out, self.jira.download(meta["content"]) as response:
                head = b""
                for chunk in response.iter_bytes(1 << 20):
                    if len(head) < 512:
                        head += chunk[:512 - len(head)]
                    digest.update(chunk)
                    out.write(chunk)
                    size += len(chunk)
                content_type = response.headers.get("Content-Type")
                final = response.url  # where the redirects ended: the proxy's sign-in page, if that is what it is
            if looks_like_html(content_type, meta.get("mimeType"), head):
                raise JiraError(200, f"Jira served an HTML page ({content_type or 'no content type'}, {size} bytes)"
                                     f" instead of attachment {aid} ({meta.get('filename')}, {meta.get('size')}"
                                     f" bytes), at {final}: a sign-in page of a proxy in front of Jira?")
            if meta.get("size") is not None and int(meta["size"]) != size:
                raise JiraError(200, f"attachment {aid}: Jira lists {meta['size']} bytes but sent {size}")
            stored = self.hub.put_file(command, path, digest.hexdigest())
            self.hub.done(command, {"sha256": stored["sha256"], "size": stored["size"]})
            log.info("command %s: attachment %s uploaded, %s bytes", command.id, aid, size)
        finally:
            os.unlink(path)


def install_signals(runner: Runner) -> None:
    """SIGTERM and SIGINT stop the runner gracefully: the pages in flight are finished and reported
    if the hub takes them at the first try; no retry waits on a hub or a Jira that does not answer.

    Installed before ``start()``, so that a signal during its checks ends them too."""

    def handler(signum, frame):
        log.info("signal %s: stopping after the pages in flight", signum)
        runner.stop()
        if runner._claiming:  # the main thread is in a long-poll or the start: cut it; no command work is
            raise Interrupted()

    signal.signal(signal.SIGTERM, handler)
    signal.signal(signal.SIGINT, handler)
