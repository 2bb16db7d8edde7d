"""Publishing one session's events from inside a drain.

Durable writes must not be abandoned half-way by an interrupt: if the drain is
cancelled while a commit is in flight, the commit still finishes (and is seen
by the cleanup code) before the cancellation propagates.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from agent_tui.core.log import events as ev

DurablePublish = Callable[[str, ev.DurableEvent], Awaitable[Any]]
DurablePublishMany = Callable[[str, Sequence[ev.DurableEvent]], Awaitable[Any]]
LivePublish = Callable[[ev.LiveEvent], None]


class SessionPublisher:
    def __init__(
        self,
        session_id: str,
        publish: DurablePublish,
        publish_many: DurablePublishMany,
        live: LivePublish,
    ) -> None:
        self.session_id = session_id
        self._publish = publish
        self._publish_many = publish_many
        self._live = live

    async def __call__(self, event: ev.DurableEvent) -> Any:
        return await _complete(self._publish(self.session_id, event))

    async def many(self, events: Sequence[ev.DurableEvent]) -> Any:
        if not events:
            return []
        return await _complete(self._publish_many(self.session_id, events))

    def live(self, event: ev.LiveEvent) -> None:
        self._live(event)


async def _complete(write: Awaitable[Any]) -> Any:
    task = asyncio.ensure_future(write)
    try:
        return await asyncio.shield(task)
    except asyncio.CancelledError:
        if not task.done():
            try:
                await task
            except asyncio.CancelledError:
                pass
        raise
