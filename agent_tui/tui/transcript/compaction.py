"""Compaction dividers: queued, running (its summary filled by deltas), done or failed."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_tui.tui.block_keys import BlockKey
from agent_tui.tui.transcript.state import TranscriptState
from agent_tui.tui.transcript_blocks import CompactionBlock, CompactionState

if TYPE_CHECKING:
    from agent_tui.core.api import events as ev


class CompactionFold(TranscriptState):
    def _on_compaction(self, event: ev.DurableEvent, seq: int, created: int) -> None:
        from agent_tui.core.api import events as ev  # see transcript.model's docstring

        match event:
            case ev.CompactionAdmitted(input_id=input_id):
                self._add(CompactionBlock(key=BlockKey.compaction(input_id), seq=seq, input_id=input_id))
                return
            case ev.CompactionStarted(message_id=message_id, reason=reason, input_id=input_id):
                block = self._compaction(message_id, input_id, seq)
                block.message_id, block.reason = message_id, reason.value
                block.state, block.summary, block.error = CompactionState.RUNNING, "", None
            case ev.CompactionEnded(message_id=message_id, summary=summary, input_id=input_id):
                block = self._compaction(message_id, input_id, seq)
                block.state, block.summary = CompactionState.DONE, summary
            case ev.CompactionFailed(message_id=message_id, error=error, input_id=input_id):
                block = self._compaction(message_id, input_id, seq)
                block.state, block.error = CompactionState.FAILED, error.message
            case _:
                return
        running = block.state is CompactionState.RUNNING
        self.facts.compacting = running
        self._set_open(block, running)
        self._changed(block)

    def _compaction(self, message_id: str | None, input_id: str | None, seq: int) -> CompactionBlock:
        found = self._compactions.get(message_id or "")
        for id in (input_id, message_id):
            block = self._by_key.get(BlockKey.compaction(id)) if id else None
            found = found or (block if isinstance(block, CompactionBlock) else None)
        if found is None:
            key = BlockKey.compaction(input_id or message_id, seq)
            found = self._add(CompactionBlock(key=key, seq=seq, message_id=message_id, input_id=input_id))  # type: ignore[assignment]
        if message_id:
            self._compactions[message_id] = found  # type: ignore[assignment]
        return found  # type: ignore[return-value]

    def _compaction_delta(self, delta: ev.CompactionDelta) -> CompactionBlock | None:
        """The running summary grows; the block it changed, or None."""
        block = self._compactions.get(delta.message_id)
        if block is None or block.state is not CompactionState.RUNNING:
            return None
        block.summary += delta.delta
        return block
