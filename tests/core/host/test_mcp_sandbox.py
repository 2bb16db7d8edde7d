"""A server's ``sandbox = true`` (or ``[sandbox] mcp_servers = true``) reaches its process: the runtime
starts it under ``[sandbox]``'s policy at the session's project, as a real process."""

from __future__ import annotations

import socket
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

from agent_tui.core.host.mcp_host import McpHost, McpRegistrations
from agent_tui.core.settings.config_validation import load_settings
from agent_tui.tools.registry import ToolRegistry
from agent_tui.tools.sandbox import SandboxMode, bwrap_path, unavailable_reason
from agent_tui.vocab.kinds import McpState

WRITER = Path(__file__).resolve().parents[2] / "fakes" / "mcp_writer.py"
pytestmark = pytest.mark.skipif(bwrap_path() is None, reason=f"no sandbox here: {unavailable_reason()}")


@pytest.fixture
def outside(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder outside the project and outside the temp dir the sandbox leaves writable."""
    folder = tmp_path / "system-tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    (tmp_path / "outside").mkdir()
    return tmp_path / "outside"


async def _writes(workdir: Path, config: dict[str, Any], targets: list[Path]) -> list[bool]:
    """Whether the server, configured by ``config``, could write each of ``targets``."""
    settings = load_settings(workdir, cli=config, environ={})
    host = McpHost(lambda _: None)  # type: ignore[arg-type, return-value]
    try:
        await host.attach(McpRegistrations(ToolRegistry(workdir)), workdir, settings, settings.agent)
        (connection,) = host.hub.connections(workdir)
        assert connection.state is McpState.READY, connection.error
        for target in targets:
            await connection.call("write", {"path": str(target), "text": "hi"})
        return [target.exists() for target in targets]
    finally:
        await host.close()


def _server(**fields: Any) -> dict[str, Any]:
    return {"command": [sys.executable, str(WRITER)], "startup_timeout_s": 60, **fields}


async def test_a_server_with_sandbox_true_writes_only_in_the_project(workdir: Path, outside: Path) -> None:
    config = {"mcp": {"servers": {"files": _server(sandbox=True)}}}
    assert await _writes(workdir, config, [workdir / "in.txt", outside / "out.txt"]) == [True, False]


async def test_sandbox_mcp_servers_confines_every_stdio_server(workdir: Path, outside: Path) -> None:
    config = {"mcp": {"servers": {"files": _server()}}, "sandbox": {"mcp_servers": True}}
    assert await _writes(workdir, config, [workdir / "in.txt", outside / "out.txt"]) == [True, False]


async def test_a_read_only_sandbox_mode_applies_to_the_server(workdir: Path, outside: Path) -> None:
    config = {"mcp": {"servers": {"files": _server(sandbox=True)}}, "sandbox": {"mode": SandboxMode.READ_ONLY.value}}
    assert await _writes(workdir, config, [workdir / "in.txt"]) == [False]


async def test_a_server_without_the_sandbox_runs_as_before(workdir: Path, outside: Path) -> None:
    config = {"mcp": {"servers": {"files": _server()}}}
    assert await _writes(workdir, config, [outside / "out.txt"]) == [True]


async def test_a_changed_sandbox_restarts_the_server_under_the_new_policy(workdir: Path, outside: Path) -> None:
    host = McpHost(lambda _: None)  # type: ignore[arg-type, return-value]
    tools = McpRegistrations(ToolRegistry(workdir))
    try:
        for confined in (False, True):
            cli = {"mcp": {"servers": {"files": _server()}}, "sandbox": {"mcp_servers": confined}}
            settings = load_settings(workdir, cli=cli, environ={})
            await host.attach(tools, workdir, settings, settings.agent)
            (connection,) = host.hub.connections(workdir)
            assert (connection.sandbox is not None) is confined
            assert [status.sandboxed for status in host.status()] == [confined]  # what /mcp and GET /api/mcp show
            target = outside / f"{confined}.txt"
            await connection.call("write", {"path": str(target), "text": "hi"})
            assert target.exists() is not confined
    finally:
        await host.close()


async def test_a_servers_own_network_setting_lets_it_out_of_the_sandboxs_offline_default(
    workdir: Path, outside: Path
) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        port = sock.getsockname()[1]
        seen = {}
        for network in (None, True):
            fields = {"sandbox": True} if network is None else {"sandbox": True, "network": network}
            settings = load_settings(workdir, cli={"mcp": {"servers": {"files": _server(**fields)}}}, environ={})
            host = McpHost(lambda _: None)  # type: ignore[arg-type, return-value]
            try:
                await host.attach(McpRegistrations(ToolRegistry(workdir)), workdir, settings, settings.agent)
                (connection,) = host.hub.connections(workdir)
                seen[network] = (await connection.call("reach", {"port": port})).content[0].text
            finally:
                await host.close()
    assert seen[None].startswith("unreachable") and seen[True] == "reached"
