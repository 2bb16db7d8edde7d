"""Hosts sharing one PostgreSQL database, for the cluster lease tests (and their child process).

Until the ``Store`` facade runs on PostgreSQL, a "host" here is a coordinator whose drains write
through ``PgEventLog`` with the period's fence (``fence.fenced``: what the PG store's write path
does) and read what the stale-tool sweep needs straight from the projections.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import psycopg

from agent_tui.core.host.sweep import sweep_stale
from agent_tui.core.log import events as ev
from agent_tui.core.log.publisher import SessionPublisher
from agent_tui.core.log.records import MessageRecord, PermissionRecord, ToolCallRecord
from agent_tui.core.run.cluster_interrupt import ClusterInterrupts
from agent_tui.core.run.cluster_lease import ClusterLeases
from agent_tui.core.run.coordinator import Coordinator
from agent_tui.core.run.lease import SessionOwnedElsewhere
from agent_tui.core.store import fence, queries
from agent_tui.core.store.pg.event_log import PgEventLog
from agent_tui.vocab.error_info import ErrorInfo

WAIT_S = 15.0
ASSISTANT = "msg_assistant_1"
CALL = "call_1"


class PgStaleReads:
    """The sweep's reads (``host/sweep.StaleReads``) from PostgreSQL's projections, with the SQLite
    store's row builders (the columns are the same on both engines)."""

    def __init__(self, conn: psycopg.AsyncConnection[tuple[Any, ...]]) -> None:
        self.conn = conn

    async def pending_permissions(self, session_id: str) -> list[PermissionRecord]:
        query = f"SELECT {queries._PERMISSION_COLUMNS} FROM permission_request WHERE session_id = %s AND reply IS NULL"
        return [queries._permission(None, row) for row in await self._rows(query + " ORDER BY seq", (session_id,))]

    async def tool_calls(
        self, session_id: str, states: Sequence[str] | None = None, name: str | None = None
    ) -> list[ToolCallRecord]:
        rows = await self._rows(
            "SELECT session_id, assistant_message_id, call_id, seq, name, input_json, state, output_json,"
            " error_json, call_meta_json, result_meta_json, hosted FROM tool_call WHERE session_id = %s"
            " AND (%s::text[] IS NULL OR state = ANY(%s)) AND (%s::text IS NULL OR name = %s) ORDER BY seq",
            (session_id, states, states, name, name),
        )
        return [queries._tool_call(None, row) for row in rows]

    async def messages(self, session_id: str) -> list[MessageRecord]:
        query = "SELECT id, session_id, seq, kind, data_json, created, updated FROM message WHERE session_id = %s"
        return [queries._message(None, row) for row in await self._rows(query + " ORDER BY seq", (session_id,))]

    async def _rows(self, query: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        cursor = await self.conn.execute(query.encode(), params)
        return await cursor.fetchall()


def publisher(log: PgEventLog, session_id: str) -> SessionPublisher:
    """Fenced publishes, as the PostgreSQL store's write path makes them: the period's token, and a
    refusal reported to the holder."""

    async def many(sid: str, events: Sequence[ev.DurableEvent]) -> list[ev.StoredEvent]:
        return await fence.fenced(sid, lambda token: log.append(sid, events, token))

    async def one(sid: str, event: ev.DurableEvent) -> ev.StoredEvent:
        return (await many(sid, [event]))[0]

    return SessionPublisher(session_id, one, many, lambda _event: None)


@dataclass
class ToolDrainer:
    """A drain as the runner's begins (the stale-tool sweep), then, if ``call_tool``, one step that
    records a tool call and waits on ``finish`` before settling it."""

    log: PgEventLog
    reads: PgStaleReads
    call_tool: bool = False
    finish: asyncio.Event = field(default_factory=asyncio.Event)
    tool_running: asyncio.Event = field(default_factory=asyncio.Event)
    swept: list[int] = field(default_factory=list)

    async def drain(self, session_id: str, force: bool) -> ErrorInfo | None:
        publish = publisher(self.log, session_id)
        self.swept.append(await sweep_stale(self.reads, session_id, publish))
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
    reads_conn: psycopg.AsyncConnection[tuple[Any, ...]]
    leases: ClusterLeases
    interrupts: ClusterInterrupts
    drainer: ToolDrainer
    coordinator: Coordinator

    @classmethod
    async def open(
        cls, url: str, owner: str, ttl_ms: int, renew_ms: int | None = None, call_tool: bool = False
    ) -> Host:
        log = await PgEventLog.open(url)
        reads_conn = await psycopg.AsyncConnection.connect(url, autocommit=True)
        leases = ClusterLeases(url, owner, ttl_ms=ttl_ms, renew_ms=renew_ms)
        interrupts = ClusterInterrupts(leases)
        drainer = ToolDrainer(log, PgStaleReads(reads_conn), call_tool=call_tool)

        async def publish(session_id: str, event: ev.DurableEvent) -> Any:
            return await publisher(log, session_id)(event)

        coordinator = Coordinator(
            drainer, publish, acquire_lease=leases.acquire, interrupt_elsewhere=interrupts.interrupt_elsewhere
        )
        await interrupts.serve(coordinator.interrupt)
        return cls(log, reads_conn, leases, interrupts, drainer, coordinator)

    async def close(self) -> None:
        await self.coordinator.shutdown()
        await self.interrupts.close()
        await self.leases.close()
        await self.reads_conn.close()
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
    deadline = time.monotonic() + WAIT_S
    while (await log.lease(session_id) is not None) is not held:
        assert time.monotonic() < deadline, f"lease of {session_id} never became {'held' if held else 'free'}"
        await asyncio.sleep(0.01)


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
