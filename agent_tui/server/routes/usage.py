"""What a session spent, with its subagents' sessions: ``Sessions.usage`` over HTTP, as ``/usage`` shows it."""

from __future__ import annotations

from aiohttp import web

from agent_tui.core.api import SessionUsage
from agent_tui.server.respond import reply
from agent_tui.server.state import sessions
from agent_tui.server.table import RouteTable

routes = RouteTable()


@routes.get("/api/session/{id}/usage", response=SessionUsage)
async def usage(request: web.Request) -> web.Response:
    """``{session_id, sessions, total, by_model, by_agent}``, each row ``{key, steps, input_tokens, output_tokens,
    reasoning_tokens, cache_read_tokens, cache_write_tokens, cost, unpriced_steps, ...}``; ``cost`` is the sum of
    the known costs (null when none is known) and ``unpriced_steps`` the steps whose price was unknown."""
    return reply(await sessions(request).usage(request.match_info["id"]))
