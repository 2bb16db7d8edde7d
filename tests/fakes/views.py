"""A double for the screen side of the session feed (``tui.session_feed.FeedView``)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from agent_tui.tui.transcript.model import Transcript


class RecordingFeedView:
    """The ``FeedView`` side: work runs as plain tasks, and every paint is recorded."""

    def __init__(self) -> None:
        self.tasks: list[asyncio.Task] = []
        self.shown: list[tuple[Transcript, Any]] = []
        self.repaints: list[bool] = []
        self.reports: list[str] = []
        self.reopened = 0

    def run_feed_work(self, work: Callable[[], Awaitable[None]], name: str) -> asyncio.Task:
        task = asyncio.create_task(work(), name=name)
        self.tasks.append(task)
        return task

    def feed_later(self, delay_s: float, callback: Callable[[], Awaitable[None]]) -> None:
        asyncio.get_running_loop().call_later(delay_s, lambda: self.tasks.append(asyncio.ensure_future(callback())))

    async def show_transcript(self, transcript: Transcript, fetch_older: Any) -> None:
        self.shown.append((transcript, fetch_older))

    async def repaint(self, active: bool) -> None:
        self.repaints.append(active)

    def paint_chrome(self) -> None:
        pass

    def report(self, message: str) -> None:
        self.reports.append(message)

    def reopen(self) -> None:
        self.reopened += 1

    def stop(self) -> None:
        for task in self.tasks:
            task.cancel()
