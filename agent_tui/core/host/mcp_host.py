"""The runtime's MCP side: servers per location, their tools in each session's registry, their guidance.

One ``McpHub`` per process. At each step boundary ``attach`` syncs the
location's connections with its configuration, waits for the agent's servers
that are starting for the first time (each bounded by its timeouts; a server
known to fail is retried in the background and never waited for again) and
any relisting a server asked for, then puts their tools into the session's
registry in place of the last step's.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path

from agent_tui.core.log.records import SessionRecord
from agent_tui.core.settings import paths
from agent_tui.core.settings.config import Settings
from agent_tui.tools.errors import ToolError
from agent_tui.tools.mcp.connection import McpConnection
from agent_tui.tools.mcp.hub import Listener, McpHub, McpStatus
from agent_tui.tools.mcp.tools import registrations
from agent_tui.tools.registry import ToolRegistry
from agent_tui.tools.sandbox import SandboxPolicy
from agent_tui.vocab.clock import Clock
from agent_tui.vocab.kinds import McpState
from agent_tui.vocab.mcp_server import McpServerConfig

SDK_LOG = "mcp.log"
"""The MCP SDK's own log records, in agent-tui's data directory (never on the terminal)."""


def roots(settings: Settings, location: Path) -> list[Path]:
    """The folders a server may work in (``roots/list``): the project root, then each reference's."""
    root = paths.project_root(location)
    return [root, *settings.reference_roots(root).values()]


def enabled(settings: Settings) -> dict[str, McpServerConfig]:
    return {name: server for name, server in settings.mcp.servers.items() if server.enabled}


def sandboxes(settings: Settings, location: Path) -> dict[str, SandboxPolicy]:
    """The policy of each enabled server that runs in the command sandbox (``sandbox = true``)."""
    root = paths.project_root(location)
    found = {name: settings.server_sandbox(root, server) for name, server in enabled(settings).items()}
    return {name: policy for name, policy in found.items() if policy is not None}


class McpRegistrations:
    """The MCP tools one registry holds now, so the next step can replace them."""

    def __init__(self, registry: ToolRegistry) -> None:
        self._registry = registry
        self._removers: list[Callable[[], None]] = []

    def replace(self, connections: list[McpConnection]) -> None:
        for remove in self._removers:
            remove()
        self._removers = []
        for connection in connections:
            if connection.state is not McpState.READY:
                continue
            for tool in registrations(connection):
                try:
                    self._removers.append(self._registry.register(tool))
                except ValueError:  # not reached: tool_name is unique per server and `offered` drops
                    continue  # (with a notice) a tool whose name another of its server's tools has


class McpHost:
    def __init__(self, settings_for: Callable[[str], Awaitable[Settings]], clock: Clock | None = None) -> None:
        self.hub = McpHub(clock, paths.data_dir() / SDK_LOG)
        self._settings_for = settings_for
        self._warming: set[asyncio.Task[list[McpConnection]]] = set()

    async def attach(self, tools: McpRegistrations, location: Path, settings: Settings, agent: str) -> None:
        connections = await self.hub.sync(
            location, enabled(settings), sandboxes(settings, location), roots(settings, location)
        )
        chosen = settings.mcp_servers(agent)
        selected = [c for c in connections if c.name in chosen]
        await asyncio.gather(*(c.settled() for c in selected if c.worth_waiting))
        await asyncio.gather(*(c.relisted() for c in selected))
        tools.replace(selected)

    def offer_ready(self, registry: ToolRegistry, location: Path, settings: Settings, agent: str) -> None:
        """Put the tools of the agent's servers that are ready now into ``registry``, without starting
        or waiting for any (what a step would offer, as far as is known now)."""
        chosen = settings.mcp_servers(agent)
        McpRegistrations(registry).replace([c for c in self.hub.connections(location) if c.name in chosen])

    def warm(self, location: Path, settings: Settings) -> asyncio.Task[list[McpConnection]] | None:
        """Start the location's servers in the background (after the first frame), without waiting."""
        if not enabled(settings):
            return None
        task = asyncio.get_running_loop().create_task(
            self.hub.sync(location, enabled(settings), sandboxes(settings, location), roots(settings, location))
        )
        self._warming.add(task)  # the loop keeps only a weak reference to a task
        task.add_done_callback(self._warmed)
        return task

    def _warmed(self, task: asyncio.Task[list[McpConnection]]) -> None:
        self._warming.discard(task)
        if not task.cancelled():
            task.exception()  # a failure shows again, with its reason, when a step syncs the servers

    async def guidance(self, session: SessionRecord) -> dict[str, str | None]:
        """The selected servers' instructions; None for one not ready (the model keeps what it last saw)."""
        settings = await self._settings_for(session.location)
        chosen = settings.mcp_servers(session.agent or settings.agent)
        by_name = {c.name: c for c in self.hub.connections(Path(session.location))}
        out: dict[str, str | None] = {}
        for name in chosen:
            connection = by_name.get(name)
            if connection is None or connection.state is not McpState.READY:
                out[name] = None
            else:
                out[name] = connection.instructions or ""
        return out

    def status(self) -> list[McpStatus]:
        return self.hub.status()

    def _prompt_server(self, location: Path, server: str) -> McpConnection:
        connection = self.hub.connection(location, server)
        if connection is None:
            raise ToolError(f"no MCP server {server} here")
        return connection

    async def prompt(self, location: Path, server: str, prompt: str, arguments: dict[str, str]) -> str:
        """A server's prompt expanded with ``arguments``: the text to admit as the user's prompt.
        Raises ``ToolError`` (the server is not here or not running, or it refused) with the reason."""
        return await self._prompt_server(location, server).prompt(prompt, arguments)

    async def complete(
        self, location: Path, server: str, prompt: str, argument: str, value: str, context: dict[str, str]
    ) -> list[str]:
        """The server's completions of a prompt argument's value; none when it has none to offer."""
        connection = self.hub.connection(location, server)
        return [] if connection is None else await connection.complete(prompt, argument, value, context)

    def watch(self, listener: Listener) -> Callable[[], None]:
        return self.hub.watch(listener)

    async def close(self) -> None:
        for task in list(self._warming):
            task.cancel()
        await asyncio.gather(*self._warming, return_exceptions=True)
        await self.hub.close()
