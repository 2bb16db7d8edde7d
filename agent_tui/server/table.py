"""Each route declared once: what aiohttp registers and what the OpenAPI document describes.

A handler's decorator records its method, path, request models (body and
query), response type and success status. ``routes.register`` adds exactly
these routes to the application and ``openapi.document`` describes exactly
these routes, so the document cannot drift from what the server serves.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from typing import Any

from aiohttp import web
from pydantic import BaseModel

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

ANY_JSON: Any = object()
"""A body that is any JSON value (the context PUT): not a model, still described."""

_PARAM = re.compile(r"\{(\w+)(?::[^}]*)?\}")


@dataclass(frozen=True)
class Route:
    method: str
    path: str
    """The aiohttp path, regexes included (``{key:.+}``)."""
    handler: Handler
    status: int | tuple[int, ...] = 200
    """The success status, or all of them (the first is the usual one)."""
    response: Any = None
    """A pydantic model or any type a ``TypeAdapter`` takes; ``None``: no body (e.g. 204)."""
    body: Any = None
    """A request body model, ``ANY_JSON``, or ``None`` (no body)."""
    body_optional: bool = False
    query: type[BaseModel] | None = None
    conflicts: bool = False
    """The route can answer 409 (admission conflicts, owned elsewhere)."""
    unprocessable: bool = False
    """The route can answer 422 (a body whose values do not fit, each problem listed)."""
    stream: bool = False
    """The response is ``text/event-stream``."""
    public: bool = False
    """Served without the bearer token."""

    @property
    def template(self) -> str:
        """The OpenAPI path: ``{key:.+}`` becomes ``{key}``."""
        return _PARAM.sub(r"{\1}", self.path)

    @property
    def statuses(self) -> tuple[int, ...]:
        return self.status if isinstance(self.status, tuple) else (self.status,)

    @property
    def params(self) -> list[str]:
        return _PARAM.findall(self.path)


ROUTES = web.AppKey("agent_tui_routes", tuple)
"""The routes an application registered (set by ``routes.register``)."""


def is_public(request: web.Request) -> bool:
    """Whether the matched route is served without the token."""
    handler = request.match_info.handler
    return any(route.public and route.handler is handler for route in request.app.get(ROUTES, ()))


class RouteTable:
    """The routes of one resource module, in declaration order (which is matching order)."""

    def __init__(self) -> None:
        self.routes: list[Route] = []

    def __iter__(self) -> Iterator[Route]:
        return iter(self.routes)

    def route(self, method: str, path: str, **spec: Any) -> Callable[[Handler], Handler]:
        def record(handler: Handler) -> Handler:
            self.routes.append(Route(method, path, handler, **spec))
            return handler

        return record

    def get(self, path: str, **spec: Any) -> Callable[[Handler], Handler]:
        return self.route("GET", path, **spec)

    def post(self, path: str, **spec: Any) -> Callable[[Handler], Handler]:
        return self.route("POST", path, **spec)

    def put(self, path: str, **spec: Any) -> Callable[[Handler], Handler]:
        return self.route("PUT", path, **spec)

    def delete(self, path: str, **spec: Any) -> Callable[[Handler], Handler]:
        return self.route("DELETE", path, **spec)
