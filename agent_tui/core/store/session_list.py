"""The session list query (picker, ``sessions list``) as plain rows, without pydantic.

:func:`session_rows_sql` builds the statement; ``queries.list_sessions`` runs
it on the store's aiosqlite readers and wraps the rows in ``SessionSummary``
records. The TUI's ``--resume`` reads the picker's first page with
:func:`session_rows` on a stdlib ``sqlite3`` connection before the facade has
opened, and shows it as ``log.session_row.SessionRow``: the first frame then needs
neither pydantic, aiosqlite nor the event models.
"""

from __future__ import annotations

import re
import sqlite3
from typing import Any

from agent_tui.core.log.session_row import SESSION_FIELDS
from agent_tui.core.projections.sql import POSTGRES, SQLITE, Dialect

SESSION_COLUMNS = ", ".join(SESSION_FIELDS)


def fts_query(text: str) -> str | None:
    """User text -> an FTS5 query: every word must match, as a prefix."""
    words = [w.replace('"', '""') for w in text.split()]
    return " ".join(f'"{w}"*' for w in words) or None


_WORD = re.compile(r"[^\W_]+")
MATCHING_IDS = "SELECT d.session_id FROM search_doc d WHERE d.tsv @@ to_tsquery('simple', ?)"
"""PostgreSQL: the ids of the sessions a ``tsquery`` matches, over ``search_doc.tsv`` (GIN-indexed)."""


def tsquery(text: str) -> str | None:
    """User text -> a PostgreSQL ``to_tsquery`` string: every word must match, as a prefix; None if no
    word. Letters and digits only, so no user text reaches ``to_tsquery``'s operators."""
    words = _WORD.findall(text.lower())
    return " & ".join(f"{word}:*" for word in words) or None


def search_clause(dialect: Dialect, text: str) -> tuple[str, str] | None:
    """``(condition on s.id, parameter)``: the sessions whose title or messages match every word of
    ``text`` as a prefix (FTS5 on SQLite, the ``tsvector`` on PostgreSQL); None if there is no word."""
    if dialect is POSTGRES:
        pg_query = tsquery(text)
        return None if pg_query is None else (f"s.id IN ({MATCHING_IDS})", pg_query)
    query = fts_query(text)
    if query is None:
        return None
    return (
        "s.id IN (SELECT d.session_id FROM search JOIN search_doc d ON d.id = search.rowid WHERE search MATCH ?)",
        query,
    )


def session_rows_sql(
    location: str | None,
    search: str | None,
    limit: int,
    offset: int,
    top_level: bool = False,
    dialect: Dialect = SQLITE,
) -> tuple[str, tuple[Any, ...]]:
    """The statement and parameters of :func:`session_rows`; ``top_level`` leaves out subagents' sessions."""
    where, params = ["s.spawned_by IS NULL"] if top_level else [], []
    if location is not None:
        where.append("s.location = ?")
        params.append(location)
    matching = search_clause(dialect, search) if search else None
    if matching is not None:
        where.append(matching[0])
        params.append(matching[1])
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
