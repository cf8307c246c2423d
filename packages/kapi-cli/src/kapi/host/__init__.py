"""kapi's host: the functions every door (the CLI, the MCP server, hooks) calls.

It resolves where documents live, who is sending, and builds the core's
services with real adapters. Each capability is one function here; the click
commands and the MCP tools are thin wrappers around them.
"""
