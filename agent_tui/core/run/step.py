"""One logical step: stream the model, record fragments, run tools eagerly.

A logical step owns one assistant message id. Each physical attempt publishes
``step.started`` (retries reopen the same message); exactly one ``step.ended``
or ``step.failed`` closes it, and only after every tool call it recorded has
settled.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from agent_tui.core.errors import StoreError
from agent_tui.core.host.port import ToolHost, ToolInvocation
from agent_tui.core.log import events as ev
from agent_tui.core.log.publisher import SessionPublisher
from agent_tui.core.run import retry
from agent_tui.llm import types as llm
from agent_tui.tools.tool import ToolOutcome
from agent_tui.vocab.clock import Clock
from agent_tui.vocab.error_info import ErrorInfo
from agent_tui.vocab.kinds import TOOL_INTERRUPTED, ErrorType
from agent_tui.vocab.observation import ModelCall, ModelCallEnd, NoObserver, RunObserver, ToolRun
from agent_tui.vocab.tool_output import ToolOutput

StreamFn = Callable[[llm.Request], AsyncIterator[Any]]


@dataclass
class StepPlan:
    session_id: str
    assistant_message_id: str
    agent: str
    model: str
    request: llm.Request
    attempts_allowed: int  # physical attempts the allowance still permits
    max_retries: int
    base_delay_ms: int
    # Sent by a retry that is the last attempt the allowance permits: retries consume the
    # allowance, so that attempt is the final step (no tools, the final-step reminder).
    final_request: llm.Request | None = None

    def request_for(self, attempt: int) -> llm.Request:
        if attempt == self.attempts_allowed and self.final_request is not None:
            return self.final_request
        return self.request


@dataclass
class StepOutcome:
    error: ErrorInfo | None = None
    durable_output: bool = False  # the failing attempt had written output (overflow recovery needs none)


@dataclass
class _Fragment:
    kind: str  # "text" | "reasoning"
    ordinal: int
    chunks: list[str] = field(default_factory=list)


PARTIAL_OUTPUT_CHARS = 16_384
"""How much of an interrupted call's output is kept with its failure: the screen keeps showing it and
the model is told what the command had printed (its end, where a long build's error is)."""


@dataclass
class _Attempt:
    durable_output: bool = False
    finish: llm.Finish | None = None
    open: dict[str, _Fragment] = field(default_factory=dict)
    tasks: dict[str, asyncio.Task[None]] = field(default_factory=dict)
    settled: set[str] = field(default_factory=set)
    called: list[str] = field(default_factory=list)
    stop_error: ErrorInfo | None = None
    unrecorded: ErrorInfo | None = None  # the store refused a tool's settlement: the step cannot end well
    closed: bool = False  # the terminal step event is being written
    texts: list[str] = field(default_factory=list)  # the attempt's text, kept only for an observer that logs prompts
    partial: dict[str, str] = field(default_factory=dict)  # each running call's output so far (a bounded tail)


class Step:
    def __init__(
        self,
        publisher: SessionPublisher,
        stream: StreamFn,
        tools: ToolHost,
        clock: Clock,
        observer: RunObserver | None = None,
    ) -> None:
        self._pub = publisher
        self._stream = stream
        self._tools = tools
        self._clock = clock
        self._observer: RunObserver = observer or NoObserver()
        self._ordinals: dict[str, int] = {"text": 0, "reasoning": 0}

    async def run(self, plan: StepPlan) -> StepOutcome:
        attempt = 0
        while True:
            attempt += 1
            await self._pub(
                ev.StepStarted(
                    assistant_message_id=plan.assistant_message_id,
                    agent=plan.agent,
                    model=plan.model,
                    attempt=attempt,
                )
            )
            state = _Attempt()
            request = plan.request_for(attempt)
            self._observer.model_call_started(self._model_call(plan, request, attempt))
            try:
                try:
                    await self._consume(request, plan, state)
                except LLMFailure as failure:
                    error = failure.error
                    retrying = self._may_retry(plan, state, error, attempt)
                    self._ended(plan, ModelCallEnd(error=error, retried=retrying, answer=self._answer(state)))
                    if not retrying:
                        return await self._fail(plan, state, error)
                    wait_ms = retry.delay_ms(attempt, plan.base_delay_ms, error.retry_after_ms)
                    await self._pub(
                        ev.RetryScheduled(
                            assistant_message_id=plan.assistant_message_id,
                            attempt=attempt + 1,
                            at_ms=self._clock.now_ms() + wait_ms,
                            error=error,
                        )
                    )
                    await self._clock.sleep(wait_ms / 1000)
                    continue
                return await self._finish(plan, state)
            except asyncio.CancelledError:
                await self._abort(plan, state)
                raise

    # -- what the observer is told --------------------------------------------

    def _model_call(self, plan: StepPlan, request: llm.Request, attempt: int) -> ModelCall:
        messages = None
        if self._observer.wants_prompts:
            system = [{"role": "system", "content": text} for text in request.system]
            messages = [*system, *(message.model_dump(mode="json") for message in request.messages)]
        return ModelCall(plan.session_id, plan.assistant_message_id, plan.agent, plan.model, attempt, messages)

    def _answer(self, state: _Attempt) -> str | None:
        return "\n\n".join(state.texts) if self._observer.wants_prompts else None

    def _ended(self, plan: StepPlan, end: ModelCallEnd) -> None:
        self._observer.model_call_ended(plan.session_id, plan.assistant_message_id, end)

    def _finished(self, plan: StepPlan, state: _Attempt, finish: llm.Finish, error: ErrorInfo | None) -> None:
        end = ModelCallEnd(
            finish_reason=finish.reason.value,
            usage=finish.usage,
            cost=finish.cost,
            cost_source=finish.cost_source,
            response_model=finish.model,
            error=error,
            answer=self._answer(state),
        )
        self._ended(plan, end)

    # -- one attempt ---------------------------------------------------------

    async def _consume(self, request: llm.Request, plan: StepPlan, state: _Attempt) -> None:
        await consume(self._stream(request), lambda item: self._on_event(plan, state, item))

    async def _on_event(self, plan: StepPlan, state: _Attempt, item: Any) -> None:
        amid, sid = plan.assistant_message_id, plan.session_id
        match item:
            case llm.TextStart():
                await self._open(plan, state, "text")
            case llm.TextDelta(text=text):
                await self._delta(plan, state, "text", text)
            case llm.TextEnd(text=text):
                await self._close(plan, state, "text", text)
            case llm.ReasoningStart():
                await self._open(plan, state, "reasoning")
            case llm.ReasoningDelta(text=text):
                await self._delta(plan, state, "reasoning", text)
            case llm.ReasoningEnd(text=text, provider_meta=meta):
                await self._close(plan, state, "reasoning", text, meta)
            case llm.ToolInputStart(index=index, call_id=call_id, name=name):
                self._pub.live(
                    ev.ToolInputStarted(
                        session_id=sid, assistant_message_id=amid, index=index, call_id=call_id, name=name
                    )
                )
            case llm.ToolInputDelta(index=index, call_id=call_id, delta=delta):
                self._pub.live(
                    ev.ToolInputDelta(
                        session_id=sid, assistant_message_id=amid, index=index, call_id=call_id, delta=delta
                    )
                )
            case llm.ToolCall():
                await self._call_tool(plan, state, item)
            case llm.Finish():
                state.finish = item

    async def _delta(self, plan: StepPlan, state: _Attempt, kind: str, text: str) -> None:
        fragment = state.open.get(kind) or await self._open(plan, state, kind)
        fragment.chunks.append(text)
        live = ev.TextDelta if kind == "text" else ev.ReasoningDelta
        self._pub.live(
            live(
                session_id=plan.session_id,
                assistant_message_id=plan.assistant_message_id,
                ordinal=fragment.ordinal,
                delta=text,
            )
        )

    async def _open(self, plan: StepPlan, state: _Attempt, kind: str) -> _Fragment:
        if kind in state.open:  # at most one open fragment per kind
            await self._close(plan, state, kind, None)
        fragment = _Fragment(kind, self._ordinals[kind])
        self._ordinals[kind] += 1
        state.open[kind] = fragment
        state.durable_output = True
        started = ev.TextStarted if kind == "text" else ev.ReasoningStarted
        await self._pub(started(assistant_message_id=plan.assistant_message_id, ordinal=fragment.ordinal))
        return fragment

    async def _close(
        self, plan: StepPlan, state: _Attempt, kind: str, text: str | None, meta: dict[str, Any] | None = None
    ) -> None:
        fragment = state.open.pop(kind, None)
        if fragment is None:
            if not text and not meta:
                return
            fragment = await self._open(plan, state, kind)
            state.open.pop(kind)
        full = text if text is not None else "".join(fragment.chunks)
        amid = plan.assistant_message_id
        if kind == "text" and self._observer.wants_prompts:
            state.texts.append(full)
        if kind == "text":
            await self._pub(ev.TextEnded(assistant_message_id=amid, ordinal=fragment.ordinal, text=full))
        else:
            await self._pub(
                ev.ReasoningEnded(
                    assistant_message_id=amid, ordinal=fragment.ordinal, text=full, provider_meta=meta or {}
                )
            )

    async def _close_all(self, plan: StepPlan, state: _Attempt) -> None:
        for kind in list(state.open):
            await self._close(plan, state, kind, None)

    async def _call_tool(self, plan: StepPlan, state: _Attempt, call: llm.ToolCall) -> None:
        amid = plan.assistant_message_id
        state.durable_output = True
        meta = {"raw_arguments": call.raw_arguments} if call.input_error else {}
        await self._pub(
            ev.ToolCalled(
                assistant_message_id=amid, call_id=call.call_id, name=call.name, input=call.input, call_meta=meta
            )
        )
        state.called.append(call.call_id)
        arguments = call.input if self._observer.wants_prompts else None
        self._observer.tool_started(ToolRun(plan.session_id, amid, call.call_id, call.name, arguments))
        if call.input_error:
            state.settled.add(call.call_id)
            self._observer.tool_ended(
                plan.session_id, call.call_id, ErrorInfo(type=ErrorType.TOOL_INPUT, message=call.input_error), None
            )
            await self._pub(
                ev.ToolFailed(
                    assistant_message_id=amid,
                    call_id=call.call_id,
                    error=ErrorInfo(type=ErrorType.TOOL_INPUT, message=call.input_error),
                )
            )
            return
        invocation = ToolInvocation(
            plan.session_id, amid, call.call_id, call.name, call.input, supports_vision=plan.request.supports_vision
        )
        state.tasks[call.call_id] = asyncio.create_task(self._run_tool(plan, state, invocation))

    async def _run_tool(self, plan: StepPlan, state: _Attempt, call: ToolInvocation) -> None:
        def on_output(chunk: str) -> None:
            state.partial[call.call_id] = (state.partial.get(call.call_id, "") + chunk)[-PARTIAL_OUTPUT_CHARS:]
            self._pub.live(
                ev.ToolOutputDelta(
                    session_id=call.session_id,
                    assistant_message_id=call.assistant_message_id,
                    call_id=call.call_id,
                    delta=chunk,
                )
            )

        try:
            result = await self._tools.execute(call, on_output)
        except asyncio.CancelledError:
            raise
        except Exception as error:
            result = ToolOutcome.failure(ErrorType.TOOL_EXECUTION, f"{type(error).__name__}: {error}")
        state.settled.add(call.call_id)  # before the write: a cancelled write still completes
        output = result.output.text if result.output is not None and self._observer.wants_prompts else None
        self._observer.tool_ended(call.session_id, call.call_id, result.error, output)
        if result.error is not None and result.stop_run and state.stop_error is None:
            state.stop_error = result.error
        try:
            if result.error is not None:
                await self._pub(
                    ev.ToolFailed(
                        assistant_message_id=call.assistant_message_id,
                        call_id=call.call_id,
                        error=result.error,
                        result_meta=result.result_meta,
                    )
                )
            else:
                await self._pub(
                    ev.ToolSucceeded(
                        assistant_message_id=call.assistant_message_id,
                        call_id=call.call_id,
                        output=result.output or ToolOutput(text=""),
                        result_meta=result.result_meta,
                    )
                )
        except StoreError as error:
            state.settled.discard(call.call_id)
            state.unrecorded = state.unrecorded or ErrorInfo(
                type=ErrorType.STORE_WRITE, message=(f"{call.name} ran, but its result could not be saved: {error}")
            )

    async def _settle_unrecorded(self, plan: StepPlan, state: _Attempt) -> None:
        """One more try to settle the tools whose result the store refused, as failed with the reason;
        if the store still refuses, they stay running and the next drain's sweep settles them."""
        assert state.unrecorded is not None
        unsettled = [call_id for call_id in state.called if call_id not in state.settled]
        with contextlib.suppress(StoreError):
            await self._pub.many(
                [
                    ev.ToolFailed(
                        assistant_message_id=plan.assistant_message_id, call_id=call_id, error=state.unrecorded
                    )
                    for call_id in unsettled
                ]
            )
            state.settled.update(unsettled)

    async def _settle_tools(self, state: _Attempt) -> None:
        if state.tasks:
            await asyncio.gather(*state.tasks.values(), return_exceptions=True)

    # -- endings -------------------------------------------------------------

    def _may_retry(self, plan: StepPlan, state: _Attempt, error: ErrorInfo, attempt: int) -> bool:
        return (
            not state.durable_output
            and retry.is_retryable(error.type)
            and attempt <= plan.max_retries
            and attempt < plan.attempts_allowed
        )

    async def _finish(self, plan: StepPlan, state: _Attempt) -> StepOutcome:
        await self._close_all(plan, state)
        finish = state.finish or llm.Finish(reason=llm.FinishReason.OTHER)
        self._finished(plan, state, finish, _filtered(finish))  # the model call ends with its stream, not its tools
        await self._settle_tools(state)
        amid = plan.assistant_message_id
        usage = finish.usage
        if state.unrecorded is not None:
            await self._settle_unrecorded(plan, state)
            state.closed = True
            await self._pub(_billed_failure(amid, state.unrecorded, finish))
            return StepOutcome(error=state.unrecorded)
        error = _filtered(finish)
        if error is not None:
            state.closed = True
            await self._pub(_billed_failure(amid, error, finish))
            return StepOutcome(error=error)
        state.closed = True
        if state.stop_error is not None:
            await self._pub(_billed_failure(amid, state.stop_error, finish))
            return StepOutcome(error=state.stop_error)
        await self._pub(
            ev.StepEnded(
                assistant_message_id=amid,
                finish=finish.reason.value,
                usage=usage,
                cost=finish.cost,
                cost_source=finish.cost_source,
            )
        )
        return StepOutcome()

    async def _fail(self, plan: StepPlan, state: _Attempt, error: ErrorInfo) -> StepOutcome:
        await self._close_all(plan, state)
        await self._settle_tools(state)
        if state.unrecorded is not None:
            await self._settle_unrecorded(plan, state)
        state.closed = True
        await self._pub(ev.StepFailed(assistant_message_id=plan.assistant_message_id, error=error))
        return StepOutcome(error=error, durable_output=state.durable_output)

    async def _abort(self, plan: StepPlan, state: _Attempt) -> None:
        """Interrupt: keep partial text, kill running tools, fail what is unsettled."""
        await self._close_all(plan, state)
        for task in state.tasks.values():
            task.cancel()
        await self._settle_tools(state)
        amid = plan.assistant_message_id
        interrupted = ErrorInfo(type=ErrorType.ABORTED, message=TOOL_INTERRUPTED)
        for call_id in state.called:
            if call_id not in state.settled:
                self._observer.tool_ended(plan.session_id, call_id, interrupted, None)
        await self._pub.many(
            [
                ev.ToolFailed(assistant_message_id=amid, call_id=call_id, error=interrupted, result_meta=meta)
                for call_id in state.called
                if call_id not in state.settled
                for meta in [{"partial_output": state.partial[call_id]} if state.partial.get(call_id) else {}]
            ]
        )
        state.settled.update(state.called)
        if state.closed:
            return
        state.closed = True
        aborted = ErrorInfo(type=ErrorType.ABORTED, message="Interrupted")
        self._ended(plan, ModelCallEnd(error=aborted, answer=self._answer(state)))
        await self._pub(ev.StepFailed(assistant_message_id=amid, error=aborted))


def _filtered(finish: llm.Finish) -> ErrorInfo | None:
    if finish.reason != llm.FinishReason.CONTENT_FILTER:
        return None
    return ErrorInfo(type=ErrorType.CONTENT_FILTER, message="The provider stopped the response (content filter).")


def _billed_failure(amid: str, error: ErrorInfo, finish: llm.Finish) -> ev.StepFailed:
    """An attempt that streamed to its end and still failed was billed: its usage and cost are kept."""
    return ev.StepFailed(
        assistant_message_id=amid, error=error, usage=finish.usage, cost=finish.cost, cost_source=finish.cost_source
    )


async def consume(stream: AsyncIterator[Any], on_event: Callable[[Any], Awaitable[None]]) -> None:
    """Feed every stream item to ``on_event``; provider errors become :class:`LLMFailure`; always close."""
    try:
        while True:
            try:
                item = await anext(stream)
            except StopAsyncIteration:
                break
            except Exception as error:  # adapter errors arrive typed; others are unknown
                raise LLMFailure.from_exception(error) from error
            await on_event(item)
    finally:
        close = getattr(stream, "aclose", None)  # an async generator's; a plain async iterator has none
        if close is not None:
            with contextlib.suppress(Exception):
                await close()


class LLMFailure(Exception):
    """A provider error normalised to :class:`ErrorInfo`."""

    def __init__(self, error: ErrorInfo) -> None:
        super().__init__(error.message)
        self.error = error

    @classmethod
    def from_exception(cls, error: BaseException) -> LLMFailure:
        info = getattr(error, "info", None)
        if callable(info):  # llm.LLMError already knows its ErrorInfo shape
            return cls(ErrorInfo(**info()))
        kind = getattr(error, "type", None)
        message = getattr(error, "message", None) or str(error) or type(error).__name__
        if isinstance(kind, str) and kind.startswith("provider."):
            return cls(ErrorInfo(type=kind, message=message, retry_after_ms=getattr(error, "retry_after_ms", None)))
        return cls(ErrorInfo(type=ErrorType.UNKNOWN, message=f"{type(error).__name__}: {message}"))
