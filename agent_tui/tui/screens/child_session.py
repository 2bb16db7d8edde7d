"""A subagent's transcript, read-only and following it live; Esc goes back to the parent.

Opened with Enter on a focused ``task`` block. It is a session on screen without the
prompt: a :class:`~agent_tui.tui.session_feed.SessionFeed` (the same path as the main
view: the child's log, then its live deltas) painted by a ``TranscriptView``, with a
title line that names the child and sums up its progress (``child_progress``). A
``task`` block inside it opens that grandchild the same way, one screen further.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.css.query import NoMatches
from textual.widgets import Static

from agent_tui.tui.child_progress import figures, progress_of
from agent_tui.tui.frame_pacer import PacedScreen
from agent_tui.tui.services import TuiServices
from agent_tui.tui.session_feed import POLL_S, SessionFeed
from agent_tui.tui.widgets.transcript import FeedHost, TranscriptView
from agent_tui.vocab.terminal_text import inert

BACK = "Esc: back to the parent"


class ChildSessionScreen(FeedHost, PacedScreen[None]):
    BINDINGS = [Binding("escape", "back", "back", tooltip="back to the parent session")]

    DEFAULT_CSS = """
    ChildSessionScreen #child-title { background: $boost; padding: 0 1; height: auto; }
    ChildSessionScreen #transcript { height: 1fr; }
    """

    def __init__(self, services: TuiServices, session_id: str) -> None:
        super().__init__()
        self.services = services
        self.session_id = session_id
        self.feed = SessionFeed(services, self)

    def compose(self) -> ComposeResult:
        yield Static(id="child-title")
        yield TranscriptView(self.services.clock, id="transcript")

    async def on_mount(self) -> None:
        await self._open()
        self.set_interval(POLL_S, self.feed.poll)
        self.query_one(TranscriptView).focus()

    async def _open(self) -> None:
        self.workers.cancel_group(self, "feed")
        self.feed.open(self.session_id)
        await self.show_transcript(self.feed.transcript, None)
        self.feed.follow()
        self.paint_chrome()

    def action_back(self) -> None:
        self.dismiss(None)

    @property
    def title_line(self) -> str:
        """``explore subagent · find the config · running · bash  ls · 2 tool calls · 310 tokens``."""
        transcript = self.feed.transcript
        facts = transcript.facts
        progress = progress_of(transcript)
        running = self.feed.is_active
        parts = [f"{facts.agent or 'a'} subagent", facts.title or self.session_id]
        parts += ["running", progress.action] if running else ["done"]
        parts += [*figures(progress), BACK]
        return inert(" · ".join(parts))

    # ------------------------------------------------------------------ FeedView

    async def repaint(self, active: bool) -> None:
        try:
            await self.query_one(TranscriptView).sync()
        except NoMatches:  # dismissed mid-update
            return
        self.paint_chrome()

    def paint_chrome(self) -> None:
        try:
            self.query_one("#child-title", Static).update(Text(self.title_line))
        except NoMatches:
            pass

    def report(self, message: str) -> None:
        self.app.notify(message, severity="error")

    def reopen(self) -> None:
        """Rewound meanwhile: fold the child again from the store."""
        self.app.call_later(self._open)
