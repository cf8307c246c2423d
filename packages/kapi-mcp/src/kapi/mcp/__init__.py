"""kapi's MCP server: the tools agents call, each a thin door into the host function the
CLI verb uses (``kapi mcp``)."""
