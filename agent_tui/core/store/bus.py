"""In-process pub/sub: live deltas and post-commit head notifications.

Two kinds of traffic, two delivery rules:

* **Deltas** (``TextDelta`` …) go to a bounded per-subscriber queue. A delta
  that continues the one still waiting at the tail of the queue is merged into
  it (a slow reader gets bigger chunks, not more of them); past the bound the
  oldest delta is dropped and counted. The publisher never waits: the matching
  ``.ended`` event carries the full value anyway.
* **Head notifications** (``HeadAdvanced``) are a capacity-1 dirty flag per
  subscriber and session: repeated commits while the reader is busy coalesce
  into one wake carrying the newest head. The reader then re-reads the store;
  durable rows, not notifications, carry every event.

Everything runs on the event loop thread; a subscriber can only fail inside
its own task, so it can never undo or delay a commit.
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Any

from agent_tui.core.log import events as ev

DEFAULT_CAPACITY = 1024


def _merge_key(delta: Any) -> tuple[Any, ...] | None:
    match delta:
        case ev.TextDelta() | ev.ReasoningDelta():
            return (delta.kind, delta.assistant_message_id, delta.ordinal)
        case ev.ToolInputDelta():
            return (delta.kind, delta.assistant_message_id, delta.index, delta.call_id)
        case ev.ToolOutputDelta():
            return (delta.kind, delta.assistant_message_id, delta.call_id)
        case ev.CompactionDelta():
            return (delta.kind, delta.message_id)
    return None


class Subscription:
    """One subscriber's queue. Use as an async iterator or call :meth:`get`."""

    def __init__(self, bus: Bus, session_id: str | None, deltas: bool, capacity: int) -> None:
        self.session_id = session_id
        self.wants_deltas = deltas
        self.capacity = capacity
        self.dropped = 0
        self._bus = bus
        self._items: deque[Any] = deque()  # deltas and ``("head", session_id)`` placeholders
        self._heads: dict[str, int] = {}
        self._delta_count = 0
        self._ready = asyncio.Event()
        self.closed = False

    # -- publisher side (called by the bus) ---------------------------------
    def _offer_delta(self, delta: Any) -> None:
        if self._items and not isinstance(self._items[-1], tuple):
            last = self._items[-1]
            key = _merge_key(delta)
            if key is not None and key == _merge_key(last):
                self._items[-1] = last.model_copy(update={"delta": last.delta + delta.delta})
                return
        if self._delta_count >= self.capacity:
            for index, item in enumerate(self._items):
                if not isinstance(item, tuple):
                    del self._items[index]
                    self._delta_count -= 1
                    self.dropped += 1
                    break
        self._items.append(delta)
        self._delta_count += 1
        self._ready.set()

    def _offer_head(self, session_id: str, head_seq: int) -> None:
        if session_id in self._heads:
            self._heads[session_id] = max(self._heads[session_id], head_seq)
            return
        self._heads[session_id] = head_seq
        self._items.append(("head", session_id))
        self._ready.set()

    # -- subscriber side -----------------------------------------------------
    def get_nowait(self) -> Any | None:
        """The next delta or ``HeadAdvanced``, or ``None`` when nothing waits."""
        if not self._items:
            self._ready.clear()
            return None
        item = self._items.popleft()
        if isinstance(item, tuple):
            session_id = item[1]
            return ev.HeadAdvanced(session_id=session_id, head_seq=self._heads.pop(session_id))
        self._delta_count -= 1
        return item

    async def get(self) -> Any:
        while True:
            item = self.get_nowait()
            if item is not None:
                return item
            if self.closed:
                raise StopAsyncIteration
            await self._ready.wait()

    def __aiter__(self) -> Subscription:
        return self

    async def __anext__(self) -> Any:
        return await self.get()

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self._bus._remove(self)
            self._ready.set()

    def __enter__(self) -> Subscription:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


class Bus:
    """Fan-out of deltas and head notifications to subscriptions."""

    def __init__(self) -> None:
        self._subs: set[Subscription] = set()
        self._last_head: dict[str, int] = {}
        self.watching = asyncio.Event()
        """Set while any subscriber wants head notifications (the cross-process watcher runs then)."""

    def subscribe(
        self, session_id: str | None = None, *, deltas: bool = True, capacity: int = DEFAULT_CAPACITY
    ) -> Subscription:
        """Subscribe to one session (or every session with ``None``)."""
        sub = Subscription(self, session_id, deltas, capacity)
        self._subs.add(sub)
        self.watching.set()
        return sub

    def _remove(self, sub: Subscription) -> None:
        self._subs.discard(sub)
        if not self._subs:
            self.watching.clear()

    def publish(self, delta: Any) -> None:
        """A live-only delta; never blocks, never raises for a slow subscriber."""
        for sub in tuple(self._subs):
            if sub.wants_deltas and sub.session_id in (None, delta.session_id):
                sub._offer_delta(delta)

    def notify_head(self, session_id: str, head_seq: int) -> None:
        """Post-commit: ``session_id`` now has events up to ``head_seq``."""
        if head_seq <= self._last_head.get(session_id, 0):
            return
        self._last_head[session_id] = head_seq
        for sub in tuple(self._subs):
            if sub.session_id in (None, session_id):
                sub._offer_head(session_id, head_seq)

    def last_head(self, session_id: str) -> int:
        return self._last_head.get(session_id, 0)

    def watched_sessions(self) -> set[str] | None:
        """Sessions someone tails; ``None`` when a subscriber wants every session."""
        ids: set[str] = set()
        for sub in self._subs:
            if sub.session_id is None:
                return None
            ids.add(sub.session_id)
        return ids
