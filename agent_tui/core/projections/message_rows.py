"""Message rows and the counters and search text that must move with them.

Every insert of a ``message`` row goes through :func:`insert_message`, so
``session.message_count`` can never drift from the rows it counts, and every
change to a message's searchable text goes through :func:`index_text`.
"""

from __future__ import annotations

import json
from typing import Any

from agent_tui.core.errors import EventRejected
from agent_tui.core.projections.sql import Conn, dialect_of

PREVIEW_CHARS = 200


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def preview(text: str) -> str:
    """One line of at most :data:`PREVIEW_CHARS` characters."""
    flat = " ".join(text.split())
    return flat if len(flat) <= PREVIEW_CHARS else flat[: PREVIEW_CHARS - 1] + "…"


def insert_message(
    conn: Conn,
    *,
    id: str,
    session_id: str,
    seq: int,
    kind: str,
    data: dict[str, Any],
    created: int,
) -> None:
    if conn.execute("SELECT 1 FROM message WHERE id = ?", (id,)).fetchone():
        raise EventRejected(f"message {id} already exists")
    conn.execute(
        "INSERT INTO message (id, session_id, seq, kind, data_json, created, updated) VALUES (?, ?, ?, ?, ?, ?, ?)",
        (id, session_id, seq, kind, dumps(data), created, created),
    )
    conn.execute("UPDATE session SET message_count = message_count + 1 WHERE id = ?", (session_id,))


def load_message(conn: Conn, message_id: str, session_id: str, kind: str | None = None) -> dict[str, Any] | None:
    """The row's data, or None; a row of another kind than ``kind`` is refused."""
    row = conn.execute(
        "SELECT data_json, kind FROM message WHERE id = ? AND session_id = ?", (message_id, session_id)
    ).fetchone()
    if row is None:
        return None
    if kind is not None and row[1] != kind:
        raise EventRejected(f"message {message_id} is a {row[1]} message, not {kind}")
    data: dict[str, Any] = json.loads(row[0])
    return data


def save_message(conn: Conn, message_id: str, data: dict[str, Any], updated: int) -> None:
    conn.execute(
        "UPDATE message SET data_json = ?, updated = ? WHERE id = ?",
        (dumps(data), updated, message_id),
    )


def delete_message(conn: Conn, message_id: str, session_id: str) -> None:
    if conn.execute("DELETE FROM message WHERE id = ? AND session_id = ?", (message_id, session_id)).rowcount:
        conn.execute("UPDATE session SET message_count = message_count - 1 WHERE id = ?", (session_id,))
        index_text(conn, session_id, message_id, "")


def set_last_message(conn: Conn, session_id: str, text: str) -> None:
    if text.strip():
        conn.execute("UPDATE session SET last_message = ? WHERE id = ?", (preview(text), session_id))


def index_text(conn: Conn, session_id: str, message_id: str, text: str) -> None:
    """Make ``text`` the searchable text of a message ('' = the session title); '' text removes it."""
    dialect_of(conn).set_search_text(conn, session_id, message_id, text)
