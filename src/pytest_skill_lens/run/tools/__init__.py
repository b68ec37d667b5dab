"""The tools an agent is offered: mock tools, the built-in workspace, bundle, skill and script
tools, and the harness side of the MCP bridge (its spec and calls files, which the bridge
process in ``mcp_bridge/`` shares)."""
