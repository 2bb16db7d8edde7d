"""The widget for a block: one kind of block, one widget class.

It imports both widget modules (``block_widgets`` for the text kinds,
``tool_block`` for tool calls, which builds on ``BlockWidget``), so neither
imports the other inside a function. ``lazy.BLOCK_WIDGETS`` loads this module;
the transcript reads ``make_block_widget`` and ``BlockWidget`` from it.
"""

from __future__ import annotations

from agent_tui.tui import transcript_blocks as blocks
from agent_tui.tui.widgets.block_widgets import (
    AssistantText,
    BlockWidget,
    CompactionDivider,
    HookNote,
    InstructionNote,
    ReasoningView,
    RetryNotice,
    StepError,
    UserMessage,
)
from agent_tui.tui.widgets.tool_block import ToolCallView
from agent_tui.vocab.clock import Clock

__all__ = ["BlockWidget", "make_block_widget"]


WIDGETS: dict[type[blocks.Block], type[BlockWidget]] = {
    blocks.UserBlock: UserMessage,
    blocks.InstructionBlock: InstructionNote,
    blocks.CompactionBlock: CompactionDivider,
    blocks.ErrorBlock: StepError,
    blocks.RetryBlock: RetryNotice,
    blocks.HookBlock: HookNote,
    blocks.ToolBlock: ToolCallView,
}
"""Each block class's widget; a ``TextBlock`` is an answer or reasoning (see ``make_block_widget``)."""


def make_block_widget(block: blocks.Block, clock: Clock) -> BlockWidget:
    if isinstance(block, blocks.TextBlock):
        return (ReasoningView if block.reasoning else AssistantText)(block, clock)
    return WIDGETS[type(block)](block, clock)
