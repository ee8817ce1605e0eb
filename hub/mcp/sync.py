"""The tools about the mirror's freshness: how the agents and the queue stand, and asking for a refresh."""

from __future__ import annotations

import time
from typing import Annotated

import anyio
from mcp.server.mcpserver.tools import Tool
from pydantic import Field

from hub.mcp.base import ASKS, READ_ONLY, ToolContext, hub_client, tool
from hub.mcp.results import RefreshResult, SyncStatus
from hub.vocabulary import FINAL_STATUSES, REFRESH

# sync_status shows this many agents at most, each detail cut to this many
# characters: enough to tell whether the agents work, bounded however many
# agents the hub knows.
SYNC_STATUS_AGENTS = 20
SYNC_STATUS_DETAIL_CHARS = 200

TOOLS: list[Tool] = []


@tool(TOOLS, annotations=READ_ONLY, description=(
    "How fresh the mirror is: agents (how many, how many online, and a few of them), the last full and "
    "incremental refresh runs, and the command queue by type and status. Use it before trusting the "
    "mirror for recent changes."))
async def sync_status(ctx: ToolContext) -> SyncStatus:
    async with hub_client(ctx) as h:
        overview = await h.get("/api/v1/overview")
        # Online agents first, then the others, newest registered first: two
        # bounded pages whatever the number of agents.
        agents = (await h.get("/api/v1/agents", online="true", limit=SYNC_STATUS_AGENTS))["items"]
        if len(agents) < SYNC_STATUS_AGENTS:
            agents += (await h.get("/api/v1/agents", online="false",
                                   limit=SYNC_STATUS_AGENTS - len(agents)))["items"]
    return SyncStatus(agents=[_brief_agent(a) for a in agents[:SYNC_STATUS_AGENTS]],
                      agents_total=overview["agents"]["total"], agents_online=overview["agents"]["online"],
                      queue=overview["queue"], oldest_queued_at=overview["oldest_queued_at"],
                      oldest_queued_age_seconds=overview["oldest_queued_age_seconds"],
                      last_runs=overview["last_runs"], store=overview["store"])


@tool(TOOLS, annotations=ASKS, description=(
    "Ask the hub's agent to reload issues from Jira: those matching `jql`, or without it everything the "
    "base JQL covers (a full run). While a refresh of the same query is queued or running, that one is "
    "answered (`queued`: false) instead of a second. With `wait_seconds` it waits that long for the refresh "
    "to finish. Use it when the mirror may be stale for what the user asks about."))
async def request_refresh(
    ctx: ToolContext,
    jql: Annotated[str | None, Field(min_length=1, max_length=10_000, description="e.g. key = AURORA-12")] = None,
    wait_seconds: Annotated[int, Field(ge=0, le=600, description="how long to wait for it to finish")] = 0,
) -> RefreshResult:
    body: dict = {"type": REFRESH, "params": {"jql": jql}} if jql else {"type": REFRESH}
    deadline = time.monotonic() + wait_seconds
    async with hub_client(ctx) as h:
        command, queued = await h.post_new("/api/v1/commands", body)
        while command["status"] not in FINAL_STATUSES and time.monotonic() < deadline:
            await anyio.sleep(min(1.0, max(0.0, deadline - time.monotonic())))
            command = await h.get(f"/api/v1/commands/{command['id']}")
    return RefreshResult(command=command, queued=queued, finished=command["status"] in FINAL_STATUSES)


def _brief_agent(agent: dict) -> dict:
    """An agent bounded for an assistant: its detail and Jira's error cut, and each command it
    holds named by id, type and lease without its params (a check's params list 500 keys)."""
    detail = agent.get("detail")
    if isinstance(detail, str) and len(detail) > SYNC_STATUS_DETAIL_CHARS:
        agent = {**agent, "detail": _cut(detail)}
    if "holds" in agent:
        agent = {**agent, "holds": [{name: held.get(name) for name in ("id", "type", "claimed_at", "lease_until")}
                                    for held in agent["holds"]]}
    jira = agent.get("jira")
    if isinstance(jira, dict) and isinstance(jira.get("error"), str) and len(jira["error"]) > SYNC_STATUS_DETAIL_CHARS:
        agent = {**agent, "jira": {**jira, "error": _cut(jira["error"])}}
    return agent


def _cut(text: str) -> str:
    return text[:SYNC_STATUS_DETAIL_CHARS - 1] + "…"
