"""The shown session's running subagents, followed live onto their ``task`` blocks.

Children are found as their asks are: every poll names the running sessions under the
session on screen (``child_asks.descendants``), and those its own ``task`` calls started
(their ``spawned_by``) are followed. Each is followed the way a
session on screen is, by a :class:`~agent_tui.tui.session_feed.SessionFeed` of its own
(its log, then its live deltas, folded into a ``Transcript``), whose view is a
:class:`ChildFollow`: instead of painting widgets, a repaint sums the child's transcript
up (:func:`progress_of`) and puts it on the parent's ``task`` block, found by the
child's ``spawned_by`` message and call. The parent's own flush repaints that block.

A child's work runs as the parent view's feed work, so switching sessions stops it;
a child that stops running is no longer followed (its block keeps the last figures).
No Textual here: the feeds only need a ``FeedView``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any, Protocol

from agent_tui.tui.transcript_blocks import SubagentProgress, TextBlock, ToolBlock, ToolState

if TYPE_CHECKING:
    from agent_tui.tui.session_feed import FeedView, FetchOlder, Stoppable
    from agent_tui.tui.transcript.model import Transcript

SHELL = "!"  # the user's own ``!command``: not a call the child made


def progress_of(transcript: Transcript) -> SubagentProgress:
    """What a child session is doing now, how many tools it called, and its tokens so far."""
    facts = transcript.facts
    tools = [b for b in transcript.blocks if isinstance(b, ToolBlock) and b.name != SHELL]
    calls = sum(1 for b in tools if b.state is not ToolState.INPUT)
    return SubagentProgress(
        action=current_action(transcript), tools=calls, tokens=facts.input_tokens + facts.output_tokens
    )


def plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def figures(progress: SubagentProgress) -> list[str]:
    return [plural(progress.tools, "tool call"), f"{progress.tokens:,} tokens"]


def subagent_line(agent: str, progress: SubagentProgress, running: bool) -> str:
    """``↳ explore · bash  ls -la · 3 tool calls · 1,204 tokens``; settled, without the action."""
    what = [agent, progress.action] if running else [agent]
    return "↳ " + " · ".join([*what, *figures(progress)])


def current_action(transcript: Transcript) -> str:
    """The newest open block says it: a running tool (name and short argument), thinking, writing."""
    for block in reversed(transcript.blocks):
        if isinstance(block, ToolBlock) and block.state in (ToolState.INPUT, ToolState.RUNNING):
            summary = block.summary
            name = block.name or "tool"
            return f"{name}  {summary}" if summary and block.state is ToolState.RUNNING else name
        if isinstance(block, TextBlock) and block.open:
            return "thinking" if block.reasoning else "writing"
        if not isinstance(block, (ToolBlock, TextBlock)):
            continue
        break  # the newest tool or text block is settled: between steps
    if transcript.facts.step_open:
        return "waiting for the model"
    return "starting" if not transcript.blocks else "between steps"


class ChildFeed(Protocol):
    """What :class:`ChildFollow` needs of a ``SessionFeed``."""

    transcript: Transcript

    def open(self, session_id: str | None) -> None: ...

    def follow(self) -> None: ...


@dataclass
class _Link:
    """A followed child and the parent's call that started it."""

    session_id: str
    message_id: str
    call_id: str
    feed: ChildFeed | None = None
    view: ChildFollow | None = None


class ChildFollow:
    """The ``FeedView`` of a child's feed: its work is the host's, its repaints a callback."""

    def __init__(self, host: FeedView, changed: Callable[[], None]) -> None:
        self._host = host
        self._changed = changed
        self._work: list[Stoppable] = []

    def run_feed_work(self, work: Callable[[], Awaitable[None]], name: str) -> Stoppable:
        handle = self._host.run_feed_work(work, f"child-{name}")
        self._work.append(handle)
        return handle

    def feed_later(self, delay_s: float, callback: Callable[[], Awaitable[None]]) -> None:
        self._host.feed_later(delay_s, callback)

    async def show_transcript(self, transcript: Transcript, fetch_older: FetchOlder | None) -> None:
        self._changed()

    async def repaint(self, active: bool) -> None:
        self._changed()

    def paint_chrome(self) -> None:
        return None

    def report(self, message: str) -> None:
        return None  # a child that cannot be read just shows no progress; its own view says why

    def reopen(self) -> None:
        return None

    def stop(self) -> None:
        for handle in self._work:
            handle.cancel()
        self._work.clear()


@dataclass
class Subagents:
    """The running children of the session on screen, each followed onto its ``task`` block."""

    host: FeedView
    make_feed: Callable[[ChildFollow], ChildFeed]
    parent: Callable[[], Transcript]
    """The parent's transcript now (it is replaced when the session is reopened)."""
    repaint_parent: Callable[[], None]
    links: dict[str, _Link] = field(default_factory=dict)
    deeper: set[str] = field(default_factory=set)
    """Running sessions further down (grandchildren), not followed here."""

    async def track(self, sessions: Any, parent_id: str | None, running: list[str]) -> None:
        """Follow the running sessions under ``parent_id`` (``child_asks.descendants``) that its own
        ``task`` calls started; stop following those no longer running."""
        for gone in [sid for sid in self.links if sid not in running]:
            self._show(self.links[gone])  # its last figures stay on the block
            self._stop(self.links.pop(gone))
        self.deeper &= set(running)
        for child in running:
            if child in self.links:  # again each poll: the parent's block may have come after the child moved
                self._show(self.links[child])
                continue
            if child in self.deeper:
                continue
            record = await sessions.get(child)
            if record.spawned_by != parent_id or not record.spawned_call_id:
                self.deeper.add(child)  # a grandchild: its block is in its parent's transcript
                continue
            link = _Link(child, record.spawned_message_id or "", record.spawned_call_id)
            self.links[child] = link
            link.view = ChildFollow(self.host, partial(self._show, link))
            link.feed = self.make_feed(link.view)
            link.feed.open(child)
            link.feed.follow()

    def forget(self) -> None:
        """Another session is on screen: stop following this one's children."""
        for link in self.links.values():
            self._stop(link)
        self.links.clear()
        self.deeper.clear()

    def _stop(self, link: _Link) -> None:
        if link.view is not None:
            link.view.stop()

    def _show(self, link: _Link) -> None:
        if link.feed is None or self.links.get(link.session_id) is not link:
            return
        progress = progress_of(link.feed.transcript)
        if self.parent().show_subagent(link.message_id, link.call_id, link.session_id, progress):
            self.repaint_parent()
