"""The runtime's roots for a location: the project root and the ``[references.NAME]`` folders reach a real SDK
server that asks for them mid-call; settings reloaded with other references tell the running server."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from agent_tui.core.host.mcp_host import McpHost, McpRegistrations
from agent_tui.core.settings.config_validation import load_settings
from agent_tui.tools.registry import ToolRegistry
from agent_tui.vocab.kinds import McpState

PROTOCOL = Path(__file__).resolve().parents[2] / "fakes" / "mcp_protocol.py"


def _settings(workdir: Path, references: dict[str, str]):  # type: ignore[no-untyped-def]
    """A 2025-era server (as the official filesystem server is), and ``references``."""
    server = {"command": [sys.executable, str(PROTOCOL), "legacy"], "startup_timeout_s": 60}
    cli = {"mcp": {"servers": {"proto": server}}, "references": {n: {"path": p} for n, p in references.items()}}
    return load_settings(workdir, cli=cli, environ={})


async def _text(host: McpHost, workdir: Path, tool: str) -> str:
    (connection,) = host.hub.connections(workdir)
    assert connection.state is McpState.READY, connection.error
    return (await connection.call(tool, {})).content[0].text


async def test_the_project_root_and_references_are_the_roots_and_a_reload_announces_the_change(
    workdir: Path, tmp_path: Path
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    inside = workdir / "src"
    inside.mkdir()
    host = McpHost(lambda _: None)  # type: ignore[arg-type, return-value]
    tools = McpRegistrations(ToolRegistry(inside))
    try:
        settings = _settings(inside, {"docs": "../docs"})  # relative to the project root
        await host.attach(tools, inside, settings, settings.agent)
        assert (await _text(host, inside, "roots")).splitlines() == [workdir.resolve().as_uri(), docs.as_uri()]
        reloaded = _settings(inside, {})
        await host.attach(tools, inside, reloaded, reloaded.agent)  # the next step, after the settings changed
        (connection,) = host.hub.connections(inside)
        assert connection._announcing is not None
        await asyncio.wait_for(connection._announcing, 30)
        assert (await _text(host, inside, "roots")).splitlines() == [workdir.resolve().as_uri()]
        assert await _text(host, inside, "roots_changed") == "1"  # told once, and not restarted for it
    finally:
        await host.close()
