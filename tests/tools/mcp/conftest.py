"""The fake MCP server as a real process: its stdio config, and a streamable HTTP instance on a free port."""

from __future__ import annotations

import asyncio
import os
import socket
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from agent_tui.vocab.mcp_server import McpServerConfig

SERVER = Path(__file__).resolve().parents[2] / "fakes" / "mcp_server.py"
UNRULY = Path(__file__).resolve().parents[2] / "fakes" / "mcp_unruly.py"
PROTOCOL = Path(__file__).resolve().parents[2] / "fakes" / "mcp_protocol.py"


def stdio_config(tmp_path: Path, **env: str) -> McpServerConfig:
    return McpServerConfig(
        command=[sys.executable, str(SERVER), "stdio"],
        env={"FAKE_MCP_MARKS": str(tmp_path), **env},
        startup_timeout_s=60,
    )


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def protocol_config(legacy: bool = False) -> McpServerConfig:
    """The server that asks for roots, reports progress and logs (``tests/fakes/mcp_protocol.py``);
    ``legacy``: it speaks only the 2025 handshake, as the official servers do."""
    return McpServerConfig(
        command=[sys.executable, str(PROTOCOL), *(["legacy"] if legacy else [])], startup_timeout_s=60
    )


def unruly_config(mode: str = "ok", **fields: object) -> McpServerConfig:
    """The misbehaving server (``tests/fakes/mcp_unruly.py``) in ``mode``, with config ``fields``."""
    return McpServerConfig(command=[sys.executable, str(UNRULY), mode], **{"startup_timeout_s": 60, **fields})


@pytest.fixture
def notes(tmp_path: Path) -> McpServerConfig:
    return stdio_config(tmp_path)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
async def http_notes(tmp_path: Path) -> AsyncIterator[McpServerConfig]:
    """The same server over streamable HTTP; yields once it accepts connections."""
    async for port in serving("http", tmp_path):
        yield McpServerConfig(url=f"http://127.0.0.1:{port}/mcp", headers={"X-Test": "1"})


@pytest.fixture
async def sse_notes(tmp_path: Path) -> AsyncIterator[McpServerConfig]:
    """The same server over the older SSE transport."""
    async for port in serving("sse", tmp_path):
        yield McpServerConfig(url=f"http://127.0.0.1:{port}/sse", type="sse", headers={"X-Test": "1"})


async def serving(transport: str, tmp_path: Path) -> AsyncIterator[int]:
    """The fake server as a process over ``transport`` (http or sse) on a free port; yields the
    port once it accepts connections, and ends the process after."""
    port = _free_port()
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        str(SERVER),
        transport,
        str(port),
        env={"FAKE_MCP_MARKS": str(tmp_path), "PATH": ""},
        stderr=asyncio.subprocess.DEVNULL,
    )
    try:

        async def listening() -> None:
            while True:
                try:
                    _, writer = await asyncio.open_connection("127.0.0.1", port)
                except OSError:
                    await asyncio.sleep(0.05)
                    continue
                writer.close()
                return

        await asyncio.wait_for(listening(), 60)
        yield port
    finally:
        process.terminate()
        await process.wait()
