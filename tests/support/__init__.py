"""Helpers the tests share, one module per theme, each name also importable from here:

- ``protocol``: a hub's agents and interfaces in a few words, in process;
- ``processes``: the ``hub`` console script and its processes, real HTTP clients;
- ``waiting``: waiting on a condition instead of sleeping;
- ``samples``: data the tests send;
- ``chromium``: where Chromium is;
- ``hubs`` (the in-process hub and its clocks), ``engine_rows``, ``engines``, ``pg_copies``, ``s3``,
  ``nginx``, ``nodes``, ``cluster``, ``browser``, ``dbfactory``, ``mirror_load``, ``search_rows``,
  ``jql_reference``, ``mcp_hub``, ``surfaces``: one kind of helper or server each.

Test modules import from here, never from each other.
"""

from __future__ import annotations

from tests.support.chromium import BROWSER_ARGS, chromium
from tests.support.processes import (
    HUB,
    NO_SCHEDULED_REFRESH,
    Client,
    added_tokens,
    call,
    created_hub,
    full_run,
    get_json,
    looping_agent,
    neighbour_flags,
    prepared_hub,
    quick_runner,
    rest_of_output,
    run_hub,
    run_script,
    scripted_agent,
    seeded_hub,
    serving,
    start,
    stop,
    wait_for_flags,
    wait_for_line,
)
from tests.support.protocol import (
    BASE,
    PDF,
    attachment,
    claim,
    comment,
    db_records,
    db_rows,
    enqueue,
    fetch,
    fetched,
    hub_config,
    issue,
    jira_id,
    listed,
    load,
    mirrored,
    report,
    upload,
    with_projects,
)
from tests.support.samples import JIRA_TIME, MCP_FILES, PNG, POSTS, TEXT_FILE, garbage, mcp_mirror, rich
from tests.support.waiting import imported_modules, next_second, wait_until, waiting_polls

__all__ = [
    "BASE",
    "BROWSER_ARGS",
    "HUB",
    "JIRA_TIME",
    "MCP_FILES",
    "NO_SCHEDULED_REFRESH",
    "PDF",
    "PNG",
    "POSTS",
    "TEXT_FILE",
    "Client",
    "added_tokens",
    "attachment",
    "call",
    "chromium",
    "claim",
    "comment",
    "created_hub",
    "db_records",
    "db_rows",
    "enqueue",
    "fetch",
    "fetched",
    "full_run",
    "garbage",
    "get_json",
    "hub_config",
    "imported_modules",
    "issue",
    "jira_id",
    "listed",
    "load",
    "looping_agent",
    "mcp_mirror",
    "mirrored",
    "neighbour_flags",
    "next_second",
    "prepared_hub",
    "quick_runner",
    "report",
    "rest_of_output",
    "rich",
    "run_hub",
    "run_script",
    "scripted_agent",
    "seeded_hub",
    "serving",
    "start",
    "stop",
    "upload",
    "wait_for_flags",
    "wait_for_line",
    "wait_until",
    "waiting_polls",
    "with_projects",
]
