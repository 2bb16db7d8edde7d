"""Roots: a real SDK server asks for the client's roots in the middle of a tool call and gets the folders given."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from agent_tui.tools.mcp.connection import McpConnection
from agent_tui.vocab.kinds import McpState

from .conftest import protocol_config


async def _text(connection: McpConnection, tool: str) -> str:
    result = await connection.call(tool, {})
    assert not result.is_error, result
    return result.content[0].text


@pytest.mark.parametrize("legacy", [False, True], ids=["2026", "2025-handshake"])
async def test_the_server_lists_the_roots_it_was_given_and_the_changed_ones_after_set_roots(
    workdir: Path, tmp_path: Path, legacy: bool
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    connection = McpConnection("proto", protocol_config(legacy), workdir, roots=[workdir, docs, workdir])
    connection.start()
    await connection.settled()
    try:
        assert connection.state is McpState.READY, connection.error
        listed = await _text(connection, "roots")
        assert listed.splitlines() == [workdir.resolve().as_uri(), docs.resolve().as_uri()]
        connection.set_roots([workdir])  # the settings lost the reference: the server is told
        assert connection._announcing is not None
        await asyncio.wait_for(connection._announcing, 30)
        assert (await _text(connection, "roots")).splitlines() == [workdir.resolve().as_uri()]
        if legacy:  # a 2026 server asks within each call, so it keeps no roots to be told about
            assert await _text(connection, "roots_changed") == "1"
        connection.set_roots([workdir])  # the same roots: nothing to announce
        assert connection.state is McpState.READY
        if legacy:
            assert await _text(connection, "roots_changed") == "1"
    finally:
        await connection.stop()
