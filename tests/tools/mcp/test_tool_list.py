"""A server's tool list as the model sees it: refreshed when the server says it changed, every
tool under a provider-safe unique name, and the client introducing itself as agent-tui."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agent_tui import __version__
from agent_tui.core.api import load_settings
from agent_tui.core.host.mcp_host import McpHost, McpRegistrations
from agent_tui.tools.mcp.connection import McpConnection
from agent_tui.tools.registry import ToolRegistry
from agent_tui.vocab.mcp_names import MAX_TOOL_NAME, tool_name

from .conftest import unruly_config

PROVIDER_SAFE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def _settings(workdir: Path, name: str, mode: str):
    servers = {name: unruly_config(mode).model_dump(exclude_defaults=True)}
    return load_settings(workdir, cli={"mcp": {"servers": servers}})


def _mcp_names(registry: ToolRegistry) -> set[str]:
    return {name for name in registry.names() if name.startswith("mcp__")}


async def test_a_changed_tool_list_is_offered_at_the_next_step(workdir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(workdir)
    host = McpHost(lambda _: None)  # type: ignore[arg-type, return-value]
    settings = _settings(workdir, "unruly", "ok")
    registry = ToolRegistry(workdir)
    tools = McpRegistrations(registry)
    changed = asyncio.Event()
    host.watch(lambda c: changed.set() if any(t.name == "grown" for t in c.tools) else None)
    try:
        await host.attach(tools, workdir, settings, settings.agent)
        assert "mcp__unruly__grow" in _mcp_names(registry) and "mcp__unruly__grown" not in _mcp_names(registry)
        (connection,) = host.hub.connections(workdir)
        assert (await connection.call("grow", {})).content[0].text == "grew"
        await asyncio.wait_for(changed.wait(), 30)  # the server's notifications/tools/list_changed
        await host.attach(tools, workdir, settings, settings.agent)
        assert "mcp__unruly__grown" in _mcp_names(registry)
    finally:
        await host.close()


async def test_over_long_server_and_tool_names_get_unique_provider_safe_names(
    workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(workdir)
    server = "a-server-whose-name-alone-is-longer-than-providers-allow-for-a-whole-tool-name"
    host = McpHost(lambda _: None)  # type: ignore[arg-type, return-value]
    settings = _settings(workdir, server, "long")
    registry = ToolRegistry(workdir)
    try:
        await host.attach(McpRegistrations(registry), workdir, settings, settings.agent)
        (connection,) = host.hub.connections(workdir)
        names = _mcp_names(registry)
        assert len(connection.tools) == 9 and connection.skipped == ()
        assert len(names) == 9 and all(PROVIDER_SAFE.match(name) for name in names), names
        assert names == {tool_name(server, t.name) for t in connection.tools}
    finally:
        await host.close()


async def test_initialize_names_the_client_agent_tui_with_its_version(workdir: Path) -> None:
    connection = McpConnection("unruly", unruly_config(), workdir)
    connection.start()
    await connection.settled()
    try:
        said = (await connection.call("client", {})).content[0].text
        assert f"'name': 'agent-tui', 'version': '{__version__}'" in said, said
    finally:
        await connection.stop()


SERVERS = st.from_regex(r"[A-Za-z0-9-]{1,100}(_[A-Za-z0-9-]{1,10})?", fullmatch=True)


@given(server=SERVERS, tools=st.lists(st.text(min_size=1, max_size=120), min_size=2, max_size=5, unique=True))
def test_tool_names_are_provider_safe_deterministic_and_unique(server: str, tools: list[str]) -> None:
    names = [tool_name(server, tool) for tool in tools]
    assert all(PROVIDER_SAFE.match(name) and len(name) <= MAX_TOOL_NAME for name in names), names
    assert names == [tool_name(server, tool) for tool in tools]
    assert len(set(names)) == len(names)


def test_a_short_safe_name_is_kept_as_it_is() -> None:
    assert tool_name("notes", "echo") == "mcp__notes__echo"
