"""What a command kind's handler may use of the agent that runs it, and the shape of a handler.

The runner (agent/runner.py) is the one context today; writing the interface out keeps handlers off
the runner's loop, claims, heartbeats and slots, which are the runner's alone.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from agent import mapping
from agent.config import AgentConfig
from agent.hub_client import Command, HubClient
from agent.jira_client import JiraClient


class Context(Protocol):
    """What a handler may use while it runs one command."""

    @property
    def config(self) -> AgentConfig:
        """The agent's settings (page size, the planned start and end fields' names, ...)."""

    @property
    def hub(self) -> HubClient:
        """The hub: state pages, a file's upload, and the command's ``done``."""

    @property
    def jira(self) -> JiraClient:
        """Jira, paced and retried; shared by the commands running at once."""

    @property
    def time_zone(self) -> str | None:
        """The Jira user's time zone, learnt at the start (None: UTC), which JQL's dates are read in."""

    # Jira's custom fields as last read from its field list; a handler that reads the list anew keeps
    # what it found here.
    custom: mapping.CustomFields

    def jira_for(self, requested_by: str) -> JiraClient | None:
        """Jira as the hub token ``requested_by`` (its user's personal access token, from
        ``--jira-user-tokens``); None when the agent holds no token for it."""

    def check(self, command: Command) -> None:
        """Between pages: raise if an interface cancelled the command or the agent is stopping."""

    def say(self, command: Command, detail: str) -> None:
        """The command's progress, told in the next heartbeats' detail (``project = A: page 3 of 7``)."""


# A command kind's work: run ``command`` to its end and report ``done`` to the hub, or raise. What it
# raises fails the command (agent/runner.py, ``_execute``): JiraError, HubError, BadCommand and GaveUp
# with their message; anything else as an agent error.
Handler = Callable[[Context, Command], None]
