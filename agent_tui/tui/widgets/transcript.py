"""The transcript: a stream-layout scroll view over a window of the newest blocks.

Only the newest blocks are mounted; scrolling to the top back-fills older ones
a page at a time, and while following the bottom the oldest mounted widgets are
pruned, so a 10 000-message session opens at once and an hour of streaming keeps
memory bounded. The view stays anchored to the bottom unless the user scrolled
up; then new output shows a "new output below" hint instead of moving the view.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from functools import partial
from typing import TYPE_CHECKING, cast

from textual.containers import VerticalScroll
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Static

from agent_tui.tui.lazy import BLOCK_WIDGETS
from agent_tui.tui.transcript.model import Transcript
from agent_tui.tui.transcript_blocks import Block
from agent_tui.vocab.clock import Clock

if TYPE_CHECKING:  # imported when the first block is shown (see ``lazy``)
    from textual.worker import Worker, WorkType

    from agent_tui.tui.widgets.block_factory import BlockWidget

INITIAL_BLOCKS = 24  # mounted when a session opens (a screenful and then some)...
FIRST_BLOCKS = 8  # ...these newest ones for the first frame, the rest just above them a frame later
PAGE_BLOCKS = 40  # back-filled per scroll to the top
MAX_MOUNTED = 240  # pruned down to MAX_MOUNTED - PAGE_BLOCKS while following


class FeedHost:
    """What a widget showing a ``SessionFeed`` in one ``TranscriptView`` does for the feed (part of its
    ``FeedView``): the feed's work as its workers (group ``feed``), its timers, the transcript shown."""

    def run_feed_work(self, work: Callable[[], Awaitable[None]], name: str) -> Worker:
        return cast(Widget, self).run_worker(work, group="feed", name=name)

    def feed_later(self, delay_s: float, callback: Callable[[], Awaitable[None]]) -> None:
        host = cast(Widget, self)
        host.set_timer(delay_s, callback) if delay_s > 0 else host.call_later(callback)

    async def show_transcript(self, transcript: Transcript, fetch_older: Callable[[], Awaitable[int]] | None) -> None:
        view = cast(Widget, self).query_one(TranscriptView)
        view.fetch_older = fetch_older
        await view.show(transcript)


class NewOutputHint(Static):
    """Shown over the bottom edge when output arrives while the user reads older text."""

    def on_click(self) -> None:
        self.app.action_follow()  # type: ignore[attr-defined]


