"""Compaction: summarise older history into one checkpoint (DESIGN §8, §5.6).

Three triggers share one lifecycle — ``compaction.started``, live
``CompactionDelta`` s while the model writes the summary, then
``compaction.ended {summary, recent}`` or ``compaction.failed {error}``:

- manual: the runner settles a ``/compact`` barrier when the session would go idle;
- auto: before a step whose estimated request exceeds the budget;
- overflow: once, after the provider refused a request as too long.

The summary comes from the session's model without tools. Transient provider
errors before any summary text are retried like a step's. A failed
compaction changes nothing the model sees: only an ended row is a checkpoint.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from agent_tui.core.log import events as ev
from agent_tui.core.log import ids
from agent_tui.core.log.publisher import SessionPublisher
from agent_tui.core.log.records import MessageRecord, SessionRecord
from agent_tui.core.request import budget
from agent_tui.core.request import compaction_text as text
from agent_tui.core.request.pruning import PruneRule
from agent_tui.core.run import retry
from agent_tui.core.run.step import LLMFailure, StreamFn, consume
from agent_tui.core.settings.config import Settings
from agent_tui.llm import types as llm
from agent_tui.vocab.clock import Clock, SystemClock
from agent_tui.vocab.error_info import ErrorInfo
from agent_tui.vocab.kinds import CompactionReason, ErrorType

Reason = CompactionReason
UNAVAILABLE = "compaction.unavailable"
EMPTY = "compaction.empty"


class Compactor:
    """The runner's compaction hook."""

    def __init__(
        self,
        store: Any,
        settings_for: Callable[[SessionRecord], Awaitable[Settings]],
        stream: StreamFn | None = None,
        clock: Clock | None = None,
    ) -> None:
        self._store = store
        self._settings_for = settings_for
        self._stream = stream or _default_stream
        self._clock = clock or SystemClock()
        self._info: dict[tuple[str, str], llm.ModelInfo] = {}
        self._warned: set[tuple[str, str]] = set()

    # -- the three triggers -------------------------------------------------------

    async def run_barrier(self, session: SessionRecord, input_id: str, publish: SessionPublisher) -> None:
        settings = await self._settings_for(session)
        await self.compact(session, settings, Reason.MANUAL, publish, input_id=input_id)

    async def before_step(
        self,
        session: SessionRecord,
        settings: Settings,
        request: llm.Request,
        history: list[MessageRecord],
        publish: SessionPublisher,
    ) -> ErrorInfo | bool:
        """Compact first when the pending request is over budget: True when it did, an error when it failed."""
        if not settings.compaction.auto:
            return False
        info = await self.model_info(request.model, settings)
        if info.context_window is None and (session.id, _notice(info)) in self._warned:
            return False
        calls = await self._store.tool_calls(session.id)
        size = budget.estimate(request, history, calls, PruneRule.configured(settings.context))
        if info.context_window is None:
            if size > settings.compaction.buffer:  # only once the session could need it
                await self._warn_unknown_window(session.id, info, publish)
            return False
        limit = budget.budget(
            info.context_window, request.max_tokens or info.max_output_tokens, settings.compaction.buffer
        )
        if size <= limit or text.plan(history, calls, settings.compaction.keep_tokens) is None:
            return False
        if budget.tokens_for(budget.request_chars(request.model_copy(update={"messages": []}))) >= limit:
            return False  # system prompt and tools alone do not fit: a checkpoint cannot help, overflow decides
        error = await self.compact(session, settings, Reason.AUTO, publish, history=history)
        return error if error is not None else True

    async def after_overflow(
        self, session: SessionRecord, settings: Settings, publish: SessionPublisher
    ) -> ErrorInfo | bool:
        """The one overflow compaction of a step: True when a checkpoint now exists."""
        error = await self.compact(session, settings, Reason.OVERFLOW, publish)
        return error if error is not None else True

    async def sweep(self, session_id: str, publish: SessionPublisher) -> None:
        """At drain start (under the lease): fail compactions a dead process left running.

        A started manual barrier is settled with it, so input held behind it moves on.
        """
        running, barrier = await self._store.running_compactions(session_id)
        error = ErrorInfo(type=ErrorType.ABORTED, message="The process running this compaction stopped.")
        events = []
        for message_id, reason in running:
            owner = barrier if reason == Reason.MANUAL else None
            barrier = None if owner else barrier
            events.append(ev.CompactionFailed(message_id=message_id, reason=reason, error=error, input_id=owner))
        await publish.many(events)

    # -- one compaction ---------------------------------------------------------------

    async def compact(
        self,
        session: SessionRecord,
        settings: Settings,
        reason: Reason,
        publish: SessionPublisher,
        *,
        input_id: str | None = None,
        history: list[MessageRecord] | None = None,
    ) -> ErrorInfo | None:
        """Run one compaction to its durable end; the error when it did not end."""
        history = history if history is not None else await self._store.messages(session.id)
        calls = await self._store.tool_calls(session.id)
        source = text.plan(history, calls, settings.compaction.keep_tokens)
        if source is None:
            error = ErrorInfo(type=EMPTY, message="Nothing to compact yet.")
            if input_id is not None:  # settle the barrier; auto and overflow never get here with nothing
                await publish(ev.CompactionFailed(reason=reason, error=error, input_id=input_id))
            return error
        model = session.model or settings.model or ""
        message_id = ids.message_id()
        await publish(ev.CompactionStarted(message_id=message_id, reason=reason, input_id=input_id))
        finishes: list[llm.Finish] = []  # the summary call's last finish: what it spent
        try:
            request = await self._summary_request(model, settings, source)
            summary = await self._summarise_with_retries(session.id, message_id, request, settings, publish, finishes)
        except asyncio.CancelledError:
            interrupted = ErrorInfo(type=ErrorType.ABORTED, message="Interrupted")
            await publish(
                ev.CompactionFailed(
                    message_id=message_id,
                    reason=reason,
                    error=interrupted,
                    input_id=input_id,
                    **_spent(model, finishes),
                )
            )
            raise
        except Exception as problem:  # a provider error, or anything else: the row must not stay running
            error = (
                problem.error
                if isinstance(problem, LLMFailure)
                else ErrorInfo(type="compaction.error", message=f"{type(problem).__name__}: {problem}")
            )
            await publish(
                ev.CompactionFailed(
                    message_id=message_id, reason=reason, error=error, input_id=input_id, **_spent(model, finishes)
                )
            )
            return error
        await publish(
            ev.CompactionEnded(
                message_id=message_id,
                reason=reason,
                summary=summary,
                recent=source.recent_text,
                input_id=input_id,
                **_spent(model, finishes),
            )
        )
        return None

    async def _summary_request(self, model: str, settings: Settings, source: text.CompactionInput) -> llm.Request:
        model_settings = settings.model_settings(model)
        info = await self.model_info(model, settings)
        max_chars = None
        if info.context_window is not None:
            room = budget.budget(
                info.context_window,
                model_settings.max_output_tokens or info.max_output_tokens,
                settings.compaction.buffer,
            )
            max_chars = max(room, 1_000) * text.CHARS_PER_TOKEN - len(text.SUMMARY_SYSTEM)
        return llm.Request(
            model=model,
            system=[text.SUMMARY_SYSTEM],
            messages=[llm.UserTurn(parts=[llm.RequestText(text=text.summary_material(source, max_chars))])],
            api_base=model_settings.api_base or settings.api_base,
            api_key=settings.api_key,
            max_tokens=model_settings.max_output_tokens,
            price=model_settings.price(),
        )

    async def _summarise_with_retries(
        self,
        session_id: str,
        message_id: str,
        request: llm.Request,
        settings: Settings,
        publish: SessionPublisher,
        finishes: list[llm.Finish],
    ) -> str:
        """A transient provider error (rate limit, 5xx, transport) before any summary text is
        retried with the steps' ``[retry]`` policy and backoff; once text has streamed under the
        divider, a failure is final (a fresh attempt would repeat it)."""
        failures = 0
        while True:
            deltas: list[str] = []
            try:
                return await self._summarise(session_id, message_id, request, publish, deltas, finishes)
            except LLMFailure as failure:
                failures += 1
                error = failure.error
                if deltas or not retry.is_retryable(error.type) or failures > settings.retry.max_retries:
                    raise
                await self._clock.sleep(
                    retry.delay_ms(failures, settings.retry.base_delay_ms, error.retry_after_ms) / 1000
                )

    async def _summarise(
        self,
        session_id: str,
        message_id: str,
        request: llm.Request,
        publish: SessionPublisher,
        deltas: list[str],
        finishes: list[llm.Finish],
    ) -> str:
        ended: list[str] = []
        before = len(finishes)  # an earlier attempt's finish is not this one's

        async def on_event(item: Any) -> None:
            match item:
                case llm.TextDelta(text=delta):
                    deltas.append(delta)
                    publish.live(ev.CompactionDelta(session_id=session_id, message_id=message_id, delta=delta))
                case llm.TextEnd(text=full):
                    ended.append(full)
                case llm.Finish():
                    finishes.append(item)

        await consume(self._stream(request), on_event)
        finish = finishes[-1] if len(finishes) > before else None
        if finish is not None and finish.reason == llm.FinishReason.CONTENT_FILTER:
            raise LLMFailure(
                ErrorInfo(type=ErrorType.CONTENT_FILTER, message="The provider stopped the summary (content filter).")
            )
        written = ("\n".join(ended) if ended else "".join(deltas)).strip()
        if not written:
            raise LLMFailure(ErrorInfo(type=EMPTY, message="The model returned an empty summary."))
        return text.enforce_headings(written)

    # -- model limits -------------------------------------------------------------------

    async def model_info(self, model: str, settings: Settings) -> llm.ModelInfo:
        overrides = settings.models.get(model)
        key = (model, overrides.model_dump_json() if overrides is not None else "")
        info = self._info.get(key)
        if info is None:
            from agent_tui.llm.models import model_info

            info = await asyncio.to_thread(model_info, model, overrides)
            self._info[key] = info
        return info

    async def _warn_unknown_window(self, session_id: str, info: llm.ModelInfo, publish: SessionPublisher) -> None:
        """One durable notice per session and model: a failed automatic compaction without a divider."""
        message = _notice(info)
        key = (session_id, message)
        if key in self._warned:
            return
        self._warned.add(key)
        if await self._store.compaction_failed_before(session_id, UNAVAILABLE, message):
            return
        await publish(ev.CompactionFailed(reason=Reason.AUTO, error=ErrorInfo(type=UNAVAILABLE, message=message)))


def _notice(info: llm.ModelInfo) -> str:
    return info.warning or f"The context window of {info.model} is unknown, so automatic compaction is off."


def _spent(model: str, finishes: list[llm.Finish]) -> dict[str, Any]:
    """What the summary call spent, for its ended or failed event: nothing when no call finished.

    A retried attempt that failed before its finish reported no usage; the last finish is the call
    that wrote (or failed to write) the summary, and it is counted once, as a step's last attempt is.
    """
    if not finishes:
        return {}
    finish = finishes[-1]
    return {"model": model, "usage": finish.usage, "cost": finish.cost, "cost_source": finish.cost_source}


def _default_stream(request: llm.Request) -> AsyncIterator[llm.LLMEvent]:
    from agent_tui import llm as adapter

    return adapter.stream(request)
