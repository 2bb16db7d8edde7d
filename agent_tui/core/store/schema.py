"""The database schema as forward-only migrations keyed by ``PRAGMA user_version``.

``event`` is the source of truth; every other table is a projection that
:meth:`Store.rebuild` can recreate from it. A migration only ever adds: a
database with a higher version than :data:`CURRENT_VERSION` is refused, never
"repaired". The tables PostgreSQL declares alike are written once, in ``shared_schema.py``;
what is SQLite's own is here: the log, the FTS5 search index, ``step_usage``'s backfill.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from agent_tui.core.errors import DatabaseCorrupt, DatabaseTooNew
from agent_tui.core.projections.sql import SQLITE
from agent_tui.core.store import shared_schema as shared
from agent_tui.core.store.shared_schema import ddl

_V1 = f"""
CREATE TABLE event (
    session_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    type TEXT NOT NULL,
    created_ms INTEGER NOT NULL,
    data_json TEXT NOT NULL,
    PRIMARY KEY (session_id, seq)
);
{ddl(shared.SESSIONS, SQLITE).strip()}
CREATE TABLE search_doc (
    id INTEGER PRIMARY KEY,
    session_id TEXT NOT NULL,
    message_id TEXT NOT NULL,
    UNIQUE (session_id, message_id)
);
CREATE VIRTUAL TABLE search USING fts5 (text, tokenize = 'unicode61 remove_diacritics 2');
"""

_V2 = ddl(shared.QUEUE, SQLITE)
_V3 = ddl(shared.PLAN, SQLITE)
_V4 = ddl(shared.SPAWNED, SQLITE)

_STEP_BY_ID = """(SELECT json_extract(s.data_json, '$.{field}') FROM event s
    WHERE s.session_id = e.session_id AND s.seq < e.seq AND s.type = 'session.step.started.1'
    AND json_extract(s.data_json, '$.assistant_message_id') = json_extract(e.data_json, '$.assistant_message_id')
    ORDER BY s.seq DESC LIMIT 1)"""

_V5 = f"""{ddl(shared.STEP_USAGE, SQLITE)}
INSERT INTO step_usage SELECT e.session_id, e.seq, e.created_ms,
    COALESCE({_STEP_BY_ID.format(field="model")}, ''), COALESCE({_STEP_BY_ID.format(field="agent")}, ''),
    COALESCE(json_extract(e.data_json, '$.usage.input_tokens'), 0),
    COALESCE(json_extract(e.data_json, '$.usage.output_tokens'), 0),
    COALESCE(json_extract(e.data_json, '$.usage.reasoning_tokens'), 0),
    COALESCE(json_extract(e.data_json, '$.usage.cache_read_tokens'), 0),
    COALESCE(json_extract(e.data_json, '$.usage.cache_write_tokens'), 0),
    json_extract(e.data_json, '$.cost'), json_extract(e.data_json, '$.cost_source')
    FROM event e JOIN session ON session.id = e.session_id
    WHERE e.type IN ('session.step.ended.1', 'session.step.failed.1')
    AND json_type(e.data_json, '$.usage') = 'object'
"""
"""``step_usage``, filled from the log, so an older file's sessions are counted."""

_V6 = ddl(shared.REVOCATIONS, SQLITE)

MIGRATIONS: tuple[str, ...] = (_V1, _V2, _V3, _V4, _V5, _V6)
CURRENT_VERSION = len(MIGRATIONS)

PROJECTION_TABLES: tuple[str, ...] = (
    "step_usage",
    "search",
    "search_doc",
    "queue_state",
    "plan_update",
    "permission_approval",
    "permission_request",
    "context_entry",
    "instruction_checkpoint",
    "session_input",
    "tool_call",
    "message",
    "session",
)
"""Every table derived from ``event``, children before parents (delete order)."""


def check_version(conn: sqlite3.Connection, path: Path) -> int:
    """The file's schema version; refuses newer files and foreign databases.

    Version and table count come from one statement, so one snapshot: read
    apart, another process could commit its migration between the two reads
    and a healthy file would look like "tables but no schema version".
    """
    version, tables = conn.execute(
        "SELECT (SELECT user_version FROM pragma_user_version),"
        " (SELECT count(*) FROM sqlite_master WHERE name NOT LIKE 'sqlite_%')"
    ).fetchone()
    if version > CURRENT_VERSION:
        raise DatabaseTooNew(path, version, CURRENT_VERSION)
    if version == 0 and tables:
        raise DatabaseCorrupt(path, "it has tables but no agent-tui schema version")
    return int(version)


def migrate(conn: sqlite3.Connection, path: Path) -> None:
    """Apply the missing migrations in one ``BEGIN IMMEDIATE`` transaction.

    The version is re-read inside the write lock, so two processes opening a
    fresh file at once migrate it exactly once.
    """
    conn.execute("BEGIN IMMEDIATE")
    try:
        version = check_version(conn, path)
        for script in MIGRATIONS[version:]:
            for statement in _statements(script):
                conn.execute(statement)
        conn.execute(f"PRAGMA user_version = {CURRENT_VERSION}")
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def _statements(script: str) -> list[str]:
    """Split a migration script (no semicolons inside statements) for ``execute``."""
    return [part.strip() for part in script.split(";") if part.strip()]
