"""A server's tool listing: every page of it, and which tools agent-tui offers (a notice for each it does not)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from agent_tui.vocab.mcp_names import tool_name

LIST_PAGES = 100
"""At most this many pages of a listing (a server that keeps paging is cut off there)."""


@dataclass(frozen=True)
class McpToolInfo:
    """One tool as the server lists it."""

    name: str
    description: str
    schema: dict[str, Any]


def offered(server: str, listed: list[Any]) -> tuple[list[McpToolInfo], tuple[str, ...]]:
    """The listed tools agent-tui offers, and a notice for each one it cannot."""
    tools: list[McpToolInfo] = []
    skipped: list[str] = []
    taken: dict[str, str] = {}
    for tool in listed:
        if getattr(getattr(tool, "execution", None), "task_support", None) == "required":
            skipped.append(
                f"tool {tool.name} is not offered: it requires task-augmented execution, "
                "which agent-tui does not support"
            )
            continue
        name = tool_name(server, tool.name)
        if name in taken:
            skipped.append(f"tool {tool.name} is not offered: its name {name} is already {taken[name]}'s")
            continue
        taken[name] = tool.name
        tools.append(McpToolInfo(tool.name, tool.description or "", dict(tool.input_schema or {"type": "object"})))
    return tools, tuple(skipped)


async def every_page(fetch: Callable[..., Awaitable[Any]], field: str) -> list[Any]:
    """Every item of a paged MCP listing (``tools/list``, ``prompts/list``, ``resources/list``…):
    ``fetch(cursor=…)`` page after page until the server gives no cursor, within ``LIST_PAGES``
    (a server that always answers with a cursor cannot keep a step waiting)."""
    items: list[Any] = []
    cursor = None
    for _ in range(LIST_PAGES):
        page = await fetch(cursor=cursor)
        items.extend(getattr(page, field))
        cursor = page.next_cursor
        if not cursor:
            break
    return items


async def list_all(client: Any) -> list[Any]:
    return await every_page(client.list_tools, "tools")
