"""``check_issues``: ask Jira whether issues a full run did not load still exist.

The hub alone enqueues it: the neighbour marking after a full run (see
:meth:`~hub.services.commands.sync_runs.SyncRunService.mark_neighbours`) knows what the
run did not load, and :func:`enqueue_checks` queues those keys, CHECK_KEYS to a command,
when the agent that ran the refresh speaks v16 or later (:attr:`Kind.since`). Its agent
reports what Jira returned as state pages of ``neighbors`` only, then ``done`` with
``{checked, missing}``: the keys it asked for that Jira did not return are marked gone.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hub import dialect
from hub.clock import iso
from hub.db import database
from hub.errors import ContractError
from hub.models import Command, Issue, SyncRun
from hub.services.commands.kinds.registry import Kind, Queue, Reporting
from hub.services.mirror.loading import RunContext
from hub.vocabulary import CHECK_ISSUES, GONE_REASON, ISSUE_KEY_PATTERN, OPEN_STATUSES, QUEUED

if TYPE_CHECKING:  # for the annotation only: the clock is handed in
    from hub.clock import Clock

log = logging.getLogger(__name__)

# Keys a check_issues names at most: the agent reads them 100 to a search.
CHECK_KEYS = 500
# The keys that open check_issues commands name already: not asked for twice.
_OPEN = ", ".join(repr(s) for s in OPEN_STATUSES)
# The largest integer SQLite stores (hub/api/schemas.py's INT64_MAX).
_INT64_MAX = 2**63 - 1
_ISSUE_KEY = re.compile(ISSUE_KEY_PATTERN)
# An issue key (hub/api/schemas.py's ISSUE_KEY).
_KEY_SCHEMA = {"type": "string", "maxLength": 255, "pattern": ISSUE_KEY_PATTERN}


@dataclass(frozen=True)
class CheckIssues(Kind):
    """A check of issues the mirror holds that a full run did not load."""

    def retry(self, queue: Queue, command: Command, token_id: int | None) -> tuple[Command, bool]:
        """Queued again as it was, within the token's bound: only the hub knows what to check."""
        with database.atomic():
            queue.hold_bound(token_id)
            queue.check_room(token_id)
            again = Command.create(type=CHECK_ISSUES, params=dict(command.params or {}), status=QUEUED,
                                   batch=command.batch_id, created_at=iso(queue.clock.now()),
                                   token_id=token_id)
        queue.notify()
        return again, True

    def page(self, reporting: Reporting, command: Command, issues: list) -> tuple[RunContext, int]:
        """As neighbours outside any full run, so a known issue keeps its flag and one new
        to the mirror is a neighbour; no run counts them."""
        if issues:
            raise ContractError("a check_issues reports the issues Jira returned as neighbors, "
                                "never as issues", "issues")
        now = reporting.now
        return RunContext(full=False, started_at=command.claimed_at or now, now=now), 0

    def done(self, reporting: Reporting, command: Command, result: Any) -> None:
        mark_gone(command, result, reporting.now)


KIND = CheckIssues(
    CHECK_ISSUES,
    params={"keys": {"type": "array", "maxItems": CHECK_KEYS, "items": _KEY_SCHEMA},
            "run_id": {"type": "integer", "minimum": 1, "maximum": _INT64_MAX}},
    required=("keys",),
    since=16,
    refusal=("type: check_issues commands are enqueued by the hub itself after a full run; "
             "enqueue a full refresh instead"),
    # The issues asked for that Jira returned, and the keys it did not return under that
    # key (at most the CHECK_KEYS a check names; the hub marks those it asked for gone).
    result_schema={
        "type": "object",
        "properties": {"checked": {"type": "integer", "minimum": 0, "maximum": _INT64_MAX},
                       "missing": {"type": "array", "maxItems": CHECK_KEYS, "items": _KEY_SCHEMA}},
        "required": ["checked", "missing"],
    },
    result_words="a check_issues' {checked, missing}",
    pages=True,
)


def enqueue_checks(run: SyncRun, clock: Clock) -> int:
    """Queue ``check_issues`` for the issues a full run did not load: last fetched before it
    started, not gone already, not named by an open check; keys sorted, CHECK_KEYS to a
    command. Records their number on the run; returns it. Call inside the marking's
    transaction, the run locked."""
    keys = [row[0] for row in database.execute_sql(
        "SELECT key FROM issue WHERE fetched_at < ? AND gone_at IS NULL "
        f"AND key NOT IN ({dialect.commands.checking_keys(_OPEN)}) ORDER BY key", (run.started_at,))]
    now = iso(clock.now())
    batches = [keys[start:start + CHECK_KEYS] for start in range(0, len(keys), CHECK_KEYS)]
    for batch in batches:
        Command.create(type=CHECK_ISSUES, params={"keys": batch, "run_id": run.id}, status=QUEUED,
                       created_at=now)
    SyncRun.update(checks_enqueued=len(batches)).where(SyncRun.id == run.id).execute()
    return len(batches)


def mark_gone(command: Command, result, now: str) -> int:
    """``done`` of a check_issues: the keys it names ``missing`` are gone, each only if
    the command asked for it, the mirror still holds an issue under that key (a moved
    one, re-keyed by the check's own pages, has left it for an alias), it is not gone
    already, and no page has loaded it since the command was claimed. Returns how many."""
    checked = KIND.recorded(result)
    if not isinstance(checked, dict):
        raise ContractError("a check_issues' result is {checked, missing}", "result")
    count = checked.get("checked")
    if not isinstance(count, int) or isinstance(count, bool) or count < 0:
        raise ContractError("result.checked must be the number of keys checked", "result.checked")
    missing = checked.get("missing")
    if not isinstance(missing, list):
        raise ContractError("result.missing must be the list of keys Jira did not return",
                            "result.missing")
    for n, key in enumerate(missing):
        if not isinstance(key, str) or not _ISSUE_KEY.match(key):
            raise ContractError(f"result.missing.{n} must be an issue key like AURORA-12",
                                f"result.missing.{n}")
    asked = set((command.params or {}).get("keys") or ())
    wanted = sorted({key for key in missing if key in asked})
    if not wanted:
        return 0
    since = command.claimed_at or now
    # Locked in key order first, as a page writes the known issues it loads (see
    # SyncRunService.mark_neighbours): the planner may read a short list by a scan.
    missing_rows = dialect.commands.locked(
        Issue.select(Issue.key)
        .where(Issue.key.in_(wanted), Issue.gone_at.is_null(), Issue.fetched_at < since)
        .order_by(Issue.key))
    gone = Issue.update(gone_at=now, gone_reason=GONE_REASON).where(Issue.key.in_(missing_rows)).execute()
    if gone:
        log.info("command %d: %d issues not found in Jira marked gone", command.id, gone)
    return gone
