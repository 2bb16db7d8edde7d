"""``GET /api/mcp``: the MCP servers this process runs, their state and tools."""

from __future__ import annotations

from aiohttp import web

from agent_tui.server.bodies import McpServer, McpServerList
from agent_tui.server.respond import reply
from agent_tui.server.state import state
from agent_tui.server.table import RouteTable

routes = RouteTable()


@routes.get("/api/mcp", response=McpServerList)
async def servers(request: web.Request) -> web.Response:
    """Every server started (or tried) at any location, as the runtime sees it now."""
    found = state(request).mcp_status()
    return reply(
        McpServerList(
            data=[
                McpServer(
                    name=s.name,
                    location=s.location,
                    transport=s.transport,
                    state=s.state,
                    tools=list(s.tools),
                    error=s.error,
                    sandboxed=s.sandboxed,
                )
                for s in found
            ]
        )
    )
