"""The runtime's MCP side: servers per location, their tools in each session's registry, their guidance.

One ``McpHub`` per process. At each step boundary ``attach`` syncs the
location's connections with its configuration, waits for the agent's servers
that are starting for the first time (each bounded by its timeouts; a server
known to fail is retried in the background and never waited for again) and
any relisting a server asked for, then puts their tools into the session's
registry in place of the last step's: with ``list_mcp_resources`` and
``read_mcp_resource`` when one of them offers resources. ``read_resource`` and
``resources`` serve ``@server:uri`` mentions and their completion (front ends
reach them through the runtime).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path

from agent_tui.core.log import events as ev
from agent_tui.core.log.records import SessionRecord
from agent_tui.core.request.mcp_resources import Mentions
from agent_tui.core.settings import paths
from agent_tui.core.settings.config import Settings
from agent_tui.tools.errors import ToolError
from agent_tui.tools.mcp.connection import McpConnection
from agent_tui.tools.mcp.hub import Listener, McpHub, McpStatus
from agent_tui.tools.mcp.resource_tools import resource_tools
from agent_tui.tools.mcp.resources import McpResourceInfo, read_text
from agent_tui.tools.mcp.token_store import ChosenTokenStore
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
        ready = [c for c in connections if c.state is McpState.READY]
        for tool in [*(t for c in ready for t in registrations(c)), *resource_tools(ready)]:
            try:
                self._removers.append(self._registry.register(tool))
            except ValueError:  # not reached: tool_name is unique per server and `offered` drops (with
                continue  # a notice) a tool whose name another of its server's tools has; mcp__ never
                # begins the resource tools' names


class McpHost:
    def __init__(self, settings_for: Callable[[str], Awaitable[Settings]], clock: Clock | None = None) -> None:
        self.hub = McpHub(clock, paths.data_dir() / SDK_LOG, ChosenTokenStore(paths.data_dir()))
        self._settings_for = settings_for
        self._warming: set[asyncio.Task[list[McpConnection]]] = set()
        self._told: dict[tuple[str, str, str], int] = {}
        """(session, server, uri) -> the change count of the resource last told to that session."""

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

    # -- resources: @server:uri mentions, their completion, their changes ----------------

    async def _connection(self, location: Path, settings: Settings, server: str) -> McpConnection:
        """The location's connection to ``server`` (synced first: the front end may be ahead of any step)."""
        connections = await self.hub.sync(
            location, enabled(settings), sandboxes(settings, location), roots(settings, location)
        )
        found = next((c for c in connections if c.name == server), None)
        if found is None:
            raise ToolError(f"no MCP server {server} is configured here")
        return found

    async def read_mention(self, location: Path, settings: Settings, server: str, uri: str) -> ev.ResourcePart:
        """``@server:uri`` as the part the model will see (text only: a blob is described); the server
        is asked to report its changes where it can."""
        connection = await self._connection(location, settings, server)
        read = read_text(await connection.read_resource(uri), vision=False)
        await connection.watch.subscribe(uri)
        return ev.ResourcePart(server=server, uri=uri, mime=read.mime, text=read.text)

    def resources(self, location: Path, settings: Settings, agent: str) -> dict[str, list[McpResourceInfo]]:
        """The resources (and templates) each ready server the agent uses listed, by server: what
        ``@server:`` completes from. Nothing is started or waited for."""
        chosen = settings.mcp_servers(agent)
        return {
            c.name: list(c.resources)
            for c in self.hub.connections(location)
            if c.name in chosen and c.state is McpState.READY and c.has_resources
        }

    async def resource_changes(self, session: SessionRecord, load: Mentions) -> dict[str, str | None]:
        """Per mentioned resource (``server:uri``): its text read again when its server reported a change
        this session was not told of yet, else None (the model keeps what it last saw). Each is
        (re)subscribed, so a restarted server or process watches it again. The mentions are loaded
        only when a ready server here can report changes."""
        location = Path(session.location)
        by_name = {c.name: c for c in self.hub.connections(location) if c.state is McpState.READY}
        if not any(c.watch.supported for c in by_name.values()):
            return {}
        mentioned = await load()
        out: dict[str, str | None] = {}
        for server, uri in mentioned:
            key, connection = f"{server}:{uri}", by_name.get(server)
            out[key] = None
            if connection is None:
                continue
            if not await connection.watch.subscribe(uri):
                continue
            seen = (session.id, server, uri)
            version = connection.watch.version(uri)
            if version <= self._told.get(seen, 0):
                continue
            try:
                out[key] = read_text(await connection.read_resource(uri), vision=False).text
            except ToolError:  # not readable now: the model keeps what it saw; retried at the next step
                continue
            self._told[seen] = version
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
