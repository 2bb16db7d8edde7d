"""The assistant's words: text and reasoning fragments, filled by deltas while open, then ended with their whole text."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_tui.tui.block_keys import BlockKey
from agent_tui.tui.transcript.state import TranscriptState
from agent_tui.tui.transcript_blocks import TextBlock

if TYPE_CHECKING:
    from agent_tui.core.api import events as ev


class MessageFold(TranscriptState):
    def _on_fragment(self, event: ev.DurableEvent, seq: int, created: int) -> None:
        """Text and reasoning fragments: started, then ended with their whole text."""
        from agent_tui.core.api import events as ev  # see transcript.model's docstring

        match event:
            case ev.TextStarted(assistant_message_id=amid, ordinal=ordinal):
                self._fragment(amid, ordinal, False, seq)
            case ev.ReasoningStarted(assistant_message_id=amid, ordinal=ordinal):
                self._fragment(amid, ordinal, True, seq)
            case ev.TextEnded(assistant_message_id=amid, ordinal=ordinal, text=text):
                self._end_fragment(self._fragment(amid, ordinal, False, seq), text)
            case ev.ReasoningEnded(assistant_message_id=amid, ordinal=ordinal, text=text):
                self._end_fragment(self._fragment(amid, ordinal, True, seq), text)

    def _fragment(self, amid: str, ordinal: int, reasoning: bool, seq: int) -> TextBlock:
        key = BlockKey.fragment(amid, ordinal, reasoning)
        block = self._by_key.get(key)
        if not isinstance(block, TextBlock):
            block = self._add(TextBlock(key=key, seq=seq, reasoning=reasoning))
            self._set_open(block, True)
        return block

    def _end_fragment(self, block: TextBlock, text: str) -> None:
        block.text, block.open = text, False
        self._set_open(block, False)
        self._changed(block)

    def _text_delta(self, delta: ev.TextDelta | ev.ReasoningDelta) -> TextBlock | None:
        """An open fragment grows (one the log has not started yet is started); the block it changed, or None."""
        from agent_tui.core.api import events as ev  # see transcript.model's docstring

        amid, ordinal = delta.assistant_message_id, delta.ordinal
        reasoning = isinstance(delta, ev.ReasoningDelta)
        block = self._by_key.get(BlockKey.fragment(amid, ordinal, reasoning))
        if block is None:
            block = self._fragment(amid, ordinal, reasoning, self.head_seq)
        if not isinstance(block, TextBlock) or not block.open:
            return None
        block.append(delta.delta)
        return block
