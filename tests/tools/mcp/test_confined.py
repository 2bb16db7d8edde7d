"""A stdio MCP server in the command sandbox, as a real process: what it may write, and a sandbox
that was asked for but cannot exist here (no bubblewrap) failing the server instead of starting it
unconfined."""

from __future__ import annotations

import socket
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent_tui.tools.mcp.confined import server_argv
from agent_tui.tools.mcp.connection import McpConnection
from agent_tui.tools.sandbox import SandboxMode, SandboxPolicy, bwrap_path, unavailable_reason
from agent_tui.vocab.clock import ManualClock
from agent_tui.vocab.kinds import McpState
from agent_tui.vocab.mcp_server import McpServerConfig

WRITER = Path(__file__).resolve().parents[2] / "fakes" / "mcp_writer.py"
needs_bwrap = pytest.mark.skipif(bwrap_path() is None, reason=f"no sandbox here: {unavailable_reason()}")


@pytest.fixture
def system_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The temp dir the sandbox leaves writable: a folder of its own, so the project and the
    'outside' folder (both under pytest's tmp_path, itself in the real temp dir) are not writable through it."""
    folder = tmp_path / "system-tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    folder = tmp_path / "outside"
    folder.mkdir()
    return folder


def _writer() -> McpServerConfig:
    return McpServerConfig(command=[sys.executable, str(WRITER)], startup_timeout_s=60)


async def _started(location: Path, sandbox: SandboxPolicy | None) -> McpConnection:
    connection = McpConnection("files", _writer(), location, ManualClock(), sandbox=sandbox)
    connection.start()
    await connection.settled()
    return connection


async def _write(connection: McpConnection, path: Path) -> Any:
    return await connection.call("write", {"path": str(path), "text": "hello"})


@needs_bwrap
async def test_a_sandboxed_server_writes_in_the_project_and_its_write_outside_fails(
    workdir: Path, outside: Path, system_tmp: Path
) -> None:
    policy = SandboxPolicy(SandboxMode.WORKSPACE_WRITE, writable_roots=(workdir,))
    connection = await _started(workdir, policy)
    try:
        assert connection.state is McpState.READY, connection.error
        inside = await _write(connection, workdir / "in.txt")
        assert not inside.is_error and (workdir / "in.txt").read_text() == "hello"
        escaped = await _write(connection, outside / "out.txt")
        assert escaped.is_error, escaped
        assert not (outside / "out.txt").exists()
        in_tmp = await _write(connection, system_tmp / "t.txt")
        assert not in_tmp.is_error and (system_tmp / "t.txt").exists()
    finally:
        await connection.stop()


@needs_bwrap
async def test_a_read_only_sandbox_keeps_even_the_project_unwritten(workdir: Path, system_tmp: Path) -> None:
    connection = await _started(workdir, SandboxPolicy(SandboxMode.READ_ONLY, writable_roots=(workdir,)))
    try:
        assert connection.state is McpState.READY, connection.error
        assert (await _write(connection, workdir / "in.txt")).is_error
        assert not (workdir / "in.txt").exists()
    finally:
        await connection.stop()


async def test_without_a_sandbox_the_same_server_writes_outside(workdir: Path, outside: Path, system_tmp: Path) -> None:
    connection = await _started(workdir, None)
    try:
        assert not (await _write(connection, outside / "out.txt")).is_error
        assert (outside / "out.txt").read_text() == "hello"
    finally:
        await connection.stop()


async def test_a_sandbox_asked_for_without_bubblewrap_fails_the_server_with_the_reason(
    workdir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    empty = tmp_path / "bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))  # no bwrap on PATH (the server's python is an absolute path)
    monkeypatch.setattr(sys, "platform", "linux")
    marker = workdir / "started.txt"
    config = McpServerConfig(
        command=[sys.executable, "-c", f"open({str(marker)!r}, 'w')"], startup_timeout_s=60
    )  # were it started at all, the marker would exist
    connection = McpConnection(
        "files", config, workdir, ManualClock(), sandbox=SandboxPolicy(writable_roots=(workdir,))
    )
    connection.start()
    await connection.settled()
    try:
        assert connection.state is McpState.FAILED and connection.fresh_failure
        assert connection.error is not None
        assert connection.error.startswith("failed to start: sandbox requested but bubblewrap (bwrap) is not installed")
        assert not marker.exists()
    finally:
        await connection.stop()


@pytest.fixture
def listening() -> Iterator[int]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        yield sock.getsockname()[1]


@needs_bwrap
@pytest.mark.parametrize("network", [False, True])
async def test_a_sandboxed_server_reaches_the_network_only_when_allowed(
    workdir: Path, system_tmp: Path, listening: int, network: bool
) -> None:
    connection = await _started(workdir, SandboxPolicy(network=network, writable_roots=(workdir,)))
    try:
        result = await connection.call("reach", {"port": listening})
        assert (result.content[0].text == "reached") is network, result.content[0].text
    finally:
        await connection.stop()


def test_no_policy_leaves_the_command_as_it_is(workdir: Path) -> None:
    assert server_argv(["srv", "--flag"], workdir, None) == ["srv", "--flag"]


@needs_bwrap
def test_a_policy_wraps_the_command_in_bubblewrap_at_the_servers_folder(workdir: Path) -> None:
    argv = server_argv(["srv", "--", "x"], workdir, SandboxPolicy(writable_roots=(workdir,)))
    assert argv[0] == bwrap_path() and argv[-4:] == ["--", "srv", "--", "x"]
    assert argv[argv.index("--chdir") + 1] == str(workdir) and "--unshare-net" in argv
