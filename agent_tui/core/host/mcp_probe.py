"""``agent-tui mcp list --check`` / ``mcp get --check``: start servers as a session would, say how it went.

Each server is started with the same connection, environment, sandbox and roots a step uses (one
``McpHub`` for the check alone), waited for within its own start-up and listing timeouts, then
stopped: whether it is ready and what it offers is learned by running it, not guessed from the
config.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from agent_tui.core.host.mcp_host import SDK_LOG, enabled, roots, sandboxes
from agent_tui.core.settings import paths
from agent_tui.core.settings.config import Settings
from agent_tui.tools.mcp.hub import McpHub
from agent_tui.tools.mcp.token_store import ChosenTokenStore


async def probe_mcp_servers(
    location: Path, settings: Settings, names: list[str] | None = None
) -> dict[str, dict[str, Any]]:
    """Each enabled server (or the ``names`` among them) started and stopped at ``location``: its
    ``state`` (ready or failed), ``tools`` (the names it offers) and ``error`` (why it failed)."""
    servers = {name: server for name, server in enabled(settings).items() if names is None or name in names}
    if not servers:
        return {}
    hub = McpHub(None, paths.data_dir() / SDK_LOG, ChosenTokenStore(paths.data_dir()))
    try:
        connections = await hub.sync(location, servers, sandboxes(settings, location), roots(settings, location))
        await asyncio.gather(*(connection.settled() for connection in connections))
        return {
            status.name: {"state": status.state.value, "tools": list(status.tools), "error": status.error}
            for status in hub.status(location)
        }
    finally:
        await hub.close()
