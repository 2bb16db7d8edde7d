"""``agent-tui mcp serve``: agent-tui as an MCP server, so other agents and editors can drive it.

``session_tools`` is what a caller can do to a session (start one with a prompt, send more,
wait for the answer, read its log, interrupt it, list them), through ``core.api`` only;
``server`` puts those operations on the SDK's ``MCPServer`` over stdio.
"""
