"""While ``agent-tui serve`` runs, MCP servers' questions (elicitation) wait for an HTTP answer.

Without a watcher core declines a question at once (``run``'s headless rule). The served
application watches from startup to cleanup, so a question stays open for
``POST /api/session/{id}/questions/{request_id}/answer``; an HTTP client may never come, so each
is declined for the user once its ``answer_within_s`` (the asking server's ``timeout_s``) has
passed, the reason in the log. Opening and closing are the log's ``session.elicitation.asked`` /
``.answered`` events, which ``GET /api/session/{id}/log`` streams.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable

from agent_tui.core.api import McpAsks, OpenQuestion, UnknownElicitation
from agent_tui.vocab.elicitation import ElicitationRequest

DEFAULT_WITHIN_S = 120.0
"""For a question that names no limit (the MCP server default ``timeout_s``)."""


def unanswered(limit_s: float) -> str:
    return f"no answer over HTTP within {limit_s:g} s"


class QuestionWaits:
    """Watches ``asks`` (the facade's) for questions and declines each one left unanswered for too long."""

    def __init__(self, asks: McpAsks) -> None:
        self.asks = asks
        self._unwatch: Callable[[], None] | None = None
        self._timers: set[asyncio.Task[None]] = set()

    def start(self) -> None:
        self._unwatch = self.asks.watch_elicitations(self._asked)

    async def stop(self) -> None:
        if self._unwatch is not None:
            self._unwatch()
            self._unwatch = None
        for timer in list(self._timers):
            timer.cancel()
        await asyncio.gather(*self._timers, return_exceptions=True)

    def _asked(self, question: OpenQuestion[ElicitationRequest]) -> None:
        timer = asyncio.ensure_future(self._decline_when_unanswered(question))
        self._timers.add(timer)
        timer.add_done_callback(self._timers.discard)

    async def _decline_when_unanswered(self, question: OpenQuestion[ElicitationRequest]) -> None:
        limit = question.request.answer_within_s or DEFAULT_WITHIN_S
        try:
            await asyncio.wait_for(question.ended.wait(), limit)
        except TimeoutError:
            with contextlib.suppress(UnknownElicitation):  # answered or ended at the last moment
                self.asks.answer_elicitation(question.request_id, "decline", reason=unanswered(limit))
