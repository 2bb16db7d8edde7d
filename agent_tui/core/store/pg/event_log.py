"""The session event log on PostgreSQL: fenced appends, idempotent admission, reads by seq.

Each append is one statement, so one transaction and one round trip: bump the session's head row
(``UPDATE … RETURNING``: the row lock serializes appenders of one session, on any host, so seqs
are distinct and consecutive) and insert the events after it; ``event_fenced`` checks the token on
each row and ``event_notify`` signals the new head on commit (schema.py). A refused token fails the
statement: nothing is written.

One connection writes (its transactions one at a time, behind a lock), one reads; a pool and the
projections are the next step (docs/scaling.md).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
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

_INSERT = """WITH h AS ({head})
INSERT INTO event (session_id, seq, type, data_json, created_ms, fence, input_id)
SELECT %(sid)s::text, h.base + t.ord, t.type, t.data, %(at)s::bigint, %(fence)s::bigint, %(input)s::text
FROM h, unnest(%(types)s::text[], %(datas)s::text[]) WITH ORDINALITY AS t(type, data, ord)
RETURNING seq"""
_APPEND = _INSERT.format(
    head="UPDATE session_head SET head = head + %(n)s WHERE session_id = %(sid)s RETURNING head - %(n)s AS base"
)
"""Bump the head (its row lock serializes the session's appenders on every host), insert after it."""
_APPEND_NEW = _INSERT.format(
    head="INSERT INTO session_head (session_id, head) VALUES (%(sid)s, %(n)s) ON CONFLICT DO NOTHING"
    " RETURNING 0::bigint AS base"
)
"""A new session: its head row is created, or nothing is inserted (it exists)."""
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
            async with self._lock:
                return await self._insert(self._writer, session_id, events, fence, None)
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
                async with self._lock, self._writer.transaction():
                    if (existing := await _admitted(self._writer, event.input_id)) is not None:
                        return _same_admission(existing, session_id, event), False
                    stored = await self._insert(self._writer, session_id, [event], None, event.input_id)
                    return stored[0], True
            except psycopg.errors.UniqueViolation:
                continue
        raise AdmissionConflict(f"input id {event.input_id} is being admitted concurrently; try again")

    async def _insert(
        self,
        conn: AsyncConnection[tuple[Any, ...]],
        session_id: str,
        events: Sequence[ev.DurableEvent],
        fence: int | None,
        input_id: str | None,
    ) -> list[ev.StoredEvent]:
        """One statement, so one round trip: claim the seqs under the head row's lock and insert."""
        if any(isinstance(event, ev.SessionCreated) for event in events[1:]):
            raise SessionExists(session_id)
        creating = isinstance(events[0], ev.SessionCreated)
        at = self._clock.now_ms()
        encoded = [ev.encode(event) for event in events]
        cursor = await conn.execute(
            _APPEND_NEW if creating else _APPEND,
            {
                "sid": session_id,
                "n": len(events),
                "at": at,
                "fence": fence,
                "input": input_id,
                "types": [type_ for type_, _ in encoded],
                "datas": [data for _, data in encoded],
            },
        )
        seqs = sorted(row[0] for row in await cursor.fetchall())
        if not seqs:
            raise SessionExists(session_id) if creating else UnknownSession(session_id)
        return [
            ev.StoredEvent.model_construct(session_id=session_id, seq=seq, type=type_, created=at, event=event)
            for seq, (type_, _), event in zip(seqs, encoded, events, strict=True)
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
