"""Instruction sources and the checkpoint that records what the model was told.

Sources are observed concurrently and combined in a fixed order, each under a
namespaced key with its own baseline / update / removal renderers:
``core/environment``, ``core/date``, ``core/instructions`` (AGENTS.md files, a
directory's CLAUDE.md where it has none), ``core/nested`` (those below the working
directory, once a read or an edit went there; see ``nested``), ``core/configured`` (``instructions = [...]``,
see ``configured``), ``core/skills`` (the skills the selected agent may use; see ``skills``),
``core/references`` (the reference folders ``read`` opens as ``NAME:path``,
see ``references``), ``core/mcp`` (the selected MCP servers' ``instructions``), ``core/mcp_resources``
(mentioned MCP resources whose server reported a change; see ``mcp_resources``), then ``api/*``
context entries (reference 001's order). The first complete observation becomes the
immutable baseline (system text); later changes become one chronological
``instructions.updated`` system message that advances ``applied`` in the same
event. An unavailable source keeps its last applied value.
"""

from __future__ import annotations

import asyncio
import datetime as _dt
import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from agent_tui.core.log import events as ev
from agent_tui.core.log import ids, waits
from agent_tui.core.log.publisher import SessionPublisher
from agent_tui.core.log.records import SessionRecord
from agent_tui.core.request import mcp_resources
from agent_tui.core.request.ambient import Unavailable, observe_agents, observe_environment, observe_nested
from agent_tui.core.request.configured import Unreadable, configured_text, observe_configured, settle_configured
from agent_tui.core.request.nested import nested_text, touched_paths
from agent_tui.core.request.references import observe_references, references_text
from agent_tui.core.request.since_baseline import since_baseline
from agent_tui.core.request.skills import discover_skills, guidance_value, skills_text
from agent_tui.core.settings.config import Settings
from agent_tui.vocab.error_info import ErrorInfo
from agent_tui.vocab.kinds import ErrorType
from agent_tui.vocab.observation import InstructionLook, NoObserver, RunObserver


def _as_observed(value: Any, previous: Any) -> Any:
    return value


@dataclass(frozen=True)
class Source:
    key: str
    baseline: Callable[[Any], str]
    update: Callable[[Any], str]
    removal: Callable[[Any], str]
    absent: Any = None
    """The value a checkpoint without this key is taken to hold (one written before the source existed)."""
    settle: Callable[[Any, Any], Any] = _as_observed
    """The value to apply from an observation and the last applied value (parts unavailable keep theirs)."""
    update_from: Callable[[Any, Any], str] | None = None
    """The update's text from the new value and the last applied one (a source that names only what
    changed); None: ``update`` of the new value."""

    def changed(self, value: Any, previous: Any) -> str:
        return self.update_from(value, previous) if self.update_from is not None else self.update(value)


# -- renderers ------------------------------------------------------------------


def _environment_text(value: dict[str, Any]) -> str:
    return (
        "<environment>\n"
        f"Working directory: {value['cwd']}\n"
        f"Project root: {value['project_root']}\n"
        f"Git repository: {'yes' if value['git'] else 'no'}\n"
        f"Platform: {value['platform']}\n"
        "</environment>"
    )


def _agents_text(files: list[dict[str, str]]) -> str:
    blocks = [f"Instructions from {item['path']}:\n\n{item['text'].strip()}" for item in files]
    return "\n\n".join(blocks)


def _context_text(key: str, value: Any) -> str:
    return f"Context {key}:\n{json.dumps(value, ensure_ascii=False, indent=2)}"


ENVIRONMENT = Source(
    "core/environment",
    baseline=_environment_text,
    update=lambda v: "The environment changed:\n" + _environment_text(v),
    removal=lambda _: "",
)
DATE = Source(
    "core/date",
    baseline=lambda v: f"Today's date: {v}",
    update=lambda v: f"The date is now {v}.",
    removal=lambda _: "",
)


def aggregate_source(key: str, render: Callable[[Any], str], changed: str, each: str, **extra: Any) -> Source:
    """A source whose value is a whole set of instructions: an update restates all of it, an empty one revokes it."""
    removed = f"All {each} instructions were removed; disregard them from now on."
    return Source(
        key,
        baseline=lambda value: render(value) if value else "",
        update=lambda value: (
            (f"The {changed} changed. These replace every earlier {each} instruction:\n\n" + render(value))
            if value
            else removed
        ),
        removal=lambda _: removed,
        **extra,
    )


AGENTS = aggregate_source("core/instructions", _agents_text, "project instructions", "AGENTS.md")
NESTED = aggregate_source(
    "core/nested", nested_text, "instructions of the folders worked in", "nested AGENTS.md", absent=[]
)
CONFIGURED = aggregate_source(
    "core/configured",
    configured_text,
    "configured instructions",
    "configured",
    absent=[],
    settle=settle_configured,
)

