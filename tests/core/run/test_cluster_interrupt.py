"""Interrupts from any host reach the owner over ``NOTIFY``, on a real PostgreSQL server."""

from __future__ import annotations

import asyncio
import time

import psycopg

from tests.core.run.cluster_helpers import WAIT_S, event_types, two_hosts

LONG_MS = 30_000


async def test_an_interrupt_sent_to_the_other_host_stops_the_owners_drain(pg_url: str) -> None:
    async with two_hosts(pg_url, LONG_MS, LONG_MS) as hosts:
        await hosts.b.coordinator.interrupt("ses_1")  # returns once the owner's period is over
        assert await hosts.b.log.lease("ses_1") is None
        error = await hosts.running
        assert error is not None and error.message == "interrupted (user)"
        assert (await event_types(hosts.b.log, "ses_1"))[-1] == "execution.interrupted"
        await hosts.b.coordinator.interrupt("ses_1")  # nobody runs it now: a no-op


async def test_an_owner_whose_listener_connection_dropped_listens_again(pg_url: str) -> None:
    async with two_hosts(pg_url, LONG_MS, LONG_MS) as hosts:
        listener = hosts.a.interrupts._listener  # noqa: SLF001 - the connection this test cuts
        assert listener is not None and hosts.a.interrupts.listens == 1
        async with await psycopg.AsyncConnection.connect(pg_url, autocommit=True) as admin:
            await admin.execute("SELECT pg_terminate_backend(%s)", (listener.info.backend_pid,))
        deadline = time.monotonic() + WAIT_S
        while hosts.a.interrupts.listens < 2:
            assert time.monotonic() < deadline, "the owner never listened again"
            await asyncio.sleep(0.01)
        await hosts.b.coordinator.interrupt("ses_1")
        error = await hosts.running
        assert error is not None and error.message == "interrupted (user)"
