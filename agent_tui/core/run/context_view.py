"""What the next request of a session would hold, measured without running anything.

Gathers what the runner's ``_request`` gathers (settings, the agent's tools, the
checkpoint, history, the model's limits), assembles the request with the same
``request.assembly.assemble`` and measures it (``request.breakdown``). Nothing is
published: a session without an instruction checkpoint yet has its sources
observed now, as the first step would observe them.

Where the services come from is a :class:`ContextProbe`: the runtime's own (its
settings cache, the session's tool host with its MCP tools, the compactor's
model facts) in the TUI and the server; :func:`standalone_probe` for the CLI,
which reads the config and builds the built-in tools itself (no MCP server is
started, so their tools and guidance are left out).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from agent_tui.core.host.tool_host import build_registry, tool_definitions
from agent_tui.core.log.records import CheckpointRecord, MessageRecord, SessionRecord, ToolCallRecord
from agent_tui.core.request import budget
from agent_tui.core.request.assembly import assemble
from agent_tui.core.request.breakdown import ContextBreakdown, measure
from agent_tui.core.request.instructions import Instructions, McpGuidance
from agent_tui.core.run.runner import NoCompaction, step_model
from agent_tui.core.settings import paths
from agent_tui.core.settings.config import Settings
from agent_tui.core.settings.config_validation import load_settings

if TYPE_CHECKING:
    from agent_tui.llm import types as llm


class ContextReads(Protocol):
    """What the view reads of the store (``store.Store``)."""

    async def checkpoint(self, session_id: str) -> CheckpointRecord | None: ...

    async def messages(self, session_id: str) -> list[MessageRecord]: ...

    async def tool_calls(self, session_id: str) -> list[ToolCallRecord]: ...

    async def context_entries(self, session_id: str) -> dict[str, Any]: ...


async def _no_mcp(_: SessionRecord) -> dict[str, str | None]:
    return {}


@dataclass(frozen=True)
class ContextProbe:
    settings_for: Callable[[SessionRecord], Awaitable[Settings]]
    tools_for: Callable[[SessionRecord, Settings, str], Awaitable[list[llm.ToolSpec]]]
    """The agent's tools at the session's location (every one it is offered, not only this step's)."""
    model_info: Callable[[str, Settings], Awaitable[llm.ModelInfo]]
    mcp: McpGuidance = _no_mcp


async def next_request(store: ContextReads, session: SessionRecord, probe: ContextProbe) -> ContextBreakdown:
    """The breakdown of the request the session's next step would send (``session`` need not be stored:
    an unknown id has no history, no checkpoint and no context entries)."""
    settings = await probe.settings_for(session)
    agent = session.agent or settings.agent
    model = step_model(session, settings)
    checkpoint = await store.checkpoint(session.id)
    if checkpoint is not None:
        applied, baseline = checkpoint.applied, checkpoint.baseline
    else:
        applied, baseline = await Instructions(store, mcp=probe.mcp).preview(session, settings)
    info = await probe.model_info(model, settings)
    history = await store.messages(session.id)
    offered = await probe.tools_for(session, settings, agent)
    calls = await store.tool_calls(session.id)

    def measured() -> ContextBreakdown:  # lowering and sizing a long history is CPU work: off the event loop
        assembly = assemble(
            session=session,
            settings=settings,
            agent=agent,
            model=model,
            offered=offered,
            baseline=baseline,
            history=history,
            tool_calls=calls,
            supports_vision=info.supports_vision,
        )
        output = assembly.request.max_tokens or info.max_output_tokens
        return measure(
            assembly,
            history,
            applied,
            session_id=session.id or None,
            agent=agent,
            window=info.context_window,
            reserve=budget.reserve(output, settings.compaction.buffer),
        )

    return await asyncio.to_thread(measured)


async def first_request(
    store: ContextReads, location: str | Path | None, model: str | None, agent: str | None, probe: ContextProbe
) -> ContextBreakdown:
    """The breakdown of a first request at ``location`` (None: the working directory), ``model`` and
    ``agent`` as a new session there would have them (None: the location's settings decide)."""
    where = await asyncio.to_thread(lambda: Path(location or Path.cwd()).resolve())
    root = await asyncio.to_thread(paths.project_root, where)
    return await next_request(store, _unstored(str(where), str(root), agent or "", model), probe)


def _unstored(location: str, project_root: str, agent: str, model: str | None) -> SessionRecord:
    """A session not stored yet (:func:`first_request`): no id, nothing said."""
    return SessionRecord.model_validate(
        {
            "id": "",
            "title": None,
            "location": location,
            "project_root": project_root,
            "agent": agent,
            "model": model,
            "parent_id": None,
            "created": 0,
            "updated": 0,
            "message_count": 0,
            "last_message": None,
            "input_tokens": 0,
            "output_tokens": 0,
            "cost": 0.0,
            "head_seq": 0,
        }
    )


def standalone_probe(cli: dict[str, Any] | None = None) -> ContextProbe:
    """Services without a runtime: the config at the session's location, the built-in tools, LiteLLM's
    model facts (each in a thread)."""

    async def settings_for(session: SessionRecord) -> Settings:
        return await asyncio.to_thread(load_settings, Path(session.location), cli)

    async def tools_for(session: SessionRecord, settings: Settings, agent: str) -> list[llm.ToolSpec]:
        registry = await asyncio.to_thread(build_registry, Path(session.location))
        return tool_definitions(registry, settings, agent)

    return ContextProbe(settings_for, tools_for, NoCompaction().model_info)
