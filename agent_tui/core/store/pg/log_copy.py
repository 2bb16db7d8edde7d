"""A PostgreSQL database as one end of ``db copy``: raw rows out, fenced and projected rows in.

Writing obeys the database's own rule (``event_fenced``, schema.py): the copy takes the session's
lease as the owner :data:`COPY_OWNER` and every batch carries its token, so a session that a
runner holds on the destination is refused (``LeaseHeld``), and a runner cannot write into a
session while a copy fills it. A copy killed mid-way leaves its lease behind; the next copy, the
same owner, takes it back at once instead of waiting for it to expire (and bumps the token, so a
copy still running elsewhere stops at its next batch). Each batch is one transaction
(``write.append_copied``) that checks the session's head under its row lock, inserts the rows with
their seqs, times and admission keys (``input_id``), moves the head and projects the rows with the
projectors every PostgreSQL append runs, so a copy interrupted anywhere leaves projections that
match its events. As in ``PgEventLog``, that transaction runs on a blocking connection in a worker
thread; reads and leases use an async one.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from agent_tui.core.errors import CopyConflict, LeaseHeld, StaleFence
from agent_tui.core.projections.sql import POSTGRES
from agent_tui.core.store.crash_seam import kill_after_commit
from agent_tui.core.store.log_rows import FirstRow, LogRow, fork_points_sql
from agent_tui.core.store.pg import lease as leases
from agent_tui.core.store.pg import write
from agent_tui.core.store.pg.connect import connect, connect_sync, redact
from agent_tui.core.store.pg.schema import STALE_FENCE, migrate

if TYPE_CHECKING:
    from psycopg import AsyncConnection, Connection

COPY_OWNER = "agent-tui db copy"
LEASE_TTL_MS = 60_000

_RECLAIM = """INSERT INTO session_lease AS l (session_id, owner, token, expires_at)
VALUES (%(sid)s, %(owner)s, 1, clock_timestamp() + %(ttl)s * interval '1 millisecond')
ON CONFLICT (session_id) DO UPDATE SET owner = EXCLUDED.owner, token = l.token + 1, expires_at = EXCLUDED.expires_at
WHERE l.owner IS NULL OR l.owner = EXCLUDED.owner OR l.expires_at <= clock_timestamp()
RETURNING token, (extract(epoch FROM expires_at) * 1000)::bigint"""
"""``lease.acquire``, except that a lease left by an earlier copy is taken back too."""


class PgLog:
    """The event log of one PostgreSQL database, for copying."""

    def __init__(
        self,
        url: str,
        conn: AsyncConnection[tuple[Any, ...]],
        writing: Connection[tuple[Any, ...]] | None,
        *,
        empty: bool,
    ) -> None:
        self.location = redact(url)
        self._conn = conn
        self._writing = writing  # None for a source: it is only read
        self._empty = empty
        self._write_lock = threading.Lock()  # held by the worker thread, so closing waits for a batch in flight
        self._leases: dict[str, leases.Lease] = {}
        self._after_commit = kill_after_commit()  # a test seam; None unless the environment sets it

    @classmethod
    async def open(cls, url: str, *, create: bool) -> PgLog:
        """Connect; with ``create`` migrate (a destination), else only read what is there.

        A destination of the log-only first step gets its projections first, replayed from its log,
        so the copied rows are projected on top of the projections of what it already held.
        """
        conn = await connect(url)
        writing: Connection[tuple[Any, ...]] | None = None
        try:
            if create:
                found = await migrate(conn, redact(url))
                writing = await asyncio.to_thread(connect_sync, url)
                if found == 1:
                    await asyncio.to_thread(write.rebuild, writing)
            row = await (await conn.execute("SELECT to_regclass('event') IS NULL")).fetchone()
        except BaseException:
            if writing is not None:
                await asyncio.to_thread(writing.close)
            await conn.close()
            raise
        return cls(url, conn, writing, empty=bool(row and row[0]))

    async def close(self) -> None:
        try:
            for session_id in list(self._leases):
                await self.done(session_id)
        finally:
            await self._conn.close()
            if self._writing is not None:
                await asyncio.to_thread(self._close_writing)

    def _close_writing(self) -> None:
        with self._write_lock:
            if self._writing is not None:
                self._writing.close()

    async def first_rows(self) -> list[FirstRow]:
        if self._empty:
            return []
        cursor = await self._conn.execute(
            "SELECT DISTINCT ON (session_id) session_id, seq, type, created_ms, data_json FROM event"
            " ORDER BY session_id, seq"
        )
        return [FirstRow(sid, LogRow(*rest)) for sid, *rest in await cursor.fetchall()]

    async def head(self, session_id: str) -> int:
        if self._empty:
            return 0
        cursor = await self._conn.execute(
            "SELECT coalesce(max(seq), 0) FROM event WHERE session_id = %s", (session_id,)
        )
        row = await cursor.fetchone()
        return int(row[0]) if row else 0

    async def fork_points(self) -> dict[str, int]:
        """Empty for a database of the log-only first step: it has no ``pos``, so no commit order."""
        import psycopg

        if self._empty:
            return {}
        try:
            cursor = await self._conn.execute(fork_points_sql(POSTGRES, "pos").encode())
        except psycopg.errors.UndefinedColumn:
            return {}
        return {sid: int(point) for sid, point in await cursor.fetchall()}

    async def rows(self, session_id: str, after: int, limit: int) -> list[LogRow]:
        if self._empty:
            return []
        cursor = await self._conn.execute(
            "SELECT seq, type, created_ms, data_json FROM event WHERE session_id = %s AND seq > %s ORDER BY seq LIMIT %s",
            (session_id, after, limit),
        )
        return [LogRow(*row) for row in await cursor.fetchall()]

    async def write(self, session_id: str, after: int, rows: Sequence[LogRow]) -> None:
        if not rows:
            return
        import psycopg

        lease = await self._hold(session_id)
        try:
            await asyncio.to_thread(self._write_batch, session_id, after, lease.token, rows)
        except psycopg.errors.UniqueViolation as error:
            what = "one of its input ids" if error.diag.constraint_name == "event_input" else "one of its rows"
            raise CopyConflict(
                session_id, f"{self.location} already holds {what} ({error.diag.message_detail})"
            ) from None
        except psycopg.Error as error:
            if error.sqlstate == STALE_FENCE:
                raise StaleFence(session_id, lease.token) from None
            raise
        if self._after_commit is not None:
            self._after_commit()

    def _write_batch(self, session_id: str, after: int, fence: int, rows: Sequence[LogRow]) -> None:
        with self._write_lock:
            if self._writing is None:
                raise AssertionError("a copy's source is never written")
            write.append_copied(self._writing, session_id, after, fence, rows, self.location)

    async def done(self, session_id: str) -> None:
        """Give the session's lease back, if this copy took it."""
        if (lease := self._leases.pop(session_id, None)) is not None:
            await leases.release(self._conn, lease)

    async def _hold(self, session_id: str) -> leases.Lease:
        """The copy's lease on the session: taken at its first batch, renewed at every other."""
        held = self._leases.get(session_id)
        if held is not None:
            held = await leases.renew(self._conn, held, LEASE_TTL_MS)
        else:
            params = {"sid": session_id, "owner": COPY_OWNER, "ttl": LEASE_TTL_MS}
            row = await (await self._conn.execute(_RECLAIM, params)).fetchone()
            if row is None:
                holder = await leases.current(self._conn, session_id)
                raise LeaseHeld(
                    session_id, holder.owner if holder else "another host", holder.expires_ms if holder else 0
                )
            held = leases.Lease(session_id=session_id, owner=COPY_OWNER, token=row[0], expires_ms=row[1])
        self._leases[session_id] = held
        return held
