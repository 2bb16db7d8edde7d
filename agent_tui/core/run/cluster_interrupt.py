"""Interrupting a session from any host, and the cluster's view of what runs where.

A host asked to interrupt a session it does not run (the coordinator's ``interrupt_elsewhere``)
looks up the session's live lease and sends ``NOTIFY`` on :data:`CHANNEL` naming the owner and the
token; every host listens there (:meth:`ClusterInterrupts.serve`), and the owner, if it still
holds that very token, interrupts its drain as a local ``interrupt`` would. The sender then waits,
by polling the lease, until that tenure is over (the owner published its terminal event and
released), so a remote interrupt returns when the run has stopped, as a local one does. A lost
notification (a dropped listener) makes the sender give up after ``wait_ms``; nothing is left half
done, since an interrupt changes nothing durable before the owner acts on it.

:meth:`ClusterInterrupts.active` is ``Coordinator.active()`` for the whole cluster, read from
``session_lease``: every held, unexpired lease, with its owner and expiry, marked ``"view":
"cluster"`` (a subagent's parent is not known there: it is in the owner's own ``active()``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

from agent_tui.core.errors import DatabaseUnavailable
from agent_tui.core.run.cluster_lease import ClusterLeases
from agent_tui.core.store.pg import lease as pg_lease
from agent_tui.core.store.pg.connect import connect
from agent_tui.vocab.kinds import InterruptReason

if TYPE_CHECKING:
    from psycopg import AsyncConnection

log = logging.getLogger(__name__)

CHANNEL = "agent_tui_interrupt"
"""The ``NOTIFY`` channel; the payload is JSON: ``session_id``, ``owner``, ``token``, ``reason``."""
POLL_S = 0.05
"""How often a sender looks whether the interrupted tenure is over."""
RECONNECT_S = 1.0
"""How long a listener that cannot reach the server waits before trying again."""

Interrupt = Callable[[str, InterruptReason], Coroutine[Any, Any, None]]


class ClusterInterrupts:
    """One host's end of the interrupt channel, over its :class:`ClusterLeases`."""

    def __init__(self, leases: ClusterLeases, wait_ms: int | None = None) -> None:
        self.leases = leases
        self.wait_ms = wait_ms if wait_ms is not None else 2 * leases.ttl_ms
        self._listener: AsyncConnection[tuple[Any, ...]] | None = None
        self._serving: asyncio.Task[None] | None = None
        self._handling: set[asyncio.Task[None]] = set()
        self.listens = 0
        """How many times this host has started listening (more than once: the connection dropped)."""

    async def interrupt_elsewhere(self, session_id: str, reason: InterruptReason) -> None:
        """Ask the session's owner to interrupt it and wait until its tenure is over (at most
        ``wait_ms``); nothing when no live lease names another host."""
        holder = await self.leases.statement(pg_lease.current, session_id)
        if holder is None or holder.owner == self.leases.owner:
            return
        payload = json.dumps(
            {"session_id": session_id, "owner": holder.owner, "token": holder.token, "reason": str(reason)}
        )
        await self.leases.statement(_notify, payload)
        deadline = time.monotonic() + self.wait_ms / 1000
        while time.monotonic() < deadline:
            now = await self.leases.statement(pg_lease.current, session_id)
            if now is None or now.token != holder.token:
                return
            await asyncio.sleep(POLL_S)
        log.warning("interrupt of %s: %s did not stop within %d ms", session_id, holder.owner, self.wait_ms)

    async def serve(self, interrupt: Interrupt) -> None:
        """Listen for interrupts addressed to this host and run them with ``interrupt`` (the
        coordinator's); returns once listening, so a notification sent after it is not missed."""
        listener = await self._listen()
        self._serving = asyncio.get_running_loop().create_task(self._serve(listener, interrupt))

    async def _listen(self) -> AsyncConnection[tuple[Any, ...]]:
        from psycopg import sql

        self._listener = await connect(self.leases.url)
        await self._listener.execute(sql.SQL("LISTEN {}").format(sql.Identifier(CHANNEL)))
        self.listens += 1
        return self._listener

    async def active(self) -> dict[str, dict[str, Any]]:
        """Every session running anywhere in the cluster, by its live lease (the database's view)."""
        return {
            lease.session_id: {
                "type": "running",
                "owner": lease.owner,
                "expires_ms": lease.expires_ms,
                "view": "cluster",
            }
            for lease in await self.leases.statement(pg_lease.live)
        }

    async def close(self) -> None:
        if self._serving is not None:
            self._serving.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._serving
            self._serving = None
        for task in list(self._handling):
            task.cancel()
        if self._listener is not None:
            await self._listener.close()
            self._listener = None

    async def _serve(self, listener: AsyncConnection[tuple[Any, ...]], interrupt: Interrupt) -> None:
        """Hand each interrupt addressed to a tenure this host holds to ``interrupt``; a dropped
        connection is opened again (what was sent meanwhile is lost: its sender gives up waiting)."""
        import psycopg

        while True:
            try:
                async for notice in listener.notifies():
                    self._handle(notice.payload, interrupt)
            except psycopg.OperationalError as error:
                log.warning("interrupt listener lost its connection (listening again): %s", error)
            await listener.close()
            while True:
                try:
                    listener = await self._listen()
                    break
                except DatabaseUnavailable as error:
                    log.warning("interrupt listener cannot connect (trying again): %s", error)
                    await asyncio.sleep(RECONNECT_S)

    def _handle(self, payload: str, interrupt: Interrupt) -> None:
        request = _request(payload)
        if request is None:
            return
        session_id, owner, token, reason = request
        tenure = self.leases.held.get(session_id)
        if owner != self.leases.owner or tenure is None or tenure.lease.token != token:
            return  # another host's, or a tenure of ours that is already over
        task = asyncio.get_running_loop().create_task(interrupt(session_id, reason))
        self._handling.add(task)
        task.add_done_callback(self._handling.discard)


async def _notify(conn: AsyncConnection[tuple[Any, ...]], payload: str) -> None:
    await conn.execute("SELECT pg_notify(%s, %s)", (CHANNEL, payload))


def _request(payload: str) -> tuple[str, str, int, InterruptReason] | None:
    """The interrupt a notification asks for; None for one that is not well-formed (logged)."""
    try:
        data = json.loads(payload)
        return str(data["session_id"]), str(data["owner"]), int(data["token"]), InterruptReason(data["reason"])
    except (ValueError, KeyError, TypeError) as error:
        log.warning("ignored a malformed interrupt notification %r: %s", payload, error)
        return None
