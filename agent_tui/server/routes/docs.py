"""``GET /api/openapi.json``: the API described, without the token (it holds no secrets).

Tools that read a description (code generators, Swagger UI, schemathesis)
usually fetch it before they are given credentials, and it is the same for
every install; everything it describes still needs the token.
"""

from __future__ import annotations

from typing import Any

from aiohttp import web

from agent_tui.server.openapi import document
from agent_tui.server.table import ROUTES, RouteTable

routes = RouteTable()


@routes.get("/api/openapi.json", response=dict[str, Any], public=True)
async def openapi(request: web.Request) -> web.Response:
    """This document: every route this server registered."""
    return web.json_response(document(request.app[ROUTES]))
