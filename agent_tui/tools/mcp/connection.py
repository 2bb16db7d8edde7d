"""One MCP server connection: started in the background, restarted with backoff after a failure.

The SDK's client is an anyio context manager, so one task (``_run``) enters
it, holds it while the server is ready and leaves it on stop or failure;
calls come from the runner's tool tasks and only send requests through it.
Leaving the context ends a stdio server's whole process group (the SDK
starts it in a new session and terminates the tree).
"""

from __future__ import annotations

import asyncio
import importlib
import os
import tempfile
from contextlib import AsyncExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from agent_tui.tools.errors import ToolError
from agent_tui.vocab.clock import Clock, SystemClock
from agent_tui.vocab.kinds import McpState
from agent_tui.vocab.mcp_server import McpServerConfig

STDERR_TAIL_CHARS = 1500
BACKOFF_BASE_MS = 1_000
BACKOFF_CAP_MS = 60_000


@dataclass(frozen=True)
class McpToolInfo:
    """One tool as the server lists it."""

    name: str
    description: str
    schema: dict[str, Any]


def backoff_ms(failures: int, crashed: bool = False) -> int:
    """Wait before the next start after ``failures`` failures in a row: 1 s, 2 s, 4 s … 60 s. A server
    that died after it was ready restarts at once the first time (``crashed``): the next call needs it."""
    steps = failures - 1 if crashed else failures
    if steps <= 0:
        return 0
    return min(BACKOFF_BASE_MS * 2 ** (steps - 1), BACKOFF_CAP_MS)


async def load_sdk() -> None:
    """Import the SDK in a thread, so the event loop (the TUI) keeps running meanwhile."""
    await asyncio.to_thread(importlib.import_module, "mcp.client.stdio")
    await asyncio.to_thread(importlib.import_module, "mcp.client.streamable_http")


def _stderr_tail(path: Path | None) -> str:
    if path is None:
        return ""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    return text[-STDERR_TAIL_CHARS:].strip()


