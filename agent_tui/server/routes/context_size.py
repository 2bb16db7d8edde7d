"""How big the session's next request would be: ``Sessions.context_breakdown`` over HTTP.

Its own path, ``/context-size``: ``/context`` is the session's ``api/<name>`` entries.
"""

from __future__ import annotations

from aiohttp import web

from agent_tui.core.api import ContextBreakdown
from agent_tui.server.respond import reply
from agent_tui.server.state import sessions
from agent_tui.server.table import RouteTable

routes = RouteTable()


@routes.get("/api/session/{id}/context-size", response=ContextBreakdown)
async def context_size(request: web.Request) -> web.Response:
    """``{session_id, model, agent, parts: [{name, tokens, sources}], total, pruned, pruned_calls, window,
    reserve, free, estimate}`` in estimated tokens (``agent-tui context --json``); nothing is written."""
    return reply(await sessions(request).context_breakdown(request.match_info["id"]))
