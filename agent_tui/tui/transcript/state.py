"""``TranscriptState``: the blocks, the indexes the folds find them by, and the moves every family shares.

Each family's fold (``inbox``, ``tools``, …) is a mixin over this state;
``model.Transcript`` is all of them together.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar

from agent_tui.tui.block_keys import BlockKey
from agent_tui.tui.transcript.records import PendingInput, PermissionAsk, SessionFacts
from agent_tui.tui.transcript_blocks import Block, CompactionBlock, ToolBlock

if TYPE_CHECKING:
    from agent_tui.core.api import RewindState

_B = TypeVar("_B", bound=Block)


@dataclass
class TranscriptState:
    blocks: list[Block] = field(default_factory=list)
    pending: dict[str, PendingInput] = field(default_factory=dict)
    asks: dict[str, PermissionAsk] = field(default_factory=dict)
    facts: SessionFacts = field(default_factory=SessionFacts)
    head_seq: int = 0
    is_active: bool = False
    version: int = 0  # bumped on any change: cheap "anything new?" check
    hidden: list[tuple[int, int]] = field(default_factory=list)
    """``[boundary, rewind)`` seq ranges the session's rewinds hide (read before folding)."""
    stale: bool = False
    """A rewind or an undo was folded that ``hidden`` does not know: fold the session again."""
    streamed_chars: int = 0
    """Characters of model output streamed as deltas (text, reasoning, tool input): the spinner's tokens."""

    def __post_init__(self) -> None:
        self._by_key: dict[BlockKey, Block] = {b.key: b for b in self.blocks}
        self._admitted: dict[str, PendingInput] = {}
        self._open: set[BlockKey] = set()  # keys of blocks whose liveness depends on is_active
        self._drafts: dict[str, list[ToolBlock]] = {}  # amid -> calls still being written
        self._compactions: dict[str, CompactionBlock] = {}  # message_id -> divider
        self.removed: list[BlockKey] = []  # keys removed since the view last looked
        self.start_seq = 1  # the first seq folded here; older segments are prepended (see prepend)
        self._counted_seq = 0  # usage at or below this seq is already in the seeded totals
        self._rewinds: set[int] = set()  # rewinds and undos that ``hidden`` already accounts for
        self._undone: set[int] = set()

    def get(self, key: BlockKey) -> Block | None:
        return self._by_key.get(key)

    def tool_for(self, amid: str | None, call_id: str | None) -> ToolBlock | None:
        """The tool block of a call (a permission ask names its message and call)."""
        block = self._by_key.get(BlockKey.tool(amid, call_id)) if amid and call_id else None
        return block if isinstance(block, ToolBlock) else None

    def _add(self, block: _B) -> _B:
        block.live = self.is_active
        self.blocks.append(block)
        self._by_key[block.key] = block
        return block

    def _remove(self, key: BlockKey) -> None:
        block = self._by_key.pop(key, None)
        if block is not None:
            self.blocks.remove(block)
            self._open.discard(key)
            self.removed.append(key)

    def know_rewinds(self, state: RewindState) -> None:
        """Before folding: the ranges the session's rewinds hide, and which rewinds and undos exist."""
        self.hidden = [(start, end) for start, end in state.hidden]
        self._rewinds, self._undone = set(state.rewinds), set(state.undone)

    def _changed(self, block: Block) -> None:
        block.touch()
        self.version += 1

    def _set_open(self, block: Block, is_open: bool) -> None:
        if is_open:
            self._open.add(block.key)
            block.live = self.is_active  # a block queued while idle can start while active
        else:
            self._open.discard(block.key)

    def set_active(self, active: bool) -> None:
        """Liveness from the coordinator: flips open blocks between live and interrupted."""
        if active == self.is_active:
            return
        self.is_active = active
        for key in self._open:
            block = self._by_key[key]
            block.live = active
            self._changed(block)
        self.version += 1
