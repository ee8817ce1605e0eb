"""``refresh``: load the issues of a JQL query (the base JQL without one) from Jira.

Interfaces and the schedule enqueue it. ``params.jql`` is optional (the base JQL
without it) and ``params.updated_since``, a UTC time, makes it incremental. A refresh of the
base JQL (full or incremental) also carries ``params.boards``, the projects' agile boards
(``[{"id", "type"}]``, absent when none), whose configurations the agent reads. While a
refresh of the same params is open, a request for it is answered with that one: one
full refresh is open at a time, whoever asked for it. A delivery opens a sync run;
state pages load issues into the mirror, and ``done`` (``{total, history_at?}``)
closes the run, a full run that loaded issues owing the neighbour marking.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

from hub import dialect
from hub.clock import UTC_TIME_PATTERN, iso, parse_utc
from hub.db import database
from hub.errors import Conflict, ContractError
from hub.models import Batch, Command, Project, SyncRun
from hub.services.commands.kinds.registry import Kind, Queue, Reporting, open_same
from hub.services.commands.runs import close_open_run, count_page, open_run
from hub.services.mirror.loading import RunContext
from hub.services.search.jql.parser import MAX_LENGTH as MAX_JQL_LENGTH
from hub.vocabulary import DONE, QUEUED, REFRESH

# The largest integer SQLite stores (hub/api/schemas.py's INT64_MAX).
_INT64_MAX = 2**63 - 1


@dataclass(frozen=True)
class Refresh(Kind):
    """A refresh of a JQL query."""

    def checked_params(self, params: dict, now: datetime) -> dict:
        """``updated_since`` read as a UTC time in a sane range and written as the hub writes times."""
        since = params.get("updated_since")
        if since is None:
            return params
        moment = parse_utc(since)
        if moment is None:
            raise ContractError("params.updated_since must be a UTC time like "
                                f"2026-10-22T10:05:11+00:00, got {since!r}",
                                "params.updated_since")
        # A sane range (docs/api.md): no Jira kept issues before 2000, a moment past
        # tomorrow selects nothing, and the agent writes it in the Jira user's zone.
        latest = now + timedelta(days=1)
        if not datetime(2000, 1, 1, tzinfo=UTC) <= moment <= latest:
            raise ContractError("params.updated_since must be from 2000-01-01T00:00:00+00:00 to "
                                f"a day from now ({iso(latest)}), got {since!r}",
                                "params.updated_since")
        return {**params, "updated_since": iso(moment)}

    def enqueue(self, queue: Queue, params: dict, batch_id: int | None,
                token_id: int | None) -> tuple[Command, bool]:
        return request(queue, params.get("jql"), batch_id, params.get("updated_since"), token_id)

    def retry(self, queue: Queue, command: Command, token_id: int | None) -> tuple[Command, bool]:
        """Its query again, as it was: the base JQL it named may have changed since."""
        params = dict(command.params or {})
        if not params.get("jql"):
            raise Conflict(f"command {command.id} names no query to refresh again")
        return request(queue, params["jql"], command.batch_id, params.get("updated_since"), token_id)

    def page(self, reporting: Reporting, command: Command, issues: list) -> tuple[RunContext, int]:
        """Counted on the command's run; a full run tells which issues are inside the base JQL."""
        started_at, issues_loaded = _count(command, len(issues), reporting.now)
        return RunContext(full=_is_full(command, reporting), started_at=started_at,
                          now=reporting.now), issues_loaded

    def recorded(self, result: Any) -> Any:
        """The whole result, as sent."""
        return result

    def done(self, reporting: Reporting, command: Command, result: Any) -> None:
        """Close the run; a full run that loaded issues owes the neighbour marking."""
        if not isinstance(result, dict):
            raise ContractError("a refresh's result is {total, history_at?}", "result")
        total = result.get("total")
        if not isinstance(total, int) or isinstance(total, bool) or total < 0:
            raise ContractError("result.total must be a whole number of issues", "result.total")
        history_at = result.get("history_at")
        if history_at is not None and not isinstance(history_at, str):
            raise ContractError("result.history_at must be a time string or null", "result.history_at")
        reporting.marking = _finish_run(command, history_at, reporting)


KIND = Refresh(
    REFRESH,
    # As long as the issue list's jql= (the JQL box) takes: the parser's bound.
    params={"jql": {"type": "string", "minLength": 1, "maxLength": MAX_JQL_LENGTH},
            "updated_since": {"type": "string", "format": "date-time", "pattern": UTC_TIME_PATTERN,
                              "description": "a UTC time at whole seconds, e.g. 2026-10-22T10:05:11Z or "
                                             "2026-10-22T10:05:11+00:00, naming a real date and time "
                                             "(checked by the hub: 422 naming the field otherwise)"}},
    result_schema={
        "type": "object",
        "properties": {"total": {"type": "integer", "minimum": 0, "maximum": _INT64_MAX},
                       "history_at": {"type": ["string", "null"], "maxLength": 255}},
        "required": ["total"],
    },
    result_words="a refresh's {total, history_at?}",
    opens_run=True,
    pages=True,
)


