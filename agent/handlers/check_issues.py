"""``check_issues``: whether the keys a full run did not load still name issues in Jira (the hub
sends it after a full run, protocol v16); what Jira returns goes to the hub as neighbours."""

from __future__ import annotations

import logging
import math

from agent import mapping
from agent.handlers.context import Context
from agent.handlers.issue_states import NEIGHBOUR_BATCH, issue_state, send
from agent.hub_client import Command
from agent.jira_client import SEARCH_EXPAND, SEARCH_FIELDS, JiraAuthError, JiraClient, JiraError

log = logging.getLogger("hub-agent")

KIND = "check_issues"


def handle(ctx: Context, command: Command) -> None:
    """Ask Jira for the keys a full run did not load, 100 to a search (``key in (...)`` with
    ``validateQuery=false``, so a key Jira does not know is left out rather than refusing the
    batch); what it returns goes to the hub as neighbours, mapped in full; then done with
    ``{checked, missing}``: ``checked`` the keys asked for, ``missing`` those Jira returned no issue
    under (a moved key is answered under its new one, which the hub knows by its id)."""
    keys = [str(key) for key in command.params.get("keys") or []]
    custom = ctx.custom = mapping.find_custom_fields(ctx.jira.fields(), ctx.config.planned_start_field,
                                                     ctx.config.planned_end_field)
    returned: set[str] = set()
    batches = math.ceil(len(keys) / NEIGHBOUR_BATCH)
    for number, start in enumerate(range(0, len(keys), NEIGHBOUR_BATCH), 1):
        ctx.check(command)
        ctx.say(command, f"checking {len(keys)} issues outside the full run: batch {number} of {batches}")
        users: dict[str, dict] = {}
        issues = issues_of(ctx.jira, keys[start:start + NEIGHBOUR_BATCH])
        states = [issue_state(ctx.jira, issue, custom, users) for issue in issues]
        returned.update(str(issue["key"]) for issue in issues)
        for part in range(0, len(states), 100):
            send(ctx.hub, command, [], states[part:part + 100],
                 {"users": list(users.values())} if users and part == 0 else {})
    missing = [key for key in keys if key not in returned]
    ctx.hub.done(command, {"checked": len(keys), "missing": missing})
    log.info("command %s: %s issues checked, %s not found in Jira", command.id, len(keys), len(missing))


def issues_of(jira: JiraClient, keys: list[str]) -> list[dict]:
    """The issues Jira returns for ``keys`` (at most 100), each once, with the fields and changelog
    a refresh reads. One search of ``key in (...)`` with ``validateQuery=false``, so that a key Jira
    does not know (deleted, or not visible to the user) is left out rather than refusing the batch,
    and a moved key answers the issue under its new key. A Jira that refuses the batch anyway (400:
    one that ignores ``validateQuery``) is asked one key at a time, where a 400 or 404 means that
    key names no issue."""
    quoted = ", ".join(f'"{key}"' for key in keys)
    found: dict[str, dict] = {}
    try:
        for page, _ in jira.search(f"key in ({quoted})", SEARCH_FIELDS, page_size=max(1, len(keys)),
                                   expand=SEARCH_EXPAND, validate=False):
            for issue in page.get("issues") or []:
                found.setdefault(str(issue["id"]), issue)
        return list(found.values())
    except JiraAuthError:
        raise
    except JiraError as exc:
        if exc.status != 400:
            raise
        log.info("Jira refused a batch of %s keys (%s); checking them one by one", len(keys), exc)
    for key in keys:
        try:
            for page, _ in jira.search(f'key = "{key}"', SEARCH_FIELDS, page_size=1, expand=SEARCH_EXPAND):
                for issue in page.get("issues") or []:
                    found.setdefault(str(issue["id"]), issue)
        except JiraAuthError:
            raise
        except JiraError as exc:
            if exc.status not in (400, 404):
                raise
    return list(found.values())
