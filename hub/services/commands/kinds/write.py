"""``write``: one write to Jira an interface asked for, applied by an agent (protocol v19).

The hub alone enqueues it, with the write's row (:mod:`hub.services.writes`): interfaces ask
for a write through its own routes (``POST /api/v1/issues/{key}/comments``, …), never through
``POST /api/v1/commands``. Its params carry everything the agent needs: the write's id (its
marker in Jira), the operation, the issue, the operation's params as Jira is to take them
(bodies already wiki markup), what its maker saw (``base``), who asked, and for an attachment
the file to send. Commands of one issue share a serial key (``issue:<KEY>``), so an issue's
writes reach Jira one at a time in the order they were made. A lease run out re-queues a write
however often (:attr:`Kind.bounded` False): a Jira away is waited out, never a reason to fail.

Its agent applies it, sends the issue's fresh state as a state page (loaded as an incremental
run's page: the mirror changes only by what Jira now holds), then reports ``done`` with the
outcome: ``{outcome: done|failed|conflict, result, error, conflict}``, which ``done`` records
on the write's row.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hub.errors import Conflict, ContractError
from hub.models import Command, Write
from hub.services.commands.kinds.registry import Kind, Queue, Reporting
from hub.services.mirror.loading import RunContext
from hub.vocabulary import PENDING, WRITE, WRITE_OPS, WRITE_OUTCOMES

# The largest integer SQLite stores (hub/api/schemas.py's INT64_MAX).
_INT64_MAX = 2**63 - 1
# What a done may say, at most: Jira's words on a refusal are kept, not a novel.
_ERROR_CHARS = 10_000


def serial_key(key: str | None) -> str | None:
    """The serial key of a write to the issue ``key`` (None: a new issue, in no order)."""
    return None if key is None else f"issue:{key}"


@dataclass(frozen=True)
class WriteKind(Kind):
    """A write to Jira, enqueued by the hub with its row in ``write``."""

    def retry(self, queue: Queue, command: Command, token_id: int | None) -> tuple[Command, bool]:
        """Refused: a write is retried as a write (``POST /api/v1/writes/{id}/retry``), which
        queues a command of its own and keeps the write's one row."""
        raise Conflict(f"command {command.id} applies write {(command.params or {}).get('write_id')}: "
                       "retry the write (POST /api/v1/writes/{id}/retry), not its command")

    def page(self, reporting: Reporting, command: Command, issues: list) -> tuple[RunContext, int]:
        """The written issue's fresh state, as an incremental run's page: a known issue keeps
        its neighbour flag, a new one (a created issue) is a neighbour until a full run."""
        now = reporting.now
        return RunContext(full=False, started_at=command.claimed_at or now, now=now), 0

    def done(self, reporting: Reporting, command: Command, result: Any) -> None:
        """Record the write's outcome on its row: done (what Jira made), failed (Jira's words)
        or conflict (each field's base and Jira's value)."""
        if not isinstance(result, dict) or result.get("outcome") not in WRITE_OUTCOMES:
            raise ContractError(f"a write's result is {{outcome, result, error, conflict}}: outcome one of "
                                f"{', '.join(WRITE_OUTCOMES)}", "result.outcome")
        outcome = result["outcome"]
        made, error, conflict = result.get("result"), result.get("error"), result.get("conflict")
        if made is not None and not isinstance(made, dict):
            raise ContractError("result.result must be an object: what Jira made", "result.result")
        if error is not None and not isinstance(error, str):
            raise ContractError("result.error must be Jira's words, a string", "result.error")
        if conflict is not None and not isinstance(conflict, dict):
            raise ContractError("result.conflict must be an object: each field's base and Jira's value",
                                "result.conflict")
        if outcome == "failed" and not error:
            raise ContractError("a failed write's result says why: result.error", "result.error")
        if outcome == "conflict" and not conflict:
            raise ContractError("a write in conflict names its fields: result.conflict", "result.conflict")
        write_id = (command.params or {}).get("write_id")
        (Write.update(status=outcome, result=made, error=error[:_ERROR_CHARS] if error else None,
                      conflict=conflict, updated_at=reporting.now)
         .where(Write.id == write_id, Write.command_id == command.id, Write.status == PENDING).execute())


# The params of a write's command: the hub builds them (docs/agent-protocol.md, the write kind).
_PARAMS: dict[str, dict] = {
    "write_id": {"type": "integer", "minimum": 1, "maximum": _INT64_MAX},
    "op": {"type": "string", "enum": list(WRITE_OPS)},
    "key": {"type": ["string", "null"]},
    "project": {"type": ["string", "null"]},
    "params": {"type": "object"},
    "base": {"type": ["object", "null"]},
    "requested_by": {"type": "string"},
    "created_at": {"type": "string"},
    "file": {"type": ["object", "null"]},
}

KIND = WriteKind(
    WRITE,
    params=_PARAMS,
    required=("write_id", "op", "params", "requested_by", "created_at"),
    since=19,
    refusal=("type: write commands are enqueued by the hub itself, one for each write an interface asks for: "
             "POST /api/v1/issues/{key}/comments, /transitions, /worklogs, /links, /attachments, "
             "PATCH /api/v1/issues/{key} or POST /api/v1/issues (docs/writes.md)"),
    result_schema={
        "type": "object",
        "properties": {
            "outcome": {"type": "string", "enum": list(WRITE_OUTCOMES)},
            "result": {"type": ["object", "null"]},
            "error": {"type": ["string", "null"], "maxLength": _ERROR_CHARS},
            "conflict": {"type": ["object", "null"]},
        },
        "required": ["outcome"],
    },
    result_words="a write's {outcome, result?, error?, conflict?}",
    pages=True,
    bounded=False,
)


def command_params(write: Write, file: dict | None) -> dict:
    """The params of the command that applies ``write`` (the write's row, saved already)."""
    return {"write_id": write.id, "op": write.op, "key": write.key, "project": write.project,
            "params": write.params, "base": write.base, "requested_by": write.requested_by,
            "created_at": write.created_at, "file": file}
