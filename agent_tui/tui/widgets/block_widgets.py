"""One widget per transcript block. Each repaints only when its block's version moves.

Every text a block shows (prompts, answers, reasoning, summaries, error
messages) goes through ``vocab.terminal_text.inert`` first: a model or a file
must not reach the terminal with control sequences (window titles, clipboard
writes, cursor moves).

``BlockWidget.sync`` is the single update path: the transcript calls it after
folding new events or deltas, so a widget never reaches into the store.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.widget import Widget
from textual.widgets import Collapsible, Static

from agent_tui.tui.timings import COUNTDOWN_SLACK_S, countdown
from agent_tui.tui.transcript_blocks import (
    Block,
    CompactionBlock,
    CompactionState,
    ErrorBlock,
    HookBlock,
    InstructionBlock,
    RetryBlock,
    TextBlock,
    UserBlock,
)
from agent_tui.tui.widgets.live_markdown import MarkdownPart
from agent_tui.tui.widgets.markdown_parts import PART_CHARS, StreamedParts, blank_after, split_parts
from agent_tui.vocab.clock import Clock
from agent_tui.vocab.terminal_text import inert


def error_label(error_type: str) -> str:
    """``provider.rate-limit`` -> ``rate limit``; ``aborted`` -> ``interrupted``."""
    if error_type == "aborted":
        return "interrupted"
    return error_type.rsplit(".", 1)[-1].replace("-", " ")


class BlockWidget(Widget):
    """Base: holds its block and the version it last painted."""

    DEFAULT_CSS = "BlockWidget { height: auto; }"

    def __init__(self, block: Block, clock: Clock) -> None:
        super().__init__(classes="block")
        self.block = block
        self.clock = clock
        self.painted = -1

    async def sync(self) -> None:
        if self.painted != self.block.version:
            self.painted = self.block.version
            await self.paint()

    async def paint(self) -> None:
        """Show the block's current state; called only when it changed."""


class UserMessage(BlockWidget):
    block: UserBlock

    def compose(self) -> ComposeResult:
        yield Static(inert(self.block.text) or "…", markup=False, classes="text")
        yield Static(self.block.attachments, markup=False, classes="attachments")

    async def on_mount(self) -> None:
        await self.sync()

    async def paint(self) -> None:  # the text arrives late when its admission was folded later
        self.query_one(".text", Static).update(inert(self.block.text) or "…")
        chips = self.query_one(".attachments", Static)
        chips.update(self.block.attachments)
        chips.display = bool(self.block.attachments)


class AssistantText(BlockWidget):
    """An answer as a chain of :class:`MarkdownPart`: finished parts, then the live tail.

    A long answer is cut into parts as it grows (see ``markdown_parts``); only
    the last part changes, and it re-renders only its last block, so each frame
    costs the same however long the answer grows.
    """

    block: TextBlock
    PART_CHARS = PART_CHARS

    def __init__(self, block: TextBlock, clock: Clock) -> None:
        super().__init__(block, clock)
        self._written = "" if block.open else inert(block.text)
        self._parts = StreamedParts(self.PART_CHARS)  # the parts frozen so far: where the live tail starts

    def compose(self) -> ComposeResult:
        parts = split_parts(self._written, self.PART_CHARS)
        self._parts = StreamedParts(self.PART_CHARS, start=len(self._written) - len(parts[-1]))
        yield from self._chain(parts, lead=False)

    @staticmethod
    def _chain(parts: list[str], lead: bool) -> list[MarkdownPart]:
        """A widget per part; ``lead``: whether Rich would put a blank line above the first."""
        widgets = []
        for part in parts:
            widgets.append(MarkdownPart(part, lead=lead))
            lead = blank_after(part, lead)
        return widgets

    async def on_mount(self) -> None:  # the block may have moved on between creation and mount
        await self.sync()

    @property
    def source(self) -> str:
        """The text on screen, all parts together."""
        return "".join(part.source for part in self.query_children(MarkdownPart))

    async def paint(self) -> None:
        text = inert(self.block.text)  # the whole text: a sequence split across deltas is still whole here
        if not text.startswith(self._written):  # the durable value differs from what streamed
            await self.remove_children()
            self._written = text
            await self.mount_all(list(self.compose()))
        elif len(text) > len(self._written):
            self._written = text
            live = self.query_children(MarkdownPart).last()
            if parts := self._parts.freeze(text):  # the live part ends as the first finished one (its blocks
                rest = [*parts[1:], text[self._parts.start :]]  # rendered already); the rest go on in new parts
                with self.app.batch_update():
                    live.show(parts[0])
                    await self.mount_all(self._chain(rest, blank_after(parts[0], live.lead)))
            else:
                live.show(text[self._parts.start :])


class ReasoningView(BlockWidget):
    """Dim and collapsed by default; the title says whether it is still thinking."""

    block: TextBlock

    def compose(self) -> ComposeResult:
        with Collapsible(title=self._title(), collapsed=True):
            yield Static(inert(self.block.text), markup=False, classes="reasoning-text")

    def _title(self) -> str:
        return "thinking…" if self.block.open and self.block.live else "thought"

    async def paint(self) -> None:
        self.query_one(Collapsible).title = self._title()
        self.query_one(".reasoning-text", Static).update(inert(self.block.text))


