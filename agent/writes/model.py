"""A write as the hub's ``write`` command carries it, what applying it needs, and its outcome."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import UTC, datetime

from agent.config import WRITE_OPS
from agent.hub_client import Command, HubClient
from agent.jira_client import JiraClient
from agent.jira_writes import MARKER, JiraWrites
from agent.queries import BadCommand

# The longest error a write's done carries (the hub refuses a longer one).
MAX_ERROR_CHARS = 10_000
# The line a comment or work log made with the agent's own credentials ends with.
ATTRIBUTION = "— {name}, via sdlc-hub"


@dataclass(frozen=True)
class Write:
    """The command's params (docs/agent-protocol.md, the command kind ``write``)."""

    id: int
    op: str
    key: str | None
    project: str | None
    params: dict
    base: dict | None
    requested_by: str
    created_at: datetime
    file: dict | None = None

    @classmethod
    def from_params(cls, params: dict) -> Write:
        """The write of a command's params; BadCommand says what is missing or wrong."""
        op = params.get("op")
        if op not in WRITE_OPS:
            raise BadCommand(f"params.op must be one of {', '.join(WRITE_OPS)}, got {op!r}")
        write_id = params.get("write_id")
        if not isinstance(write_id, int) or isinstance(write_id, bool) or write_id < 1:
            raise BadCommand(f"params.write_id must be a positive whole number, got {write_id!r}")
        key = params.get("key")
        if op != "create_issue" and not (isinstance(key, str) and key):
            raise BadCommand(f"a {op} write needs params.key")
        inner = params.get("params")
        if not isinstance(inner, dict):
            raise BadCommand("params.params must be an object")
        try:
            created = datetime.fromisoformat(str(params.get("created_at")))
        except ValueError:
            raise BadCommand(f"params.created_at must be a time, got {params.get('created_at')!r}") from None
        if created.tzinfo is None:
            created = created.replace(tzinfo=UTC)
        base = params.get("base")
        return cls(id=write_id, op=op, key=key if isinstance(key, str) else None,
                   project=params.get("project") or inner.get("project"), params=inner,
                   base=base if isinstance(base, dict) else None,
                   requested_by=str(params.get("requested_by") or ""), created_at=created,
                   file=params.get("file") if isinstance(params.get("file"), dict) else None)

    @property
    def marker(self) -> dict:
        """The marker's value: ``{"write": <write id>}``."""
        return {"write": self.id}

    @property
    def property(self) -> dict:
        """The marker as an entity property of a comment's or an issue's create body."""
        return {"key": MARKER, "value": self.marker}

    def minutes_ago(self) -> int:
        """Whole minutes since a minute before the write was made: JQL's relative ``created >= -Nm``
        reads the same in every user's time zone, where an absolute time is read in the zone of the
        user who searches (the requester's, when their token makes the write)."""
        return max(1, math.ceil((datetime.now(UTC) - self.created_at).total_seconds() / 60) + 1)


def marked(properties: object, write: Write) -> bool:
    """Whether an entity's properties (Jira's list of ``{key, value}``, or a search's ``{key: value}``)
    hold this write's marker."""
    if isinstance(properties, dict):
        value = properties.get(MARKER)
    elif isinstance(properties, list):
        value = next((p.get("value") for p in properties if isinstance(p, dict) and p.get("key") == MARKER), None)
    else:
        value = None
    return isinstance(value, dict) and value.get("write") == write.id


@dataclass
class Outcome:
    """What a write came to: ``done`` with what Jira made, ``failed`` with Jira's words, or
    ``conflict`` per field; ``key`` is the issue whose fresh state goes to the hub."""

    outcome: str
    result: dict | None = None
    error: str | None = None
    conflict: dict | None = None
    key: str | None = None

    def report(self) -> dict:
        """The done's ``result``; the error cut to what the hub keeps (Jira's words can run long)."""
        error = self.error
        if error is not None and len(error) > MAX_ERROR_CHARS:
            error = error[:MAX_ERROR_CHARS - 1] + "…"
        return {"outcome": self.outcome, "result": self.result, "error": error, "conflict": self.conflict}


@dataclass
class Session:
    """One write being applied: the write, the Jira client it is made with, and what it learns."""

    write: Write
    jira: JiraClient
    own: bool  # made with the agent's own credentials (not the requester's token)
    described: dict[str, dict]  # Jira's fields by id, from /field
    hub: HubClient
    command: Command
    attribution: bool = True
    learnt: dict = field(default_factory=dict)  # e.g. the transition chosen, kept across a retry

    @property
    def requests(self) -> JiraWrites:
        return JiraWrites(self.jira)

    def signed(self, body: str | None) -> str | None:
        """A comment's or work log's text with the attribution line, when the agent's own credentials
        make it (the requester's token makes it in their name, which says it already)."""
        if not (self.own and self.attribution and self.write.requested_by):
            return body
        line = ATTRIBUTION.format(name=self.write.requested_by)
        return f"{body}\n\n{line}" if body else line
