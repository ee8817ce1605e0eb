"""``hub mcp``: the hub as an MCP server for LLM assistants, over the hub's HTTP API."""
