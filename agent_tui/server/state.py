"""What every handler reads from the application: the facade and a few settings."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from agent_tui.core.api import Sessions, Settings

SettingsFor = Callable[[str], Awaitable[Settings]]


@dataclass
class ServerState:
    sessions: Sessions
    settings_for: SettingsFor | None = None
    """Per-location settings (the runtime's), used to refuse unknown agent names."""
    mcp_status: Callable[[], list[Any]] = list
    """The runtime's MCP servers (``Runtime.mcp_status``); none without a runtime."""
    keepalive_s: float = 15.0
    """An SSE comment is written this often on an idle stream, so a gone client is noticed."""
    streams: set[asyncio.Task[object]] = field(default_factory=set)
    """Running SSE handlers: at shutdown they end their responses properly."""
    closing: asyncio.Event = field(default_factory=asyncio.Event)
    """Set at shutdown: live tails stop and finish their responses."""


STATE = web.AppKey("agent_tui_state", ServerState)


def state(request: web.Request) -> ServerState:
    return request.app[STATE]


def sessions(request: web.Request) -> Sessions:
    return request.app[STATE].sessions
