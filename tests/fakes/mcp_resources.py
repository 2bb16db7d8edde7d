"""An MCP server (the SDK's ``MCPServer``) with resources, run as a real stdio process.

``notes://readme`` is text (``edit`` changes it and tells the client it was
updated: a ``subscriptions/listen`` event on the 2026 protocol),
``notes://logo`` a PNG (a blob), ``notes://day/{n}`` a template. No tool but
``edit``: the resources are what it offers.
"""

from __future__ import annotations

import asyncio
import base64
import warnings

from mcp.server.mcpserver import Context, MCPServer

warnings.simplefilter("ignore")

server = MCPServer("notes")
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
    await ctx.notify_resource_updated("notes://readme")
    await asyncio.sleep(0.3)  # the event's own stream reaches the client before this answer does
    return "edited"


if __name__ == "__main__":
    server.run("stdio")
