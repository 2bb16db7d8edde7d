"""A long session shown from its newest segment: ``seed`` starts the fold at a boundary, ``prepend`` puts older ones in front."""

from __future__ import annotations

from agent_tui.tui.block_keys import BlockKey
from agent_tui.tui.transcript.records import PendingInput, SessionFacts
from agent_tui.tui.transcript.state import TranscriptState
from agent_tui.tui.transcript_blocks import Block, CompactionBlock, UserBlock


class SegmentFold(TranscriptState):
    def seed(
        self,
        start_seq: int,
        facts: SessionFacts,
        counted_seq: int,
        inbox: list[PendingInput],
        compactions: list[tuple[str, int]],
    ) -> None:
        """Start folding at ``start_seq`` (a busy-period boundary) instead of the log's start.

        ``facts`` (counters and names from the session row, which already count
        everything up to ``counted_seq``) and ``inbox`` (unpromoted inputs, which
        may be older than ``start_seq``) stand in for the events not folded.
        """
        self.start_seq, self.head_seq = start_seq, start_seq - 1
        self.facts, self._counted_seq = facts, counted_seq
        for item in inbox:
            self._admitted[item.input_id] = item
            self.pending[item.input_id] = item
        for input_id, seq in compactions:
            self._add(CompactionBlock(key=BlockKey.compaction(input_id), seq=seq, input_id=input_id))

    def prepend(self, older: TranscriptState) -> list[Block]:
        """Put an older segment (folded over ``[older.start_seq, self.start_seq)``) in front.

        Returns the blocks that are new on screen, oldest first. A block both
        segments know (a divider queued before the boundary) keeps the newer
        state; user messages promoted here but admitted there get their text.
        """
        fresh = [b for b in older.blocks if b.key not in self._by_key]
        for block in fresh:
            self._by_key[block.key] = block
            if block.key in older._open:
                self._open.add(block.key)
        self.blocks[:0] = fresh
        for input_id, item in older._admitted.items():
            user = self._by_key.get(BlockKey.user(input_id))
            if isinstance(user, UserBlock) and not user.text:
                user.text = item.text
                self._changed(user)
        self.start_seq = older.start_seq
        if self.facts.title is None:
            self.facts.title = older.facts.title
        self.version += 1
        return fresh
