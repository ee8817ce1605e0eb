"""``write`` (protocol v19): one write an interface asked the hub for — a comment, a transition, an
edit, a work log, a new issue, a link, an attachment — applied to Jira exactly once, then the issue's
fresh state sent as a state page and the outcome reported with ``done``.

The flow: the agent's own gates (``--writes``, ``--writes-jql``); the marker looked for when the
command was delivered before or a request's answer was lost; the maker's ``base`` against Jira's
values; the write, carrying its marker; the fresh state; ``done`` with ``{outcome, result, error,
conflict}``. Jira unreachable, or answering 5xx, never fails a write: the handler waits and tries
again while it holds the command (the heartbeats keep its lease), until a cancel or a stop.
"""

from __future__ import annotations

import logging

from agent.handlers.context import Context
from agent.handlers.issue_states import issue_state, send
from agent.hub_client import Command, Dropped
from agent.jira_client import SEARCH_EXPAND, SEARCH_FIELDS, JiraAuthError, JiraError, JiraSignInPage
from agent.jira_writes import Ambiguous, JiraWrites, Refused
from agent.meta import allowed_name
from agent.queries import BadCommand
from agent.retry import GaveUp
from agent.writes import conflicts, markers, ops
from agent.writes.model import Outcome, Session, Write

log = logging.getLogger("hub-agent")

KIND = "write"


def gates(ctx: Context, write: Write) -> str | None:
    """Why this agent may not apply ``write`` (its ``--writes`` and ``--writes-jql``); None if it may."""
    config = ctx.config
    if write.op not in config.writes:
        allowed = ", ".join(sorted(config.writes)) or "none"
        return f"this agent does not apply {write.op} writes (--writes: {allowed})"
    if config.writes_jql:
        target = write.key if write.op != "create_issue" else write.params.get("parent")
        if not target:
            return (f"this agent writes only to issues matching {config.writes_jql!r}:"
                    " a new issue needs a parent that does")
        if not JiraWrites(ctx.jira).matches(str(target), config.writes_jql):
            return f"{target} does not match this agent's --writes-jql {config.writes_jql!r}"
    return None


def handle(ctx: Context, command: Command) -> None:
    """Gates → marker → base → apply → fresh state → done (the module's docstring)."""
    write = Write.from_params(command.params)
    ctx.say(command, f"write {write.id}: {write.op} {write.key or write.project}")
    user_client = ctx.jira_for(write.requested_by)
    session = Session(write=write, jira=user_client or ctx.jira, own=user_client is None,
                      described=ctx.custom.described, hub=ctx.hub, command=command,
                      attribution=ctx.config.attribution)
    outcome = _applied(ctx, command, session, look=command.delivery > 1)
    try:
        if outcome.key:
            fresh = _send_state(ctx, command, outcome.key)
            if write.op == "link" and outcome.outcome == "done":
                ops.linked_id(outcome, write.params, fresh)
        ctx.hub.done(command, outcome.report())
    except GaveUp as exc:
        # The hub is away with Jira's answer in hand: failing the command would show a write Jira
        # holds as failed. Its lease returns it instead, and the next delivery finds the marker.
        raise Dropped(0, f"the hub did not take write {write.id}'s outcome ({exc}); its lease returns"
                         " the command, whose next delivery finds the write in Jira") from exc
    log.info("command %s: write %s (%s %s) %s", command.id, write.id, write.op, write.key or write.project,
             outcome.outcome)


