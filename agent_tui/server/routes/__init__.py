"""Routes, one module per resource. Order matters: ``/api/session/active`` before ``/{id}``."""

from __future__ import annotations

from aiohttp import web

from agent_tui.server.routes import context, inputs, log, permissions, reading, sessions


def register(app: web.Application) -> None:
    for module in (sessions, inputs, reading, log, context, permissions):
        app.router.add_routes(module.routes)