class InstructionNote(BlockWidget):
    """A quiet one-liner; the updated text is one click away. An importer's note (what it could
    not map) is shown open: nothing of an imported session is to be lost from sight."""

    block: InstructionBlock

    def compose(self) -> ComposeResult:
        imported = self.block.source == "import"
        with Collapsible(title="import note" if imported else "instructions updated", collapsed=not imported):
            yield Static(inert(self.block.text), markup=False)


class CompactionDivider(BlockWidget):
    """queued -> running (summary streams under it) -> done (collapsible) | failed."""

    block: CompactionBlock
    TITLES = {
        CompactionState.QUEUED: "compaction queued",
        CompactionState.RUNNING: "compacting context…",
        CompactionState.DONE: "context compacted",
        CompactionState.FAILED: "compaction failed",
        CompactionState.INTERRUPTED: "compaction interrupted",
    }

    def compose(self) -> ComposeResult:
        yield Static(classes="divider-title")
        with Collapsible(title="summary", collapsed=True):
            yield Static(markup=False, classes="divider-summary")
        yield Static(markup=False, classes="divider-live")

    async def paint(self) -> None:
        block = self.block
        state = block.shown_state
        title = f"── {self.TITLES[state]} ({block.reason}) ──"
        if state is CompactionState.FAILED and block.error:
            title = f"── {self.TITLES[state]}: {inert(block.error)} ──"
        self.query_one(".divider-title", Static).update(Text(title))
        self.set_class(state is CompactionState.FAILED, "-failed")
        done = state is CompactionState.DONE
        self.query_one(Collapsible).display = done
        summary = inert(block.summary)
        self.query_one(".divider-summary", Static).update(summary if done else "")
        live = self.query_one(".divider-live", Static)
        live.display = state is CompactionState.RUNNING and bool(summary)
        live.update(summary if live.display else "")

    async def on_mount(self) -> None:
        await self.sync()


RESEND = "↑ then Enter sends your prompt again"
ERROR_HINTS = {
    "provider.rate-limit": f"The provider is limiting requests: wait a little; {RESEND}.",
    "provider.internal": f"The provider failed, even after retries: {RESEND}.",
    "provider.transport": f"The provider could not be reached (network, proxy, api_base?); {RESEND}.",
    "provider.auth": "The provider refused the key: check it (AGENT_TUI_API_KEY, the provider's variable or "
    f"--api-key), then {RESEND}.",
    "provider.context-overflow": f"The conversation is too long for this model: /compact, then {RESEND}.",
    "provider.invalid-request": f"The provider refused the request: is the model right (/model)? {RESEND}.",
    "provider.content-filter": "The provider's content filter stopped the answer: rephrase the prompt.",
}
"""What to do after a turn ended on a provider error, shown under it once."""


class StepError(BlockWidget):
    block: ErrorBlock

    def render(self) -> Text:
        block = self.block
        label, message = error_label(block.error_type), inert(block.message)
        if label == "interrupted":
            return Text("⊘ interrupted" + ("" if message.lower().startswith("interrupt") else f": {message}"))
        status = f" (HTTP {block.status})" if block.status else ""
        text = Text(f"✗ {label}{status}: {message}")
        hint = ERROR_HINTS.get(block.error_type) if block.ends_turn else None
        if hint:
            text.append(f"\n  {hint}", style="dim")
        return text

    async def paint(self) -> None:
        self.refresh(layout=True)  # the turn ended on it: a hint line more

    def on_mount(self) -> None:
        self.set_class(self.block.error_type == "aborted", "-interrupted")


class HookNote(BlockWidget):
    """One line: which hook ran and how it ended; what it told the model is one click away."""

    block: HookBlock
    MARKS = {"ok": "·", "blocked": "⊘", "warning": "!", "timeout": "!", "interrupted": "⊘"}

    def compose(self) -> ComposeResult:
        yield Static(self._line(), markup=False, classes="hook-line")
        if self.block.context:
            with Collapsible(title="told the model", collapsed=True):
                yield Static(inert(self.block.context), markup=False)

    def _line(self) -> Text:
        block = self.block
        on = f" ({block.tool_name})" if block.tool_name else ""
        said = {"ok": "ran", "blocked": "blocked", "warning": "warning", "timeout": "timed out"}
        head = f"{self.MARKS.get(block.outcome, '·')} {block.event} hook{on} {said.get(block.outcome, block.outcome)}"
        detail = inert(block.message or block.command)
        return Text(f"{head}: {detail}")

    def on_mount(self) -> None:
        self.set_class(self.block.outcome in ("warning", "timeout"), "-warning")
        self.set_class(self.block.outcome == "blocked", "-blocked")


class RetryNotice(BlockWidget):
    """ "retrying, attempt N in Ns" counting down while live; history otherwise."""

    block: RetryBlock

    def on_mount(self) -> None:
        self._tick()

    def _tick(self) -> None:
        """Repaint when the shown number changes (as the status bar does), while the retry is live."""
        self.refresh()
        if self.block.live:
            self.set_timer(countdown(self.block.at_ms, self.clock.now_ms())[1] + COUNTDOWN_SLACK_S, self._tick)

    def render(self) -> Text:
        block = self.block
        reason = f"{error_label(block.error_type)}: {inert(block.message)}"
        if not block.live:
            return Text(f"↻ retry {block.attempt} was scheduled ({reason}), then interrupted")
        seconds, _ = countdown(block.at_ms, self.clock.now_ms())
        return Text(f"↻ {reason} — retrying, attempt {block.attempt} in {seconds}s")

    async def paint(self) -> None:
        self.refresh()
