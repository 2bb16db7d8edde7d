"""One process's place in a cluster of hosts sharing a PostgreSQL store: its leases and interrupts.

The runtime builds one when the store is a server (``storage.url``): the coordinator then runs each
session under the database's lease (:class:`ClusterLeases`, instead of this machine's ``flock``),
hands an interrupt of a session another host runs to that host (:class:`ClusterInterrupts`), and
this host listens for interrupts addressed to it. ``active()`` answers synchronously (the facade's
``Sessions.active()`` is sync) from a view of the cluster's leases that a background task reads
again every :data:`VIEW_REFRESH_S`.

The same task *adopts* abandoned leases: a lease that ran out without a release means its owner died
or stalled mid-drain, and nothing else would wake the session (a prompt admitted meanwhile on
another host was left to that owner, a tool it ran was never closed). Every host wakes such a
session; one wins the lease, and its drain begins with the stale-tool sweep, so the dead owner's
tool is failed, never re-run, and what was pending runs. The TTL (``storage.lease_ttl_ms``) is thus
both the worst-case stall after an owner dies and how long an owner may pause before it loses the
session. And every :data:`REAP_EVERY_S` it kills this machine's processes of tool calls that the
database says were failed as stale (a dead owner's commands, on the dead owner's machine:
``host/sweep.reap_stale_processes``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from agent_tui.core.errors import DatabaseUnavailable
from agent_tui.core.host.sweep import StaleReads, reap_stale_processes
from agent_tui.core.run.cluster_interrupt import ClusterInterrupts, Interrupt
from agent_tui.core.run.cluster_lease import ClusterLeases, host_owner
from agent_tui.core.store.pg import lease as pg_lease
from agent_tui.core.store.store import Store

log = logging.getLogger(__name__)

VIEW_REFRESH_S = 1.0
"""How often the cached cluster view is read again from ``session_lease``, and abandoned leases looked for."""

REAP_EVERY_S = 5.0
"""How often this machine's processes of stale tool calls are looked for (a scan of /proc)."""

Wake = Callable[[str], Awaitable[bool]]
"""The coordinator's ``wake``: start a period for the session here, False when another host holds it."""


class ClusterHost:
    """This process's leases and interrupt listener on one database, and its cached cluster view."""

    def __init__(self, url: str, ttl_ms: int, reads: StaleReads, owner: str | None = None) -> None:
        self.reads = reads
        self.leases = ClusterLeases(url, owner or host_owner(), ttl_ms)
        self.interrupts = ClusterInterrupts(self.leases)
        self.view: dict[str, dict[str, Any]] = {}
        """Every session running anywhere, by its live lease, as last read (``"view": "cluster"``)."""
        self._refreshing: asyncio.Task[None] | None = None
        self._wake: Wake | None = None
        self._adopting: dict[str, asyncio.Task[None]] = {}

    @classmethod
    def on(cls, store: Store) -> ClusterHost | None:
        """A host for ``store`` when it is a PostgreSQL server; None for the SQLite file."""
        settings = store.settings
        return cls(settings.url, settings.lease_ttl_ms, store) if store.path is None and settings.url else None

    def coordinator_hooks(self) -> dict[str, Any]:
        """The coordinator's ``acquire_lease`` and ``interrupt_elsewhere`` on this database."""
        return {"acquire_lease": self.leases.acquire, "interrupt_elsewhere": self.interrupts.interrupt_elsewhere}

    async def serve(self, interrupt: Interrupt, wake: Wake) -> None:
        """Listen for interrupts addressed here (run with ``interrupt``), and start the view's
        refresh and the adoption of abandoned leases (each woken with ``wake``)."""
        self._wake = wake
        await self.interrupts.serve(interrupt)
        await self.refresh()
        self._refreshing = asyncio.get_running_loop().create_task(self._refresh_forever())

    async def refresh(self) -> None:
        """Read the cluster's view again, and wake each session whose lease was abandoned."""
        self.view = await self.interrupts.active()
        if self._wake is None:
            return
        for lease in await self.leases.statement(pg_lease.abandoned):
            if lease.session_id not in self._adopting:
                task = asyncio.get_running_loop().create_task(self._adopt(lease.session_id, self._wake))
                self._adopting[lease.session_id] = task

    async def _adopt(self, session_id: str, wake: Wake) -> None:
        try:
            if await wake(session_id):
                log.info("took over session %s from an owner whose lease ran out", session_id)
        except Exception as error:  # noqa: BLE001 - the next refresh tries again
            log.warning("abandoned session %s not taken over: %s", session_id, error)
        finally:
            self._adopting.pop(session_id, None)

    def active(self, local: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
        """The cluster's view, with this host's own entries (``local``: fresher, and naming a
        subagent's parent) in place of the view's for the sessions running here. What the view
        says runs here but ``local`` does not has ended since the view was read."""
        elsewhere = {sid: entry for sid, entry in self.view.items() if entry.get("owner") != self.leases.owner}
        return {**elsewhere, **local}

    async def close(self) -> None:
        if self._refreshing is not None:
            self._refreshing.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._refreshing
            self._refreshing = None
        for task in list(self._adopting.values()):
            task.cancel()
        await asyncio.gather(*self._adopting.values(), return_exceptions=True)
        await self.interrupts.close()
        await self.leases.close()

    async def _refresh_forever(self) -> None:
        loop = asyncio.get_running_loop()
        next_reap = loop.time()
        while True:
            await asyncio.sleep(VIEW_REFRESH_S)
            try:
                await self.refresh()
                if loop.time() >= next_reap:
                    next_reap = loop.time() + REAP_EVERY_S
                    if killed := await reap_stale_processes(self.reads):
                        log.warning("killed %d process(es) of tool calls another host failed as stale", killed)
            except DatabaseUnavailable as error:  # the last view stays until the server is back
                log.warning("cluster view not refreshed: %s", error)