class McpConnection:
    """A server by name at one location; ``state``, ``tools`` and ``instructions`` describe it now."""

    def __init__(self, name: str, config: McpServerConfig, location: Path, clock: Clock | None = None,
                 on_change: Callable[["McpConnection"], None] | None = None) -> None:
        self.name = name
        self.config = config
        self.location = location
        self.state = McpState.STOPPED
        self.tools: list[McpToolInfo] = []
        self.instructions: str | None = None
        self.error: str | None = None
        self._clock = clock or SystemClock()
        self._on_change = on_change or (lambda _: None)
        self._client: Any = None
        self._task: asyncio.Task[None] | None = None
        self._settled = asyncio.Event()
        self._stop = asyncio.Event()
        self.failures = 0
        """Failures in a row; a notice is shown for the first (``fresh_failure``), not for each retry."""
        self._retry_at_ms = 0
        self._stderr: Path | None = None

    # -- lifecycle -----------------------------------------------------------------

    def start(self) -> None:
        """Start unless running, starting, or waiting out its backoff after a failure."""
        previous = self._task
        if previous is not None and not previous.done() and not self._stop.is_set():
            return
        if self.state is McpState.FAILED and self._clock.now_ms() < self._retry_at_ms:
            return
        self._settled = asyncio.Event()
        self._stop = asyncio.Event()
        self._set(McpState.STARTING, None)
        self._task = asyncio.get_running_loop().create_task(self._run(previous), name=f"mcp:{self.name}")

    async def settled(self) -> None:
        """Wait until the current start attempt is ready or failed (it is bounded by ``startup_timeout_s``)."""
        if self.state is McpState.STARTING:
            await self._settled.wait()

    async def stop(self) -> None:
        self._stop.set()
        task = self._task
        if task is not None and not task.done() and self.state is McpState.STARTING:
            task.cancel()  # nothing to close politely yet; the SDK's context still ends the process
        if task is not None and not task.done():
            _, pending = await asyncio.wait([task], timeout=self.config.startup_timeout_s)
            for late in pending:  # a server that will not close: cancel its context (the SDK kills the tree)
                late.cancel()
        if self.state is not McpState.FAILED:
            self._set(McpState.STOPPED, None)

    def _set(self, state: McpState, error: str | None) -> None:
        self.state, self.error = state, error
        self._on_change(self)

    async def _run(self, previous: asyncio.Task[None] | None) -> None:
        settled, stop = self._settled, self._stop  # this attempt's: a restart makes new ones
        if previous is not None:  # a failed run still closing its server: let it finish first
            await asyncio.wait([previous])
        client = None
        try:
            async with AsyncExitStack() as stack:
                try:
                    async with asyncio.timeout(self.config.startup_timeout_s):
                        client = await self._connect(stack)
                        listed = await client.list_tools()
                except TimeoutError:
                    await self._failed(f"did not start within {self.config.startup_timeout_s:g} s")
                    return
                except Exception as error:  # noqa: BLE001 - any start failure is one notice
                    exited = self.config.command is not None and _is_closed(error)
                    await self._failed("failed to start: " + ("the process exited before the handshake" if exited
                                                              else _reason(error)))
                    return
                self._client = client
                self.instructions = (client.instructions or "").strip() or None
                self.tools = [McpToolInfo(t.name, t.description or "", dict(t.input_schema or {"type": "object"}))
                              for t in listed.tools]
                self._set(McpState.READY, None)
                settled.set()
                await stop.wait()
        except Exception as error:  # noqa: BLE001 - a failure while closing the SDK's context
            if self.state is not McpState.FAILED and self._stop is stop:
                await self._failed(f"stopped with an error: {_reason(error)}")
        finally:
            if self._client is client:
                self._client = None
            settled.set()

    async def _connect(self, stack: AsyncExitStack) -> Any:
        from mcp import Client

        if self.config.command is not None:
            from mcp.client.stdio import StdioServerParameters, stdio_client

            errlog = await asyncio.to_thread(_open_stderr_file, self.name)
            stack.callback(errlog.close)
            self._stderr = Path(errlog.name)
            stack.callback(_unlink, self._stderr)
            command, *args = self.config.command
            cwd = Path(self.config.cwd).expanduser() if self.config.cwd else self.location
            params = StdioServerParameters(command=command, args=args, cwd=str(self.location / cwd),
                                           env={**os.environ, **self.config.env})
            transport = stdio_client(params, errlog=errlog)
        else:
            import httpx2
            from mcp.client.streamable_http import streamable_http_client

            http = await stack.enter_async_context(httpx2.AsyncClient(headers=self.config.headers,
                                                                      timeout=self.config.timeout_s))
            transport = streamable_http_client(self.config.url or "", http_client=http)
        return await stack.enter_async_context(Client(transport, read_timeout_seconds=self.config.timeout_s))

    @property
    def fresh_failure(self) -> bool:
        return self.state is McpState.FAILED and self.failures == 1

    async def _failed(self, reason: str, crashed: bool = False) -> None:
        self.failures += 1
        self._retry_at_ms = self._clock.now_ms() + backoff_ms(self.failures, crashed)
        tail = await asyncio.to_thread(_stderr_tail, self._stderr)
        self.tools, self._client = [], None
        self._set(McpState.FAILED, f"{reason}" + (f"\n{tail}" if tail else ""))
        self._settled.set()
        self._stop.set()

    # -- calls ---------------------------------------------------------------------

    async def call(self, tool: str, arguments: dict[str, Any]) -> Any:
        """The server's ``CallToolResult``; a server that is down, dies or times out raises ``ToolError``."""
        if self.state is not McpState.READY:
            self.start()
            await self.settled()
        client = self._client
        if self.state is not McpState.READY or client is None:
            raise ToolError(f"MCP server {self.name} is not running: {self.error or self.state.value}.")
        try:
            async with asyncio.timeout(self.config.timeout_s):
                result = await client.call_tool(tool, arguments)
        except TimeoutError:
            raise ToolError(f"MCP server {self.name}: {tool} did not answer within {self.config.timeout_s:g} s.") from None
        except Exception as error:  # noqa: BLE001 - the SDK raises MCPError or transport errors
            if self._stop.is_set() or _is_closed(error):
                await self._failed(f"exited during {tool}", crashed=True)
                raise ToolError(f"MCP server {self.name} exited during {tool}: {self.error}") from None
            raise ToolError(f"MCP server {self.name}: {tool} failed: {_reason(error)}") from None
        self.failures = 0
        return result


def _open_stderr_file(name: str) -> Any:
    return tempfile.NamedTemporaryFile("w+", prefix=f"agent-tui-mcp-{name}-", suffix=".log", delete=False)


def _unlink(path: Path) -> None:
    path.unlink(missing_ok=True)


def _innermost(error: BaseException) -> BaseException:
    """The SDK's anyio task groups wrap a failure in exception groups: the first leaf says what happened."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    return error


def _is_closed(error: BaseException) -> bool:
    inner = _innermost(error)
    return "closed" in str(inner).lower() or type(inner).__name__ in {"ClosedResourceError", "BrokenResourceError",
                                                                        "EndOfStream"}


def _reason(error: BaseException) -> str:
    inner = _innermost(error)
    text = str(inner).strip()
    return f"{type(inner).__name__}: {text}" if text else type(inner).__name__
