"""``log``: replay a session's durable events, mark the sync point, then tail.

The race-free order (spec: "subscribe before capturing the watermark"):

1. subscribe to head notifications (the dirty flag exists before we look);
2. capture the watermark = the session's head now;
3. replay ``(after, watermark]`` in pages;
4. yield exactly one :class:`Synced` carrying the watermark (``None`` when the
   log is empty);
5. with ``follow``: on each wake, read every event after the last one yielded.

Anything committed after step 1 either falls inside the watermark (replayed)
or raises the flag (tailed); the cursor makes duplicates impossible.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Literal

from pydantic import BaseModel, ConfigDict

from agent_tui.core.errors import UnknownSession
from agent_tui.core.log import events as ev
from agent_tui.core.store.store import Store

PAGE = 200


class Synced(BaseModel):
    """Replay reached the watermark captured when the log was opened."""

    model_config = ConfigDict(frozen=True)
    kind: Literal["log.synced"] = "log.synced"
    seq: int | None


async def log(
    store: Store, session_id: str, after: int | None = None, follow: bool = False, page: int = PAGE
) -> AsyncGenerator[ev.StoredEvent | Synced, None]:
    subscription = store.bus.subscribe(session_id, deltas=False) if follow else None
    try:
        if await store.session(session_id) is None and await store.head_seq(session_id) == 0:
            raise UnknownSession(session_id)
        watermark = await store.head_seq(session_id)
        cursor = after or 0
        while cursor < watermark:
            batch = await store.events(session_id, after=cursor, limit=min(page, watermark - cursor))
            if not batch:
                break
            for stored in batch:
                yield stored
            cursor = batch[-1].seq
        yield Synced(seq=watermark or None)
        if subscription is None:
            return
        cursor = max(cursor, watermark)
        while True:
            await subscription.get()  # a wake: re-read everything after the cursor
            while batch := await store.events(session_id, after=cursor, limit=page):
                for stored in batch:
                    yield stored
                cursor = batch[-1].seq
    finally:
        if subscription is not None:
            subscription.close()
