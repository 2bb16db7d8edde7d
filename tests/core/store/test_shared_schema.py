"""The tables both engines declare from ``shared_schema.py``: the same columns, in the same order,
with each engine's types; what is one engine's own (the log, the search index) stays out."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import psycopg

from agent_tui.core.projections.sql import POSTGRES, SQLITE
from agent_tui.core.store import schema, shared_schema
from agent_tui.core.store.pg.event_log import PgEventLog

SHARED_TABLES = {
    "session",
    "message",
    "tool_call",
    "session_input",
    "queue_state",
    "instruction_checkpoint",
    "context_entry",
    "permission_request",
    "permission_approval",
    "permission_revocation",
    "plan_update",
    "step_usage",
}
SAME_TYPE = {("INTEGER", "bigint"), ("INTEGER", "integer"), ("REAL", "double precision"), ("TEXT", "text")}
"""SQLite's declared type and PostgreSQL's ``data_type`` that one shared column may have."""

Column = tuple[str, str, bool, str | None]
"""Name, type, nullable, default."""


def test_ddl_fills_in_each_engines_types() -> None:
    script = "seq {int64} NOT NULL, cost {float64}, hosted INTEGER"
    assert shared_schema.ddl(script, SQLITE) == "seq INTEGER NOT NULL, cost REAL, hosted INTEGER"
    assert shared_schema.ddl(script, POSTGRES) == "seq BIGINT NOT NULL, cost DOUBLE PRECISION, hosted INTEGER"


def _sqlite_columns(tmp_path: Path) -> dict[str, list[Column]]:
    path = tmp_path / "fresh.db"
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        schema.migrate(conn, path)
        tables = [row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return {
            table: [
                (name, type_, not notnull and not pk, default)
                for _, name, type_, notnull, default, pk in conn.execute(f"PRAGMA table_info({table})")
            ]
            for table in tables
        }
    finally:
        conn.close()


async def _pg_columns(url: str) -> dict[str, list[Column]]:
    async with await PgEventLog.open(url):
        pass  # migrated
    with psycopg.connect(url) as conn:
        rows = conn.execute(
            "SELECT table_name, column_name, data_type, is_nullable = 'YES', column_default"
            " FROM information_schema.columns WHERE table_schema = 'public' ORDER BY table_name, ordinal_position"
        ).fetchall()
    columns: dict[str, list[Column]] = {}
    for table, name, type_, nullable, default in rows:
        columns.setdefault(table, []).append((name, type_, nullable, default))
    return columns


async def test_both_engines_have_the_shared_tables_column_for_column(tmp_path: Path, pg_url: str) -> None:
    on_sqlite, on_pg = _sqlite_columns(tmp_path), await _pg_columns(pg_url)
    assert (set(on_sqlite) & set(on_pg)) - {"event", "search_doc"} == SHARED_TABLES
    for table in sorted(SHARED_TABLES):
        sqlite_columns, pg_columns = on_sqlite[table], on_pg[table]
        assert [(name, nullable, default) for name, _, nullable, default in sqlite_columns] == [
            (name, nullable, default) for name, _, nullable, default in pg_columns
        ], table
        types = {(a[1], b[1]) for a, b in zip(sqlite_columns, pg_columns, strict=True)}
        assert types <= SAME_TYPE, (table, types - SAME_TYPE)
