"""Two hosts (two coordinators, their own connections and owner names) on one real PostgreSQL server."""

from __future__ import annotations

import asyncio

import pytest

from agent_tui.core.run.lease import SessionOwnedElsewhere
from agent_tui.vocab.kinds import ErrorType
from tests.core.run.cluster_helpers import CALL, event_types, fences, two_hosts, until_lease

LONG_MS = 30_000
SHORT_MS = 400


async def test_a_held_lease_refuses_the_other_host(pg_url: str) -> None:
    async with two_hosts(pg_url, LONG_MS, LONG_MS) as hosts:
        a, b = hosts.a, hosts.b
        with pytest.raises(SessionOwnedElsewhere, match="ses_1 is running on host-a"):
            await b.coordinator.run("ses_1")
        assert await b.coordinator.wake("ses_1") is False
        assert b.drainer.swept == [] and b.coordinator.active() == {}
        view = await b.interrupts.active()
        expires = view["ses_1"]["expires_ms"]
        assert view == {"ses_1": {"type": "running", "owner": "host-a", "expires_ms": expires, "view": "cluster"}}
        a.drainer.finish.set()
        assert await hosts.running is None
        assert await b.interrupts.active() == {}  # released at the end of the period: free at once
        assert await b.coordinator.run("ses_1") is None
        assert await event_types(b.log, "ses_1") == [
            "created", "execution.started", "step.started", "tool.called", "tool.success", "step.ended",
            "execution.succeeded", "execution.started", "execution.succeeded",
        ]  # fmt: skip
        tokens = [token for _, token in await fences(b.log, "ses_1")]
        assert tokens == [1, 2, 2, 2, 2, 2, 2, 3, 3]  # each period writes with its own lease's token


async def test_renewals_keep_a_long_drain_owned(pg_url: str) -> None:
    async with two_hosts(pg_url, SHORT_MS, SHORT_MS) as hosts:
        first = await hosts.a.log.lease("ses_1")
        assert first is not None
        while (now := await hosts.a.log.lease("ses_1")) is not None and now.expires_ms <= first.expires_ms + SHORT_MS:
            await asyncio.sleep(0.02)  # until the drain has outlived its first TTL twice over
        assert now is not None and now.token == first.token
        with pytest.raises(SessionOwnedElsewhere):
            await hosts.b.coordinator.run("ses_1")
        hosts.a.drainer.finish.set()
        assert await hosts.running is None


async def test_a_paused_owner_is_fenced_out_by_its_first_write_and_stops(pg_url: str) -> None:
    # host-a stops renewing (its renewal interval is far past its TTL): the lease runs out mid-tool
    async with two_hosts(pg_url, SHORT_MS, LONG_MS, a_renew_ms=600_000) as hosts:
        a, b = hosts.a, hosts.b
        tenure = a.leases.held["ses_1"]
        assert await b.run_when_free("ses_1") is None  # took over after expiry: swept, drained, released
        assert b.drainer.swept == [2]  # the stale tool failed, the orphaned step closed
        a.drainer.finish.set()  # the paused owner's tool ends: its result is refused, its drain stops
        error = await hosts.running
        assert error is not None and (error.type, error.message) == (ErrorType.ABORTED, "interrupted (superseded)")
        assert tenure.lost_by == "write"
        assert await fences(b.log, "ses_1") == [
            ("created", 1),
            ("execution.started", 2),
            ("step.started", 2),
            ("tool.called", 2),
            ("execution.started", 3),
            ("tool.failed", 3),
            ("step.failed", 3),
            ("execution.succeeded", 3),
        ]  # fmt: skip  (no tool.success, no terminal event from host-a)
        calls = await b.store.tool_calls("ses_1")
        assert [(c.call_id, c.state, (c.error or {}).get("type")) for c in calls] == [(CALL, "failed", "tool.stale")]
        await until_lease(b.log, "ses_1", held=False)