class TranscriptView(VerticalScroll, can_focus=True):
    class Scrolled(Message):
        """The user scrolled: the screen shows or hides the hint."""

    def __init__(self, clock: Clock, id: str | None = None) -> None:
        super().__init__(id=id)
        self.clock = clock
        self.transcript: Transcript | None = None
        self._widgets: dict[int, BlockWidget] = {}  # id(block) -> mounted widget
        self._seen: set[int] = set()  # every block already handled (mounted or left older)
        self.unseen_output = False
        self.fetch_older: Callable[[], Awaitable[int]] | None = None  # folds the segment before the first block
        # One change of the mounted window at a time: Textual runs timer callbacks (the flush) in
        # their own tasks, and an overlapping sync painted a widget still being mounted.
        self._changing = asyncio.Lock()

    def on_mount(self) -> None:
        self.anchor()

    @property
    def following(self) -> bool:
        return not self._anchor_released or self.scroll_y >= self.max_scroll_y

    @property
    def mounted_blocks(self) -> list[Block]:
        return [w.block for w in self._mounted()]

    def _mounted(self) -> list[BlockWidget]:
        blocks = BLOCK_WIDGETS.module
        return [] if blocks is None else list(self.query_children(blocks.BlockWidget))

    async def show(self, transcript: Transcript) -> None:
        """Replace everything with ``transcript``, mounting only its newest blocks."""
        async with self._changing:
            await self._show(transcript)

    async def _show(self, transcript: Transcript) -> None:
        if transcript.blocks:
            await BLOCK_WIDGETS.load()
        await self.remove_children()
        self._widgets.clear()
        self._seen = {id(b) for b in transcript.blocks}
        self.transcript = transcript
        transcript.removed.clear()
        newest = transcript.blocks[-INITIAL_BLOCKS:]
        widgets = [self._make(b) for b in newest[-FIRST_BLOCKS:]]
        if widgets:
            await self.mount_all(widgets)
        self.anchor()
        if len(newest) > FIRST_BLOCKS:  # mounting 24 blocks costs ~3x as much as 8 before the bottom shows
            # typed as Textual's WorkType: see watch_scroll_y
            fill: WorkType[None] = partial(self._fill_above, transcript, len(newest) - FIRST_BLOCKS)
            self.call_after_refresh(lambda: self.run_worker(fill, group="fill"))

    async def _fill_above(self, transcript: Transcript, count: int) -> None:
        """Up to ``count`` more blocks above the oldest mounted one (a scroll-up may have loaded
        some already: these come above those)."""
        async with self._changing:
            children = self._mounted()
            if self.transcript is not transcript or not children:  # another session was shown meanwhile
                return
            start = self._index_of(children[0].block)
            older = transcript.blocks[max(0, start - count) : start]
            if older:
                await self._mount_above(children[0], older)

    async def _mount_above(self, first: BlockWidget, blocks: list[Block]) -> None:
        """Mount ``blocks`` before ``first``, keeping what the user sees where it is (following
        the bottom, the anchor does that)."""
        height_before, following = self.virtual_size.height, self.following
        await self.mount_all([self._make(b) for b in blocks], before=first)
        if not following:
            self.call_after_refresh(self._keep_position, height_before)

    def _make(self, block: Block) -> BlockWidget:
        assert BLOCK_WIDGETS.module is not None, "load the block widgets before making one"
        widget = BLOCK_WIDGETS.module.make_block_widget(block, self.clock)
        self._widgets[id(block)] = widget
        return widget

    async def sync(self) -> None:
        """Bring the mounted window up to date with the transcript."""
        async with self._changing:
            await self._sync()

    async def _sync(self) -> None:
        transcript = self.transcript
        if transcript is None:
            return
        if transcript.blocks:
            await BLOCK_WIDGETS.load()
        if transcript.removed:
            transcript.removed.clear()
            for key, widget in list(self._widgets.items()):
                if transcript.get(widget.block.key) is not widget.block:
                    del self._widgets[key]
                    await widget.remove()
        new: list[Block] = []
        for block in reversed(transcript.blocks):
            if id(block) in self._seen:
                break
            new.append(block)
        new.reverse()
        following = self.following
        shown = self._mounted()
        bottom_grows = bool(shown) and shown[-1].painted != shown[-1].block.version  # e.g. a streaming answer
        with self.app.batch_update():
            for widget in list(self._widgets.values()):
                await widget.sync()
            if new:
                self._seen.update(id(b) for b in new)
                await self.mount_all([self._make(b) for b in new])
            if (new or bottom_grows) and not following and not self.unseen_output:
                self.unseen_output = True
                self.post_message(self.Scrolled())
            if following and len(self._widgets) > MAX_MOUNTED:
                await self._prune(len(self._widgets) - (MAX_MOUNTED - PAGE_BLOCKS))

    async def _prune(self, count: int) -> None:
        oldest = self._mounted()[:count]
        for widget in oldest:
            self._widgets.pop(id(widget.block), None)
        await self.remove_children(oldest)

    async def load_older(self) -> int:
        """Mount the page of blocks just above the oldest mounted one."""
        async with self._changing:
            return await self._load_older()

    async def _load_older(self) -> int:
        transcript = self.transcript
        children = self._mounted()
        if transcript is None or not children:
            return 0
        start = self._index_of(children[0].block)
        if start == 0 and self.fetch_older is not None and await self.fetch_older():
            start = self._index_of(children[0].block)
        older = transcript.blocks[max(0, start - PAGE_BLOCKS) : start]
        if not older:
            return 0
        self._seen.update(id(b) for b in older)
        await self._mount_above(children[0], older)
        return len(older)

    def _index_of(self, block: Block) -> int:
        assert self.transcript is not None
        try:
            return self.transcript.blocks.index(block)
        except ValueError:
            return 0

    def _keep_position(self, height_before: int) -> None:
        self.scroll_to(y=self.scroll_y + self.virtual_size.height - height_before, animate=False, immediate=True)

    def watch_scroll_y(self, old: float, new: float) -> None:
        super().watch_scroll_y(old, new)
        if new <= 0 and old > 0 and self._anchor_released:  # the user went up, not a layout settling
            # A variable of Textual's WorkType: mypy cannot solve run_worker's type variable from an
            # async method against that union (it infers Never)
            load_older: WorkType[int] = self.load_older
            self.run_worker(load_older, exclusive=True, group="backfill")
        if self.unseen_output and new >= self.max_scroll_y:
            self.unseen_output = False
            self.post_message(self.Scrolled())

    def toggle_details(self) -> bool:
        """Ctrl+O: unfold every folded detail on screen (tool output, reasoning, summaries,
        instructions), or fold them all when none is folded; says whether they are now unfolded."""
        from textual.widgets import Collapsible

        folds = [fold for fold in self.query(Collapsible) if fold.display]
        unfold = any(fold.collapsed for fold in folds)
        for fold in folds:
            fold.collapsed = not unfold
        return unfold

    def jump_to_bottom(self) -> None:
        self.unseen_output = False
        self.anchor()
        self.post_message(self.Scrolled())
