"""Read queries over the projections, as async functions of a reader connection.

The store runs each on a connection borrowed from its reader pool. Each is
one statement (its own snapshot) unless it says otherwise; records are built
by the statement's row factory, on the connection's thread.
"""

from __future__ import annotations

import json
from typing import Any

from agent_tui.core.errors import CorruptEvent
from agent_tui.core.log import events as ev
from agent_tui.core.log.records import (
    ApprovalRecord,
    CheckpointRecord,
    InboxRecord,
    MessageRecord,
    PermissionRecord,
    PlanRecord,
    SessionRecord,
    SessionSummary,
    ToolCallRecord,
)
from agent_tui.core.log.session_row import SESSION_FIELDS
from agent_tui.core.store.reader import ReadConn as Connection
from agent_tui.core.store.reader import consistent_read, dialect, fetch, fetch_one
from agent_tui.core.store.session_list import SESSION_COLUMNS, children_sql, session_rows_sql

ALL_ROWS = 2**62
"""``LIMIT`` of a read that wants every row (SQLite reads a negative limit so, PostgreSQL refuses one)."""


def _loads(raw: str | None) -> Any:
    return None if raw is None else json.loads(raw)


def stored_event(session_id: str, seq: int, type_: str, created: int, data: str) -> ev.StoredEvent:
    try:
        event = ev.decode(type_, data)
    except (ev.MalformedEvent, ValueError) as error:
        raise CorruptEvent(session_id, seq, str(error)) from None
    return ev.StoredEvent.model_construct(session_id=session_id, seq=seq, type=type_, created=created, event=event)


async def events(conn: Connection, session_id: str, after: int | None, limit: int | None) -> list[ev.StoredEvent]:
    return await fetch(
        conn,
        "SELECT seq, type, created_ms, data_json FROM event WHERE session_id = ? AND seq > ? ORDER BY seq LIMIT ?",
        (session_id, after or 0, ALL_ROWS if limit is None else limit),
        row=lambda _cursor, row: stored_event(session_id, *row),
    )


async def head_seq(conn: Connection, session_id: str) -> int:
    row = await fetch_one(conn, "SELECT coalesce(max(seq), 0) FROM event WHERE session_id = ?", (session_id,))
    seq: int = row[0]
    return seq


async def event_rows(conn: Connection, session_id: str, after: int, limit: int) -> list[tuple[int, str, int, str]]:
    """The session's rows as stored, undecoded: ``(seq, type, created_ms, data_json)`` (``db copy``)."""
    return await fetch(
        conn,
        "SELECT seq, type, created_ms, data_json FROM event WHERE session_id = ? AND seq > ? ORDER BY seq LIMIT ?",
        (session_id, after, limit),
    )


async def first_event_rows(conn: Connection) -> list[tuple[str, int, str, int, str]]:
    """Every session's first row as stored: ``(session_id, seq, type, created_ms, data_json)``.

    SQLite takes the bare columns of an aggregate query from the row that has the ``min``;
    PostgreSQL says ``DISTINCT ON``.
    """
    if dialect(conn).name == "sqlite":
        return await fetch(
            conn, "SELECT session_id, min(seq), type, created_ms, data_json FROM event GROUP BY session_id"
        )
    return await fetch(
        conn,
        "SELECT DISTINCT ON (session_id) session_id, seq, type, created_ms, data_json FROM event"
        " ORDER BY session_id, seq",
    )


async def heads(conn: Connection) -> dict[str, int]:
    """Every session's head, for the notifications after a rebuild."""
    return dict(await fetch(conn, "SELECT id, head_seq FROM session"))


def _session(_cursor: Any, row: tuple[Any, ...]) -> SessionRecord:
    return SessionRecord(**dict(zip(SESSION_FIELDS, row, strict=True)))


def _summary(_cursor: Any, row: tuple[Any, ...]) -> SessionSummary:
    return SessionSummary(**dict(zip(SESSION_FIELDS, row, strict=True)))


async def session(conn: Connection, session_id: str) -> SessionRecord | None:
    return await fetch_one(conn, f"SELECT {SESSION_COLUMNS} FROM session WHERE id = ?", (session_id,), _session)


async def most_recent_session(conn: Connection, location: str) -> SessionRecord | None:
    return await fetch_one(
        conn,
        f"SELECT {SESSION_COLUMNS} FROM session WHERE location = ? AND spawned_by IS NULL"
        " ORDER BY updated DESC, id DESC LIMIT 1",
        (location,),
        _session,
    )


async def list_sessions(
    conn: Connection, location: str | None, search: str | None, limit: int, offset: int, top_level: bool = False
) -> list[SessionSummary]:
    sql, params = session_rows_sql(location, search, limit, offset, top_level, dialect(conn))
    return await fetch(conn, sql, params, _summary)


