"""The session's live plan: the newest visible ``todo`` checklist, as the projection holds it."""

from __future__ import annotations

from aiohttp import web

from agent_tui.core.api import PlanRecord
from agent_tui.server.respond import reply
from agent_tui.server.state import sessions
from agent_tui.server.table import RouteTable

routes = RouteTable()


@routes.get("/api/session/{id}/plan", response=PlanRecord)
async def plan(request: web.Request) -> web.Response:
    """``{session_id, seq, call_id, items, open}``; no plan yet is ``seq`` 0 and no items. A rewind
    or fork answers with the plan it brought back; follow ``/log`` for updates (``tool.success`` of ``todo``)."""
    return reply(await sessions(request).plan(request.match_info["id"]))
