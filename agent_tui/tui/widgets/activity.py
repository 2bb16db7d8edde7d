"""``ActivityLine``: the one line under the transcript that moves while the agent works.

It shows :class:`~agent_tui.tui.activity.Activity`'s line: a spinner with the seconds since Enter
(and the streamed tokens) while a turn runs, then ``worked for 12s`` dimmed. One timer at
``activity.FRAME_MS`` runs only while it spins, so an idle app keeps an idle event loop.
"""

from __future__ import annotations

from collections.abc import Callable

from textual.timer import Timer
from textual.widgets import Static

from agent_tui.tui.activity import FRAME_MS, Activity
from agent_tui.vocab.clock import Clock


class ActivityLine(Static):
    """``counters`` gives the transcript's ``(executions_ended, streamed_chars)``."""

    def __init__(self, clock: Clock, counters: Callable[[], tuple[int, int]], id: str | None = None) -> None:
        super().__init__(id=id)
        self.clock = clock
        self.counters = counters
        self.activity = Activity()
        self._timer: Timer | None = None
        self._held = False

    def begin(self) -> None:
        self.activity.begin(self.clock.now_ms(), *self.counters())
        self.paint()

    def observe(self, active: bool) -> None:
        self.activity.observe(active, self.clock.now_ms(), *self.counters())
        self.paint()

    def cancel(self) -> None:
        self.activity.cancel()
        self.paint()

    def reset(self) -> None:
        self.activity.reset()
        self.paint()

    def hold(self, asking: bool) -> None:
        """Hidden while a permission panel waits for the user: nothing works until they answer, and
        the panel is where to look (the turn's clock goes on)."""
        if asking != self._held:
            self._held = asking
            self.paint()

    def paint(self) -> None:
        """Show the line (or hide the widget); the timer runs exactly while the spinner does."""
        text = self.activity.line(self.clock.now_ms(), self.counters()[1])
        self.display = text is not None and not self._held
        self.set_class(not self.activity.spinning, "-done")
        self.update(text or "", layout=False)  # one row always (app.tcss): nothing to re-arrange
        if self.activity.spinning and self._timer is None:
            self._timer = self.set_interval(FRAME_MS / 1000, self.paint, name="activity")
        elif not self.activity.spinning and self._timer is not None:
            self._timer.stop()
            self._timer = None
