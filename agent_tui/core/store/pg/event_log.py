"""The session event log on PostgreSQL: fenced appends with their projections, idempotent admission, reads.

An append inserts the events and projects them in one transaction (``write.py``): the session's
head row serializes its appenders on every host, ``event_fenced`` checks the token on each row and
``event_notify`` signals the new head on commit (schema.py). A refused token or a refused event
rolls back everything: no event, no projection.

Three connections: the write transactions run one at a time on a blocking connection in a worker
thread (the projectors are plain functions, as on SQLite's writer thread); the leases use an async
one, reads another. A pool is a later step (docs/scaling.md).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from agent_tui.core.errors import AdmissionConflict, StaleFence
from agent_tui.core.log import events as ev
from agent_tui.core.store.pg import lease as leases
from agent_tui.core.store.pg import write
from agent_tui.core.store.pg.connect import connect, connect_sync, redact
from agent_tui.core.store.pg.schema import STALE_FENCE, migrate
from agent_tui.core.store.pg.search import matching_sessions
from agent_tui.core.store.queries import stored_event
from agent_tui.vocab.clock import Clock, SystemClock

if TYPE_CHECKING:
    from psycopg import AsyncConnection, Connection

T = TypeVar("T")

_ADMISSION_RETRIES = 3


class PgEventLog:
    """The log of every session in one PostgreSQL database."""

    def __init__(
        self,
        url: str,
        conns: tuple[AsyncConnection[tuple[Any, ...]], Connection[tuple[Any, ...]], AsyncConnection[tuple[Any, ...]]],
        clock: Clock,
    ) -> None:
        self.url = url
        self._leases, self._projecting, self._reader = conns
        self._clock = clock
        self._lock = asyncio.Lock()  # the lease statements, one at a time on their connection
        self._write_lock = threading.Lock()  # held by the worker thread, so a cancelled caller cannot overlap

    @classmethod
    async def open(cls, url: str, clock: Clock | None = None) -> PgEventLog:
        """Connect and migrate; :class:`DatabaseUnavailable` with the reason if the server says no.

        A database of the log-only first step gets its projections here, replayed from its log.
        """
        control = await connect(url)
        opened: list[Any] = [control]
        try:
            found = await migrate(control, redact(url))
            opened.append(await asyncio.to_thread(connect_sync, url))
            opened.append(await connect(url))
            log = cls(url, (control, opened[1], opened[2]), clock or SystemClock())
            if found == 1:
                await log.rebuild()
        except BaseException:
            for conn in opened:
                await _close(conn)
            raise
        return log

    async def close(self) -> None:
        await self._leases.close()
        await asyncio.to_thread(self._close_projecting)
        await self._reader.close()

    def _close_projecting(self) -> None:
        with self._write_lock:
            self._projecting.close()

    async def __aenter__(self) -> PgEventLog:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.close()

    # -- ownership ------------------------------------------------------------
    async def acquire(self, session_id: str, owner: str, ttl_ms: int) -> leases.Lease:
        async with self._lock:
            return await leases.acquire(self._leases, session_id, owner, ttl_ms)

    async def renew(self, lease: leases.Lease, ttl_ms: int) -> leases.Lease:
        async with self._lock:
            return await leases.renew(self._leases, lease, ttl_ms)

    async def release(self, lease: leases.Lease) -> bool:
        async with self._lock:
            return await leases.release(self._leases, lease)

    async def lease(self, session_id: str) -> leases.Lease | None:
        return await leases.current(self._reader, session_id)

    # -- writes ---------------------------------------------------------------
    async def append(self, session_id: str, events: Sequence[ev.DurableEvent], fence: int) -> list[ev.StoredEvent]:
        """Append under lease token ``fence``; :class:`StaleFence` (nothing written) if it is not current.

        The first event of a session is its ``session.created``; any other event needs the session.
        """
        if not events:
            return []
        import psycopg

        try:
            return await self._write(write.append, session_id, events, fence, self._clock)
        except psycopg.Error as error:
            if error.sqlstate == STALE_FENCE:
                raise StaleFence(session_id, fence) from None
            raise

    async def admit(self, session_id: str, event: write.Admissible) -> tuple[ev.StoredEvent, bool]:
        """Admit a prompt or compaction barrier once per input id, from any host (unfenced).

        Returns the stored event and whether this call wrote it (False: an exact retry, the first
        admission returned). The same id with anything different is an :class:`AdmissionConflict`.
        Two hosts admitting one id at once: the unique ``input_id`` index lets one insert; the other
        rolls back and finds it on its next try.
        """
        import psycopg

        for _ in range(_ADMISSION_RETRIES):
            try:
                return await self._write(write.admit, session_id, event, self._clock)
            except psycopg.errors.UniqueViolation:
                continue
        raise AdmissionConflict(f"input id {event.input_id} is being admitted concurrently; try again")

    async def rebuild(self) -> int:
        """Recreate every projection from the log alone (appends wait meanwhile); returns events replayed."""
        return await self._write(write.rebuild)

    async def _write(self, job: Callable[..., T], *args: Any) -> T:
        """Run one write transaction on the worker thread, one at a time."""

        def locked() -> T:
            with self._write_lock:
                return job(self._projecting, *args)

        return await asyncio.to_thread(locked)

    # -- reads ----------------------------------------------------------------
    async def events(self, session_id: str, after: int = 0, limit: int | None = 500) -> list[ev.StoredEvent]:
        cursor = await self._reader.execute(
            "SELECT seq, type, created_ms, data_json FROM event WHERE session_id = %s AND seq > %s"
            " ORDER BY seq LIMIT %s",
            (session_id, after, limit),
        )
        return [stored_event(session_id, *row) for row in await cursor.fetchall()]

    async def search(self, text: str, limit: int = 50) -> list[str]:
        """Ids of the sessions whose title or messages match every word of ``text`` (as prefixes)."""
        return await matching_sessions(self._reader, text, limit)

    async def head_seq(self, session_id: str) -> int:
        row = await (
            await self._reader.execute("SELECT head FROM session_head WHERE session_id = %s", (session_id,))
        ).fetchone()
        return 0 if row is None else int(row[0])


async def _close(conn: Any) -> None:
    closing = conn.close()
    if asyncio.iscoroutine(closing):
        await closing
