"""A tool call: spinner/✓/✗ header, live bash output, collapsible output, patch diff.

Folded, the output shows its last :data:`PREVIEW_LINES` lines under its title; ``o`` on
the block (it takes focus when it has output) opens all of it full screen
(``screens/output_view``), as Alt+O does for the newest output.

Output keeps its colours and nothing else: SGR sequences are rendered by
Rich (``Text.from_ansi``) after ``inert`` has removed every other control
sequence; the name, the summary and the error are plain text.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.widgets import Collapsible, Static

from agent_tui.tui.child_progress import subagent_line
from agent_tui.tui.mcp_view import tool_label
from agent_tui.tui.transcript_blocks import ToolBlock, ToolState
from agent_tui.tui.widgets.block_widgets import BlockWidget
from agent_tui.tui.widgets.diff import render_patch
from agent_tui.vocab.clock import Clock
from agent_tui.vocab.terminal_text import inert

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
LIVE_TAIL_LINES = 12
PREVIEW_LINES = 3
OUTPUT_PREVIEW_CHARS = 20_000
TASK = "task"  # the tool that runs a subagent
ICONS = {ToolState.OK: "✓", ToolState.FAILED: "✗", ToolState.INTERRUPTED: "⊘"}


def format_duration(ms: int | None) -> str:
    if ms is None:
        return ""
    if ms < 1000:
        return f"{ms}ms"
    if ms < 60_000:
        return f"{ms / 1000:.1f}s"
    return f"{ms // 60_000}m{(ms % 60_000) // 1000:02d}s"


def coloured(text: str) -> Text:
    """Tool output as shown: its colours rendered by Rich, every other control sequence gone."""
    return Text.from_ansi(inert(text, keep_sgr=True))


def tail(text: str, lines: int) -> str:
    parts = text.rstrip("\n").split("\n")
    return "\n".join(parts[-lines:])


class ToolCallView(BlockWidget):
    """A tool call; a ``task`` call also shows its subagent's progress and takes focus: Enter opens
    the child's transcript."""

    block: ToolBlock
    BINDINGS = [
        Binding("enter", "open_child", "open subagent", tooltip="on a task block: the subagent's transcript"),
        Binding("o", "open_output", "full output", tooltip="on a tool block: its whole output, full screen"),
        Binding("escape", "leave", "back", tooltip="on a task or tool block: back to the prompt"),
    ]

    class OpenChild(Message):
        """Show a ``task`` call's child session (its id, when the block knows it already)."""

        def __init__(self, block: ToolBlock) -> None:
            super().__init__()
            self.block = block

    class OpenOutput(Message):
        """Show a call's whole output full screen (the app opens screens)."""

        def __init__(self, block: ToolBlock) -> None:
            super().__init__()
            self.block = block

    class Leave(Message):
        """Esc on a focused ``task`` block: the user is done with it (not an interrupt of the session)."""

    def __init__(self, block: ToolBlock, clock: Clock) -> None:
        super().__init__(block, clock)
        self.can_focus = self._focusable()

    def _focusable(self) -> bool:
        """A task block (Enter opens its subagent) and a block with output (``o`` opens it)."""
        return self.block.name == TASK or bool(self.block.output or self.block.live_output)

    def compose(self) -> ComposeResult:
        yield Static(classes="tool-header")
        yield Static(markup=False, classes="tool-subagent")
        yield Static(classes="tool-diff")
        yield Static(markup=False, classes="tool-live")
        with Collapsible(title="output", collapsed=True):
            yield Static(markup=False, classes="tool-output")
        yield Static(markup=False, classes="tool-preview")
        yield Static(markup=False, classes="tool-error")
        yield Static(markup=False, classes="tool-note")

    async def on_mount(self) -> None:
        self._spinner = self.set_interval(0.1, self._spin, pause=True)
        await self.sync()

    def _spin(self) -> None:
        self.query_one(".tool-header", Static).update(self._header())

    def _header(self) -> Text:
        block = self.block
        state = block.shown_state
        icon = ICONS.get(state) or SPINNER[self.clock.now_ms() // 100 % len(SPINNER)]  # frozen clock: fixed frame
        header = Text()
        header.append(f"{icon} ", style="bold")
        header.append(inert(tool_label(block.name or "tool")), style="bold")
        if block.summary:
            header.append(f"  {inert(block.summary)}")
        if state is ToolState.INTERRUPTED:
            header.append("  interrupted")
        elif block.duration_ms is not None:
            header.append(f"  {format_duration(block.duration_ms)}")
        return header

    async def paint(self) -> None:
        block = self.block
        state = block.shown_state
        running = state in (ToolState.INPUT, ToolState.RUNNING)
        self._spinner.resume() if running else self._spinner.pause()
        for name in ("-ok", "-failed", "-interrupted", "-running"):
            self.remove_class(name)
        self.add_class(f"-{'running' if running else state.value}")
        self.query_one(".tool-header", Static).update(self._header())

        self.can_focus = self._focusable()  # a call still being written learns its name late
        subagent = self.query_one(".tool-subagent", Static)
        subagent.display = block.subagent is not None
        if block.subagent is not None:
            agent = str(block.input.get("agent") or "subagent")
            subagent.update(inert(subagent_line(agent, block.subagent, running)))

        diff = self.query_one(".tool-diff", Static)
        patch = block.patch
        diff.display = patch is not None and not (block.awaiting_permission and block.live)  # the panel shows it
        if patch is not None:
            diff.update(render_patch(patch, self.app.theme_variables))

        live = self.query_one(".tool-live", Static)
        live.display = running and bool(block.live_output)
        if live.display:
            live.update(coloured(tail(block.live_output, LIVE_TAIL_LINES)))

        output = self.query_one(Collapsible)
        output.display = bool(block.output) and not running
        if output.display:
            text = block.output
            lines = text.count("\n") + 1
            output.title = f"output ({lines} line{'s' if lines != 1 else ''})"
            self.query_one(".tool-output", Static).update(coloured(text[:OUTPUT_PREVIEW_CHARS]))
        self._paint_preview()

        error = self.query_one(".tool-error", Static)
        error.display = bool(block.error) and state is not ToolState.INTERRUPTED
        if error.display:
            error.update(inert(block.error or ""))

        note = self.query_one(".tool-note", Static)
        note.display = bool(block.unsnapshotted)
        if note.display:
            note.update(inert(f"⚠ no snapshot before this call ({block.unsnapshotted}): a rewind cannot undo it"))

    def _paint_preview(self) -> None:
        """The last lines of a folded output, dimmed, so a glance tells how it ended."""
        output = self.query_one(Collapsible)
        preview = self.query_one(".tool-preview", Static)
        preview.display = output.display and output.collapsed
        if preview.display:
            preview.update(coloured(tail(self.block.output, PREVIEW_LINES)))

    def on_collapsible_expanded(self) -> None:
        self._paint_preview()

    def on_collapsible_collapsed(self) -> None:
        self._paint_preview()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "open_child":  # only a task block offers it (the footer too)
            return self.block.name == TASK
        if action == "open_output":
            return bool(self.block.output or self.block.live_output)
        return True

    def action_open_output(self) -> None:
        if self.block.output or self.block.live_output:
            self.post_message(self.OpenOutput(self.block))

    def action_leave(self) -> None:
        self.post_message(self.Leave())

    def action_open_child(self) -> None:
        if self.block.name == TASK:
            self.post_message(self.OpenChild(self.block))

    def on_unmount(self) -> None:
        self._spinner.stop()
