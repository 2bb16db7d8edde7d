"""Branching: where a session can go back to, what a files rewind would change, the rewind, its undo, a fork."""

from __future__ import annotations

from aiohttp import web

from agent_tui.server.bodies import (
    FilesPreview,
    ForkBody,
    PreviewQuery,
    RewindBody,
    RewindPoints,
    RewindResult,
    SessionRecord,
)
from agent_tui.server.parse import body, query
from agent_tui.server.respond import reply
from agent_tui.server.state import sessions
from agent_tui.server.table import RouteTable

routes = RouteTable()


@routes.get("/api/session/{id}/rewind", response=RewindPoints)
async def points(request: web.Request) -> web.Response:
    """The session's prompts, newest first."""
    return reply(RewindPoints(data=await sessions(request).rewind_points(request.match_info["id"])))


@routes.get("/api/session/{id}/rewind/preview", query=PreviewQuery, response=FilesPreview, conflicts=True)
async def preview(request: web.Request) -> web.Response:
    """The files a files rewind would change and the diff; nothing is changed."""
    spec = query(request, PreviewQuery)
    return reply(await sessions(request).rewind_preview(request.match_info["id"], spec.message_id))


@routes.post("/api/session/{id}/rewind", body=RewindBody, response=RewindResult, conflicts=True)
async def rewind(request: web.Request) -> web.Response:
    """Back to just before a prompt; a running session is refused (409): interrupt it first."""
    spec = await body(request, RewindBody)
    return reply(await sessions(request).rewind(request.match_info["id"], spec.message_id, spec.mode))


@routes.post("/api/session/{id}/rewind/undo", response=RewindResult, conflicts=True)
async def undo(request: web.Request) -> web.Response:
    return reply(await sessions(request).undo_rewind(request.match_info["id"]))


@routes.post(
    "/api/session/{id}/fork", body=ForkBody, body_optional=True, response=SessionRecord, status=201, conflicts=True
)
async def fork(request: web.Request) -> web.Response:
    """A new session with this one's history (up to just before ``at``); it shares nothing afterwards."""
    spec = await body(request, ForkBody, optional=True)
    return reply(await sessions(request).fork(request.match_info["id"], at=spec.at), 201)
