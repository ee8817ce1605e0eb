"""``refresh``: the issues a JQL query matches (changed since ``updated_since``, if given), read from
Jira page by page and sent to the hub as state pages, with the issues they link to as neighbours."""

from __future__ import annotations

import logging
import math
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime

from agent import mapping
from agent.ahead import OneAhead
from agent.handlers.context import Context
from agent.handlers.issue_states import NEIGHBOUR_BATCH, create_meta, issue_state, send
from agent.hub_client import Command
from agent.jira_client import CATALOGUE_PATHS, SEARCH_EXPAND, SEARCH_FIELDS, JiraAuthError, JiraError
from agent.queries import BadCommand, search_where

log = logging.getLogger("hub-agent")

KIND = "refresh"


def handle(ctx: Context, command: Command) -> None:
    """Search pages → state pages of at most 100 issues and 100 neighbours → done {total, history_at}.

    Jira's field list and its five catalogues are read once per run (six requests, whatever the
    number of issues), and the configuration of each board ``params.boards`` names (one request
    each): they go with the run's first state page, and each page carries the users its issues name."""
    jql = command.params.get("jql")
    if not jql or not isinstance(jql, str):
        raise BadCommand("the refresh has no params.jql")
    query = search_where(jql, command.params.get("updated_since"), ctx.time_zone)
    history_at = datetime.now(UTC).replace(microsecond=0).isoformat()
    # Read again each run: a field made in Jira since the last one gets its name and type.
    ctx.custom = custom = mapping.find_custom_fields(ctx.jira.fields(), ctx.config.planned_start_field,
                                                     ctx.config.planned_end_field)
    catalogues = _catalogues(ctx, custom)
    boards = _boards(ctx, command.params.get("boards"))
    if boards:
        catalogues["boards"] = boards
    total, number, loaded = 0, 0, 0
    projects: set[str] = set()  # those whose create screens were read this run
    label = jql if len(jql) <= 40 else jql[:37] + "..."
    # The next page is fetched and mapped while the hub stores this one: Jira and the hub each
    # take about half of a page's time, so overlapping them nearly halves a refresh.
    with OneAhead(_state_pages(ctx, query, custom), name=f"pages-{command.id}") as pages:
        for total, per_page, states, neighbours, users in pages:
            ctx.check(command)
            if per_page:
                loaded += len(states)
                number += 1
                ctx.say(command, f"{label}: page {number} of {max(number, math.ceil(total / per_page))}")
            else:
                ctx.say(command, f"{label}: linked issues")
            for start in range(0, max(len(states), len(neighbours), 1), 100):
                sent = {}
                if start == 0:
                    sent = {**catalogues, **({"users": users} if users else {})}
                    catalogues = {}
                # v19: the create screens of the projects this page is the first to name.
                screens = create_meta(ctx.jira, sorted({s["key"].split("-")[0] for s in states[start:start + 100]}),
                                      projects)
                send(ctx.hub, command, states[start:start + 100], neighbours[start:start + 100], sent, screens)
    # The issues the run loaded, each once: Jira's count of the scope moves while issues are edited,
    # and the keyset's pages each count only what is left after them.
    ctx.hub.done(command, {"total": loaded, "history_at": history_at})
    log.info("command %s: refresh done, %s issues", command.id, loaded)


def _catalogues(ctx: Context, custom: mapping.CustomFields) -> dict[str, list[dict]]:
    """Jira's five catalogues, and the custom fields the state keeps in fields of its own, as the
    page's ``catalogues``. One Jira does not serve (a plugin
    in the way, a permission) is left out, so the hub keeps the one it holds; the refresh goes on."""
    found = {}
    for name in CATALOGUE_PATHS:
        try:
            found[name] = mapping.catalogue(name, ctx.jira.catalogue(name))
        except JiraAuthError:
            raise
        except JiraError as exc:
            log.warning("catalogue %s left out: %s", name, exc)
    # From Jira's field list, read with the run's start: no request of its own.
    found["fields"] = mapping.column_fields(custom)
    return found


