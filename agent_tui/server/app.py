"""The aiohttp application: middlewares, routes by resource, clean shutdown.

``build_app`` is all a caller needs; ``agent-tui serve`` wraps it with a
socket, the token file and signal handling (``commands/serve_cmd.py``).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Any

from aiohttp import web

from agent_tui.core.api import Sessions
from agent_tui.server import routes
from agent_tui.server.auth import bearer_middleware
from agent_tui.server.errors import error_middleware
from agent_tui.server.guards import host_middleware, path_id_middleware
from agent_tui.server.questions import QuestionWaits
from agent_tui.server.state import STATE, ServerState, SettingsFor

MAX_BODY_BYTES = 1024 * 1024
"""A larger body is a 413 (aiohttp's default, named so it is seen and tested); reading stops at the limit."""


def build_app(
    sessions: Sessions,
    token: str,
    *,
    settings_for: SettingsFor | None = None,
    mcp_status: Callable[[], list[Any]] = list,
    keepalive_s: float = 15.0,
) -> web.Application:
    """An application serving ``sessions``; every request must carry ``token``."""
    app = web.Application(
        middlewares=[error_middleware, host_middleware, bearer_middleware(token), path_id_middleware],
        client_max_size=MAX_BODY_BYTES,
    )
    app[STATE] = ServerState(
        sessions=sessions, settings_for=settings_for, mcp_status=mcp_status, keepalive_s=keepalive_s
    )
    routes.register(app)
    app.on_shutdown.append(_close_streams)
    app.cleanup_ctx.append(_questions_wait(sessions))
    return app


def _questions_wait(sessions: Sessions) -> Callable[[web.Application], AsyncIterator[None]]:
    """While the app serves, MCP servers' questions wait for an HTTP answer (else: declined at once)."""

    async def serving(_: web.Application) -> AsyncIterator[None]:
        waits = QuestionWaits(sessions.asks)
        waits.start()
        yield
        await waits.stop()

    return serving


async def _close_streams(app: web.Application, grace_s: float = 2.0) -> None:
    """Live SSE tails never end by themselves: ask them to finish their responses
    (clients see a clean end of stream), and cancel any that cannot write in time."""
    server = app[STATE]
    server.closing.set()
    streams = list(server.streams)
    if streams:
        _, late = await asyncio.wait(streams, timeout=grace_s)
        for task in late:
            task.cancel()
        await asyncio.gather(*late, return_exceptions=True)
