"""The agent's loop: check both ends, heartbeat, claim, and run each claimed command through the
handler of its kind (agent/handlers/: refreshes, attachment fetches, checks of issues a full run did
not load)."""

from __future__ import annotations

import logging
import re
import signal
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from agent import handlers, mapping
from agent.config import AgentConfig
from agent.handlers.write import KIND as WRITE_KIND
from agent.heartbeat import LEAST_GAP, Status
from agent.hub_client import Claimed, Command, Dropped, HubAuthError, HubClient, HubError
from agent.jira_client import JiraAuthError, JiraClient, JiraError, JiraSignInPage
from agent.queries import BadCommand
from agent.retry import GaveUp

log = logging.getLogger("hub-agent")


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
# While Jira does not answer, how often (seconds) a claim asks it again before passing writes over.
WRITES_PROBE = 5.0
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
        # Jira as each requester whose token --jira-user-tokens holds, made at its first write.
        self._user_clients: dict[str, JiraClient] = {}

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
        # serverInfo, once: the first heartbeat tells the hub Jira's base URL (its links to Jira's issues).
        self.jira.probe()
        try:
            self._told, self._told_at = self._news(), time.monotonic()
            self.hub.heartbeat("starting", f"Jira user {me.get('name')}", self.time_zone,
                               self.jira.reachability(), holding=[])
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
            return self.hub.claim(limit=limit, types=self._claimable())
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

    def _claimable(self) -> list[str] | None:
        """The kinds to claim: every kind (None) while Jira answers; without writes while it does not,
        so that they wait in the hub, shown pending to the people who made them, rather than held here.
        Jira is asked again (a probe, at most every WRITES_PROBE seconds) before writes are passed over."""
        reach = self.jira.reachability()
        if reach is None or reach.get("reachable"):
            return None
        if (self.jira.checked_age() or 0.0) >= WRITES_PROBE:
            self.jira.probe()
            reach = self.jira.reachability()
            if reach is None or reach.get("reachable"):
                return None
        return [kind for kind in handlers.kinds() if kind != WRITE_KIND]

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
            # What this process runs, and nothing else: commands a killed process of the same agent id
            # held are left to run out, and are delivered again.
            cancelled = self.hub.heartbeat(state, detail, self.time_zone, self.jira.reachability(),
                                           holding=self.status.running())
        except (HubError, GaveUp) as exc:
            log.warning("heartbeat: %s", exc)
            return
        with self.lock:
            self.cancelled.update(cancelled)

    def _execute(self, command: Command, slots: threading.Semaphore) -> None:
        self.status.begin(command.id)
        try:
            handler = handlers.lookup(command.type)
            if handler is None:
                self._fail(command, handlers.not_run(command.type))
            else:
                handler(self, command)
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

    # --- what handlers use (agent/handlers/context.py) ----------------------------------------

    def check(self, command: Command) -> None:
        """Between pages: stop if an interface cancelled the command or the agent is stopping."""
        with self.lock:
            if command.id in self.cancelled:
                raise Stopped("cancelled")
        if self.stopping.is_set():
            raise Stopped("the agent is stopping; the lease returns the command to the queue")

    def say(self, command: Command, detail: str) -> None:
        """The command's progress, told in the heartbeats' detail while it runs."""
        self.status.say(command.id, detail)

    def jira_for(self, requested_by: str) -> JiraClient | None:
        """Jira as ``requested_by``'s own user (its token from --jira-user-tokens); None without one."""
        token = self.config.jira_user_tokens.get(requested_by) if requested_by else None
        if not token:
            return None
        with self.lock:
            client = self._user_clients.get(requested_by)
            if client is None:
                client = JiraClient(self.config.jira_url, token=token, backoff=self.jira.backoff,
                                    on_wait=self._jira_waits, transport=None)
                client.stopping = client.pacer.stopping = self.stopping
                self._user_clients[requested_by] = client
            return client


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
