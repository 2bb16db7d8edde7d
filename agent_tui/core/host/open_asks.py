"""What MCP servers ask of the user mid tool call, waiting for a front end: the shared part of
elicitation (``elicitations``) and sampling approval (``samplings``).

An ask lives only while its call does, in this process: a front end that can
answer (the TUI) ``watch``es for them; with no one watching (``run``, ``serve``)
the ask is settled at once with the caller's unanswered answer.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

R = TypeVar("R")
A = TypeVar("A")

HEADLESS = "no one to answer: agent-tui runs headless"
CALL_ENDED = "the tool call ended before an answer"


@dataclass(frozen=True)
class OpenQuestion(Generic[R]):
    """What a watcher is shown: which session asks, the ask's id, what is asked; ``ended`` is set
    once it is answered or its call ended (a dialog still open for it then closes)."""

    session_id: str
    request_id: str
    request: R
    ended: asyncio.Event = field(default_factory=asyncio.Event, compare=False, repr=False)


class OpenAsks(Generic[R, A]):
    """The open asks of one kind in this process, and who is watching for them."""

    def __init__(self) -> None:
        self._open: dict[str, tuple[OpenQuestion[R], asyncio.Future[A]]] = {}
        self._watchers: list[Callable[[OpenQuestion[R]], None]] = []

    def watch(self, watcher: Callable[[OpenQuestion[R]], None]) -> Callable[[], None]:
        """Show ``watcher`` each new ask (and those open now); returns the function that stops it."""
        self._watchers.append(watcher)
        for question, _ in list(self._open.values()):
            watcher(question)
        return lambda: self._watchers.remove(watcher) if watcher in self._watchers else None

    def open(self, session_id: str | None = None) -> list[OpenQuestion[R]]:
        return [q for q, _ in self._open.values() if session_id is None or q.session_id == session_id]

    async def _wait(self, question: OpenQuestion[R], unanswered: A) -> A:
        """The watchers' answer to ``question``; ``unanswered`` at once when no one watches."""
        if not self._watchers:
            return unanswered
        future: asyncio.Future[A] = asyncio.get_running_loop().create_future()
        self._open[question.request_id] = (question, future)
        try:
            for watcher in list(self._watchers):
                watcher(question)
            return await future
        finally:
            self._open.pop(question.request_id, None)
            question.ended.set()
