"""Read queries over the projections; each runs on a reader connection.

Plain functions of a connection so the store can run any of them on its
reader pool and tests can call them on any connection.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from agent_tui.core import events as ev
from agent_tui.core.db import CorruptEvent
from agent_tui.core.records import (
    ApprovalRecord, CheckpointRecord, InboxRecord, MessageRecord, PermissionRecord,
    SessionRecord, SessionSummary, ToolCallRecord,
)  # fmt: skip
from agent_tui.core.session_list import SESSION_COLUMNS, SESSION_FIELDS, session_rows


def _loads(raw: str | None) -> Any:
    return None if raw is None else json.loads(raw)


def stored_event(session_id: str, seq: int, type_: str, created: int, data: str) -> ev.StoredEvent:
    try:
        event = ev.decode(type_, data)
    except (ev.MalformedEvent, ValueError) as error:
        raise CorruptEvent(session_id, seq, str(error)) from None
    return ev.StoredEvent.model_construct(session_id=session_id, seq=seq, type=type_, created=created, event=event)


def events(conn: sqlite3.Connection, session_id: str, after: int | None, limit: int | None) -> list[ev.StoredEvent]:
    rows = conn.execute(
        "SELECT seq, type, created_ms, data_json FROM event WHERE session_id = ? AND seq > ?"
        " ORDER BY seq LIMIT ?",
        (session_id, after or 0, -1 if limit is None else limit),
    ).fetchall()
    return [stored_event(session_id, *row) for row in rows]


def head_seq(conn: sqlite3.Connection, session_id: str) -> int:
    return conn.execute("SELECT coalesce(max(seq), 0) FROM event WHERE session_id = ?", (session_id,)).fetchone()[0]


def _session(row: tuple[Any, ...], cls: type[SessionRecord] = SessionRecord) -> SessionRecord:
    return cls(**dict(zip(SESSION_FIELDS, row)))


def session(conn: sqlite3.Connection, session_id: str) -> SessionRecord | None:
    row = conn.execute(f"SELECT {SESSION_COLUMNS} FROM session WHERE id = ?", (session_id,)).fetchone()
    return None if row is None else _session(row)


def most_recent_session(conn: sqlite3.Connection, location: str) -> SessionRecord | None:
    row = conn.execute(
        f"SELECT {SESSION_COLUMNS} FROM session WHERE location = ? ORDER BY updated DESC, id DESC LIMIT 1",
        (location,),
    ).fetchone()
    return None if row is None else _session(row)


def list_sessions(
    conn: sqlite3.Connection, location: str | None, search: str | None, limit: int, offset: int
) -> list[SessionSummary]:
    return [_session(row, SessionSummary) for row in session_rows(conn, location, search, limit, offset)]  # type: ignore[misc]


def messages(
    conn: sqlite3.Connection, session_id: str, after: int | None, before: int | None, limit: int | None
) -> list[MessageRecord]:
    if before is not None and after is None and limit is not None:
        rows = conn.execute(  # the newest ``limit`` rows before ``before``, returned oldest first
            "SELECT * FROM (SELECT id, session_id, seq, kind, data_json, created, updated FROM message"
            " WHERE session_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?) ORDER BY seq",
            (session_id, before, limit),
        ).fetchall()
    else:
        rows = conn.execute(
            "SELECT id, session_id, seq, kind, data_json, created, updated FROM message"
            " WHERE session_id = ? AND seq > ? AND seq < ? ORDER BY seq LIMIT ?",
            (session_id, after or 0, before if before is not None else 2**62, -1 if limit is None else limit),
        ).fetchall()
    return [
        MessageRecord(id=r[0], session_id=r[1], seq=r[2], kind=r[3], data=json.loads(r[4]), created=r[5], updated=r[6])
        for r in rows
    ]


def tool_calls(conn: sqlite3.Connection, session_id: str, states: list[str] | None) -> list[ToolCallRecord]:
    sql = (
        "SELECT session_id, assistant_message_id, call_id, seq, name, input_json, state, output_json,"
        " error_json, call_meta_json, result_meta_json, hosted FROM tool_call WHERE session_id = ?"
    )
    params: list[Any] = [session_id]
    if states:
        sql += f" AND state IN ({','.join('?' * len(states))})"
        params.extend(states)
    rows = conn.execute(sql + " ORDER BY seq", params).fetchall()
    return [
        ToolCallRecord(
            session_id=r[0], assistant_message_id=r[1], call_id=r[2], seq=r[3], name=r[4],
            input=json.loads(r[5]), state=r[6], output=_loads(r[7]), error=_loads(r[8]),
            call_meta=json.loads(r[9]), result_meta=_loads(r[10]), hosted=bool(r[11]),
        )  # fmt: skip
        for r in rows
    ]


_INPUT_COLUMNS = (
    "id, session_id, kind, delivery, prompt_json, fingerprint, admitted_seq, promoted_seq,"
    " settled_seq, withdrawn, created"
)


def _inbox(r: tuple[Any, ...]) -> InboxRecord:
    return InboxRecord(
        id=r[0], session_id=r[1], kind=r[2], delivery=r[3], prompt=_loads(r[4]), fingerprint=r[5],
        admitted_seq=r[6], promoted_seq=r[7], settled_seq=r[8], withdrawn=bool(r[9]), created=r[10],
    )  # fmt: skip


def pending_inputs(conn: sqlite3.Connection, session_id: str) -> list[InboxRecord]:
    rows = conn.execute(
        f"SELECT {_INPUT_COLUMNS} FROM session_input WHERE session_id = ? AND promoted_seq IS NULL"
        " AND withdrawn = 0 ORDER BY admitted_seq",
        (session_id,),
    ).fetchall()
    return [_inbox(r) for r in rows]


def input_row(conn: sqlite3.Connection, input_id: str) -> InboxRecord | None:
    row = conn.execute(f"SELECT {_INPUT_COLUMNS} FROM session_input WHERE id = ?", (input_id,)).fetchone()
    return None if row is None else _inbox(row)


def checkpoint(conn: sqlite3.Connection, session_id: str) -> CheckpointRecord | None:
    row = conn.execute(
        "SELECT session_id, baseline, baseline_seq, applied_json FROM instruction_checkpoint WHERE session_id = ?",
        (session_id,),
    ).fetchone()
    if row is None:
        return None
    return CheckpointRecord(session_id=row[0], baseline=row[1], baseline_seq=row[2], applied=json.loads(row[3]))


def context_entries(conn: sqlite3.Connection, session_id: str) -> dict[str, Any]:
    rows = conn.execute(
        "SELECT key, value_json FROM context_entry WHERE session_id = ? ORDER BY key", (session_id,)
    ).fetchall()
    return {key: json.loads(value) for key, value in rows}


def approvals(conn: sqlite3.Connection, project_root: str) -> list[ApprovalRecord]:
    rows = conn.execute(
        "SELECT project_root, action, pattern, created FROM permission_approval WHERE project_root = ?"
        " ORDER BY created, action, pattern",
        (project_root,),
    ).fetchall()
    return [ApprovalRecord(project_root=r[0], action=r[1], pattern=r[2], created=r[3]) for r in rows]


_PERMISSION_COLUMNS = (
    "request_id, session_id, seq, assistant_message_id, call_id, action, resources_json, save_json,"
    " detail_json, reply, message, replied_seq, created"
)


def _permission(r: tuple[Any, ...]) -> PermissionRecord:
    return PermissionRecord(
        request_id=r[0], session_id=r[1], seq=r[2], assistant_message_id=r[3], call_id=r[4], action=r[5],
        resources=json.loads(r[6]), save=json.loads(r[7]), detail=json.loads(r[8]), reply=r[9],
        message=r[10], replied_seq=r[11], created=r[12],
    )  # fmt: skip


def pending_permissions(conn: sqlite3.Connection, session_id: str) -> list[PermissionRecord]:
    rows = conn.execute(
        f"SELECT {_PERMISSION_COLUMNS} FROM permission_request WHERE session_id = ? AND reply IS NULL ORDER BY seq",
        (session_id,),
    ).fetchall()
    return [_permission(r) for r in rows]


def permission(conn: sqlite3.Connection, request_id: str) -> PermissionRecord | None:
    row = conn.execute(
        f"SELECT {_PERMISSION_COLUMNS} FROM permission_request WHERE request_id = ?", (request_id,)
    ).fetchone()
    return None if row is None else _permission(row)