async def children(conn: Connection, session_ids: list[str]) -> list[SessionSummary]:
    """The sessions the ``task`` calls of ``session_ids`` started, oldest first."""
    if not session_ids:
        return []
    return await fetch(conn, children_sql(len(session_ids)), tuple(session_ids), _summary)


def _message(_cursor: Any, r: tuple[Any, ...]) -> MessageRecord:
    return MessageRecord(
        id=r[0], session_id=r[1], seq=r[2], kind=r[3], data=json.loads(r[4]), created=r[5], updated=r[6]
    )


async def messages(
    conn: Connection, session_id: str, after: int | None, before: int | None, limit: int | None
) -> list[MessageRecord]:
    if before is not None and after is None and limit is not None:
        return await fetch(  # the newest ``limit`` rows before ``before``, returned oldest first
            conn,
            "SELECT * FROM (SELECT id, session_id, seq, kind, data_json, created, updated FROM message"
            " WHERE session_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?) AS newest ORDER BY seq",
            (session_id, before, limit),
            _message,
        )
    return await fetch(
        conn,
        "SELECT id, session_id, seq, kind, data_json, created, updated FROM message"
        " WHERE session_id = ? AND seq > ? AND seq < ? ORDER BY seq LIMIT ?",
        (session_id, after or 0, before if before is not None else 2**62, ALL_ROWS if limit is None else limit),
        _message,
    )


def _tool_call(_cursor: Any, r: tuple[Any, ...]) -> ToolCallRecord:
    return ToolCallRecord(
        session_id=r[0],
        assistant_message_id=r[1],
        call_id=r[2],
        seq=r[3],
        name=r[4],
        input=json.loads(r[5]),
        state=r[6],
        output=_loads(r[7]),
        error=_loads(r[8]),
        call_meta=json.loads(r[9]),
        result_meta=_loads(r[10]),
        hosted=bool(r[11]),
    )


async def tool_calls(
    conn: Connection, session_id: str, states: list[str] | None, name: str | None = None
) -> list[ToolCallRecord]:
    sql = (
        "SELECT session_id, assistant_message_id, call_id, seq, name, input_json, state, output_json,"
        " error_json, call_meta_json, result_meta_json, hosted FROM tool_call WHERE session_id = ?"
    )
    params: list[Any] = [session_id]
    if states:
        sql += f" AND state IN ({','.join('?' * len(states))})"
        params.extend(states)
    if name is not None:
        sql += " AND name = ?"
        params.append(name)
    return await fetch(conn, sql + " ORDER BY seq", params, _tool_call)


_INPUT_COLUMNS = (
    "id, session_id, kind, delivery, prompt_json, fingerprint, admitted_seq, promoted_seq,"
    " settled_seq, withdrawn, created, queue_rank"
)


def _inbox(_cursor: Any, r: tuple[Any, ...]) -> InboxRecord:
    return InboxRecord(
        id=r[0],
        session_id=r[1],
        kind=r[2],
        delivery=r[3],
        prompt=_loads(r[4]),
        fingerprint=r[5],
        admitted_seq=r[6],
        promoted_seq=r[7],
        settled_seq=r[8],
        withdrawn=bool(r[9]),
        created=r[10],
        queue_rank=r[11],
    )


async def pending_inputs(conn: Connection, session_id: str) -> list[InboxRecord]:
    return await fetch(
        conn,
        f"SELECT {_INPUT_COLUMNS} FROM session_input WHERE session_id = ? AND promoted_seq IS NULL"
        " AND withdrawn = 0 ORDER BY admitted_seq",
        (session_id,),
        _inbox,
    )


async def queue_paused(conn: Connection, session_id: str) -> bool:
    row = await fetch_one(conn, "SELECT paused FROM queue_state WHERE session_id = ?", (session_id,), None)
    return bool(row and row[0])


async def input_row(conn: Connection, input_id: str) -> InboxRecord | None:
    return await fetch_one(conn, f"SELECT {_INPUT_COLUMNS} FROM session_input WHERE id = ?", (input_id,), _inbox)


async def checkpoint(conn: Connection, session_id: str) -> CheckpointRecord | None:
    row = await fetch_one(
        conn,
        "SELECT session_id, baseline, baseline_seq, applied_json FROM instruction_checkpoint WHERE session_id = ?",
        (session_id,),
    )
    if row is None:
        return None
    return CheckpointRecord(session_id=row[0], baseline=row[1], baseline_seq=row[2], applied=json.loads(row[3]))


async def plan(conn: Connection, session_id: str) -> PlanRecord:
    row = await fetch_one(
        conn,
        "SELECT seq, call_id, items_json FROM plan_update WHERE session_id = ? ORDER BY seq DESC LIMIT 1",
        (session_id,),
    )
    if row is None:
        return PlanRecord(session_id=session_id)
    return PlanRecord(session_id=session_id, seq=row[0], call_id=row[1], items=json.loads(row[2]))