def request(queue: Queue, jql: str | None, batch_id: int | None, updated_since: str | None,
            token_id: int | None) -> tuple[Command, bool]:
    """A refresh an interface asks for: the open one of the same params if there is
    one (not created), else a new one within the token's bound."""
    with database.atomic():
        base = queue.projects.base_jql()
        if jql is None:
            jql = _require_base(base)
        if batch_id is not None and Batch.get_or_none(Batch.id == batch_id) is None:
            raise ContractError(f"batch {batch_id} does not exist", "batch_id")
        wanted = _params(jql, updated_since, _boards() if jql == base else None)
        # Locks in one order everywhere: the token's bound, then the query's. A
        # refresh of the base JQL takes the schedule's lock, which the scheduled
        # refreshes take too: theirs and an interface's are one open command.
        queue.hold_bound(token_id)
        dialect.commands.serialize(dialect.commands.REFRESH_SCHEDULE if jql == base
                                   else dialect.commands.SAME_REFRESH + json.dumps(wanted, sort_keys=True))
        open_one = open_same(REFRESH, wanted)
        if open_one is not None:
            return open_one, False
        queue.check_room(token_id)
        command = _insert(queue, wanted, batch_id, token_id)
    queue.notify()
    return command, True


def enqueue_base(queue: Queue,
                 plan: Callable[[str], str | Literal[False] | None]) -> Command | None:
    """The schedule's refresh of the base JQL, as ``plan(base_jql)`` decides (see
    :meth:`~hub.services.commands.queue.CommandService.enqueue_base_refresh`)."""
    with database.atomic():
        # On PostgreSQL writers do not wait for each other: what ``plan`` reads
        # holds at the insert only while no other scheduled refresh is planned.
        dialect.commands.serialize(dialect.commands.REFRESH_SCHEDULE)
        jql = queue.projects.base_jql()
        if jql is None:
            return None
        updated_since = plan(jql)
        if updated_since is False:
            return None
        command = _insert(queue, _params(jql, updated_since, _boards()), None)
    queue.notify()
    return command


def _require_base(base: str | None) -> str:
    if base is None:
        raise ContractError(
            "params.jql is required: there is no base JQL yet (no projects); "
            "add a project with 'hub project add' or send a jql",
            "params.jql",
        )
    return base


def _insert(queue: Queue, params: dict, batch_id: int | None, token_id: int | None = None) -> Command:
    return Command.create(type=REFRESH, params=params, status=QUEUED,
                          batch=batch_id, created_at=iso(queue.clock.now()), token_id=token_id)


def _params(jql: str, updated_since: str | None, boards: list[dict] | None = None) -> dict:
    params: dict[str, Any] = {"jql": jql}
    if updated_since is not None:
        params["updated_since"] = updated_since
    if boards:
        params["boards"] = boards
    return params


def _boards() -> list[dict]:
    """The projects' agile boards, ``{"id", "type"}`` each, by id (two projects may share one): a
    function of the projects, as the base JQL is, so a refresh of the base JQL asked again while
    one is open carries the same and is answered with it."""
    boards = {row.board_id: row.board_type for row in
              Project.select(Project.board_id, Project.board_type).where(Project.board_id.is_null(False))
              if row.board_id is not None}
    return [{"id": board_id, "type": boards[board_id]} for board_id in sorted(boards)]


def _is_full(command: Command, reporting: Reporting) -> bool:
    """A refresh of exactly the base JQL as it is now, with no ``updated_since``,
    is a full run: an incremental one loads only what changed, so what it did
    not load may still be inside the base JQL."""
    params = command.params or {}
    jql = params.get("jql")
    return (jql is not None and params.get("updated_since") is None
            and jql == reporting.projects.base_jql())


def _count(command: Command, issues: int, now: str) -> tuple[str, int]:
    """Count a page on the command's running run: the run's ``(started_at, issues_loaded)``."""
    counted = count_page(command.id, issues)
    if counted is None:
        # A command claimed by a hub that did not open runs at claim has none;
        # it gets one from its claim time.
        open_run(command.id, (command.params or {}).get("jql", ""), command.claimed_at or now)
        counted = count_page(command.id, issues)
        assert counted is not None, "the run just opened counts the page"
    return counted


def _finish_run(command: Command, history_at: str | None, reporting: Reporting) -> int | None:
    """Close a done refresh's run; the run's id if it owes the neighbour marking."""
    now = reporting.now
    closed = close_open_run(command.id, DONE, now, history_at=history_at)
    if closed is None:
        # Claimed by a hub that did not open runs at claim: it gets one,
        # from its claim time, with nothing loaded.
        SyncRun.create(command=command.id, query=(command.params or {}).get("jql", ""),
                       status=DONE, started_at=command.claimed_at or now,
                       finished_at=now, history_at=history_at, issues_loaded=0)
        return None
    run_id, issues_loaded = closed
    # Only a run that loaded issues can owe the marking: the base JQL (two
    # reads) is looked at only then.
    if issues_loaded >= 1 and _is_full(command, reporting):
        SyncRun.update(neighbors_due=1).where(SyncRun.id == run_id).execute()
        return run_id
    return None
