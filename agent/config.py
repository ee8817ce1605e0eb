"""The agent's settings: command-line flags, each with an environment variable behind it."""

from __future__ import annotations

import argparse
import os
import socket
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


class ConfigError(ValueError):
    """A setting is missing or contradicts another; the message says which."""


@dataclass(frozen=True)
class AgentConfig:
    """Everything ``hub-agent run`` needs, already checked."""

    hub_url: str
    hub_token: str
    jira_url: str
    jira_token: str | None = None
    jira_user: str | None = None
    jira_password: str | None = None
    agent_id: str = "agent"
    concurrency: int = 1
    planned_start_field: str = "Planned start"
    planned_end_field: str = "Planned end"
    claim_wait: int = 30
    page_size: int = 100


# flag -> (environment variable, default); the flag wins over the variable.
ENVIRONMENT = {
    "hub": ("HUB_URL", None),
    "token": ("HUB_AGENT_TOKEN", None),
    "jira": ("JIRA_URL", None),
    "jira_token": ("JIRA_TOKEN", None),
    "jira_user": ("JIRA_USER", None),
    "jira_password": ("JIRA_PASSWORD", None),
    "agent_id": ("HUB_AGENT_ID", None),
    "concurrency": ("HUB_AGENT_CONCURRENCY", "1"),
    "planned_start_field": ("JIRA_PLANNED_START_FIELD", "Planned start"),
    "planned_end_field": ("JIRA_PLANNED_END_FIELD", "Planned end"),
}


def add_run_arguments(parser: argparse.ArgumentParser) -> None:
    """The flags of ``hub-agent run``; defaults are left None so the environment can fill them."""
    parser.add_argument("--hub", help="the hub's base URL (HUB_URL)")
    parser.add_argument("--token", help="the hub token of role agent (HUB_AGENT_TOKEN)")
    parser.add_argument("--jira", help="Jira's base URL (JIRA_URL)")
    parser.add_argument("--jira-token", help="a Jira personal access token (JIRA_TOKEN)")
    parser.add_argument("--jira-user", help="a Jira user for basic auth (JIRA_USER)")
    parser.add_argument("--jira-password", help="that user's password (JIRA_PASSWORD)")
    parser.add_argument("--agent-id", help="the agent's id at the hub (HUB_AGENT_ID; default: the host name)")
    parser.add_argument("--concurrency", help="commands run at once (HUB_AGENT_CONCURRENCY; default 1)")
    parser.add_argument("--planned-start-field", help='Jira field name (default "Planned start")')
    parser.add_argument("--planned-end-field", help='Jira field name (default "Planned end")')


def from_arguments(args: argparse.Namespace, environ: Mapping[str, str] | None = None) -> AgentConfig:
    """Merge flags over the environment and check the result; ConfigError says what is wrong."""
    environ = os.environ if environ is None else environ
    values: dict[str, Any] = {}
    for name, (variable, default) in ENVIRONMENT.items():
        value = getattr(args, name, None)
        values[name] = value if value not in (None, "") else (environ.get(variable) or default)
    missing = [f"--{n.replace('_', '-')} ({ENVIRONMENT[n][0]})" for n in ("hub", "token", "jira") if not values[n]]
    if missing:
        raise ConfigError("missing " + ", ".join(missing))
    if not values["jira_token"] and not (values["jira_user"] and values["jira_password"]):
        raise ConfigError("Jira credentials: give --jira-token (JIRA_TOKEN) or --jira-user and --jira-password")
    try:
        concurrency = int(values["concurrency"])
    except ValueError:
        raise ConfigError(f"--concurrency must be a whole number, not {values['concurrency']!r}") from None
    if not 1 <= concurrency <= 100:  # the hub hands out at most 100 commands per claim
        raise ConfigError("--concurrency must be between 1 and 100")
    return AgentConfig(
        hub_url=values["hub"].rstrip("/"), hub_token=values["token"], jira_url=values["jira"].rstrip("/"),
        jira_token=values["jira_token"], jira_user=values["jira_user"], jira_password=values["jira_password"],
        agent_id=values["agent_id"] or socket.gethostname(), concurrency=concurrency,
        planned_start_field=values["planned_start_field"], planned_end_field=values["planned_end_field"],
    )
