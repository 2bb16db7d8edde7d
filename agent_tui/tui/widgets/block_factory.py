"""The widget for a block: one kind of block, one widget class.

It imports both widget modules (``block_widgets`` for the text kinds,
``tool_block`` for tool calls, which builds on ``BlockWidget``), so neither
imports the other inside a function. ``lazy.BLOCK_WIDGETS`` loads this module;
the transcript reads ``make_block_widget`` and ``BlockWidget`` from it.
"""

from __future__ import annotations

from agent_tui.tui import transcript_blocks as blocks
from agent_tui.tui.widgets.block_widgets import (
    AssistantText, BlockWidget, CompactionDivider, InstructionNote, ReasoningView, RetryNotice, StepError, UserMessage,
)  # fmt: skip
from agent_tui.tui.widgets.tool_block import ToolCallView
from agent_tui.vocab.clock import Clock

__all__ = ["BlockWidget", "make_block_widget"]


def make_block_widget(block: blocks.Block, clock: Clock) -> BlockWidget:
    match block:
        case blocks.UserBlock():
            return UserMessage(block, clock)
        case blocks.TextBlock(reasoning=True):
            return ReasoningView(block, clock)
        case blocks.TextBlock():
            return AssistantText(block, clock)
        case blocks.InstructionBlock():
            return InstructionNote(block, clock)
        case blocks.CompactionBlock():
            return CompactionDivider(block, clock)
        case blocks.ErrorBlock():
            return StepError(block, clock)
        case blocks.RetryBlock():
            return RetryNotice(block, clock)
        case blocks.ToolBlock():
            return ToolCallView(block, clock)
    raise TypeError(f"no widget for a {type(block).__name__}")
