"""Follow a session's log on PostgreSQL: ``LISTEN`` as an advisory wake, always re-read by seq.

The notification is a hint, never the data: after every wake, by notification or by the poll
interval running out, the tail reads every event after its cursor. A notification lost (a dropped
listener connection, a server restart) costs at most one poll interval, never an event; the order
is the race-free one of ``store/tail.py``: listen first, then read.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from typing import TYPE_CHECKING, Any

from agent_tui.core.log import events as ev
from agent_tui.core.store.pg.connect import connect
from agent_tui.core.store.pg.event_log import PgEventLog
from agent_tui.core.store.pg.schema import CHANNEL

if TYPE_CHECKING:
    from psycopg import AsyncConnection

PAGE = 200
POLL_S = 1.0


class PgTail:
    """Every event of one session after ``after``, forever; iterate it, ``close`` when done.

    ``waiting`` is set while the tail waits for a wake; ``notified`` and ``polled`` count how the
    waits ended (what a test or a metric wants to see).
    """

    def __init__(
        self, log: PgEventLog, session_id: str, after: int = 0, poll_s: float = POLL_S, channel: str = CHANNEL
    ) -> None:
        self.log = log
        self.session_id = session_id
        self.cursor = after
        self.poll_s = poll_s
        self.channel = channel
        self.waiting = asyncio.Event()
        self.notified = 0
        self.polled = 0
        self._listener: AsyncConnection[tuple[Any, ...]] | None = None

    async def __aiter__(self) -> AsyncGenerator[ev.StoredEvent, None]:
        from psycopg import sql

        self._listener = await connect(self.log.url)
        await self._listener.execute(sql.SQL("LISTEN {}").format(sql.Identifier(self.channel)))
        while True:
            while batch := await self.log.events(self.session_id, after=self.cursor, limit=PAGE):
                for stored in batch:
                    self.cursor = stored.seq
                    yield stored
            await self._wake(self._listener)

    async def _wake(self, listener: AsyncConnection[tuple[Any, ...]]) -> None:
        """Return on a notification naming this session, or when the poll interval is over."""
        self.waiting.set()
        try:
            deadline = asyncio.get_running_loop().time() + self.poll_s
            while (left := deadline - asyncio.get_running_loop().time()) > 0:
                async for notice in listener.notifies(timeout=left, stop_after=1):
                    if notice.payload.split(" ", 1)[0] == self.session_id:
                        self.notified += 1
                        return
            self.polled += 1
        finally:
            self.waiting.clear()

    async def close(self) -> None:
        if self._listener is not None:
            await self._listener.close()
            self._listener = None
