"""One write transaction on PostgreSQL: append the events, then project them, then commit.

The same projectors as SQLite's writer (``core/projections``), through :class:`PgProjectionConn`,
in the transaction that inserted the events: a refused token (``event_fenced``), a refused event
(``EventRejected``) or any error rolls back the events and their projections together. These are
blocking functions on a sync psycopg connection; ``PgEventLog`` runs them on a worker thread.

The append itself is one statement: bump the session's head row (``UPDATE … RETURNING``: its row
lock serializes appenders of one session, on any host) and insert the events after it. The lock is
held to the commit, so the next appender of the session projects on top of this one's rows.

``db copy`` writes rows that already have their seqs and times (:func:`append_copied`): the same
transaction, except that the head is checked rather than claimed, and the rows are projected as
``rebuild`` replays them.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from agent_tui.core.errors import AdmissionConflict, CopyConflict, SessionExists, UnknownSession
from agent_tui.core.log import events as ev
from agent_tui.core.projections.projectors import project
from agent_tui.core.store.log_rows import LogRow
from agent_tui.core.store.pg.projection_conn import PgProjectionConn
from agent_tui.core.store.pg.schema import PROJECTION_TABLES
from agent_tui.core.store.queries import stored_event
from agent_tui.core.store.replay import LOG_IN_ORDER, replay
from agent_tui.vocab.clock import Clock

if TYPE_CHECKING:
    from psycopg import Connection

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
    head="INSERT INTO session_head (session_id, head) VALUES (%(sid)s, %(base)s::bigint + %(n)s)"
    " ON CONFLICT DO NOTHING RETURNING %(base)s::bigint AS base"
)
"""A new session: its head row is created, or nothing is inserted (it exists). ``base`` is the seq
before its first (0; a fork continues its parent's seqs)."""
Admissible = ev.PromptAdmitted | ev.CompactionAdmitted
_INSERT_COPIED = """INSERT INTO event (session_id, seq, type, created_ms, data_json, fence, input_id)
SELECT %(sid)s::text, t.seq, t.type, t.created, t.data, %(fence)s::bigint, t.input
FROM unnest(%(seqs)s::bigint[], %(types)s::text[], %(created)s::bigint[], %(datas)s::text[], %(inputs)s::text[])
    AS t(seq, type, created, data, input)"""
_ADMISSIONS = frozenset({ev.PromptAdmitted.TYPE, ev.CompactionAdmitted.TYPE})


def append(
    conn: Connection[tuple[Any, ...]],
    session_id: str,
    events: Sequence[ev.DurableEvent],
    fence: int | None,
    clock: Clock,
) -> list[ev.StoredEvent]:
    """Insert under token ``fence`` and project, in one transaction."""
    with conn.transaction():
        return append_projected(conn, session_id, events, fence, None, clock.now_ms())


def admit(
    conn: Connection[tuple[Any, ...]], session_id: str, event: Admissible, clock: Clock
) -> tuple[ev.StoredEvent, bool]:
    """Admit once per input id (unfenced): the first admission if this is an exact retry, else write it.

    A concurrent admission of the same id makes the insert a ``UniqueViolation`` (the caller retries).
    """
    with conn.transaction():
        row = conn.execute(
            "SELECT session_id, seq, type, created_ms, data_json FROM event WHERE input_id = %s", (event.input_id,)
        ).fetchone()
        if row is not None:
            return _same_admission(stored_event(*row), session_id, event), False
        return append_projected(conn, session_id, [event], None, event.input_id, clock.now_ms())[0], True


def append_copied(
    conn: Connection[tuple[Any, ...]], session_id: str, after: int, fence: int, rows: Sequence[LogRow], where: str
) -> None:
    """Insert copied ``rows`` (their seqs, times and admission keys) under token ``fence`` and project them.

    Only while the session's head here is still ``after``, checked under the head row's lock
    (:class:`CopyConflict` if a writer got in); the head then moves to the last row. ``where``
    names this database in that message.
    """
    with conn.transaction():
        row = conn.execute("SELECT head FROM session_head WHERE session_id = %s FOR UPDATE", (session_id,)).fetchone()
        head = 0 if row is None else int(row[0])
        if head != after:
            raise CopyConflict(session_id, f"{where} gained events during the copy (head {head}, not {after})")
        conn.execute(_INSERT_COPIED, _copied_batch(session_id, fence, rows))
        conn.execute(
            "INSERT INTO session_head (session_id, head) VALUES (%s, %s)"
            " ON CONFLICT (session_id) DO UPDATE SET head = EXCLUDED.head",
            (session_id, rows[-1].seq),
        )
        replay(PgProjectionConn(conn), ((session_id, *row) for row in rows), doing="copy")


def rebuild(conn: Connection[tuple[Any, ...]]) -> int:
    """Recreate every projection from ``event`` alone, in the log's global order; returns events replayed.

    ``LOCK … EXCLUSIVE`` holds appends off (reads go on, and see the old projections until the commit).
    """
    with conn.transaction():
        conn.execute("LOCK TABLE event IN EXCLUSIVE MODE")
        for table in PROJECTION_TABLES:
            conn.execute(f"DELETE FROM {table}".encode())
        with conn.cursor(name="agent_tui_rebuild") as rows:  # server-side: the log is streamed, not loaded
            rows.execute(LOG_IN_ORDER.format(order="pos").encode())
            return replay(PgProjectionConn(conn), rows)


def append_projected(
    conn: Connection[tuple[Any, ...]],
    session_id: str,
    events: Sequence[ev.DurableEvent],
    fence: int | None,
    input_id: str | None,
    at: int,
    first_seq: int = 1,
) -> list[ev.StoredEvent]:
    """Claim the seqs under the head row's lock and insert (one statement), then project each event.

    Runs inside the caller's transaction; ``first_seq`` numbers a new session's first event.
    """
    if any(isinstance(event, ev.SessionCreated) for event in events[1:]):
        raise SessionExists(session_id)
    creating = isinstance(events[0], ev.SessionCreated)
    encoded = [ev.encode(event) for event in events]
    cursor = conn.execute(
        _APPEND_NEW if creating else _APPEND,
        {
            "sid": session_id,
            "n": len(events),
            "base": first_seq - 1,
            "at": at,
            "fence": fence,
            "input": input_id,
            "types": [type_ for type_, _ in encoded],
            "datas": [data for _, data in encoded],
        },
    )
    seqs = sorted(row[0] for row in cursor.fetchall())
    if not seqs:
        raise SessionExists(session_id) if creating else UnknownSession(session_id)
    stored = [
        ev.StoredEvent.model_construct(session_id=session_id, seq=seq, type=type_, created=at, event=event)
        for seq, (type_, _), event in zip(seqs, encoded, events, strict=True)
    ]
    db = PgProjectionConn(conn)
    for one in stored:
        project(db, session_id, one.seq, at, one.event)
    return stored


def _same_admission(existing: ev.StoredEvent, session_id: str, event: Admissible) -> ev.StoredEvent:
    """The earlier admission if this one is an exact retry, else the specific conflict."""
    if existing.session_id != session_id:
        raise AdmissionConflict(f"input id {event.input_id} was already admitted to session {existing.session_id}")
    if existing.type != event.TYPE:
        raise AdmissionConflict(f"input id {event.input_id} was already admitted as a {existing.type}")
    if ev.encode(existing.event) != ev.encode(event):
        raise AdmissionConflict(f"input id {event.input_id} was already admitted with a different prompt or delivery")
    return existing


def _copied_batch(session_id: str, fence: int, rows: Sequence[LogRow]) -> dict[str, Any]:
    return {
        "sid": session_id,
        "fence": fence,
        "seqs": [row.seq for row in rows],
        "types": [row.type for row in rows],
        "created": [row.created_ms for row in rows],
        "datas": [row.data_json for row in rows],
        "inputs": [_input_id(row) for row in rows],
    }


def _input_id(row: LogRow) -> str | None:
    """An admission's key, kept in its column so a retried admission on the destination finds it."""
    if row.type not in _ADMISSIONS:
        return None
    value = json.loads(row.data_json).get("input_id")
    return value if isinstance(value, str) else None
