"""The runner: drain a session's inbox, one physical step at a time.

Exactly DESIGN.md §5: sweep stale tools, then loop — promote input, check the
step allowance, run a step, continue while the model asked for tools.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, replace
from typing import Protocol

from agent_tui.core.host.port import ToolHost
from agent_tui.core.host.shell import run_shell
from agent_tui.core.host.sweep import StaleReads, sweep_stale
from agent_tui.core.inbox.promotion import eligible
from agent_tui.core.log import events as ev
from agent_tui.core.log import ids
from agent_tui.core.log.publisher import SessionPublisher
from agent_tui.core.log.records import CheckpointRecord, InboxRecord, MessageRecord, SessionRecord
from agent_tui.core.request.assembly import as_final_step, assemble
from agent_tui.core.request.builder import awaits_answer, needs_continuation, was_cut_short
from agent_tui.core.request.structured import REPAIR_STEPS, answered, shape
from agent_tui.core.run.session_hooks import SessionHooks
from agent_tui.core.run.step import Step, StepPlan, StreamFn
from agent_tui.core.settings.config import Settings
from agent_tui.core.settings.config_layers import ConfigError
from agent_tui.llm import types as llm
from agent_tui.tools.final_answer import FINAL_ANSWER_TOOL, OutputSchema
from agent_tui.vocab.clock import Clock, SystemClock
from agent_tui.vocab.error_info import ErrorInfo
from agent_tui.vocab.kinds import CompactionReason, ErrorType
from agent_tui.vocab.observation import NoObserver, RunObserver


class RunnerReads(StaleReads, Protocol):
    """What the runner reads of the store (``store.Store`` in the runtime)."""

    async def session(self, session_id: str) -> SessionRecord | None: ...

    async def pending_inputs(self, session_id: str) -> list[InboxRecord]: ...

    async def queue_paused(self, session_id: str) -> bool: ...

    async def events(
        self, session_id: str, after: int | None = None, limit: int | None = ...
    ) -> list[ev.StoredEvent]: ...

    async def checkpoint(self, session_id: str) -> CheckpointRecord | None: ...


class CompactionHook(Protocol):
    """Manual barriers, automatic compaction before a step, one overflow compaction (DESIGN §8).

    ``before_step`` / ``after_overflow`` answer True when a checkpoint was
    written, False when nothing was done, or the error of a failed compaction.
    """

    async def sweep(self, session_id: str, publish: SessionPublisher) -> None: ...

    async def run_barrier(self, session: SessionRecord, input_id: str, publish: SessionPublisher) -> None: ...

    async def before_step(
        self,
        session: SessionRecord,
        settings: Settings,
        request: llm.Request,
        history: list[MessageRecord],
        publish: SessionPublisher,
    ) -> ErrorInfo | bool: ...

    async def after_overflow(
        self, session: SessionRecord, settings: Settings, publish: SessionPublisher
    ) -> ErrorInfo | bool: ...

    async def model_info(self, model: str, settings: Settings) -> llm.ModelInfo: ...


class NoCompaction:
    """Without a compactor a barrier settles as failed instead of blocking input forever."""

    async def sweep(self, session_id: str, publish: SessionPublisher) -> None:
        return None

    async def run_barrier(self, session: SessionRecord, input_id: str, publish: SessionPublisher) -> None:
        await publish(
            ev.CompactionFailed(
                reason=CompactionReason.MANUAL,
                input_id=input_id,
                error=ErrorInfo(type="compaction.unavailable", message="Compaction is not available in this build."),
            )
        )

    async def before_step(
        self,
        session: SessionRecord,
        settings: Settings,
        request: llm.Request,
        history: list[MessageRecord],
        publish: SessionPublisher,
    ) -> ErrorInfo | bool:
        return False

    async def after_overflow(
        self, session: SessionRecord, settings: Settings, publish: SessionPublisher
    ) -> ErrorInfo | bool:
        return False

    async def model_info(self, model: str, settings: Settings) -> llm.ModelInfo:
        from agent_tui.llm.models import model_info

        return await asyncio.to_thread(model_info, model, settings.models.get(model))


class InstructionsHook(Protocol):
    """Prepares the instruction checkpoint before promotion (DESIGN §7).

    Returns an error when a first baseline is unavailable: the drain stops and
    the input stays pending.
    """

    async def prepare(
        self, session: SessionRecord, publish: SessionPublisher, settings: Settings | None = None
    ) -> ErrorInfo | None: ...


class NoInstructions:
    """No instruction sources yet: environment facts travel in the system prompt."""

    async def prepare(
        self, session: SessionRecord, publish: SessionPublisher, settings: Settings | None = None
    ) -> ErrorInfo | None:
        return None


_SPENT = ErrorInfo(type="steps.spent", message="The turn's step allowance is spent.")
"""What ``_step`` answers when no step is left: the drain goes idle. Only a structured-output final
step (``final_answer`` forced, and refused) can leave a tool result to continue from; without this
the drain would ask for a step again and again."""


@dataclass
class LocationServices:
    settings: Settings
    tools: ToolHost
    output: OutputSchema | None = None
    """The final answer the session must give (``Sessions.answers.require``): its steps offer
    ``final_answer`` and a successful call ends the turn."""


class Runner:
    def __init__(
        self,
        store: RunnerReads,
        publisher_for: Callable[[str], SessionPublisher],
        services_for: Callable[[SessionRecord], Awaitable[LocationServices]],
        stream: StreamFn | None = None,
        clock: Clock | None = None,
        compaction: CompactionHook | None = None,
        instructions: InstructionsHook | None = None,
        observer: RunObserver | None = None,
    ) -> None:
        self._store = store
        self._publisher_for = publisher_for
        self._services_for = services_for
        self._stream = stream or _default_stream
        self._clock = clock or SystemClock()
        self._compaction: CompactionHook = compaction or NoCompaction()
        self._instructions = instructions or NoInstructions()
        self._hooks = SessionHooks()
        self._observer: RunObserver = observer or NoObserver()
        self._turns: set[str] = set()  # the sessions whose drain has run a step: a turn the observer was told of

    async def drain(self, session_id: str, force: bool) -> ErrorInfo | None:
        """Run the session until it has nothing to do; the steps of one drain are one turn to the observer."""
        error: ErrorInfo | None = None
        try:
            error = await self._drain(session_id, force)
            return error
        except asyncio.CancelledError:
            error = ErrorInfo(type=ErrorType.ABORTED, message="Interrupted")
            raise
        finally:
            if session_id in self._turns:
                self._turns.discard(session_id)
                self._observer.turn_ended(session_id, error)

    async def _drain(self, session_id: str, force: bool) -> ErrorInfo | None:
        store = self._store
        session = await store.session(session_id)
        if session is None:
            return ErrorInfo(type="session.missing", message=f"unknown session {session_id}")
        publish = self._publisher_for(session_id)
        await sweep_stale(store, session_id, publish)
        await self._compaction.sweep(session_id, publish)
        forced = force
        stepped = continued = False  # a step ran since the last look; a stop hook kept the turn going
        while True:
            session = await store.session(session_id)
            if session is None:  # not expected: a delete is refused while the session runs
                return ErrorInfo(type="session.missing", message=f"unknown session {session_id}")
            try:
                services = await self._services_for(session)
            except ConfigError as error:  # a config file edited into an invalid state
                return ErrorInfo(type="config.invalid", message=str(error))  # the input stays pending
            problem = await _model_problem(session, services.settings)
            problem = problem or await self._instructions.prepare(session, publish, services.settings)
            if problem is not None:
                return problem  # before promotion: the input stays pending for a later run
            await self._hooks.session_start(session, services.settings, publish, bool(session.message_count))
            promoted = await self._promote_steers(session, services.settings, publish)
            history = await store.messages(session_id)
            continued = continued and not promoted
            if not promoted and not await self._continues(session_id, history):
                if await self._idle_work(session, services, publish):
                    history = await store.messages(session_id)
                elif not (forced and (awaits_answer(history) or was_cut_short(history))):
                    if not (stepped and await self._stop_blocked(session, services.settings, history, continued)):
                        return None
                    continued = True
                    history = await store.messages(session_id)  # with the hook's reason
            forced = stepped = False
            failure = await self._step(session, services, history, publish)
            stepped = True
            if failure is _SPENT:
                return None  # the allowance is spent though the last step called a tool: the turn ends
            if failure is not None:
                return failure

    async def _continues(self, session_id: str, history: list[MessageRecord]) -> bool:
        """The last step called tools and did not end the turn with an accepted ``final_answer``."""
        if not needs_continuation(history):
            return False
        accepted = await self._store.tool_calls(session_id, ["success"], FINAL_ANSWER_TOOL)  # a few rows, not all
        return not answered(history, accepted)

    async def _promote_steers(self, session: SessionRecord, settings: Settings, publish: SessionPublisher) -> bool:
        ready = eligible(await self._store.pending_inputs(session.id))
        return bool(await self._hooks.promote(ready.steers, session, settings, publish))

    async def _stop_blocked(
        self, session: SessionRecord, settings: Settings, history: list[MessageRecord], continued: bool
    ) -> bool:
        """The agent answered and would stop: a ``stop`` hook may keep it going, while its steps last."""
        allowance = settings.agent_settings(session.agent or settings.agent).steps
        blocked = await self._hooks.stop_blocked(session, settings, self._publisher_for(session.id), continued)
        return blocked and await self._steps_since_promotion(session.id, history) < allowance

    async def _idle_work(self, session: SessionRecord, services: LocationServices, publish: SessionPublisher) -> bool:
        """The session would go idle: run a ``!`` command, settle a compaction barrier, else promote
        one queued input."""
        while True:
            ready = eligible(await self._store.pending_inputs(session.id))
            if await self._hooks.promote(ready.steers, session, services.settings, publish):
                return True  # released by a barrier that just settled
            if ready.shell is not None:
                await run_shell(session.id, ready.shell, services.tools, publish)
                continue
            if ready.barrier is not None:
                await self._compaction.run_barrier(session, ready.barrier.id, publish)
                continue
            if ready.next_queued is not None and not await self._store.queue_paused(session.id):
                if await self._hooks.promote([ready.next_queued], session, services.settings, publish):
                    return True
                continue  # withdrawn by a user_prompt hook: the next one
            return False

    async def _step(
        self,
        session: SessionRecord,
        services: LocationServices,
        history: list[MessageRecord],
        publish: SessionPublisher,
    ) -> ErrorInfo | None:
        settings = services.settings
        agent = session.agent or settings.agent
        model = step_model(session, settings)
        allowance = settings.agent_settings(agent).steps
        if services.output is not None and services.output.forced:
            allowance = min(allowance, REPAIR_STEPS)
        used = await self._steps_since_promotion(session.id, history)
        remaining = allowance - used
        if remaining <= 0:
            return _SPENT
        final_step = remaining == 1
        if session.id not in self._turns:
            self._turns.add(session.id)
            by, call = session.spawned_by, session.spawned_call_id
            self._observer.turn_started(session.id, agent, (by, call) if by and call else None)
        request = await self._request(session, services, history, agent, model, final_step)
        compacted = await self._compaction.before_step(session, settings, request, history, publish)
        if isinstance(compacted, ErrorInfo):
            return compacted
        if compacted:
            request = await self._rebuilt(session, services, agent, model, final_step, publish)
        plan = StepPlan(
            session_id=session.id,
            assistant_message_id=ids.message_id(),
            agent=agent,
            model=model,
            request=request,
            attempts_allowed=remaining,
            max_retries=settings.retry.max_retries,
            base_delay_ms=settings.retry.base_delay_ms,
            final_request=None if final_step else await self._final(request, services, model),
        )
        outcome = await Step(publish, self._stream, services.tools, self._clock, self._observer).run(plan)
        if outcome.error is None or outcome.error.type != ErrorType.CONTEXT_OVERFLOW or outcome.durable_output:
            return outcome.error
        # Overflow before any output: one compaction, then the same step with one last attempt.
        compacted = await self._compaction.after_overflow(session, settings, publish)
        if compacted is not True:
            return outcome.error
        request = await self._rebuilt(session, services, agent, model, final_step, publish)
        plan = replace(
            plan,
            assistant_message_id=ids.message_id(),
            request=request,
            attempts_allowed=1,
            max_retries=0,
            final_request=None,
        )
        outcome = await Step(publish, self._stream, services.tools, self._clock, self._observer).run(plan)
        return outcome.error

    async def _rebuilt(
        self,
        session: SessionRecord,
        services: LocationServices,
        agent: str,
        model: str,
        final_step: bool,
        publish: SessionPublisher,
    ) -> llm.Request:
        """After a checkpoint: re-baseline the instructions, reload history, build the request again."""
        await self._instructions.prepare(session, publish, services.settings)
        history = await self._store.messages(session.id)
        return await self._request(session, services, history, agent, model, final_step)

    async def _steps_since_promotion(self, session_id: str, history: list[MessageRecord]) -> int:
        last_user_seq = max((m.seq for m in history if m.kind == "user"), default=0)
        count, after = 0, last_user_seq
        while True:
            page = await self._store.events(session_id, after=after, limit=500)
            if not page:
                return count
            count += sum(1 for stored in page if stored.type == ev.StepStarted.TYPE)
            after = page[-1].seq

    async def _request(
        self,
        session: SessionRecord,
        services: LocationServices,
        history: list[MessageRecord],
        agent: str,
        model: str,
        final_step: bool,
    ) -> llm.Request:
        settings = services.settings
        checkpoint = await self._store.checkpoint(session.id)
        assembly = assemble(
            session=session,
            settings=settings,
            agent=agent,
            model=model,
            offered=services.tools.definitions(agent, final_step=False),
            baseline=checkpoint.baseline if checkpoint is not None else None,
            history=history,
            tool_calls=await self._store.tool_calls(session.id),
            supports_vision=(await self._compaction.model_info(model, settings)).supports_vision,
            final_step=final_step,
        )
        return shape(assembly.request, services.output, final_step, *await self._output_mode(services, model))

    async def _final(self, request: llm.Request, services: LocationServices, model: str) -> llm.Request:
        """The request a retry sends when it is the allowance's last attempt."""
        return shape(as_final_step(request), services.output, True, *await self._output_mode(services, model))

    async def _output_mode(self, services: LocationServices, model: str) -> tuple[bool, bool]:
        """How structured output is asked of ``model``: (native JSON mode, ``tool_choice``). JSON mode
        when configured so or LiteLLM's map says the model has no function calling; ``tool_choice``
        unless the map says the model does not take it (unknown: the tool, forced)."""
        if services.output is None:
            return False, True
        info = await self._compaction.model_info(model, services.settings)
        chosen = services.settings.model_settings(model).structured_output
        native = chosen == "json" if chosen is not None else info.supports_tools is False
        return native, info.supports_tool_choice is not False


def step_model(session: SessionRecord, settings: Settings) -> str:
    """The model of the session's next step: its agent's own, else the session's, else the configured one."""
    agent = settings.agent_settings(session.agent or settings.agent)
    return agent.model or session.model or settings.model or ""


async def _model_problem(session: SessionRecord, settings: Settings) -> ErrorInfo | None:
    """No model, or no key for its provider: one sentence saying what to set."""
    from agent_tui.llm.credentials import CredentialsError, resolve_credentials

    model = step_model(session, settings) or None
    try:
        await asyncio.to_thread(resolve_credentials, model, api_key=settings.api_key)
    except CredentialsError as error:
        return ErrorInfo(type="config.credentials", message=str(error))
    return None


def _default_stream(request: llm.Request) -> AsyncIterator[llm.LLMEvent]:
    from agent_tui import llm as adapter

    return adapter.stream(request)