SKILLS = aggregate_source("core/skills", skills_text, "available skills", "skill", absent=[])

REFERENCES = aggregate_source("core/references", references_text, "reference folders", "reference folder", absent=[])


def _mcp_text(servers: dict[str, str]) -> str:
    return "\n\n".join(f"Instructions from MCP server {name}:\n\n{text.strip()}" for name, text in servers.items())


def _settle_mcp(observed: dict[str, str | None], previous: Any) -> dict[str, str]:
    """A selected server not ready now (starting, failed) keeps the guidance the model last saw from it."""
    previous = previous if isinstance(previous, dict) else {}
    settled = {name: text if text is not None else previous.get(name) for name, text in observed.items()}
    return {name: text for name, text in settled.items() if text}


MCP = aggregate_source("core/mcp", _mcp_text, "MCP server instructions", "MCP server", absent={}, settle=_settle_mcp)
MCP_RESOURCES = Source(
    "core/mcp_resources",
    baseline=mcp_resources.baseline_text,
    update=lambda value: mcp_resources.update_text(value, {}),
    removal=lambda _: "",
    absent={},
    settle=mcp_resources.settle,
    update_from=mcp_resources.update_text,
)
BUILT_IN = (ENVIRONMENT, DATE, AGENTS, NESTED, CONFIGURED, SKILLS, REFERENCES, MCP, MCP_RESOURCES)
"""The built-in sources in the fixed order of a baseline (``api/*`` entries follow)."""
McpGuidance = Callable[[SessionRecord], Awaitable[dict[str, str | None]]]
"""Per selected server: its instructions, "" for none, None while it is not ready (keep the last)."""


async def _no_mcp(_: SessionRecord) -> dict[str, str | None]:
    return {}


def context_source(key: str) -> Source:
    return Source(
        key,
        baseline=lambda v: _context_text(key, v),
        update=lambda v: f"Context {key} changed; it is now:\n{json.dumps(v, ensure_ascii=False, indent=2)}",
        removal=lambda _: f"Context {key} was removed; disregard it.",
    )


# -- observation ------------------------------------------------------------------


class DuplicateSource(ValueError):
    pass


def combine(observed: list[tuple[Source, Any]]) -> list[tuple[Source, Any]]:
    seen: set[str] = set()
    for source, _ in observed:
        if source.key in seen:
            raise DuplicateSource(f"duplicate instruction source {source.key}")
        seen.add(source.key)
    return observed


async def observe(
    session: SessionRecord,
    context: dict[str, Any],
    today: _dt.date | None = None,
    mcp: McpGuidance = _no_mcp,
    settings: Settings | None = None,
    touched: list[str] | None = None,
    resources: mcp_resources.McpResourceChanges = mcp_resources.no_changes,
    mentioned: mcp_resources.Mentions | None = None,
) -> list[tuple[Source, Any]]:
    """``touched``: the paths the session's reads and edits named (``nested.touched_paths``);
    ``mentioned``: loads the MCP resources its prompts mentioned (``mcp_resources.mentioned_resources``)."""
    claude_md = settings.claude_md if settings is not None else True
    environment, agents, nested, configured, skills, references, guidance, changed = await asyncio.gather(
        waits.in_thread(observe_environment, session),
        waits.in_thread(observe_agents, session, claude_md),
        waits.in_thread(observe_nested, session, touched or [], claude_md),
        _observe_configured(session, settings),
        waits.in_thread(_observe_skills, session, settings),
        waits.in_thread(observe_references, settings, Path(session.project_root)),
        mcp(session),
        resources(session, mentioned or _none_mentioned),
    )
    day = (today or _dt.date.today()).isoformat()
    api = [(context_source(key), value) for key, value in sorted(context.items())]
    built_in = (environment, day, agents, nested, configured, skills, references, guidance, changed)
    return combine([*zip(BUILT_IN, built_in, strict=True), *api])


async def _none_mentioned() -> list[tuple[str, str]]:
    return []


def _observe_skills(session: SessionRecord, settings: Settings | None) -> list[dict[str, str]]:
    """The skills the session's selected agent may use (its ``skill`` permission rules)."""
    catalog = discover_skills(Path(session.project_root))
    if settings is None:
        return guidance_value(catalog.skills)
    return guidance_value(catalog.available(settings.permission_rules(session.agent or settings.agent)))


async def _observe_configured(session: SessionRecord, settings: Settings | None) -> Any:
    entries = settings.instructions if settings is not None else []
    fresh_for_s = settings.instructions_refresh_s if settings is not None else 0
    try:
        return await observe_configured(entries, Path(session.project_root), fresh_for_s=fresh_for_s)
    except Unreadable as error:
        return Unavailable(str(error))


