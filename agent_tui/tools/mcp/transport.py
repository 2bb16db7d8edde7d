"""How the client reaches one server: a stdio process, SSE, or streamable HTTP (``open_transport``).

A stdio server runs confined when a sandbox policy is given (``confined``),
with the environment its config allows (``server_env``), its stderr going to a
temporary file per start attempt (``ServerStderr``): the file's tail is what a
failure notice quotes, so it is kept when the attempt's clean-up removes the
file. A remote server gets its stored login (``oauth``). The end of a stdio
server's output is reported to ``on_end`` (``end_watch``): its process is gone.
"""

from __future__ import annotations

import asyncio
import tempfile
from collections.abc import Callable
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

from agent_tui.tools.mcp.confined import server_argv
from agent_tui.tools.mcp.end_watch import watched
from agent_tui.tools.mcp.oauth import connection_auth
from agent_tui.tools.mcp.server_env import server_environment
from agent_tui.tools.mcp.token_store import TokenStore
from agent_tui.tools.sandbox import SandboxPolicy
from agent_tui.vocab.mcp_server import McpServerConfig

STDERR_TAIL_CHARS = 1500


def _tail(path: Path | None) -> str:
    if path is None:
        return ""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    return text[-STDERR_TAIL_CHARS:].strip()


def _open_file(name: str) -> Any:
    return tempfile.NamedTemporaryFile("w+", prefix=f"agent-tui-mcp-{name}-", suffix=".log", delete=False)


def _unlink(path: Path) -> None:
    path.unlink(missing_ok=True)


class ServerStderr:
    """A stdio server's stderr: one temporary file per start attempt (``path``, the latest), removed
    when the attempt ends; its last ``STDERR_TAIL_CHARS`` say why the server failed (``tail``)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.path: Path | None = None
        self._kept: dict[Path | None, str] = {}  # the last ended attempt's tail, by its file

    async def open(self, stack: AsyncExitStack) -> Any:
        """A new file for this attempt, closed and removed when ``stack`` ends (its tail kept first)."""
        errlog = await asyncio.to_thread(_open_file, self.name)
        stack.callback(errlog.close)
        self.path = Path(errlog.name)
        stack.callback(_unlink, self.path)
        stack.push_async_callback(self.keep_tail, self.path)  # before the unlink (LIFO)
        return errlog

    def forget(self) -> None:
        """Nothing ran this attempt: no earlier attempt's stderr belongs to its failure."""
        self.path = None

    async def keep_tail(self, path: Path) -> None:
        """What a dying server last said outlives its stderr file: the attempt's clean-up may
        remove the file before the call that saw the death reads it (a race a loaded machine won)."""
        self._kept = {path: await asyncio.to_thread(_tail, path)}

    async def tail(self) -> str:
        """The latest attempt's last words: from its file, or as kept when the file was removed."""
        return await asyncio.to_thread(_tail, self.path) or self._kept.get(self.path, "")


async def open_transport(
    stack: AsyncExitStack,
    name: str,
    config: McpServerConfig,
    location: Path,
    *,
    sandbox: SandboxPolicy | None,
    tokens: TokenStore | None,
    stderr: ServerStderr,
    on_end: Callable[[], None],
) -> Any:
    """The SDK transport to server ``name`` (not yet entered; ``stack`` holds what it needs)."""
    if config.command is not None:
        from mcp.client.stdio import StdioServerParameters, stdio_client

        cwd = location / (Path(config.cwd).expanduser() if config.cwd else location)
        command, *args = server_argv(config.command, cwd, sandbox)
        errlog = await stderr.open(stack)
        params = StdioServerParameters(command=command, args=args, cwd=str(cwd), env=server_environment(config))
        return watched(stdio_client(params, errlog=errlog), on_end)
    auth = await asyncio.to_thread(connection_auth, name, config, tokens)
    if config.transport == "sse":
        from mcp.client.sse import sse_client

        return sse_client(config.url or "", headers=config.headers, timeout=config.timeout_s, auth=auth)
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    http = await stack.enter_async_context(
        httpx2.AsyncClient(headers=config.headers, timeout=config.timeout_s, auth=auth)
    )
    return streamable_http_client(config.url or "", http_client=http)
