"""JSON responses from pydantic models (one serialiser, no dict round trip)."""

from __future__ import annotations

from aiohttp import web
from pydantic import BaseModel

from agent_tui.core.api import events as ev


def reply(model: BaseModel, status: int = 200) -> web.Response:
    return web.json_response(text=model.model_dump_json(), status=status)


def events_page(events: list[ev.StoredEvent], has_more: bool) -> web.Response:
    """``{data, has_more}`` with each event as ``agent-tui log`` prints it."""
    rows = ",".join(stored.to_json_line() for stored in events)
    return web.json_response(text=f'{{"data":[{rows}],"has_more":{"true" if has_more else "false"}}}')
