"""``GET /api/mcp``: the MCP servers this process runs, their state, tools, resources and recent log messages."""

from __future__ import annotations

from aiohttp import web

from agent_tui.server.bodies import McpLogMessage, McpResource, McpServer, McpServerList
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
                    logs=[McpLogMessage(at=e.at_ms, level=e.level, logger=e.logger, text=e.text) for e in s.logs],
                    resources=[
                        McpResource(uri=r.uri, name=r.name, description=r.description, mime=r.mime, template=r.template)
                        for r in s.resources
                    ],
                )
                for s in found
            ]
        )
    )
