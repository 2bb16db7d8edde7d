"""The process's MCP connections, one per (location, server name), shared by the sessions there.

``sync`` makes the connections match a location's configuration: new servers
start in the background, a changed or removed one is stopped, and every one
is given the location's roots (a change is announced to a running server,
never a restart). ``close`` stops
them all (their process groups too) when the process exits.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from agent_tui.tools.mcp.connection import McpConnection
from agent_tui.tools.mcp.prompts import McpPromptInfo
from agent_tui.tools.mcp.resources import McpResourceInfo
from agent_tui.tools.mcp.sdk_log import load_sdk
from agent_tui.tools.mcp.server_log import McpLogEntry
from agent_tui.tools.mcp.token_store import TokenStore
from agent_tui.tools.sandbox import SandboxPolicy
from agent_tui.vocab.clock import Clock
from agent_tui.vocab.kinds import McpState
from agent_tui.vocab.mcp_server import McpServerConfig

Listener = Callable[[McpConnection], None]


@dataclass(frozen=True)
class McpStatus:
    """What ``/mcp`` and ``GET /api/mcp`` show of one server."""

    name: str
    location: str
    transport: str
    state: McpState
    tools: tuple[str, ...]
    error: str | None
    failures: int = 0
    skipped: tuple[str, ...] = ()
    """Why some of its tools are not offered: one notice each."""
    sandboxed: bool = False
    """Its process runs in the command sandbox (``sandbox = true``)."""
    logs: tuple[McpLogEntry, ...] = ()
    """What it logged lately, oldest first (``server_log.KEPT`` at most)."""
    prompts: tuple[McpPromptInfo, ...] = ()
    """Its prompts, each a slash command (``/mcp__<server>__<prompt>``)."""
    resources: tuple[McpResourceInfo, ...] = ()
    """The resources (and URI templates) it listed: what ``@server:`` completes from and ``GET /api/mcp`` lists."""

    @property
    def fresh_failure(self) -> bool:
        """Failed for the first time in a row: worth one notice (the retries are not)."""
        return self.state is McpState.FAILED and self.failures == 1


class McpHub:
    def __init__(
        self, clock: Clock | None = None, log_file: Path | None = None, tokens: TokenStore | None = None
    ) -> None:
        self._clock = clock
        self._tokens = tokens
        self._log_file = log_file
        self._connections: dict[tuple[Path, str], McpConnection] = {}
        self._listeners: list[Listener] = []
        self._sdk: asyncio.Task[None] | None = None

    def watch(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener`` on every state change; returns the function that stops it."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def _changed(self, connection: McpConnection) -> None:
        for listener in list(self._listeners):
            listener(connection)

    async def sync(
        self,
        location: Path,
        servers: Mapping[str, McpServerConfig],
        sandboxes: Mapping[str, SandboxPolicy] | None = None,
        roots: Iterable[Path] = (),
    ) -> list[McpConnection]:
        """The location's connections for ``servers`` (enabled ones), each started unless it is up or backing off;
        ``sandboxes`` holds the policy of each server that runs confined (a changed policy restarts it);
        ``roots`` are the folders each may work in (a change is announced, not restarted for)."""
        roots = tuple(roots)
        if servers:
            await self._load_sdk()
        policies = sandboxes or {}
        stale = [
            (key, c)
            for key, c in self._connections.items()
            if key[0] == location and (servers.get(key[1]) != c.config or policies.get(key[1]) != c.sandbox)
        ]
        for key, old in stale:
            if self._connections.get(key) is old:  # another sync may have replaced it meanwhile
                del self._connections[key]
                await old.stop()
        out = []
        for name, config in servers.items():
            connection = self._connections.get((location, name))
            if connection is None:
                connection = McpConnection(
                    name, config, location, self._clock, self._changed, policies.get(name), roots, self._tokens
                )
                self._connections[(location, name)] = connection
            connection.set_roots(roots)
            connection.start()
            out.append(connection)
        return out

    async def _load_sdk(self) -> None:
        if self._sdk is None:
            self._sdk = asyncio.get_running_loop().create_task(load_sdk(self._log_file))
        await asyncio.shield(self._sdk)

    def connections(self, location: Path | None = None) -> list[McpConnection]:
        return [c for (where, _), c in self._connections.items() if location is None or where == location]

    def status(self, location: Path | None = None) -> list[McpStatus]:
        return [
            McpStatus(
                c.name,
                str(c.location),
                c.config.transport,
                c.state,
                tuple(t.name for t in c.tools),
                c.error,
                c.failures,
                c.skipped,
                c.sandbox is not None,
                c.logs,
                tuple(c.prompts),
                tuple(c.resources),
            )
            for c in self.connections(location)
        ]

    def connection(self, location: Path, name: str) -> McpConnection | None:
        return self._connections.get((location, name))

    async def close(self) -> None:
        connections, self._connections = list(self._connections.values()), {}
        await asyncio.gather(*(c.stop() for c in connections), return_exceptions=True)
