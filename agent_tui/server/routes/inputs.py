"""Input and execution control: prompt, compact, resume, interrupt, pending inbox, withdraw, queue order."""

from __future__ import annotations

from aiohttp import web

from agent_tui.server.bodies import (
    CompactBody,
    Interrupted,
    PendingList,
    PromptBody,
    QueueOrderBody,
    QueuePausedBody,
    Receipt,
    Resumed,
)
from agent_tui.server.parse import body
from agent_tui.server.respond import reply
from agent_tui.server.routes.sessions import check_agent
from agent_tui.server.state import sessions
from agent_tui.server.table import RouteTable

routes = RouteTable()


@routes.post("/api/session/{id}/prompt", body=PromptBody, response=Receipt, status=202, conflicts=True)
async def prompt(request: web.Request) -> web.Response:
    """202: admitted (or the same receipt again for an exact retry); running is asynchronous."""
    spec = await body(request, PromptBody)
    sid = request.match_info["id"]
    if spec.agent is not None:
        record = await sessions(request).get(sid)
        await check_agent(request, record.location, spec.agent)
        if spec.agent != record.agent:
            await sessions(request).select_agent(sid, spec.agent)
    if "output_schema" in spec.model_fields_set:  # an invalid schema is a 400 before anything is admitted
        await sessions(request).get(sid)
        sessions(request).answers.require(sid, spec.output_schema)
    receipt = await sessions(request).prompt(sid, spec.prompt, id=spec.id, delivery=spec.delivery, resume=spec.resume)
    return reply(receipt, 202)


@routes.post(
    "/api/session/{id}/compact", body=CompactBody, body_optional=True, response=Receipt, status=202, conflicts=True
)
async def compact(request: web.Request) -> web.Response:
    """One coalesced manual barrier: while one is pending, the same receipt comes back."""
    spec = await body(request, CompactBody, optional=True)
    return reply(await sessions(request).compact(request.match_info["id"], resume=spec.resume), 202)


@routes.post("/api/session/{id}/resume", response=Resumed, status=202, conflicts=True)
async def resume(request: web.Request) -> web.Response:
    """Explicit resume (``agent-tui run --session ID`` without a prompt): runs what the session
    left — pending input, a step a crash cut short, tools a dead process left running. 202 once it
    runs here; follow the log for the rest; 409 when another process runs it."""
    sid = request.match_info["id"]
    started = await sessions(request).resume(sid)
    return reply(Resumed(session_id=sid, started=started), 202)


@routes.post("/api/session/{id}/interrupt", response=Interrupted, conflicts=True)
async def interrupt(request: web.Request) -> web.Response:
    """Returns once the interrupted busy period has written its terminal event."""
    sid = request.match_info["id"]
    await sessions(request).get(sid)
    running = sid in sessions(request).active()
    await sessions(request).interrupt(sid, "user")
    return reply(Interrupted(session_id=sid, was_running=running))


@routes.get("/api/session/{id}/pending", response=PendingList)
async def pending(request: web.Request) -> web.Response:
    return reply(PendingList(data=await sessions(request).pending(request.match_info["id"])))


@routes.delete("/api/session/{id}/pending/{input_id}", status=204, conflicts=True)
async def withdraw(request: web.Request) -> web.Response:
    await sessions(request).withdraw(request.match_info["id"], request.match_info["input_id"])
    return web.Response(status=204)


@routes.put("/api/session/{id}/queue", body=QueueOrderBody, status=204, conflicts=True)
async def reorder_queue(request: web.Request) -> web.Response:
    """The runner promotes the queued inputs in this order; 409 when the queue has changed meanwhile."""
    spec = await body(request, QueueOrderBody)
    await sessions(request).reorder_queue(request.match_info["id"], spec.order)
    return web.Response(status=204)


@routes.put("/api/session/{id}/queue/paused", body=QueuePausedBody, status=204, conflicts=True)
async def pause_queue(request: web.Request) -> web.Response:
    """``{"paused": true}``: queued inputs wait when the session goes idle; false resumes (and runs)."""
    spec = await body(request, QueuePausedBody)
    await sessions(request).pause_queue(request.match_info["id"], spec.paused)
    return web.Response(status=204)
