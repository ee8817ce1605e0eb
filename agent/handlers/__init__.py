"""The command kinds this agent runs: one module per kind, and the registry the runner looks a
claimed command's kind up in (docs/agent.md, adding a command kind).

A handler is a function of a :class:`~agent.handlers.context.Context` and the claimed command; it
reports the command ``done`` itself, and what it raises fails the command.
"""

from __future__ import annotations

from agent.handlers import check_issues, fetch_attachment, refresh, write
from agent.handlers.context import Context, Handler

__all__ = ["HANDLERS", "Context", "Handler", "kinds", "lookup", "not_run"]

# Kind name (the protocol's command ``type``) -> its handler.
HANDLERS: dict[str, Handler] = {
    refresh.KIND: refresh.handle,
    fetch_attachment.KIND: fetch_attachment.handle,
    check_issues.KIND: check_issues.handle,
    write.KIND: write.handle,
}


def kinds() -> list[str]:
    """The kinds this agent runs: what a claim's ``types`` names, should the agent narrow its claims
    (it sends none today, so the hub hands it every kind its protocol version knows)."""
    return list(HANDLERS)


def lookup(kind: str) -> Handler | None:
    """The handler of ``kind``; None for a kind this agent does not run (see :func:`not_run`)."""
    return HANDLERS.get(kind)


def not_run(kind: str) -> str:
    """What a command of a kind this agent has no handler for is failed with."""
    return f"this agent does not run {kind!r} commands"
