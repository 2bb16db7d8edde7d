"""Replay a log into projections: the loop under ``rebuild`` and ``db copy`` on both engines.

Rows come in the log's global order (SQLite's ``rowid``, PostgreSQL's ``event.pos``), so a fork
copies its parent as the parent stood when the fork was written. A refused event stops the
rebuild, naming the event, and the caller's transaction rolls back: the old projections stay.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from agent_tui.core.errors import EventRejected
from agent_tui.core.projections.projectors import project
from agent_tui.core.projections.sql import Conn
from agent_tui.core.store.queries import stored_event

LOG_IN_ORDER = "SELECT session_id, seq, type, created_ms, data_json FROM event ORDER BY {order}"
"""The statement that feeds :func:`replay`; ``order`` is the engine's global order column."""


def replay(conn: Conn, rows: Iterable[tuple[Any, ...]], *, doing: str = "rebuild") -> int:
    """Project each ``(session_id, seq, type, created_ms, data_json)`` row; returns how many.

    A refused event is an :class:`EventRejected` naming it and what was ``doing``.
    """
    count = 0
    for session_id, seq, type_, created, data in rows:
        stored = stored_event(session_id, seq, type_, created, data)
        try:
            project(conn, session_id, seq, created, stored.event)
        except EventRejected as error:
            raise EventRejected(f"{doing} stopped at {session_id}#{seq} ({type_}): {error}") from None
        count += 1
    return count
