"""API-managed context entries (``api/<name>`` keys) that reach the model's instructions.

The key is the tail of the path, so both ``/context/api/notes`` and
``/context/api%2Fnotes`` name ``api/notes``. The PUT body is the value itself
(any JSON value).
"""

from __future__ import annotations

from aiohttp import web

from agent_tui.server.bodies import ContextEntries, ContextEntry
from agent_tui.server.parse import json_value
from agent_tui.server.state import sessions
from agent_tui.server.table import ANY_JSON, RouteTable

routes = RouteTable()


@routes.get("/api/session/{id}/context", response=ContextEntries)
async def entries(request: web.Request) -> web.Response:
    return web.json_response(await sessions(request).context_entries.read(request.match_info["id"]))


@routes.put("/api/session/{id}/context/{key:.+}", body=ANY_JSON, response=ContextEntry)
async def put(request: web.Request) -> web.Response:
    key = request.match_info["key"]
    value = await json_value(request)
    await sessions(request).context_entries.put(request.match_info["id"], key, value)
    return web.json_response({"key": key, "value": value})


@routes.delete("/api/session/{id}/context/{key:.+}", status=204)
async def delete(request: web.Request) -> web.Response:
    await sessions(request).context_entries.delete(request.match_info["id"], request.match_info["key"])
    return web.Response(status=204)
