"""Routes, one module per resource. Order matters: ``/api/session/active`` before ``/{id}``."""

from __future__ import annotations

from aiohttp import web

from agent_tui.server.routes import (
    answer,
    context,
    context_size,
    docs,
    inputs,
    log,
    mcp,
    permissions,
    plan,
    questions,
    reading,
    rewind,
    sessions,
    usage,
)
from agent_tui.server.table import ROUTES, Route

TABLES = (
    sessions.routes,
    inputs.routes,
    reading.routes,
    log.routes,
    context.routes,
    plan.routes,
    answer.routes,
    context_size.routes,
    usage.routes,
    rewind.routes,
    permissions.routes,
    questions.routes,
    mcp.routes,
    docs.routes,
)


def table() -> tuple[Route, ...]:
    """Every route, in matching order."""
    return tuple(route for routes in TABLES for route in routes)


def register(app: web.Application) -> None:
    """Serve exactly the table; it is kept on the app for the document and the auth check."""
    app[ROUTES] = table()
    for route in app[ROUTES]:
        app.router.add_route(route.method, route.path, route.handler)
