"""Tails on PostgreSQL: NOTIFY wakes them, and a tail that never hears one still sees every event."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Awaitable, Callable

from agent_tui.core.log.events import StoredEvent
from agent_tui.core.store.pg.event_log import PgEventLog
from agent_tui.core.store.pg.tail import PgTail
from tests.core.store.pg.helpers import WAIT_S, created, renamed

LONG_MS = 30_000
NEVER_S = 3600.0  # a poll interval no test outlives: only a notification can wake the tail


async def _next_after_idle(
    tail: PgTail, events: AsyncGenerator[StoredEvent, None], write: Callable[[], Awaitable[object]]
) -> StoredEvent:
    """Ask for the next event, wait until the tail sleeps on its wake, then ``write``."""
    pending = asyncio.ensure_future(anext(events))
    waiting = asyncio.ensure_future(tail.waiting.wait())
    await asyncio.wait({pending, waiting}, timeout=WAIT_S, return_when=asyncio.FIRST_COMPLETED)
    assert tail.waiting.is_set() and not pending.done(), "the tail should be idle, waiting for a wake"
    await write()
    return await asyncio.wait_for(pending, WAIT_S)


async def test_a_notification_wakes_the_tail(pg_url: str) -> None:
    async with await PgEventLog.open(pg_url) as log, await PgEventLog.open(pg_url) as other_host:
        lease = await log.acquire("ses_1", "host-a", LONG_MS)
        await log.append("ses_1", [created()], lease.token)
        await log.acquire("ses_2", "host-a", LONG_MS)
        tail = PgTail(other_host, "ses_1", poll_s=NEVER_S)
        events = aiter(tail)
        try:
            first = await asyncio.wait_for(anext(events), WAIT_S)
            assert first.seq == 1
            second = await _next_after_idle(tail, events, lambda: log.append("ses_1", [renamed("x")], lease.token))
            assert second.seq == 2 and second.event == renamed("x")
            assert (tail.notified, tail.polled) == (1, 0)
        finally:
            await events.aclose()
            await tail.close()


async def test_a_tail_that_missed_the_notification_sees_the_events_on_its_next_poll(pg_url: str) -> None:
    async with await PgEventLog.open(pg_url) as log:
        lease = await log.acquire("ses_1", "host-a", LONG_MS)
        await log.append("ses_1", [created()], lease.token)
        tail = PgTail(log, "ses_1", after=1, poll_s=0.05, channel="a_channel_nobody_notifies")
        events = aiter(tail)
        try:
            batch = [renamed("a"), renamed("b"), renamed("c")]
            got = [await _next_after_idle(tail, events, lambda: log.append("ses_1", batch, lease.token))]
            got += [await asyncio.wait_for(anext(events), WAIT_S) for _ in range(2)]
            assert [s.seq for s in got] == [2, 3, 4]
            assert tail.notified == 0 and tail.polled >= 1
        finally:
            await events.aclose()
            await tail.close()
