"""Sessions: create, list, read one, active, model and agent selection, rename, delete."""

from __future__ import annotations

import asyncio
from pathlib import Path

from aiohttp import web

from agent_tui.core.api import UnknownSession
from agent_tui.server.bodies import (
    ActiveSessions,
    AgentBody,
    CreateSession,
    ListQuery,
    ModelBody,
    RenameBody,
    SessionList,
    SessionRecord,
)
from agent_tui.server.errors import bad_request
from agent_tui.server.parse import body, query
from agent_tui.server.respond import reply
from agent_tui.server.state import sessions, state
from agent_tui.server.table import RouteTable

routes = RouteTable()


def _absolute(location: str) -> Path:
    try:
        path = Path(location).expanduser()
    except RuntimeError:  # ``~user`` for a user that does not exist
        raise bad_request(f"location {location!r} names an unknown home directory") from None
    if not path.is_absolute():
        raise bad_request(f"location must be an absolute path, not {location!r}")
    return path


def _directory(location: str) -> Path:
    path = _absolute(location)
    if not path.is_dir():
        raise bad_request(f"location {location} is not a directory")
    return path


def _resolved(location: str) -> str:
    """Sessions store their resolved location: ``/a/b/``, ``/a/./b`` and symlinks find them too."""
    try:
        return str(_absolute(location).resolve())
    except ValueError:  # a NUL byte: no path can hold it
        raise bad_request(f"location {location!r} is not a valid path") from None


async def check_agent(request: web.Request, location: str, agent: str) -> None:
    """400 unless ``agent`` is a primary agent at ``location`` (the message lists them)."""
    settings_for = state(request).settings_for
    if settings_for is None:
        return
    problem = (await settings_for(location)).agent_choice_error(agent)
    if problem is not None:
        raise bad_request(problem)


@routes.post("/api/session", body=CreateSession, response=SessionRecord, status=(201, 200), conflicts=True)
async def create(request: web.Request) -> web.Response:
    spec = await body(request, CreateSession)
    location = await asyncio.to_thread(_directory, spec.location)
    if spec.agent is not None:
        await check_agent(request, str(location), spec.agent)
    existed = False
    if spec.id is not None:
        try:
            await sessions(request).get(spec.id)
            existed = True
        except UnknownSession:
            pass
    record = await sessions(request).create(
        spec.id, location=location, title=spec.title, agent=spec.agent, model=spec.model
    )
    return reply(record, 200 if existed else 201)


@routes.get("/api/session", query=ListQuery, response=SessionList)
async def listing(request: web.Request) -> web.Response:
    q = query(request, ListQuery)
    location = None if q.location is None else await asyncio.to_thread(_resolved, q.location)
    rows = await sessions(request).list(location, q.search, q.limit + 1, q.offset, top_level=q.top_level)
    return reply(SessionList(data=rows[: q.limit], has_more=len(rows) > q.limit))


@routes.get("/api/session/{id}/children", response=SessionList)
async def children(request: web.Request) -> web.Response:
    """The subagents' sessions this session's ``task`` calls started, oldest first (their own
    ``spawned_by``, ``spawned_message_id`` and ``spawned_call_id`` name the call)."""
    sid = request.match_info["id"]
    await sessions(request).get(sid)  # 404 for an unknown session, not an empty list
    return reply(SessionList(data=await sessions(request).children(sid), has_more=False))


@routes.get("/api/session/active", response=ActiveSessions)
async def active(request: web.Request) -> web.Response:
    return web.json_response(sessions(request).active())


@routes.get("/api/session/{id}", response=SessionRecord)
async def get(request: web.Request) -> web.Response:
    return reply(await sessions(request).get(request.match_info["id"]))


@routes.post("/api/session/{id}/model", body=ModelBody, response=SessionRecord, conflicts=True)
async def select_model(request: web.Request) -> web.Response:
    sid, spec = request.match_info["id"], await body(request, ModelBody)
    await sessions(request).select_model(sid, spec.model)
    return reply(await sessions(request).get(sid))


@routes.post("/api/session/{id}/agent", body=AgentBody, response=SessionRecord, conflicts=True)
async def select_agent(request: web.Request) -> web.Response:
    sid, spec = request.match_info["id"], await body(request, AgentBody)
    record = await sessions(request).get(sid)
    await check_agent(request, record.location, spec.agent)
    await sessions(request).select_agent(sid, spec.agent)
    return reply(await sessions(request).get(sid))


@routes.post("/api/session/{id}/rename", body=RenameBody, response=SessionRecord, conflicts=True)
async def rename(request: web.Request) -> web.Response:
    spec = await body(request, RenameBody)
    return reply(await sessions(request).rename(request.match_info["id"], spec.title))


@routes.delete("/api/session/{id}", status=204, conflicts=True)
async def delete(request: web.Request) -> web.Response:
    """The session's events, rows and snapshots, for good; 409 while it runs or has forks."""
    await sessions(request).delete(request.match_info["id"])
    return web.Response(status=204)
