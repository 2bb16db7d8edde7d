"""The hub: one connection per (location, server), replaced when its table changes, stopped when removed."""

from __future__ import annotations

import asyncio
from pathlib import Path

from agent_tui.tools.mcp.hub import McpHub
from agent_tui.vocab.kinds import McpState

from .conftest import stdio_config


async def test_sync_shares_replaces_and_stops_connections(workdir: Path, tmp_path: Path) -> None:
    hub = McpHub()
    seen: list[tuple[str, McpState]] = []
    hub.watch(lambda c: seen.append((c.name, c.state)))
    notes = stdio_config(tmp_path)
    try:
        first, again = await asyncio.gather(hub.sync(workdir, {"notes": notes}), hub.sync(workdir, {"notes": notes}))
        assert first[0] is again[0]  # concurrent syncs of one location share the connection
        await first[0].settled()
        assert ("notes", McpState.READY) in seen
        (changed,) = await hub.sync(workdir, {"notes": stdio_config(tmp_path, FAKE_MCP_INSTRUCTIONS="Other.")})
        assert changed is not first[0] and first[0].state is McpState.STOPPED
        await changed.settled()
        assert changed.instructions == "Other."
        assert await hub.sync(workdir, {}) == [] and changed.state is McpState.STOPPED
        assert hub.status(workdir) == []
    finally:
        await hub.close()
