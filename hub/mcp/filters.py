"""The tools for the team's saved filters: JQL kept in the hub under a name (``/api/v1/filters``)."""

from __future__ import annotations

from typing import Annotated

from mcp.server.mcpserver.tools import Tool
from pydantic import Field

from hub.mcp.base import READ_ONLY, ToolContext, hub_client, tool
from hub.mcp.issues import INT64_MAX, issue_page
from hub.mcp.results import FilterList, IssuePage

TOOLS: list[Tool] = []
FilterId = Annotated[int, Field(ge=1, le=INT64_MAX, description="the saved filter's id (see list_filters)")]


@tool(TOOLS, annotations=READ_ONLY, description=(
    "The team's saved filters: JQL queries kept in the hub under a name, newest first, each with its "
    "`id`, `name`, `jql` and `owner` (the token that saved it). Use it to find the filter a person "
    "names (\"my open bugs\", \"the release board\"), then run_filter, or to reuse its JQL in "
    "search_issues(jql=...)."))
async def list_filters(
    ctx: ToolContext,
    limit: Annotated[int, Field(ge=1, le=100, description="filters per page")] = 50,
    cursor: Annotated[int | None, Field(ge=1, description="`next_cursor` of the previous page")] = None,
) -> FilterList:
    async with hub_client(ctx) as h:
        page = await h.get("/api/v1/filters", limit=limit, cursor=cursor)
    return FilterList(items=page["items"], next_cursor=page["next_cursor"])


@tool(TOOLS, annotations=READ_ONLY, description=(
    "Run a saved filter (see list_filters): the issues its JQL finds in the mirror now, as "
    "search_issues(jql=...) finds them, in the filter's ORDER BY; page with `cursor`. Returns `items`, "
    "`total` (on the first page) and `next_cursor`."))
async def run_filter(
    ctx: ToolContext, filter_id: FilterId,
    limit: Annotated[int, Field(ge=1, le=100, description="issues per page")] = 20,
    cursor: Annotated[int | None, Field(ge=1, description="`next_cursor` of the previous page")] = None,
) -> IssuePage:
    async with hub_client(ctx) as h:
        page = await h.get(f"/api/v1/filters/{filter_id}/issues", limit=limit, cursor=cursor)
    return issue_page(page)
