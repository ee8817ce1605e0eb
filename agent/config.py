"""The agent's settings: command-line flags, each with an environment variable behind it."""

from __future__ import annotations

import argparse
import os
import socket
import stat
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import orjson

# The operations of the ``write`` kind (protocol v19), which ``--writes`` names.
WRITE_OPS = ("comment", "edit_comment", "transition", "edit", "log_work", "create_issue", "link",
             "remove_link", "attach")


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
    # The write operations this agent applies (--writes); empty: read only.
    writes: frozenset[str] = frozenset(WRITE_OPS)
    # Every issue written must match ``key = K AND (writes_jql)`` (--writes-jql); None: any issue.
    writes_jql: str | None = None
    # Hub token name -> that user's Jira personal access token (--jira-user-tokens).
    jira_user_tokens: dict[str, str] = field(default_factory=dict, repr=False)
    # A comment or work log made with the agent's own credentials names who asked (--no-attribution).
    attribution: bool = True


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
    "writes": ("HUB_AGENT_WRITES", "all"),
    "writes_jql": ("HUB_AGENT_WRITES_JQL", None),
    "jira_user_tokens": ("HUB_AGENT_JIRA_USER_TOKENS", None),
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
    parser.add_argument("--writes", help="the write operations applied, comma-separated, or all or none"
                                         f" (HUB_AGENT_WRITES; default all: {','.join(WRITE_OPS)})")
    parser.add_argument("--writes-jql", help="every issue written must match this JQL (HUB_AGENT_WRITES_JQL)")
    parser.add_argument("--jira-user-tokens", help="a JSON file {hub token name: Jira PAT}, mode 0600 or 0400:"
                                                   " writes are made as their requester (HUB_AGENT_JIRA_USER_TOKENS)")
    parser.add_argument("--no-attribution", action="store_true", default=None,
                        help="no '— NAME, via sdlc-hub' line under comments and work logs made with the"
                             " agent's own credentials (HUB_AGENT_NO_ATTRIBUTION=1)")


def parse_writes(value: str) -> frozenset[str]:
    """``--writes``: ``all``, ``none`` or operation names, comma-separated; ConfigError names a wrong one."""
    words = [w.strip() for w in value.split(",") if w.strip()]
    if words == ["all"]:
        return frozenset(WRITE_OPS)
    if words == ["none"] or not words:
        return frozenset()
    unknown = [w for w in words if w not in WRITE_OPS]
    if unknown:
        raise ConfigError(f"--writes: unknown operation {unknown[0]!r}; give all, none or some of "
                          + ", ".join(WRITE_OPS))
    return frozenset(words)


def read_user_tokens(path: str) -> dict[str, str]:
    """``--jira-user-tokens``: the file's ``{hub token name: Jira PAT}``, refused unless only the
    agent's user may read it (mode 0600 or 0400, owned by that user): it holds other people's keys."""
    try:
        info = os.stat(path)
    except OSError as exc:
        raise ConfigError(f"--jira-user-tokens: cannot read {path}: {exc.strerror}") from None
    if info.st_uid != os.geteuid():
        raise ConfigError(f"--jira-user-tokens: {path} must be owned by the agent's user (uid {os.geteuid()})")
    mode = stat.S_IMODE(info.st_mode)
    if mode not in (0o600, 0o400):
        raise ConfigError(f"--jira-user-tokens: {path} is mode {mode:04o}; it holds personal access tokens,"
                          f" so it must be 0600 or 0400 (chmod 600 {path})")
    try:
        with open(path, "rb") as stream:
            tokens = orjson.loads(stream.read())
    except (OSError, orjson.JSONDecodeError) as exc:
        raise ConfigError(f"--jira-user-tokens: {path} is not JSON: {exc}") from None
    if not isinstance(tokens, dict) or not all(isinstance(k, str) and isinstance(v, str) and v
                                               for k, v in tokens.items()):
        raise ConfigError(f"--jira-user-tokens: {path} must hold an object of hub token names to Jira tokens")
    return tokens


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
    no_attribution = getattr(args, "no_attribution", None)
    if no_attribution is None:
        no_attribution = environ.get("HUB_AGENT_NO_ATTRIBUTION", "").strip().lower() in ("1", "true", "yes")
    return AgentConfig(
        hub_url=values["hub"].rstrip("/"), hub_token=values["token"], jira_url=values["jira"].rstrip("/"),
        jira_token=values["jira_token"], jira_user=values["jira_user"], jira_password=values["jira_password"],
        agent_id=values["agent_id"] or socket.gethostname(), concurrency=concurrency,
        planned_start_field=values["planned_start_field"], planned_end_field=values["planned_end_field"],
        writes=parse_writes(values["writes"]), writes_jql=(values["writes_jql"] or "").strip() or None,
        jira_user_tokens=read_user_tokens(values["jira_user_tokens"]) if values["jira_user_tokens"] else {},
        attribution=not no_attribution,
    )