def _applied(ctx: Context, command: Command, session: Session, look: bool) -> Outcome:
    """The write's outcome; Jira away or failing (network errors, 5xx, a lost answer) is waited out,
    and after a lost answer the marker is looked for before anything is sent again."""
    attempt = 0
    gated = False
    while True:
        ctx.check(command)
        try:
            if not gated:  # in the loop: the JQL gate asks Jira, which may be away too
                refusal = gates(ctx, session.write)
                if refusal:
                    raise BadCommand(refusal)  # the command fails with the reason: the write shows failed
                gated = True
            return _once(session, look)
        except Ambiguous as exc:
            look = True
            reason = str(exc)
        except GaveUp as exc:
            if ctx.jira.stopping.is_set():
                raise
            reason = str(exc)
        except (JiraAuthError, JiraSignInPage) as exc:
            if session.own:
                raise  # the agent's own credentials: every command meets it, the runner tells operators
            return Outcome("failed", error=f"Jira refused the token of {session.write.requested_by}: {exc}",
                           key=None)
        except JiraError as exc:
            if exc.status < 500 and exc.status != 429:
                raise
            reason = str(exc)
        pause = ctx.jira.backoff.pause(min(attempt, 8))
        attempt += 1
        ctx.say(command, f"write {session.write.id}: {reason}; trying again in {pause:.0f} s")
        log.warning("write %s: %s; trying again in %.1f s", session.write.id, reason, pause)
        ctx.jira.stopping.wait(pause)


def _once(session: Session, look: bool) -> Outcome:
    write = session.write
    if look:
        found = markers.FIND[write.op](session)
        if found is not None:
            log.info("write %s found in Jira already: not applied again", write.id)
            return found
    try:
        conflict = conflicts.check(session)
        if conflict is not None:
            return conflict
        return ops.APPLY[write.op](session)
    except ops.Unapplied as exc:
        return Outcome("failed", error=str(exc), key=write.key)
    except Refused as exc:
        return Outcome("failed", error=explain(session, exc),
                       key=write.key if exc.status != 404 and write.op != "create_issue" else None)
    except JiraAuthError:
        raise
    except JiraError as exc:
        if exc.status not in (400, 404):
            raise
        # A read the write needed was refused: the issue is gone or not visible to the user.
        return Outcome("failed", error=str(exc), key=None)


def explain(session: Session, refused: Refused) -> str:
    """Jira's refusal in its own words: ``errorMessages``, then ``field: message`` for each of
    ``errors``, each field followed by what it allows when the screen lists it."""
    screen = _screen(session, refused)
    said = list(refused.words)
    for fid, message in refused.errors.items():
        allowed = [n for n in map(allowed_name, (screen.get(fid) or {}).get("allowedValues") or []) if n]
        said.append(f"{fid}: {message}" + (f" (allowed: {', '.join(allowed)})" if allowed else ""))
    return "; ".join(said) or str(refused)


def _screen(session: Session, refused: Refused) -> dict:
    """The screen the refused write was made on: its transition's, else the issue's edit screen
    (read for an edit Jira refused field by field); empty when unknown."""
    if not refused.errors:
        return {}
    chosen = session.learnt.get("transition")
    if chosen is not None:
        return chosen.get("fields") or {}
    if session.write.op == "edit":
        try:
            return session.requests.editmeta(session.write.key or "")
        except (JiraError, GaveUp):
            return {}
    return {}


def _send_state(ctx: Context, command: Command, key: str) -> dict | None:
    """The issue's fresh state, as a refresh maps it, with its transitions and edit screen: one search.
    Returns the issue as Jira gave it (None when it could not be read)."""
    users: dict[str, dict] = {}
    states: list[dict] = []
    raw: list[dict] = []
    try:
        for page, _ in ctx.jira.search(f'key = "{key}"', SEARCH_FIELDS, page_size=1, expand=SEARCH_EXPAND,
                                       validate=False):
            raw.extend(page.get("issues") or [])
            states.extend(issue_state(ctx.jira, issue, ctx.custom, users) for issue in raw)
            break
    except (JiraError, GaveUp) as exc:
        if isinstance(exc, JiraAuthError) or ctx.jira.stopping.is_set():
            raise
        # The write is made: its outcome matters more than the mirror's copy, which the next refresh mends.
        log.warning("command %s: the fresh state of %s was not read: %s", command.id, key, exc)
        return None
    if states:
        send(ctx.hub, command, states[:1], [], {"users": list(users.values())} if users else {})
    return raw[0] if raw else None

