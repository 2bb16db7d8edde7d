"""Composition root of the core: store + facade + coordinator + runner.

The TUI, ``agent-tui run`` and ``agent-tui serve`` each open one Runtime and
talk to ``runtime.sessions`` only: the store, runner and coordinator are
private, and everything a caller needs (run, interrupt, shutdown, rebuild) is a
facade method.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_tui.core.host.hooks import HookSite
from agent_tui.core.host.mcp_host import McpHost, McpRegistrations
from agent_tui.core.host.samplings import Sampled
from agent_tui.core.host.snapshot_hook import SnapshotBeforeChange
from agent_tui.core.host.tool_hooks import ToolHooks, notifying, stop_notices
from agent_tui.core.host.tool_host import RegistryToolHost, build_registry, make_gate, tool_definitions
from agent_tui.core.inbox.promotion import eligible
from agent_tui.core.inbox.resource_mentions import ResourceReader
from agent_tui.core.log import events as ev
from agent_tui.core.log.publisher import SessionPublisher
from agent_tui.core.log.records import SessionRecord
from agent_tui.core.request.instructions import Instructions
from agent_tui.core.run.cluster_host import ClusterHost
from agent_tui.core.run.compaction import Compactor
from agent_tui.core.run.context_view import ContextProbe
from agent_tui.core.run.coordinator import Coordinator
from agent_tui.core.run.runner import LocationServices, Runner, step_model
from agent_tui.core.run.sampling_call import run_sampling
from agent_tui.core.run.step import StreamFn
from agent_tui.core.run.subagents import Subagents, spawns_subagents
from agent_tui.core.sessions import Sessions, open_sessions
from agent_tui.core.settings import paths
from agent_tui.core.settings.config import Settings
from agent_tui.core.settings.config_layers import ConfigStamp, config_stamp
from agent_tui.core.settings.config_sections import TelemetrySettings
from agent_tui.core.settings.config_validation import load_settings
from agent_tui.tools.errors import ToolError
from agent_tui.tools.mcp.hub import McpStatus
from agent_tui.tools.registry import ToolRegistry
from agent_tui.tools.task import TASK_TOOL
from agent_tui.vocab.clock import Clock
from agent_tui.vocab.kinds import ApprovalMode
from agent_tui.vocab.observation import NoObserver, RunObserver
from agent_tui.vocab.sampling import SamplingRequest

if TYPE_CHECKING:
    from agent_tui.llm.types import ToolSpec

SettingsLoader = Callable[[Path], Settings]


class McpPromptError(Exception):
    """An MCP prompt that cannot be expanded: its server is not here or not running, or it refused."""


class Runtime:
    def __init__(
        self,
        sessions: Sessions,
        settings_loader: SettingsLoader,
        permission_policy: str | None,
        stream: StreamFn | None,
        clock: Clock | None,
        registry_factory: Callable[[Path], ToolRegistry] = build_registry,
        observer: RunObserver | None = None,
    ) -> None:
        self.sessions = sessions
        self._observer: RunObserver = observer or NoObserver()
        self._registry_factory = registry_factory
        self._store = sessions._store  # noqa: SLF001 - the composition root wires the facade's own store
        self._settings_loader = settings_loader
        self._policy = permission_policy
        self._settings: dict[str, tuple[ConfigStamp, Settings]] = {}
        self._hosts: dict[str, RegistryToolHost] = {}
        self._mcp = McpHost(self.settings_for, clock)
        self._mcp_tools: dict[str, McpRegistrations] = {}
        self._stream = stream
        compactor = Compactor(
            self._store, lambda session: self.settings_for(session.location), stream=stream, clock=clock
        )
        self._runner = Runner(
            self._store,
            self.publisher,
            self._services,
            stream=stream,
            clock=clock,
            compaction=compactor,
            instructions=Instructions(
                self._store, mcp=self._mcp.guidance, resources=self._mcp.resource_changes, observer=self._observer
            ),
            observer=self._observer,
        )
        sessions.context_probe = ContextProbe(
            lambda session: self.settings_for(session.location),
            self._tools_for,
            compactor.model_info,
            self._mcp.guidance,
        )
        self._cluster = ClusterHost.on(self._store)
        self._coordinator = Coordinator(
            self._runner,
            self._store.publish,
            has_pending=self._has_pending,
            **(self._cluster.coordinator_hooks() if self._cluster is not None else {}),
        )
        self._store.running_fence = self._coordinator.fence
        if self._cluster is not None:
            sessions.cluster_view = self._cluster.active
        self._subagents = Subagents(self._store, self._coordinator, self.settings_for)
        sessions.set_executor(self._coordinator)
        sessions.on_approval = self._approval_chosen

    @classmethod
    async def open(
        cls,
        settings_loader: SettingsLoader | None = None,
        *,
        cli: dict[str, Any] | None = None,
        permission_policy: str | None = None,
        stream: StreamFn | None = None,
        clock: Clock | None = None,
        db_path: Path | None = None,
        registry_factory: Callable[[Path], ToolRegistry] = build_registry,
    ) -> Runtime:
        loader = settings_loader or (lambda location: load_settings(location, cli=cli))
        base = await asyncio.to_thread(loader, Path.cwd())
        # the SDK's import (~80-200 ms, only when telemetry is on) overlaps the store's opening
        telemetry = asyncio.ensure_future(asyncio.to_thread(start_telemetry, base.telemetry))
        try:
            sessions = await open_sessions(base, path=db_path or paths.database_path())
        except BaseException:
            observer = await telemetry
            if observer is not None:  # the store did not open: no runtime will close it
                await asyncio.to_thread(observer.close)
            raise
        observer = await telemetry
        runtime = cls(sessions, loader, permission_policy, stream, clock, registry_factory, observer)
        if runtime._cluster is not None:
            try:
                await runtime._cluster.serve(runtime._coordinator.interrupt, runtime._coordinator.wake)
            except BaseException:
                await runtime.close()
                raise
        runtime._mcp.warm(Path.cwd(), base)
        return runtime

    async def close(self) -> None:
        try:
            await self._coordinator.shutdown()
            if self._cluster is not None:
                await self._cluster.close()
            await stop_notices()
            await self._mcp.close()
            await self.sessions.close()
        finally:
            await asyncio.to_thread(self._observer.close)  # the last spans and metrics leave before the process does

    async def warm_mcp(self, location: Path) -> None:
        """Start the MCP servers configured at ``location`` in the background (the TUI calls it after
        its first frame); a step that needs them waits only for what is still starting."""
        self._mcp.warm(location, await self.settings_for(str(location)))

    def mcp_status(self) -> list[McpStatus]:
        """Every MCP server this process has: name, location, transport, state, tools, error."""
        return self._mcp.status()

    def mcp_reader(self, location: str | Path, agent: str | None = None) -> ResourceReader:
        """What ``build_prompt`` reads ``@server:uri`` mentions with, at ``location`` (``agent``: the
        selected one; a server it does not use is refused as if not configured)."""

        async def read(server: str, uri: str) -> ev.ResourcePart:
            settings = await self.settings_for(str(location))
            if server not in settings.mcp_servers(agent or settings.agent):
                raise ToolError(f"the agent does not use MCP server {server}")
            return await self._mcp.read_mention(Path(location), settings, server, uri)

        return read

    async def mcp_resources(self, location: str | Path, agent: str | None = None) -> dict[str, list[Any]]:
        """The resources and templates (``McpResourceInfo``) each ready server ``agent`` uses at
        ``location`` listed, by server: what ``@server:`` completes from (nothing is started)."""
        settings = await self.settings_for(str(location))
        return dict(self._mcp.resources(Path(location), settings, agent or settings.agent))

    async def mcp_prompt(self, location: Path, server: str, prompt: str, arguments: dict[str, str]) -> str:
        """``/mcp__server__prompt``: the server's prompt expanded (``prompts/get``), the text the front end
        admits as the user's prompt. Raises ``McpPromptError`` with the reason when it cannot be had."""
        try:
            return await self._mcp.prompt(Path(location), server, prompt, arguments)
        except ToolError as error:
            raise McpPromptError(str(error)) from None

    async def mcp_complete(
        self, location: Path, server: str, prompt: str, argument: str, value: str, context: dict[str, str] | None = None
    ) -> list[str]:
        """The server's completions of a prompt argument as typed so far (``completion/complete``)."""
        return await self._mcp.complete(Path(location), server, prompt, argument, value, context or {})

    def watch_mcp(self, listener: Callable[[Any], None]) -> Callable[[], None]:
        """Call ``listener`` with a server whenever its state changes; returns the unsubscribe function."""
        return self._mcp.watch(listener)

    async def __aenter__(self) -> Runtime:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.close()

    async def _has_pending(self, session_id: str) -> bool:
        ready = eligible(await self._store.pending_inputs(session_id))
        queued = ready.next_queued is not None and not await self._store.queue_paused(session_id)
        return bool(ready.steers or queued or ready.barrier or ready.shell)

    def publisher(self, session_id: str) -> SessionPublisher:
        return SessionPublisher(session_id, self._store.publish, self._store.publish_many, self._store.bus.publish)

    async def settings_for(self, location: str) -> Settings:
        """The settings at ``location``, read again when a config file there has changed, so an
        edit (a permission rule, retry or compaction settings) applies from the next step.
        Raises ``ConfigError`` when the edited file is invalid."""
        stamp = await asyncio.to_thread(config_stamp, Path(location))
        cached = self._settings.get(location)
        if cached is None or cached[0] != stamp:
            cached = (stamp, await asyncio.to_thread(self._settings_loader, Path(location)))
            self._settings[location] = cached
        return cached[1]

    def _approval(self, session: SessionRecord, host: RegistryToolHost) -> ApprovalMode:
        """The session's approval mode: chosen here for it (or for the session whose ``task`` call
        started it), else its settings'."""
        chosen = self.sessions.approval(session.id)
        if chosen is None and session.spawned_by is not None:
            chosen = self.sessions.approval(session.spawned_by)
        return chosen or host.settings.approval

    def _approval_chosen(self, session_id: str) -> None:
        """Each gate reads its session's mode again and lets through the pending asks it covers
        (the session's, and its subagents', which follow its mode)."""
        for host in self._hosts.values():
            host.gate.approval_changed()

    async def _tools_for(self, session: SessionRecord, settings: Settings, agent: str) -> list[ToolSpec]:
        """The tools the session's next step would offer: its host's, else a new registry's with the MCP
        tools ready now (for ``context_breakdown``; nothing is started or waited for)."""
        host = self._hosts.get(session.id)
        if host is not None and host.location == Path(session.location):
            return host.definitions(agent, final_step=False)
        location = Path(session.location)
        registry = await asyncio.to_thread(self._registry_factory, location)
        self._mcp.offer_ready(registry, location, settings, agent)
        return tool_definitions(registry, settings, agent)

    async def _sample(self, session_id: str, request: SamplingRequest) -> Sampled:
        """An approved MCP sampling request, on the model the session's next step would use."""
        session = await self.sessions.get(session_id)
        settings = await self.settings_for(session.location)
        return await run_sampling(request, step_model(session, settings), settings, self._stream)

    async def _services(self, session: SessionRecord) -> LocationServices:
        settings = await self.settings_for(session.location)
        agent = session.agent or settings.agent
        host = self._hosts.get(session.id)
        if host is None or host.location != Path(session.location):
            location, root = Path(session.location), Path(session.project_root)
            registry = await asyncio.to_thread(self._registry_factory, location)
            if spawns_subagents(settings, session) and registry.get(TASK_TOOL) is None:
                registry.register(self._subagents.tool(settings))
            gate = make_gate(
                settings,
                agent,
                self._store,
                self.publisher(session.id),
                location,
                root,
                self._policy,
                self.sessions.permissions.wait_reply,
            )
            host = RegistryToolHost(settings, registry, location, root, gate, agent)
            gate.approval = partial(self._approval, session, host)
            host.before_change = SnapshotBeforeChange(self.sessions.snapshots, self.publisher(session.id), location)
            host.hooks = ToolHooks(self.publisher(session.id), location, root)
            host.elicit = partial(self.sessions.asks.elicitations.asker, self.publisher(session.id))
            host.sample = partial(
                self.sessions.asks.samplings.asker, self.publisher(session.id), partial(self._sample, session.id)
            )
            if self._policy is None:  # someone will be asked: the notification hooks say so
                site = HookSite(session.id, location, root, self.publisher(session.id))
                gate.asker = notifying(gate.asker, lambda: host.settings, site)
            self._hosts[session.id] = host
            self._mcp_tools[session.id] = McpRegistrations(registry)
        elif host.settings is not settings or host.agent != agent:
            host.use_settings(settings, agent)  # new rules, same gate (its asks and grants stay)
        await self._mcp.attach(self._mcp_tools[session.id], host.location, settings, agent)
        await host.refresh_skills()
        host.output = self.sessions.answers.required(session.id)
        return LocationServices(settings=settings, tools=host, output=host.output)


def start_telemetry(settings: TelemetrySettings, warn: Callable[[str], None] | None = None) -> RunObserver | None:
    """The OpenTelemetry observer when ``[telemetry] otlp_endpoint`` is set; else None, and nothing of
    ``agent_tui.telemetry`` or the SDK is imported (start-up pays nothing for it). ``warn`` (any
    thread) hears of a missing SDK and the first failed export; by default they go to stderr."""
    if settings.otlp_endpoint is None:
        return None
    from agent_tui import telemetry

    return telemetry.start(
        settings.otlp_endpoint, settings.headers, settings.service_name, settings.log_prompts, warn or telemetry.stderr
    )
