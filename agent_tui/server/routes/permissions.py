"""Permission asks waiting for a person, and their replies."""

from __future__ import annotations

from aiohttp import web

from agent_tui.server.bodies import PermissionList, PermissionRecord, PermissionReplyBody
from agent_tui.server.parse import body
from agent_tui.server.respond import reply
from agent_tui.server.state import sessions
from agent_tui.server.table import RouteTable

routes = RouteTable()


@routes.get("/api/session/{id}/permissions", response=PermissionList)
async def pending(request: web.Request) -> web.Response:
    return reply(PermissionList(data=await sessions(request).permissions.pending(request.match_info["id"])))


@routes.post("/api/permission/{request_id}/reply", body=PermissionReplyBody, response=PermissionRecord, conflicts=True)
async def answer(request: web.Request) -> web.Response:
    """Record the reply durably; the waiting tool resumes in whichever process runs it."""
    request_id = request.match_info["request_id"]
    spec = await body(request, PermissionReplyBody)
    await sessions(request).permissions.reply(request_id, spec.reply, spec.message)
    return reply(await sessions(request).permissions.wait_reply(request_id))
