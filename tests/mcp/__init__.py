"""The MCP server's tools."""
