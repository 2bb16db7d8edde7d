"""An MCP server (written with the SDK) that misbehaves on purpose, run as a real process.

``python mcp_unruly.py MODE``, over stdio. Modes: ``ok`` serves; ``hang-start``
never starts serving; ``hang-list`` serves but never answers ``tools/list``;
``long`` lists tools whose names are too long for providers. Every mode's
tools: ``environment`` (the process's environment as JSON), ``client`` (what
the client told about itself), ``grow`` (adds the tool ``grown`` and announces
the changed list), ``hang`` (never answers) and ``pid``.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from typing import Any

from mcp.server.mcpserver import Context, MCPServer

MODE = sys.argv[1] if len(sys.argv) > 1 else "ok"
LONG = "a_tool_whose_name_goes_on_and_on_well_past_what_providers_accept"


class HangingList(MCPServer):
    async def list_tools(self) -> Any:
        await asyncio.sleep(3600)
        return []


server = (HangingList if MODE == "hang-list" else MCPServer)("unruly")


@server.tool()
def environment() -> str:
    """The server process's environment, as JSON."""
    return json.dumps(dict(os.environ))


@server.tool()
def client(ctx: Context) -> str:
    """What the client said about itself: the request's metadata and the session's client info."""
    params = getattr(ctx.session, "client_params", None)
    return f"{ctx.request_context.meta!r} {getattr(params, 'client_info', None)!r}"


@server.tool()
async def grow(ctx: Context) -> str:
    """Add the tool ``grown`` and tell the client its tool list changed."""
    server.add_tool(lambda: "grown up", name="grown", description="Added while running.")
    await ctx.notify_tools_changed()
    return "grew"


@server.tool()
async def hang() -> str:
    """Never answer."""
    await asyncio.sleep(3600)
    return "never"


@server.tool()
def pid() -> str:
    """This server process's id."""
    return str(os.getpid())


if MODE == "long":
    for suffix in ("first", "second"):
        server.add_tool(lambda: "long", name=f"{LONG}_{suffix}", description=f"The {suffix} long one.")
    server.add_tool(lambda: "dotted", name="dotted.name", description="A dot providers reject.")
    server.add_tool(lambda: "underscored", name="dotted_name", description="What the dotted one would become.")


if __name__ == "__main__":
    if MODE == "hang-start":
        time.sleep(3600)
    server.run("stdio")
