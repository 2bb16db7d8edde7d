"""Steps and busy periods: a step's usage and cost, its failure or scheduled retry; how a busy period ends."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_tui.tui.block_keys import BlockKey
from agent_tui.tui.transcript.state import TranscriptState
from agent_tui.tui.transcript_blocks import ErrorBlock, RetryBlock, TextBlock, ToolBlock, ToolState

if TYPE_CHECKING:
    from agent_tui.core.api import events as ev


class StepFold(TranscriptState):
    def _on_step(self, event: ev.DurableEvent, seq: int, created: int) -> None:
        """A step starts, ends or fails; a retry is scheduled."""
        from agent_tui.core.api import events as ev  # see transcript.model's docstring

        facts = self.facts
        match event:
            case ev.StepStarted(assistant_message_id=amid, agent=agent, model=model):
                facts.agent, facts.model, facts.step_open = agent, model, True
                facts.retry_at_ms = None
                self._remove(BlockKey.retry(amid))
            case ev.StepEnded(usage=usage, cost=cost):
                facts.step_open = False
                facts.last_input_tokens = usage.input_tokens + usage.output_tokens
                if seq > self._counted_seq:
                    facts.input_tokens += usage.input_tokens
                    facts.output_tokens += usage.output_tokens
                    facts.cost += cost or 0.0
                    if cost is None and usage.input_tokens + usage.output_tokens:
                        facts.unpriced_steps += 1
                self._close_step()
            case ev.StepFailed(assistant_message_id=amid, error=error):
                facts.step_open = False
                self._close_step()
                self._add(
                    ErrorBlock(
                        key=BlockKey.error(amid),
                        seq=seq,
                        error_type=error.type,
                        message=error.message,
                        status=error.status,
                    )
                )
            case ev.RetryScheduled(assistant_message_id=amid, attempt=attempt, at_ms=at_ms, error=error):
                facts.retry_at_ms = at_ms
                self._remove(BlockKey.retry(amid))
                block = self._add(
                    RetryBlock(
                        key=BlockKey.retry(amid),
                        seq=seq,
                        attempt=attempt,
                        at_ms=at_ms,
                        error_type=error.type,
                        message=error.message,
                    )
                )
                self._set_open(block, True)

    def _on_execution(self, event: ev.DurableEvent, seq: int, created: int) -> None:
        """A busy period ends: failed (an error block), or succeeded or interrupted (retries become history)."""
        from agent_tui.core.api import events as ev  # see transcript.model's docstring

        self.facts.executions_ended += 1
        match event:
            case ev.ExecutionFailed(error=error):
                last = self.blocks[-1] if self.blocks else None
                if isinstance(last, ErrorBlock) and (last.error_type, last.message) == (error.type, error.message):
                    last.ends_turn = True  # the step's failure ended the turn: said once, with what to do
                    self._changed(last)
                    return
                self._add(
                    ErrorBlock(
                        key=BlockKey.execution_error(seq),
                        seq=seq,
                        error_type=error.type,
                        message=error.message,
                        status=error.status,
                        ends_turn=True,
                    )
                )
            case ev.ExecutionSucceeded() | ev.ExecutionInterrupted():
                facts = self.facts
                facts.retry_at_ms = None
                facts.step_open = False
                for key in [k for k in self._open if isinstance(self._by_key[k], RetryBlock)]:
                    block = self._by_key[key]
                    block.live = False  # the wait it announced will never end: history now
                    self._set_open(block, False)
                    self._changed(block)

    def _close_step(self) -> None:
        """A settled step leaves no open fragment or unstarted tool draft behind."""
        for key in list(self._open):
            block = self._by_key[key]
            if isinstance(block, TextBlock):
                block.open = False
                self._set_open(block, False)
                self._changed(block)
            elif isinstance(block, ToolBlock) and block.state is ToolState.INPUT:
                self._remove(key)
        self._drafts.clear()
