"""Servers that hang (at start-up, listing, on a call) or die while idle, as real processes.

Each is failed with its reason and retried in the background; no step waits
again for a server already known to fail, and a death is one notice.
"""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path

import pytest

from agent_tui.core.api import load_settings
from agent_tui.core.host.mcp_host import McpHost, McpRegistrations
from agent_tui.tools.errors import ToolError
from agent_tui.tools.mcp.connection import McpConnection, backoff_ms
from agent_tui.tools.registry import ToolRegistry
from agent_tui.vocab.clock import ManualClock
from agent_tui.vocab.kinds import McpState
from agent_tui.vocab.mcp_server import McpServerConfig
from tests.waiting import until

from .conftest import alive, unruly_config


async def _ready(
    config: McpServerConfig,
    location: Path,
    clock: ManualClock | None = None,
    seen: list[tuple[McpState, bool]] | None = None,
) -> McpConnection:
    record = (lambda c: seen.append((c.state, c.fresh_failure))) if seen is not None else None
    connection = McpConnection("unruly", config, location, clock, record)
    connection.start()
    await connection.settled()
    return connection


async def test_a_server_that_hangs_at_start_up_is_failed_and_the_next_step_does_not_wait_for_it(
    workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(workdir)
    clock = ManualClock()
    host = McpHost(lambda _: None, clock)  # type: ignore[arg-type, return-value]
    servers = {"unruly": unruly_config("hang-start", startup_timeout_s=1).model_dump(exclude_defaults=True)}
    settings = load_settings(workdir, cli={"mcp": {"servers": servers}})
    registry = ToolRegistry(workdir)
    tools = McpRegistrations(registry)
    try:
        await host.attach(tools, workdir, settings, settings.agent)  # the first start is waited for
        (connection,) = host.hub.connections(workdir)
        assert connection.state is McpState.FAILED and connection.error == "did not start within 1 s"
        clock.advance(backoff_ms(1) / 1000)
        await host.attach(tools, workdir, settings, settings.agent)
        assert connection.state is McpState.STARTING  # retried in the background, not waited for
        assert not any(name.startswith("mcp__") for name in registry.names())
        with pytest.raises(ToolError, match="not running"):
            await asyncio.wait_for(connection.call("pid", {}), 0.5)  # a call does not wait either
    finally:
        await host.close()


async def test_a_server_that_hangs_listing_its_tools_is_failed_with_the_reason(workdir: Path) -> None:
    connection = await _ready(unruly_config("hang-list", list_timeout_s=1), workdir, ManualClock())
    try:
        assert connection.state is McpState.FAILED and connection.fresh_failure
        assert connection.error == "did not list its tools within 1 s"
    finally:
        await connection.stop()


async def test_a_call_that_hangs_fails_the_server_which_restarts_and_is_not_waited_for(workdir: Path) -> None:
    seen: list[tuple[McpState, bool]] = []
    connection = await _ready(unruly_config(timeout_s=1), workdir, ManualClock(), seen)
    try:
        pid = int((await connection.call("pid", {})).content[0].text)
        with pytest.raises(ToolError, match="hang did not answer within 1 s"):
            await connection.call("hang", {})
        assert connection.state is McpState.FAILED and connection.error == "did not answer hang within 1 s"
        with pytest.raises(ToolError, match="not running: did not answer hang"):
            await asyncio.wait_for(connection.call("pid", {}), 0.5)
        await until(
            lambda: not alive(pid), "the hung server's process ended", timeout=30
        )  # the hung server's process is ended
        assert [fresh for state, fresh in seen if state is McpState.FAILED] == [True]
    finally:
        await connection.stop()


async def test_a_server_that_dies_while_idle_shows_failed_at_once_with_one_notice(workdir: Path) -> None:
    seen: list[tuple[McpState, bool]] = []
    connection = await _ready(unruly_config(), workdir, ManualClock(), seen)
    try:
        pid = int((await connection.call("pid", {})).content[0].text)
        os.kill(pid, signal.SIGKILL)
        await until(lambda: (McpState.FAILED, True) in seen, "a fresh failure", timeout=30)
        assert (connection.last_error or "").startswith("exited")
        await until(
            lambda: connection.state is McpState.READY, "the restart", timeout=30
        )  # a crash restarts at once, in the background
        assert [fresh for state, fresh in seen if state is McpState.FAILED] == [True]
        assert int((await connection.call("pid", {})).content[0].text) != pid
    finally:
        await connection.stop()
