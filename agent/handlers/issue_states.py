"""What the kinds that load issues (refresh, check_issues) share: an issue's whole state, its cut-short
lists completed from Jira, and a state page sent to the hub, in halves if the hub finds it too large.

Not a kind: the registry (``agent/handlers/__init__.py``) names the handlers one by one.
"""

from __future__ import annotations

import logging

from agent import mapping, meta
from agent.hub_client import Command, HubClient, HubError
from agent.jira_client import JiraAuthError, JiraClient, JiraError
from agent.jira_writes import JiraWrites

log = logging.getLogger("hub-agent")

NEIGHBOUR_BATCH = 100  # the hub takes at most 100 neighbours a page; one search fetches them


def issue_state(jira: JiraClient, issue: dict, custom: mapping.CustomFields, users: dict[str, dict]) -> dict:
    """An issue's full state, its truncated containers completed from their own endpoints; the
    users it names are added to ``users``."""
    f = issue.get("fields") or {}
    comments = histories = worklogs = None
    if mapping.truncated(f.get("comment"), "comments"):
        comments = jira.comments(issue["key"])
    if mapping.truncated(f.get("worklog"), "worklogs"):
        try:
            worklogs = jira.worklogs(issue["key"])
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
        histories = jira.changelog(issue["key"])
    users.update(mapping.users(issue, comments, histories, worklogs))
    return mapping.state(issue, custom, comments, histories, worklogs)


def send(hub: HubClient, command: Command, states: list[dict], neighbours: list[dict], catalogues: dict,
         create_meta: list[dict] | None = None) -> None:
    """One state page; one the hub finds too large (413: past its ``HUB_MAX_JSON_BYTES``) goes again
    as two halves, each a page of its own, down to one issue a page: a page is applied whole, so
    halves end where the page would have. ``create_meta`` (v19) goes with the first half."""
    try:
        # Named only when there are some: a page without them is the page of protocol v18.
        hub.state(command, states, neighbours, catalogues, **({"create_meta": create_meta} if create_meta else {}))
    except HubError as exc:
        if exc.status != 413:
            raise
        if len(states) + len(neighbours) <= 1:
            if not (catalogues or create_meta):
                raise
            # One issue with the run's catalogues and create screens (v19's screens and transitions
            # make a state several kilobytes): the issue alone, then what came with it on a page of its own.
            log.info("command %s: the hub took no page of one issue with the catalogues; sending them apart",
                     command.id)
            send(hub, command, states, neighbours, {})
            _extras(hub, command, catalogues, create_meta or [])
            return
        log.info("command %s: the hub took no page of %s issues; sending it in halves", command.id,
                 len(states) + len(neighbours))
        # Halves of issues-then-neighbours, the order the hub applies a page in; each holds one at least.
        half = (len(states) + len(neighbours)) // 2
        cut = min(half, len(states))
        send(hub, command, states[:cut], neighbours[:half - cut], catalogues, create_meta)
        send(hub, command, states[cut:], neighbours[half - cut:], {})


def _extras(hub: HubClient, command: Command, catalogues: dict, create_meta: list[dict]) -> None:
    """The run's catalogues and create screens on pages of no issues, halved while the hub finds
    them too large; one project's issue type whose screen alone is past the limit is left out
    (the hub keeps the one it holds), as a catalogue Jira does not serve is."""
    try:
        hub.state(command, [], [], catalogues, **({"create_meta": create_meta} if create_meta else {}))
    except HubError as exc:
        if exc.status != 413:
            raise
        if catalogues and create_meta:
            _extras(hub, command, catalogues, [])
            _extras(hub, command, {}, create_meta)
        elif len(create_meta) > 1:
            half = len(create_meta) // 2
            _extras(hub, command, {}, create_meta[:half])
            _extras(hub, command, {}, create_meta[half:])
        elif create_meta:
            entry = create_meta[0]
            log.warning("command %s: the create screen of %s %s is past the hub's body limit; left out",
                        command.id, entry.get("project"), entry.get("issue_type"))
        else:
            raise


def create_meta(jira: JiraClient, projects: list[str], known: set[str]) -> list[dict]:
    """The create screens (v19 ``create_meta``) of the ``projects`` not in ``known`` yet, which are
    added to it: read once per run per project. A project whose screens Jira does not give (an older
    Jira, a permission) is left out, so the hub keeps what it has; the run goes on."""
    found: list[dict] = []
    for project in projects:
        if project in known:
            continue
        known.add(project)
        try:
            found.extend(meta.create_meta(project, JiraWrites(jira).createmeta(project)))
        except JiraAuthError:
            raise
        except JiraError as exc:
            log.warning("create screens of %s left out: %s", project, exc)
    return found