def _boards(ctx: Context, asked: object) -> list[dict]:
    """The configuration of each board the hub named (``[{"id", "type"}]``), as the page's
    ``catalogues.boards``. One Jira refuses (404: no such board or not shared with the user; 403) or
    cannot serve is left out and logged, so the hub keeps what it holds; the refresh goes on."""
    found = []
    for entry in asked if isinstance(asked, list) else ():
        board_id = entry.get("id") if isinstance(entry, dict) else None
        if not isinstance(board_id, int) or isinstance(board_id, bool) or board_id < 1:
            continue
        try:
            configuration = ctx.jira.board_configuration(board_id)
        except JiraAuthError as exc:
            if exc.status != 403:
                raise  # 401: the credentials, which the whole run needs
            log.warning("board %s left out: %s", board_id, exc)
            continue
        except JiraError as exc:
            log.warning("board %s left out: %s", board_id, exc)
            continue
        # The type the hub's project names stands where the configuration has none (Jira Server's has
        # none); the board's own name where the configuration's is missing.
        found.append(mapping.board(board_id, configuration, entry.get("type"),
                                   None if configuration.get("name") else _board_name(ctx, board_id)))
    return found


def _board_name(ctx: Context, board_id: int) -> str | None:
    try:
        answer = ctx.jira.board(board_id)
    except JiraAuthError as exc:
        if exc.status != 403:
            raise
        return None
    except JiraError:
        return None
    return answer.get("name") if isinstance(answer, dict) else None


def _state_pages(ctx: Context, query: str, custom: mapping.CustomFields) -> Iterator[tuple]:
    """Each search page as ``(total, issues on the page, states, [], users)``, then the
    neighbours in batches as ``(total, 0, [], neighbours, users)``."""
    search = ctx.jira.search_by_id(query, SEARCH_FIELDS, page_size=ctx.config.page_size, expand=SEARCH_EXPAND)
    # Jira serves the next page while this one is mapped (and the hub stores the one before): three
    # processes at work on three pages.
    with OneAhead(search, name="search") as pages:
        yield from _mapped(ctx, pages, custom)


def _mapped(ctx: Context, pages: Iterable[tuple[dict, int]], custom: mapping.CustomFields) -> Iterator[tuple]:
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
            states.append(issue_state(ctx.jira, issue, custom, users))
        loaded_keys.update(s["key"] for s in states)
        linked.update(k for issue in issues for k in mapping.linked_keys(issue))
        yield total, max(1, len(issues)), states, [], list(users.values())
    # Neighbours once the matches are all in: a linked key on a later page is a match, not a
    # neighbour, and reading it twice would cost its follow-ups twice; one search reads 100.
    wanted = sorted(linked - loaded_keys)
    for start in range(0, len(wanted), NEIGHBOUR_BATCH):
        users = {}
        neighbours = _neighbours(ctx, wanted[start:start + NEIGHBOUR_BATCH], custom, users, seen_ids)
        yield total, 0, [], neighbours, list(users.values())


def _neighbours(ctx: Context, keys: list[str], custom: mapping.CustomFields, users: dict[str, dict],
                seen_ids: set[str]) -> list[dict]:
    """Linked issues outside the query, read with the scope's own fields and expand (batches of
    100 cost one search each) and mapped as fully: comments, changes, attachments, worklogs, links.
    One the run has already sent (a moved issue answers to its old key too) is not sent again."""
    found: list[dict] = []
    for start in range(0, len(keys), NEIGHBOUR_BATCH):
        batch = keys[start:start + NEIGHBOUR_BATCH]
        quoted = ", ".join(f'"{k}"' for k in batch)
        jql = f"key in ({quoted})"
        for page, _ in ctx.jira.search(jql, SEARCH_FIELDS, page_size=NEIGHBOUR_BATCH, expand=SEARCH_EXPAND,
                                       validate=False):
            for issue in page.get("issues") or []:
                if str(issue["id"]) not in seen_ids:
                    seen_ids.add(str(issue["id"]))
                    found.append(issue_state(ctx.jira, issue, custom, users))
    return found
