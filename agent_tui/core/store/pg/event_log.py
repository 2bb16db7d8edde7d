"""The session event log on PostgreSQL: fenced appends, idempotent admission, reads by seq.

Each append is one transaction: bump the session's head row (``UPDATE … RETURNING``: the row lock
serializes appenders of one session, on any host, so seqs are distinct and consecutive), insert the
events (``event_fenced`` checks the token on each), and ``pg_notify`` the new head, which
PostgreSQL delivers only on commit. A refused token rolls everything back: nothing is written.

One connection writes (its transactions one at a time, behind a lock), one reads; a pool and the
projections are the next step (docs/scaling.md).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

from agent_tui.core.errors import AdmissionConflict, SessionExists, StaleFence, UnknownSession
from agent_tui.core.log import events as ev
from agent_tui.core.store.pg import lease as leases
from agent_tui.core.store.pg.connect import connect, redact
from agent_tui.core.store.pg.schema import STALE_FENCE, migrate
from agent_tui.core.store.queries import stored_event
from agent_tui.vocab.clock import Clock, SystemClock

if TYPE_CHECKING:
    from psycopg import AsyncConnection

CHANNEL = "agent_tui_head"
"""The ``NOTIFY`` channel; the payload is ``<session_id> <head seq>``, a hint to re-query."""

Admissible = ev.PromptAdmitted | ev.CompactionAdmitted
_ADMISSION_RETRIES = 3


class PgEventLog:
    """The log of every session in one PostgreSQL database."""

    def __init__(
        self, url: str, writer: AsyncConnection[tuple[Any, ...]], reader: AsyncConnection[tuple[Any, ...]], clock: Clock
    ) -> None:
        self.url = url
        self._writer = writer
        self._reader = reader
        self._clock = clock
        self._lock = asyncio.Lock()

    @classmethod
    async def open(cls, url: str, clock: Clock | None = None) -> PgEventLog:
        """Connect and migrate; :class:`DatabaseUnavailable` with the reason if the server says no."""
        writer = await connect(url)
        try:
            await migrate(writer, redact(url))
            reader = await connect(url)
        except BaseException:
            await writer.close()
            raise
        return cls(url, writer, reader, clock or SystemClock())

    async def close(self) -> None:
        await self._writer.close()
        await self._reader.close()

    async def __aenter__(self) -> PgEventLog:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.close()

    @asynccontextmanager
    async def _transaction(self) -> AsyncIterator[AsyncConnection[tuple[Any, ...]]]:
        async with self._lock, self._writer.transaction():
            yield self._writer

    # -- ownership ------------------------------------------------------------
    async def acquire(self, session_id: str, owner: str, ttl_ms: int) -> leases.Lease:
        async with self._lock:
            return await leases.acquire(self._writer, session_id, owner, ttl_ms)

    async def renew(self, lease: leases.Lease, ttl_ms: int) -> leases.Lease:
        async with self._lock:
            return await leases.renew(self._writer, lease, ttl_ms)

    async def release(self, lease: leases.Lease) -> bool:
        async with self._lock:
            return await leases.release(self._writer, lease)

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
            async with self._transaction() as conn:
                first = await _claim_seqs(conn, session_id, events)
                return await self._insert(conn, session_id, first, events, fence, None)
        except psycopg.Error as error:
            if error.sqlstate == STALE_FENCE:
                raise StaleFence(session_id, fence) from None
            raise

    async def admit(self, session_id: str, event: Admissible) -> tuple[ev.StoredEvent, bool]:
        """Admit a prompt or compaction barrier once per input id, from any host (unfenced).

        Returns the stored event and whether this call wrote it (False: an exact retry, the first
        admission returned). The same id with anything different is an :class:`AdmissionConflict`.
        Two hosts admitting one id at once: the unique ``input_id`` index lets one insert; the other
        rolls back and finds it on its next try.
        """
        import psycopg

        for _ in range(_ADMISSION_RETRIES):
            try:
                async with self._transaction() as conn:
                    if (existing := await _admitted(conn, event.input_id)) is not None:
                        return _same_admission(existing, session_id, event), False
                    first = await _claim_seqs(conn, session_id, [event])
                    stored = await self._insert(conn, session_id, first, [event], None, event.input_id)
                    return stored[0], True
            except psycopg.errors.UniqueViolation:
                continue
        raise AdmissionConflict(f"input id {event.input_id} is being admitted concurrently; try again")

    async def _insert(
        self,
        conn: AsyncConnection[tuple[Any, ...]],
        session_id: str,
        first: int,
        events: Sequence[ev.DurableEvent],
        fence: int | None,
        input_id: str | None,
    ) -> list[ev.StoredEvent]:
        at = self._clock.now_ms()
        rows = [(session_id, first + i, *ev.encode(event), at, fence, input_id) for i, event in enumerate(events)]
        async with conn.cursor() as cursor:
            await cursor.executemany(
                "INSERT INTO event (session_id, seq, type, data_json, created_ms, fence, input_id)"
                " VALUES (%s, %s, %s, %s, %s, %s, %s)",
                rows,
            )
        head = first + len(events) - 1
        await conn.execute("SELECT pg_notify(%s, %s)", (CHANNEL, f"{session_id} {head}"))
        return [
            ev.StoredEvent.model_construct(session_id=session_id, seq=row[1], type=row[2], created=at, event=event)
            for row, event in zip(rows, events, strict=True)
        ]

    # -- reads ----------------------------------------------------------------
    async def events(self, session_id: str, after: int = 0, limit: int | None = 500) -> list[ev.StoredEvent]:
        cursor = await self._reader.execute(
            "SELECT seq, type, created_ms, data_json FROM event WHERE session_id = %s AND seq > %s"
            " ORDER BY seq LIMIT %s",
            (session_id, after, limit),
        )
        return [stored_event(session_id, *row) for row in await cursor.fetchall()]

    async def head_seq(self, session_id: str) -> int:
        row = await (
            await self._reader.execute("SELECT head FROM session_head WHERE session_id = %s", (session_id,))
        ).fetchone()
        return 0 if row is None else int(row[0])


async def _claim_seqs(
    conn: AsyncConnection[tuple[Any, ...]], session_id: str, events: Sequence[ev.DurableEvent]
) -> int:
    """Reserve ``len(events)`` seqs under the head row's lock; the first of them."""
    count = len(events)
    if any(isinstance(event, ev.SessionCreated) for event in events[1:]):
        raise SessionExists(session_id)
    if isinstance(events[0], ev.SessionCreated):
        row = await (
            await conn.execute(
                "INSERT INTO session_head (session_id, head) VALUES (%s, %s) ON CONFLICT DO NOTHING RETURNING head",
                (session_id, count),
            )
        ).fetchone()
        if row is None:
            raise SessionExists(session_id)
        return 1
    row = await (
        await conn.execute(
            "UPDATE session_head SET head = head + %s WHERE session_id = %s RETURNING head", (count, session_id)
        )
    ).fetchone()
    if row is None:
        raise UnknownSession(session_id)
    return int(row[0]) - count + 1


async def _admitted(conn: AsyncConnection[tuple[Any, ...]], input_id: str) -> ev.StoredEvent | None:
    row = await (
        await conn.execute(
            "SELECT session_id, seq, type, created_ms, data_json FROM event WHERE input_id = %s", (input_id,)
        )
    ).fetchone()
    return None if row is None else stored_event(*row)


def _same_admission(existing: ev.StoredEvent, session_id: str, event: Admissible) -> ev.StoredEvent:
    """The earlier admission if this one is an exact retry, else the specific conflict."""
    if existing.session_id != session_id:
        raise AdmissionConflict(f"input id {event.input_id} was already admitted to session {existing.session_id}")
    if existing.type != event.TYPE:
        raise AdmissionConflict(f"input id {event.input_id} was already admitted as a {existing.type}")
    if ev.encode(existing.event) != ev.encode(event):
        raise AdmissionConflict(f"input id {event.input_id} was already admitted with a different prompt or delivery")
    return existing
