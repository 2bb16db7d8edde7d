"""How MCP servers and their tools are named to the model; no pydantic (the TUI's tool blocks use it)."""

from __future__ import annotations

import re

SERVER_NAME = re.compile(r"^[A-Za-z0-9_-]+$")
"""Server names become part of tool names (``mcp__<server>__<tool>``), which models restrict."""
TOOL_PREFIX = "mcp__"
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")
MAX_TOOL_NAME = 64
"""Providers accept tool names of at most 64 characters from ``[A-Za-z0-9_-]``."""


def tool_name(server: str, tool: str) -> str:
    """The name the model calls a server's tool by: ``mcp__<server>__<tool>``."""
    return (TOOL_PREFIX + server + "__" + _UNSAFE.sub("_", tool))[:MAX_TOOL_NAME]


def split_tool_name(name: str) -> tuple[str, str] | None:
    """``mcp__notes__echo`` -> ("notes", "echo"); None for a built-in tool's name."""
    if not name.startswith(TOOL_PREFIX):
        return None
    server, sep, tool = name[len(TOOL_PREFIX):].partition("__")
    return (server, tool) if sep and server and tool else None
