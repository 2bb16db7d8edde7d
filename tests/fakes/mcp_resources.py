"""An MCP server (the SDK's ``MCPServer``) with resources, run as a real stdio process.

``notes://readme`` is text (``edit`` changes it and tells the client it was
updated: a ``subscriptions/listen`` event on the 2026 protocol),
``notes://logo`` a PNG (a blob), ``notes://day/{n}`` a template; ``add`` adds a
text resource and says the list changed: its only tools, the resources are the point.

``python mcp_resources.py legacy`` speaks only the 2025 handshake, as most
servers still do: it serves ``resources/subscribe`` and sends
``notifications/resources/updated`` (and ``…/list_changed``) on the session.
"""

from __future__ import annotations

import asyncio
import base64
import sys
import warnings
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.resources.types import TextResource
from mcp.types import EmptyResult, SubscribeRequestParams

warnings.simplefilter("ignore")

server = MCPServer("notes")
LEGACY = sys.argv[1:2] == ["legacy"]
subscribed: set[str] = set()
notes = {"readme": "# Notes\nThe launch is on Tuesday."}
LOGO = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)


@server.resource("notes://readme", name="readme", description="The team's notes", mime_type="text/markdown")
def readme() -> str:
    return notes["readme"]


@server.resource("notes://logo", name="logo", description="The logo", mime_type="image/png")
def logo() -> bytes:
    return LOGO


@server.resource("notes://day/{n}", name="day", description="The notes of day n", mime_type="text/plain")
def day(n: str) -> str:
    return f"notes of day {n}"


@server.tool()
async def edit(text: str, ctx: Context) -> str:
    """Replace the readme's text (and tell the client it changed)."""
    notes["readme"] = text
    if LEGACY:
        if "notes://readme" in subscribed:
            await ctx.session.send_resource_updated("notes://readme")
    else:
        await ctx.notify_resource_updated("notes://readme")
        await asyncio.sleep(0.3)  # the event's own stream reaches the client before this answer does
    return "edited"


@server.tool()
async def add(name: str, text: str, ctx: Context) -> str:
    """Add the text resource notes://name (and tell the client the list changed)."""
    server.add_resource(TextResource(uri=f"notes://{name}", name=name, text=text, mime_type="text/plain"))
    if LEGACY:
        await ctx.session.send_resource_list_changed()
    else:
        await ctx.notify_resources_changed()
        await asyncio.sleep(0.3)
    return "added"


async def _subscribe(_context: Any, params: SubscribeRequestParams) -> EmptyResult:
    subscribed.add(str(params.uri))
    return EmptyResult()


if __name__ == "__main__":
    if LEGACY:  # a 2025-era server: only the initialize handshake, and resources/subscribe
        import mcp.server.runner

        mcp.server.runner._has_modern_envelope = lambda _params: False
        server._lowlevel_server.add_request_handler("resources/subscribe", SubscribeRequestParams, _subscribe)
    server.run("stdio")
