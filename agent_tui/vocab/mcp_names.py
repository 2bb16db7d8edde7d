"""How MCP servers and their tools are named to the model; no pydantic (the TUI's tool blocks use it)."""

from __future__ import annotations

import hashlib
import re

SERVER_NAME = re.compile(r"^[A-Za-z0-9_-]+$")
"""Server names become part of tool names (``mcp__<server>__<tool>``), which models restrict."""
TOOL_PREFIX = "mcp__"
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")
MAX_TOOL_NAME = 64
"""Providers accept tool names of at most 64 characters from ``[A-Za-z0-9_-]``."""


_DIGEST = 8
"""Hex digits of the (server, tool) hash that keeps a shortened or rewritten name unique."""
_SERVER_KEEP = 20
"""At most this much of a long server name stays when a name must be shortened; the tool gets the rest."""


def tool_name(server: str, tool: str) -> str:
    """The name the model calls a server's tool by: ``mcp__<server>__<tool>``.

    A name that is too long for providers, or a tool name that had to be rewritten
    (``a.b`` -> ``a_b``, which a tool really named ``a_b`` would collide with), is cut
    and ends with a hash of the real server and tool names instead: deterministic, so
    the model's next step calls the same name, and unique, so no tool shadows another.
    """
    safe = _UNSAFE.sub("_", tool)
    plain = TOOL_PREFIX + server + "__" + safe
    if safe == tool and len(plain) <= MAX_TOOL_NAME:
        return plain
    digest = hashlib.sha256(f"{server}\0{tool}".encode()).hexdigest()[:_DIGEST]
    room = MAX_TOOL_NAME - len(TOOL_PREFIX) - len("__") - len("_") - _DIGEST
    head = server[: max(_SERVER_KEEP, room - max(len(safe), len("tool")))].rstrip("_") or "server"
    body = safe[: room - len(head)].strip("_") or "tool"
    return f"{TOOL_PREFIX}{head}__{body}_{digest}"


def split_tool_name(name: str) -> tuple[str, str] | None:
    """``mcp__notes__echo`` -> ("notes", "echo"); None for a built-in tool's name."""
    if not name.startswith(TOOL_PREFIX):
        return None
    server, sep, tool = name[len(TOOL_PREFIX) :].partition("__")
    return (server, tool) if sep and server and tool else None
