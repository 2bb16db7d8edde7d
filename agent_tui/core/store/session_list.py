"""The session list query (picker, ``sessions list``) as plain rows, without pydantic.

:func:`session_rows_sql` builds the statement; ``queries.list_sessions`` runs
it on the store's aiosqlite readers and wraps the rows in ``SessionSummary``
records. The TUI's ``--resume`` reads the picker's first page with
:func:`session_rows` on a stdlib ``sqlite3`` connection before the facade has
opened, and shows it as ``log.session_row.SessionRow``: the first frame then needs
neither pydantic, aiosqlite nor the event models.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from agent_tui.core.log.session_row import SESSION_FIELDS

SESSION_COLUMNS = ", ".join(SESSION_FIELDS)


def fts_query(text: str) -> str | None:
    """User text -> an FTS5 query: every word must match, as a prefix."""
    words = [w.replace('"', '""') for w in text.split()]
    return " ".join(f'"{w}"*' for w in words) or None


def session_rows_sql(
    location: str | None, search: str | None, limit: int, offset: int, top_level: bool = False
) -> tuple[str, tuple[Any, ...]]:
    """The statement and parameters of :func:`session_rows`; ``top_level`` leaves out subagents' sessions."""
    where, params = ["s.spawned_by IS NULL"] if top_level else [], []
    if location is not None:
        where.append("s.location = ?")
        params.append(location)
    query = fts_query(search) if search else None
    if query is not None:
        where.append(
            "s.id IN (SELECT d.session_id FROM search JOIN search_doc d ON d.id = search.rowid WHERE search MATCH ?)"
        )
        params.append(query)
    clause = f"WHERE {' AND '.join(where)}" if where else ""
    columns = ", ".join(f"s.{name}" for name in SESSION_FIELDS)
    sql = f"SELECT {columns} FROM session s {clause} ORDER BY s.updated DESC, s.id DESC LIMIT ? OFFSET ?"
    return sql, (*params, limit, offset)


def session_rows(
    conn: sqlite3.Connection, location: str | None, search: str | None, limit: int, offset: int, top_level: bool = False
) -> list[tuple[Any, ...]]:
    """Sessions newest first, in ``SESSION_FIELDS`` order; ``search`` matches titles and message text."""
    return conn.execute(*session_rows_sql(location, search, limit, offset, top_level)).fetchall()


def children_sql(parents: int) -> str:
    """The subagents' sessions ``parents`` sessions started, oldest first (in ``SESSION_FIELDS`` order)."""
    columns = ", ".join(f"s.{name}" for name in SESSION_FIELDS)
    marks = ", ".join("?" * parents)
    return f"SELECT {columns} FROM session s WHERE s.spawned_by IN ({marks}) ORDER BY s.created, s.id"
