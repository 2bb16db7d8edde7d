"""Hosts sharing one PostgreSQL database, for the cluster lease tests (and their child process).

A "host" is a coordinator under :class:`ClusterLeases` whose drains write through the ``Store``
facade on PostgreSQL (each write carries the period's fence, read from the context) and run the
real stale-tool sweep over its reads; ``PgEventLog`` is the tests' own view of the log and leases.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

from agent_tui.core.host.sweep import sweep_stale
from agent_tui.core.log import events as ev
from agent_tui.core.log.publisher import SessionPublisher
from agent_tui.core.run.cluster_interrupt import ClusterInterrupts
from agent_tui.core.run.cluster_lease import ClusterLeases
from agent_tui.core.run.coordinator import Coordinator
from agent_tui.core.run.lease import SessionOwnedElsewhere
from agent_tui.core.store.pg.event_log import PgEventLog
from agent_tui.core.store.pg.store_engine import open_pg_store
from agent_tui.core.store.store import Store
from agent_tui.vocab.error_info import ErrorInfo
from tests.waiting import until

WAIT_S = 15.0
ASSISTANT = "msg_assistant_1"
CALL = "call_1"


@dataclass
class ToolDrainer:
    """A drain as the runner's begins (the stale-tool sweep), then, if ``call_tool``, one step that
    records a tool call and waits on ``finish`` before settling it."""

    store: Store
    call_tool: bool = False
    finish: asyncio.Event = field(default_factory=asyncio.Event)
    tool_running: asyncio.Event = field(default_factory=asyncio.Event)
    swept: list[int] = field(default_factory=list)

    async def drain(self, session_id: str, force: bool) -> ErrorInfo | None:
        publish = SessionPublisher(session_id, self.store.publish, self.store.publish_many, self.store.bus.publish)
        self.swept.append(await sweep_stale(self.store, session_id, publish))
        if not self.call_tool:
            return None
        await publish(ev.StepStarted(assistant_message_id=ASSISTANT, agent="build", model="fake/model"))
        await publish(ev.ToolCalled(assistant_message_id=ASSISTANT, call_id=CALL, name="bash", input={"command": "x"}))
        self.tool_running.set()
        await self.finish.wait()
        await publish(ev.ToolSucceeded(assistant_message_id=ASSISTANT, call_id=CALL, output={"text": "done"}))
        await publish(ev.StepEnded(assistant_message_id=ASSISTANT, finish="stop"))
        return None


@dataclass
class Host:
    """One "machine": its own connections, owner name, coordinator and interrupt listener."""

    log: PgEventLog
    store: Store
    leases: ClusterLeases
    interrupts: ClusterInterrupts
    drainer: ToolDrainer
    coordinator: Coordinator

    @classmethod
    async def open(
        cls, url: str, owner: str, ttl_ms: int, renew_ms: int | None = None, call_tool: bool = False
    ) -> Host:
        log = await PgEventLog.open(url)
        store = await open_pg_store(url)
        leases = ClusterLeases(url, owner, ttl_ms=ttl_ms, renew_ms=renew_ms)
        interrupts = ClusterInterrupts(leases)
        drainer = ToolDrainer(store, call_tool=call_tool)
        coordinator = Coordinator(
            drainer, store.publish, acquire_lease=leases.acquire, interrupt_elsewhere=interrupts.interrupt_elsewhere
        )
        store.running_fence = coordinator.fence
        await interrupts.serve(coordinator.interrupt)
        return cls(log, store, leases, interrupts, drainer, coordinator)

    async def close(self) -> None:
        await self.coordinator.shutdown()
        await self.interrupts.close()
        await self.leases.close()
        await self.store.close()
        await self.log.close()

    async def run_when_free(self, session_id: str) -> ErrorInfo | None:
        """``run`` as soon as the holder's lease expires (waits on that condition, with a deadline)."""
        deadline = time.monotonic() + WAIT_S
        while True:
            try:
                return await self.coordinator.run(session_id)
            except SessionOwnedElsewhere as held:
                assert time.monotonic() < deadline, f"{session_id} never became free: {held}"
                expires_ms = int(str(held.owner.get("expires_ms", 0)))
                await asyncio.sleep(max(0.005, min(0.05, (expires_ms - time.time() * 1000) / 1000)))


async def create_session(log: PgEventLog, session_id: str) -> None:
    """A session to run: created under a short lease of its own, released at once."""
    lease = await log.acquire(session_id, "creator", 60_000)
    await log.append(
        session_id, [ev.SessionCreated(location="/work/p", project_root="/work/p", title="t")], lease.token
    )
    await log.release(lease)


async def event_types(log: PgEventLog, session_id: str) -> list[str]:
    return [stored.type.removeprefix("session.").removesuffix(".1") for stored in await log.events(session_id)]


async def fences(log: PgEventLog, session_id: str) -> list[tuple[str, int | None]]:
    """Every event's type and the token it was written with."""
    cursor = await log._reader.execute(  # noqa: SLF001 - the column no read of the log returns
        "SELECT type, fence FROM event WHERE session_id = %s ORDER BY seq", (session_id,)
    )
    return [(row[0].removeprefix("session.").removesuffix(".1"), row[1]) for row in await cursor.fetchall()]


async def until_lease(log: PgEventLog, session_id: str, held: bool) -> None:
    async def as_wanted() -> bool:
        return (await log.lease(session_id) is not None) is held

    await until(as_wanted, f"the lease of {session_id} to be {'held' if held else 'free'}", timeout=WAIT_S)


@dataclass
class Cluster:
    """``a`` runs ``ses_1`` and is mid-tool (``running`` is its ``run``); ``b`` is idle."""

    a: Host
    b: Host
    running: asyncio.Task[ErrorInfo | None]


@asynccontextmanager
async def two_hosts(url: str, a_ttl_ms: int, b_ttl_ms: int, a_renew_ms: int | None = None) -> AsyncIterator[Cluster]:
    a = await Host.open(url, "host-a", a_ttl_ms, renew_ms=a_renew_ms, call_tool=True)
    b = await Host.open(url, "host-b", b_ttl_ms)
    try:
        await create_session(a.log, "ses_1")
        running = asyncio.create_task(a.coordinator.run("ses_1"))
        await a.drainer.tool_running.wait()
        yield Cluster(a, b, running)
    finally:
        await a.close()
        await b.close()