def baseline_of(observed: list[tuple[Source, Any]], previous: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """The applied values and the baseline text of a new checkpoint; a source unavailable now keeps
    its ``previous`` value."""
    applied = {
        s.key: (previous.get(s.key) if isinstance(v, Unavailable) else s.settle(v, previous.get(s.key)))
        for s, v in observed
    }
    texts = [s.baseline(applied[s.key]) for s, _ in observed if applied.get(s.key) is not None]
    return applied, "\n\n".join(t for t in texts if t)


_BY_KEY = {source.key: source for source in BUILT_IN}


def source_for(key: str) -> Source:
    """The source an applied value's key names (``api/*``: a context entry)."""
    return _BY_KEY.get(key) or context_source(key)


# -- the checkpoint -----------------------------------------------------------------


class Instructions:
    """The runner's instruction hook: baseline once, then chronological updates."""

    def __init__(
        self,
        store: Any,
        today: Callable[[], _dt.date] | None = None,
        mcp: McpGuidance = _no_mcp,
        resources: mcp_resources.McpResourceChanges = mcp_resources.no_changes,
        observer: RunObserver | None = None,
    ) -> None:
        self._store = store
        self._today = today or _dt.date.today
        self._mcp = mcp
        self._resources = resources
        self._observer: RunObserver = observer or NoObserver()

    async def _observe(
        self, session: SessionRecord, context: dict[str, Any], settings: Settings | None
    ) -> list[tuple[Source, Any]]:
        touched = touched_paths(await self._store.tool_calls(session.id))

        async def mentioned() -> list[tuple[str, str]]:
            return mcp_resources.mentioned_resources(await self._store.messages(session.id))

        return await observe(session, context, self._today(), self._mcp, settings, touched, self._resources, mentioned)

    async def prepare(
        self, session: SessionRecord, publish: SessionPublisher, settings: Settings | None = None
    ) -> ErrorInfo | None:
        with waits.ledger() as waited:  # what this look queued for behind other sessions: contention
            problem, look = await self._prepare(session, publish, settings)
        self._observer.instructions_looked(replace(look, waited=waited.seconds()))
        return problem

    async def _prepare(
        self, session: SessionRecord, publish: SessionPublisher, settings: Settings | None
    ) -> tuple[ErrorInfo | None, InstructionLook]:
        context = await self._store.context_entries(session.id)
        started = time.perf_counter()
        observed = await self._observe(session, context, settings)
        look = InstructionLook(
            session.id,
            time.perf_counter() - started,
            len(observed),
            [source.key for source, value in observed if isinstance(value, Unavailable)],
        )
        checkpoint = await self._store.checkpoint(session.id)
        if (
            checkpoint is None
            or (since := await since_baseline(self._store, session.id, checkpoint.baseline_seq)).compacted
        ):
            missing = [value.reason for _, value in observed if isinstance(value, Unavailable)]
            if missing and checkpoint is None:  # no earlier value to stand in: nothing may become visible
                return ErrorInfo(
                    type=ErrorType.INSTRUCTIONS_UNAVAILABLE,
                    message=(
                        f"Instructions unavailable: {'; '.join(missing)}. "
                        "The prompt stays pending and is sent by the next run once the file can be read."
                    ),
                ), look
            previous = checkpoint.applied if checkpoint else {}  # after a compaction: restate the last belief
            applied, baseline = baseline_of(observed, previous)
            await publish(ev.InstructionsBaselined(baseline=baseline, applied=applied))
            return None, replace(
                look, baseline_chars=len(baseline), updates_since_baseline=0, update_chars_since_baseline=0
            )
        applied = dict(checkpoint.applied)
        changes: list[str] = []
        current = {source.key for source, _ in observed}
        for source, value in observed:
            if isinstance(value, Unavailable):
                continue
            value = source.settle(value, applied.get(source.key))
            if applied.get(source.key, source.absent) == value:
                continue
            changes.append(source.changed(value, applied.get(source.key, source.absent)))
            applied[source.key] = value
        for key in [k for k in applied if k.startswith("api/") and k not in current]:
            changes.append(context_source(key).removal(applied.pop(key)))
        changes = [text for text in changes if text]
        look = replace(look, updates_since_baseline=since.updates, update_chars_since_baseline=since.update_chars)
        if changes:
            text = "\n\n".join(changes)
            await publish(ev.InstructionsUpdated(message_id=ids.message_id(), text=text, applied=applied))
            look = replace(
                look,
                update_chars=len(text),
                updates_since_baseline=since.updates + 1,
                update_chars_since_baseline=since.update_chars + len(text),
            )
        return None, look

    async def preview(self, session: SessionRecord, settings: Settings | None = None) -> tuple[dict[str, Any], str]:
        """The applied values and the baseline a first ``prepare`` would publish now; nothing is published
        (a source unavailable now is left out)."""
        context = await self._store.context_entries(session.id)
        return baseline_of(await self._observe(session, context, settings), {})
