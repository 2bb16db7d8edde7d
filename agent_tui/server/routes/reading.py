"""Finite reads: a page of durable events (``history``) and projected messages."""

from __future__ import annotations

from aiohttp import web

from agent_tui.server.bodies import EventList, HistoryQuery, MessageList, MessagesQuery
from agent_tui.server.parse import query
from agent_tui.server.respond import events_page, reply
from agent_tui.server.state import sessions
from agent_tui.server.table import RouteTable

routes = RouteTable()


@routes.get("/api/session/{id}/history", query=HistoryQuery, response=EventList)
async def history(request: web.Request) -> web.Response:
    """Up to ``limit`` (default 50, at most 100) events after ``after``; the next
    page starts after the last event's ``seq`` while ``has_more`` is true."""
    q = query(request, HistoryQuery)
    page = await sessions(request).history(request.match_info["id"], after=q.after, limit=q.limit)
    return events_page(page.data, page.has_more)


@routes.get("/api/session/{id}/messages", query=MessagesQuery, response=MessageList)
async def messages(request: web.Request) -> web.Response:
    """Oldest first. With only ``before``: the newest ``limit`` messages before it
    (``has_more``: older ones exist); otherwise the first ``limit`` after ``after``."""
    q = query(request, MessagesQuery)
    rows = await sessions(request).messages(request.match_info["id"], after=q.after, before=q.before, limit=q.limit + 1)
    has_more = len(rows) > q.limit
    backwards = q.before is not None and q.after is None
    data = (rows[1:] if backwards else rows[: q.limit]) if has_more else rows
    return reply(MessageList(data=data, has_more=has_more))