async def context_entries(conn: Connection, session_id: str) -> dict[str, Any]:
    rows = await fetch(
        conn, "SELECT key, value_json FROM context_entry WHERE session_id = ? ORDER BY key", (session_id,)
    )
    return {key: json.loads(value) for key, value in rows}


async def approvals(conn: Connection, project_root: str) -> list[ApprovalRecord]:
    return await fetch(
        conn,
        "SELECT project_root, action, pattern, created FROM permission_approval a WHERE project_root = ?"
        " AND NOT EXISTS (SELECT 1 FROM permission_revocation r WHERE r.project_root = a.project_root"
        " AND r.action = a.action AND r.pattern = a.pattern AND r.revoked >= a.created)"
        " ORDER BY created, action, pattern",
        (project_root,),
        lambda _cursor, r: ApprovalRecord(project_root=r[0], action=r[1], pattern=r[2], created=r[3]),
    )


_PERMISSION_COLUMNS = (
    "request_id, session_id, seq, assistant_message_id, call_id, action, resources_json, save_json,"
    " detail_json, reply, message, replied_seq, created"
)


def _permission(_cursor: Any, r: tuple[Any, ...]) -> PermissionRecord:
    return PermissionRecord(
        request_id=r[0],
        session_id=r[1],
        seq=r[2],
        assistant_message_id=r[3],
        call_id=r[4],
        action=r[5],
        resources=json.loads(r[6]),
        save=json.loads(r[7]),
        detail=json.loads(r[8]),
        reply=r[9],
        message=r[10],
        replied_seq=r[11],
        created=r[12],
    )


async def pending_permissions(conn: Connection, session_id: str) -> list[PermissionRecord]:
    return await fetch(
        conn,
        f"SELECT {_PERMISSION_COLUMNS} FROM permission_request WHERE session_id = ? AND reply IS NULL ORDER BY seq",
        (session_id,),
        _permission,
    )


async def permission(conn: Connection, request_id: str) -> PermissionRecord | None:
    return await fetch_one(
        conn, f"SELECT {_PERMISSION_COLUMNS} FROM permission_request WHERE request_id = ?", (request_id,), _permission
    )


async def running_compactions(conn: Connection, session_id: str) -> tuple[list[tuple[str, str]], str | None]:
    """Compaction rows still ``running`` and the started manual barrier, if any: one snapshot."""
    field = dialect(conn).json_field
    async with consistent_read(conn):
        rows = await fetch(
            conn,
            f"SELECT id, {field('data_json', 'reason')} FROM message WHERE session_id = ? AND kind = 'compaction'"
            f" AND {field('data_json', 'state')} = 'running' ORDER BY seq",
            (session_id,),
        )
        barrier = await fetch_one(
            conn,
            "SELECT id FROM session_input WHERE session_id = ? AND kind = 'compaction' AND promoted_seq IS NOT NULL"
            " AND settled_seq IS NULL AND withdrawn = 0",
            (session_id,),
        )
    return [(row[0], row[1]) for row in rows], barrier[0] if barrier else None


async def compaction_failed_before(conn: Connection, session_id: str, error_type: str, message: str) -> bool:
    """Whether the session already has a ``compaction.failed`` event with this error."""
    field = dialect(conn).json_field
    row = await fetch_one(
        conn,
        f"SELECT 1 FROM event WHERE session_id = ? AND type = ? AND {field('data_json', 'error.type')} = ?"
        f" AND {field('data_json', 'error.message')} = ? LIMIT 1",
        (session_id, ev.CompactionFailed.TYPE, error_type, message),
    )
    return row is not None


async def message_anywhere(conn: Connection, message_id: str) -> MessageRecord | None:
    """A visible message by id in any session (to say whose it is when it is not the caller's)."""
    return await fetch_one(
        conn,
        "SELECT id, session_id, seq, kind, data_json, created, updated FROM message WHERE id = ?",
        (message_id,),
        _message,
    )


async def events_of_type(
    conn: Connection, session_id: str, types: list[str], after: int, limit: int | None, newest_first: bool = False
) -> list[ev.StoredEvent]:
    """The session's events of the given types after ``after`` (the rewind and snapshot lookups)."""
    marks = ", ".join("?" for _ in types)
    order = "DESC" if newest_first else ""
    return await fetch(
        conn,
        f"SELECT seq, type, created_ms, data_json FROM event WHERE session_id = ? AND seq > ?"
        f" AND type IN ({marks}) ORDER BY seq {order} LIMIT ?",
        (session_id, after, *types, ALL_ROWS if limit is None else limit),
        row=lambda _cursor, row: stored_event(session_id, *row),
    )
