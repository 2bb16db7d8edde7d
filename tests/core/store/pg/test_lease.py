"""Ownership leases and fencing against a real server: a paused owner cannot write after a takeover."""

from __future__ import annotations

import asyncio
import time

import psycopg
import pytest

from agent_tui.core.errors import LeaseHeld, StaleFence
from agent_tui.core.log.events import encode
from agent_tui.core.store.pg.event_log import PgEventLog
from tests.core.store.pg.helpers import WAIT_S, created, prompt, renamed, take_over, wait_expired

SHORT_MS = 150
LONG_MS = 30_000


async def test_acquire_renew_release(pg_url: str) -> None:
    async with await PgEventLog.open(pg_url) as a, await PgEventLog.open(pg_url) as b:
        lease = await a.acquire("ses_1", "host-a", LONG_MS)
        assert lease.token == 1
        with pytest.raises(LeaseHeld, match="run by host-a") as held:
            await b.acquire("ses_1", "host-b", LONG_MS)
        assert held.value.expires_ms == lease.expires_ms
        renewed = await a.renew(lease, 2 * LONG_MS)
        assert renewed.token == lease.token and renewed.expires_ms > lease.expires_ms
        assert await b.lease("ses_1") == renewed
        assert await a.release(renewed) is True
        assert await b.lease("ses_1") is None
        assert await a.release(renewed) is False  # releasing twice changes nothing
        taken = await b.acquire("ses_1", "host-b", LONG_MS)  # free at once, no wait for the expiry
        assert taken.token == 2 and taken.owner == "host-b"


async def test_a_released_lease_writes_nothing(pg_url: str) -> None:
    async with await PgEventLog.open(pg_url) as log:
        lease = await log.acquire("ses_1", "host-a", LONG_MS)
        await log.append("ses_1", [created()], lease.token)
        await log.release(lease)
        with pytest.raises(StaleFence):
            await log.append("ses_1", [renamed("late")], lease.token)
        assert await log.head_seq("ses_1") == 1


async def test_takeover_after_expiry_fences_out_the_paused_owner(pg_url: str) -> None:
    async with await PgEventLog.open(pg_url) as a, await PgEventLog.open(pg_url) as b:
        old = await a.acquire("ses_1", "host-a", SHORT_MS)
        await a.append("ses_1", [created(), renamed("by a")], old.token)
        # host-a "pauses" (SIGSTOP, a GC pause, a partition): it neither renews nor writes until host-b took over
        new = await take_over(b, "ses_1", "host-b", LONG_MS)
        assert (new.owner, new.token) == ("host-b", old.token + 1)
        before = await b.events("ses_1")
        with pytest.raises(StaleFence, match=f"fencing token {old.token} is stale"):
            await a.append("ses_1", [renamed("a wakes up")], old.token)
        with pytest.raises(StaleFence):
            await a.renew(old, LONG_MS)
        assert await a.release(old) is False
        assert await b.events("ses_1") == before and await b.head_seq("ses_1") == 2
        await b.append("ses_1", [renamed("by b")], new.token)
        await a.admit("ses_1", prompt("msg_1", "any host may still admit"))
        assert [s.seq for s in await b.events("ses_1")] == [1, 2, 3, 4]


async def test_an_expired_lease_nobody_took_is_still_the_owners(pg_url: str) -> None:
    async with await PgEventLog.open(pg_url) as a:
        lease = await a.acquire("ses_1", "host-a", SHORT_MS)
        await a.append("ses_1", [created()], lease.token)
        await wait_expired(a, "ses_1")
        await a.append("ses_1", [renamed("after expiry")], lease.token)  # the token is still current
        assert (await a.renew(lease, LONG_MS)).token == lease.token


async def test_the_database_refuses_unfenced_and_backward_writes(pg_url: str) -> None:
    async with await PgEventLog.open(pg_url) as log:
        first = await log.acquire("ses_1", "host-a", LONG_MS)
        await log.release(first)
        lease = await log.acquire("ses_1", "host-a", LONG_MS)
        await log.append("ses_1", [created()], lease.token)
    assert lease.token == 2
    with psycopg.connect(pg_url, autocommit=True) as conn:  # a client that skips the Python side
        with pytest.raises(psycopg.Error, match="fencing token none is not the current lease's"):
            conn.execute(
                "INSERT INTO event (session_id, seq, type, created_ms, data_json) VALUES ('ses_1', 2, 't', 0, '{}')"
            )
        with pytest.raises(psycopg.errors.CheckViolation, match="cannot go back"):
            conn.execute("UPDATE session_lease SET token = 1 WHERE session_id = 'ses_1'")
        assert conn.execute("SELECT count(*) FROM event").fetchone() == (1,)


async def test_a_takeover_waits_for_the_write_in_flight_then_fences_the_next(pg_url: str) -> None:
    """The fence check reads the lease row FOR SHARE: a write that passed it commits before the
    takeover does, so no write can land under an old token after a newer one was handed out."""
    async with await PgEventLog.open(pg_url) as a, await PgEventLog.open(pg_url) as b:
        old = await a.acquire("ses_1", "host-a", SHORT_MS)
        await a.append("ses_1", [created()], old.token)
        await wait_expired(b, "ses_1")
        async with await psycopg.AsyncConnection.connect(pg_url) as in_flight:  # host-a, mid-append
            await in_flight.execute("UPDATE session_head SET head = 2 WHERE session_id = 'ses_1'")
            await in_flight.execute(
                "INSERT INTO event (session_id, seq, type, created_ms, data_json, fence)"
                " VALUES ('ses_1', 2, %s, 0, %s, %s)",
                (*encode(renamed("in flight")), old.token),
            )
            takeover = asyncio.ensure_future(b.acquire("ses_1", "host-b", LONG_MS))
            await wait_blocked_on_lock(pg_url)
            assert not takeover.done()
            await in_flight.commit()
        new = await asyncio.wait_for(takeover, WAIT_S)
        assert new.token == old.token + 1
        assert [s.event for s in await b.events("ses_1")] == [created(), renamed("in flight")]
        with pytest.raises(StaleFence):
            await a.append("ses_1", [renamed("next")], old.token)


async def wait_blocked_on_lock(url: str) -> None:
    """Until some backend of this database waits on a lock (pg_stat_activity), with a deadline."""
    deadline = time.monotonic() + WAIT_S
    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
        while True:
            cursor = await conn.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
            )
            if (await cursor.fetchone()) != (0,):
                return
            assert time.monotonic() < deadline, "the takeover never waited for the write in flight"
            await asyncio.sleep(0.01)
