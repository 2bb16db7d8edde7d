"""One process's place in a cluster of hosts sharing a PostgreSQL store: its leases and interrupts.

The runtime builds one when the store is a server (``storage.url``): the coordinator then runs each
session under the database's lease (:class:`ClusterLeases`, instead of this machine's ``flock``),
hands an interrupt of a session another host runs to that host (:class:`ClusterInterrupts`), and
this host listens for interrupts addressed to it. ``active()`` answers synchronously (the facade's
``Sessions.active()`` is sync) from a view of the cluster's leases that a background task reads
again every :data:`VIEW_REFRESH_S`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

from agent_tui.core.errors import DatabaseUnavailable
from agent_tui.core.run.cluster_interrupt import ClusterInterrupts, Interrupt
from agent_tui.core.run.cluster_lease import ClusterLeases, host_owner
from agent_tui.core.store.store import Store

log = logging.getLogger(__name__)

VIEW_REFRESH_S = 1.0
"""How often the cached cluster view is read again from ``session_lease``."""


class ClusterHost:
    """This process's leases and interrupt listener on one database, and its cached cluster view."""

    def __init__(self, url: str, owner: str | None = None) -> None:
        self.leases = ClusterLeases(url, owner or host_owner())
        self.interrupts = ClusterInterrupts(self.leases)
        self.view: dict[str, dict[str, Any]] = {}
        """Every session running anywhere, by its live lease, as last read (``"view": "cluster"``)."""
        self._refreshing: asyncio.Task[None] | None = None

    @classmethod
    def on(cls, store: Store) -> ClusterHost | None:
        """A host for ``store`` when it is a PostgreSQL server; None for the SQLite file."""
        url = store.settings.url
        return cls(url) if store.path is None and url else None

    def coordinator_hooks(self) -> dict[str, Any]:
        """The coordinator's ``acquire_lease`` and ``interrupt_elsewhere`` on this database."""
        return {"acquire_lease": self.leases.acquire, "interrupt_elsewhere": self.interrupts.interrupt_elsewhere}

    async def serve(self, interrupt: Interrupt) -> None:
        """Listen for interrupts addressed here (run with ``interrupt``) and start the view's refresh."""
        await self.interrupts.serve(interrupt)
        await self.refresh()
        self._refreshing = asyncio.get_running_loop().create_task(self._refresh_forever())

    async def refresh(self) -> None:
        self.view = await self.interrupts.active()

    def active(self, local: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
        """The cluster's view, with this host's own entries (``local``: fresher, and naming a
        subagent's parent) in place of the view's for the sessions running here."""
        return {**self.view, **local}

    async def close(self) -> None:
        if self._refreshing is not None:
            self._refreshing.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._refreshing
            self._refreshing = None
        await self.interrupts.close()
        await self.leases.close()

    async def _refresh_forever(self) -> None:
        while True:
            await asyncio.sleep(VIEW_REFRESH_S)
            try:
                await self.refresh()
            except DatabaseUnavailable as error:  # the last view stays until the server is back
                log.warning("cluster view not refreshed: %s", error)
