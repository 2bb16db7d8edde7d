"""A mentioned resource stays watched across a restart of its server, in both protocol eras (a real server)."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

from agent_tui.tools.mcp.connection import McpConnection
from agent_tui.tools.mcp.sdk_log import load_sdk
from agent_tui.vocab.kinds import McpState
from agent_tui.vocab.mcp_server import McpServerConfig

RESOURCES = Path(__file__).resolve().parents[2] / "fakes" / "mcp_resources.py"


async def _changed(connection: McpConnection, uri: str, beyond: int) -> None:
    async def wait() -> None:
        while connection.watch.version(uri) <= beyond:
            await asyncio.sleep(0.02)

    await asyncio.wait_for(wait(), 30)


@pytest.mark.parametrize("era", [[], ["legacy"]], ids=["2026", "legacy"])
async def test_a_watched_resource_is_watched_again_after_the_server_restarts(tmp_path: Path, era: list[str]) -> None:
    await load_sdk()
    config = McpServerConfig(command=[sys.executable, str(RESOURCES), *era], startup_timeout_s=60)
    connection = McpConnection("notes", config, tmp_path)
    connection.start()
    await connection.settled()
    try:
        assert connection.state is McpState.READY and connection.watch.supported
        assert await connection.watch.subscribe("notes://readme")
        assert connection.watch.version("notes://readme") == 0
        await connection.call("edit", {"text": "one"})
        await _changed(connection, "notes://readme", 0)
        await connection.stop()
        connection.start()
        await connection.settled()
        await connection.relisted()  # what a step waits for: the watch is set up again
        seen = connection.watch.version("notes://readme")
        await connection.call("edit", {"text": "two"})
        await _changed(connection, "notes://readme", seen)
    finally:
        await connection.stop()
