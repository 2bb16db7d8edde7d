"""Projectors for rewinds: hide what lies after a boundary; take a rewind back.

Branching is projection (DESIGN §14): a conversation rewind deletes the
projected rows from its boundary on — messages (with their counters and search
text), tool calls, plan updates — withdraws every unpromoted input and drops the instruction
checkpoint, while the events themselves stay in the log. Undoing a rewind
re-projects the session's own events as if that rewind had never been
published, so ``rebuild`` and the live projections agree either way.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from agent_tui.core.log import events as ev
from agent_tui.core.projections.message_rows import delete_message, preview
from agent_tui.core.projections.sql import Conn, dialect_of

Project = Callable[[Conn, str, int, int, ev.DurableEvent], None]

_SESSION_TABLES = (
    "step_usage",
    "plan_update",
    "permission_request",
    "context_entry",
    "instruction_checkpoint",
    "session_input",
    "tool_call",
    "message",
)


def hide_from(conn: Conn, sid: str, seq: int, boundary: int) -> None:
    """Everything the model saw from ``boundary`` on leaves the projections (the plan falls back to the last before it)."""
    pending = conn.execute(
        "SELECT id, kind FROM session_input WHERE session_id = ? AND promoted_seq IS NULL AND withdrawn = 0",
        (sid,),
    ).fetchall()
    conn.execute(
        "UPDATE session_input SET withdrawn = 1, settled_seq = ? WHERE session_id = ?"
        " AND promoted_seq IS NULL AND withdrawn = 0",
        (seq, sid),
    )
    for input_id, kind in pending:
        if kind == "compaction":
            delete_message(conn, input_id, sid)  # its queued divider
    later = conn.execute("SELECT id FROM message WHERE session_id = ? AND seq >= ?", (sid, boundary)).fetchall()
    for (message_id,) in later:
        delete_message(conn, message_id, sid)
    conn.execute("DELETE FROM tool_call WHERE session_id = ? AND seq >= ?", (sid, boundary))
    conn.execute("DELETE FROM plan_update WHERE session_id = ? AND seq >= ?", (sid, boundary))
    conn.execute("DELETE FROM instruction_checkpoint WHERE session_id = ?", (sid,))
    refresh_last_message(conn, sid)


def refresh_last_message(conn: Conn, sid: str) -> None:
    """The picker's preview from the newest visible user or assistant text."""
    last = _last_text(conn, sid)
    conn.execute("UPDATE session SET last_message = ? WHERE id = ?", (preview(last) if last else None, sid))


def _last_text(conn: Conn, sid: str) -> str | None:
    rows = conn.execute(
        "SELECT kind, data_json FROM message WHERE session_id = ? AND kind IN ('user', 'assistant')"
        " ORDER BY seq DESC LIMIT 50",
        (sid,),
    )
    for kind, raw in rows:
        data = json.loads(raw)
        if kind == "user":
            text = ev.prompt_text(data["prompt"])
        else:
            text = "\n".join(p["text"] for p in data.get("parts", []) if p["type"] == "text" and p["text"])
        if text.strip():
            return text
    return None


def replay_without(conn: Conn, sid: str, upto: int, undone: int, project: Project) -> None:
    """Re-project ``sid`` from its events before ``upto``, skipping rewind ``undone`` and earlier undone ones."""
    rows = conn.execute(
        "SELECT seq, type, created_ms, data_json FROM event WHERE session_id = ? AND seq < ? ORDER BY seq",
        (sid, upto),
    ).fetchall()
    decoded = [(seq, at, ev.decode(type_, data)) for seq, type_, at, data in rows]
    skipped = {undone} | {e.rewind_seq for _, _, e in decoded if isinstance(e, ev.RewindUndone)}
    clear_session(conn, sid)
    for seq, at, event in decoded:
        if isinstance(event, ev.RewindUndone) or (isinstance(event, ev.SessionRewound) and seq in skipped):
            conn.execute("UPDATE session SET head_seq = ?, updated = ? WHERE id = ?", (seq, at, sid))
        else:
            project(conn, sid, seq, at, event)


def clear_session(conn: Conn, sid: str) -> None:
    """Delete every projection row of one session (saved approvals belong to the project, not to it)."""
    dialect_of(conn).clear_search(conn, sid)
    for table in _SESSION_TABLES:
        conn.execute(f"DELETE FROM {table} WHERE session_id = ?", (sid,))
    conn.execute("DELETE FROM session WHERE id = ?", (sid,))
