"""Running sessions under a shared database's leases: one host's side of ``store/pg/lease.py``.

:meth:`ClusterLeases.acquire` is the coordinator's ``AcquireLease`` on PostgreSQL: it takes the
session's lease before the drain (held elsewhere: :class:`SessionOwnedElsewhere`, the drain does
not start, as with a ``flock`` held by another process), and the :class:`ClusterTenure` it returns
renews it every ``renew_ms`` while the drain runs and releases it at the end. Its fence (the token)
is what every write of the period carries (``store/fence.py``). The lease is *lost* when a renewal
finds the token stale or the database refuses a write carrying it (another host took over after the
lease expired: this one was paused, partitioned or too slow); the coordinator then cancels the
drain as ``superseded`` and writes nothing more. A renewal that fails for another reason (the
server restarting) is tried again at the next interval: until someone takes over, the token stays
good.

Taking over needs no step of its own: the runner's drain begins with the stale-tool sweep
(``host/sweep.py``) every time, so the first drain after a takeover fails what the old owner left
running before anything else, and never runs it again.

Interrupts from any host and the cluster's view of what runs are in ``cluster_interrupt.py``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

from agent_tui.core.errors import DatabaseUnavailable, LeaseHeld, StaleFence
from agent_tui.core.run.lease import SessionOwnedElsewhere
from agent_tui.core.store.fence import Fence
from agent_tui.core.store.pg import lease as pg_lease
from agent_tui.core.store.pg.connect import connect

if TYPE_CHECKING:
    from psycopg import AsyncConnection

T = TypeVar("T")
log = logging.getLogger(__name__)

RENEW_FRACTION = 3
"""Renew every TTL / 3: two renewals may fail (a slow statement, a restarting server) before expiry."""


def host_owner() -> str:
    """This process's owner name: host, pid and a random tag (a restarted process with the same pid
    is a different owner, so it never mistakes its predecessor's lease for its own)."""
    return f"{socket.gethostname()}:{os.getpid()}:{os.urandom(3).hex()}"


class ClusterLeases:
    """One host's leases on one database: its owner name, the TTL, and a connection for the lease
    statements (reconnected when the server dropped it)."""

    def __init__(self, url: str, owner: str, ttl_ms: int, renew_ms: int | None = None) -> None:
        """``ttl_ms``: how long a lease lives unrenewed (``storage.lease_ttl_ms``), the worst-case
        stall after an owner dies (docs/scaling.md)."""
        self.url = url
        self.owner = owner
        self.ttl_ms = ttl_ms
        self.renew_ms = renew_ms if renew_ms is not None else ttl_ms // RENEW_FRACTION
        self.held: dict[str, ClusterTenure] = {}
        """The tenures this host holds now, by session."""
        self._conn: AsyncConnection[tuple[Any, ...]] | None = None
        self._lock = asyncio.Lock()  # one statement at a time on the connection

    async def acquire(self, session_id: str) -> ClusterTenure:
        """Take the session's lease, or :class:`SessionOwnedElsewhere` naming the live holder."""
        try:
            lease = await self.statement(pg_lease.acquire, session_id, self.owner, self.ttl_ms)
        except LeaseHeld as held:
            raise SessionOwnedElsewhere(session_id, {"owner": held.owner, "expires_ms": held.expires_ms}) from None
        tenure = self.held[session_id] = ClusterTenure(self, lease)
        return tenure

    async def statement(self, run: Callable[..., Awaitable[T]], *args: Any) -> T:
        """Run one lease statement on this host's connection, opening it again if it was lost."""
        async with self._lock:
            if self._conn is None or self._conn.closed:
                self._conn = await connect(self.url)
            return await run(self._conn, *args)

    async def close(self) -> None:
        for tenure in list(self.held.values()):
            await tenure.close()
        if self._conn is not None:
            await self._conn.close()
            self._conn = None


class ClusterTenure:
    """One held lease, renewed in the background until ``close``; the coordinator's ``Tenure``."""

    def __init__(self, leases: ClusterLeases, lease: pg_lease.Lease) -> None:
        self.lease = lease
        self.fence = Fence(lease.session_id, lease.token, refused=self._write_refused)
        self.lost_by: str | None = None
        """How the lease was found lost: ``"renewal"`` or ``"write"``; None while held."""
        self._leases = leases
        self._lost: list[Callable[[], None]] = []
        self._renewing = asyncio.get_running_loop().create_task(self._renew())

    def on_lost(self, lost: Callable[[], None]) -> None:
        if self.lost_by is not None:
            lost()
        else:
            self._lost.append(lost)

    async def close(self) -> None:
        """Stop renewing and release (a lease already lost is another owner's: left alone)."""
        self._renewing.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._renewing
        if self._leases.held.get(self.lease.session_id) is self:
            del self._leases.held[self.lease.session_id]
        if self.lost_by is None:
            try:
                await self._leases.statement(pg_lease.release, self.lease)
            except DatabaseUnavailable as error:  # it expires on its own; the next owner sweeps
                log.warning("lease of %s not released: %s", self.lease.session_id, error)

    async def _renew(self) -> None:
        import psycopg

        while True:
            await asyncio.sleep(self._leases.renew_ms / 1000)
            try:
                self.lease = await self._leases.statement(pg_lease.renew, self.lease, self._leases.ttl_ms)
            except StaleFence:
                self._lose("renewal")
                return
            except (DatabaseUnavailable, psycopg.Error) as error:  # the token is good until a takeover
                log.warning("lease of %s not renewed (trying again): %s", self.lease.session_id, error)

    def _write_refused(self) -> None:
        self._lose("write")

    def _lose(self, how: str) -> None:
        if self.lost_by is not None:
            return
        self.lost_by = how
        for lost in self._lost:
            lost()
