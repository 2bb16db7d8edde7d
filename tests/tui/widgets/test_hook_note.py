"""A hook's run on screen: one line, coloured by how it ended; what it told the model folded under it."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Collapsible, Static

from agent_tui.tui.block_keys import BlockKey
from agent_tui.tui.transcript_blocks import HookBlock
from agent_tui.tui.widgets.block_factory import make_block_widget
from agent_tui.vocab.clock import ManualClock


class _Host(App[None]):
    def __init__(self, *blocks: HookBlock) -> None:
        super().__init__()
        self._blocks = blocks

    def compose(self) -> ComposeResult:
        for block in self._blocks:
            yield make_block_widget(block, ManualClock())


async def test_hook_notes_show_the_outcome_and_keep_control_sequences_out() -> None:
    told = HookBlock(key=BlockKey.hook(1), seq=1, event="session_start", command="ctx.sh", context="Branch: x")
    blocked = HookBlock(
        key=BlockKey.hook(2), seq=2, event="pre_tool", command="g.sh", outcome="blocked", message="no\x1b[31m rm"
    )
    slow = HookBlock(key=BlockKey.hook(3), seq=3, event="stop", command="t.sh", outcome="timeout", message="timed out")
    app = _Host(told, blocked, slow)
    async with app.run_test() as pilot:
        await pilot.pause()
        notes = list(app.screen.children)
        lines = [str(note.query_one(".hook-line", Static).render()) for note in notes]
        assert lines == [
            "· session_start hook ran: ctx.sh",
            "⊘ pre_tool hook blocked: no rm",
            "! stop hook timed out: timed out",
        ]
        assert [bool(note.query(Collapsible)) for note in notes] == [True, False, False]
        assert [note.has_class("-blocked") for note in notes] == [False, True, False]
        assert [note.has_class("-warning") for note in notes] == [False, False, True]
