"""The database schema as forward-only migrations keyed by ``PRAGMA user_version``.

``event`` is the source of truth; every other table is a projection that
:meth:`Store.rebuild` can recreate from it. A migration only ever adds: a
database with a higher version than :data:`CURRENT_VERSION` is refused, never
"repaired".
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from agent_tui.core.errors import DatabaseCorrupt, DatabaseTooNew

_V1 = """
CREATE TABLE event (
    session_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    type TEXT NOT NULL,
    created_ms INTEGER NOT NULL,
    data_json TEXT NOT NULL,
    PRIMARY KEY (session_id, seq)
);
CREATE TABLE session (
    id TEXT PRIMARY KEY,
    title TEXT,
    title_source TEXT,
    location TEXT NOT NULL,
    project_root TEXT NOT NULL,
    agent TEXT NOT NULL,
    model TEXT,
    parent_id TEXT,
    created INTEGER NOT NULL,
    updated INTEGER NOT NULL,
    message_count INTEGER NOT NULL DEFAULT 0,
    last_message TEXT,
    input_tokens INTEGER NOT NULL DEFAULT 0,
    output_tokens INTEGER NOT NULL DEFAULT 0,
    cost REAL NOT NULL DEFAULT 0,
    head_seq INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX session_updated ON session (updated DESC, id);
CREATE INDEX session_location_updated ON session (location, updated DESC, id);
CREATE TABLE message (
    id TEXT PRIMARY KEY,
    session_id TEXT NOT NULL REFERENCES session (id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    kind TEXT NOT NULL,
    data_json TEXT NOT NULL,
    created INTEGER NOT NULL,
    updated INTEGER NOT NULL
);
CREATE INDEX message_session_seq ON message (session_id, seq);
CREATE TABLE tool_call (
    session_id TEXT NOT NULL REFERENCES session (id) ON DELETE CASCADE,
    assistant_message_id TEXT NOT NULL,
    call_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    name TEXT NOT NULL,
    input_json TEXT NOT NULL,
    state TEXT NOT NULL,
    output_json TEXT,
    error_json TEXT,
    call_meta_json TEXT NOT NULL,
    result_meta_json TEXT,
    hosted INTEGER NOT NULL,
    PRIMARY KEY (assistant_message_id, call_id)
);
CREATE INDEX tool_call_session ON tool_call (session_id, seq);
CREATE TABLE session_input (
    id TEXT PRIMARY KEY,
    session_id TEXT NOT NULL REFERENCES session (id) ON DELETE CASCADE,
    kind TEXT NOT NULL,
    delivery TEXT,
    prompt_json TEXT,
    fingerprint TEXT NOT NULL,
    admitted_seq INTEGER NOT NULL,
    promoted_seq INTEGER,
    settled_seq INTEGER,
    withdrawn INTEGER NOT NULL DEFAULT 0,
    created INTEGER NOT NULL
);
CREATE INDEX session_input_pending ON session_input (session_id, admitted_seq)
    WHERE promoted_seq IS NULL AND withdrawn = 0;
CREATE UNIQUE INDEX session_input_one_pending_compaction ON session_input (session_id)
    WHERE kind = 'compaction' AND promoted_seq IS NULL AND withdrawn = 0;
CREATE TABLE instruction_checkpoint (
    session_id TEXT PRIMARY KEY REFERENCES session (id) ON DELETE CASCADE,
    baseline TEXT NOT NULL,
    baseline_seq INTEGER NOT NULL,
    applied_json TEXT NOT NULL
);
CREATE TABLE context_entry (
    session_id TEXT NOT NULL REFERENCES session (id) ON DELETE CASCADE,
    key TEXT NOT NULL,
    value_json TEXT NOT NULL,
    PRIMARY KEY (session_id, key)
);
CREATE TABLE permission_request (
    request_id TEXT PRIMARY KEY,
    session_id TEXT NOT NULL REFERENCES session (id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    assistant_message_id TEXT,
    call_id TEXT,
    action TEXT NOT NULL,
    resources_json TEXT NOT NULL,
    save_json TEXT NOT NULL,
    detail_json TEXT NOT NULL,
    reply TEXT,
    message TEXT,
    replied_seq INTEGER,
    created INTEGER NOT NULL
);
CREATE INDEX permission_request_pending ON permission_request (session_id, seq)
    WHERE reply IS NULL;
CREATE TABLE permission_approval (
    project_root TEXT NOT NULL,
    action TEXT NOT NULL,
    pattern TEXT NOT NULL,
    created INTEGER NOT NULL,
    PRIMARY KEY (project_root, action, pattern)
);
CREATE TABLE search_doc (
    id INTEGER PRIMARY KEY,
    session_id TEXT NOT NULL,
    message_id TEXT NOT NULL,
    UNIQUE (session_id, message_id)
);
CREATE VIRTUAL TABLE search USING fts5 (text, tokenize = 'unicode61 remove_diacritics 2');
"""

_V2 = """
ALTER TABLE session_input ADD COLUMN queue_rank INTEGER;
CREATE TABLE queue_state (
    session_id TEXT PRIMARY KEY REFERENCES session (id) ON DELETE CASCADE,
    paused INTEGER NOT NULL
);
"""
"""Where a queued input stands when the user reordered the queue (else its ``admitted_seq``), and
whether the user paused the queue."""

_V3 = """
CREATE TABLE plan_update (
    session_id TEXT NOT NULL REFERENCES session (id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    call_id TEXT NOT NULL,
    items_json TEXT NOT NULL,
    PRIMARY KEY (session_id, seq)
);
"""
"""Every plan the ``todo`` tool wrote, at the seq of its ``tool.success``: the session's plan is the
newest visible row, so a rewind that hides the later rows brings the earlier plan back."""

_V4 = """
ALTER TABLE session ADD COLUMN spawned_by TEXT;
ALTER TABLE session ADD COLUMN spawned_message_id TEXT;
ALTER TABLE session ADD COLUMN spawned_call_id TEXT;
CREATE INDEX session_spawned_by ON session (spawned_by, created) WHERE spawned_by IS NOT NULL;
"""
"""A subagent's session names the parent session and the ``task`` call that started it
(``session.created``'s ``spawned_by``): the picker lists children under their parent."""

_STEP_BY_ID = """(SELECT json_extract(s.data_json, '$.{field}') FROM event s
    WHERE s.session_id = e.session_id AND s.seq < e.seq AND s.type = 'session.step.started.1'
    AND json_extract(s.data_json, '$.assistant_message_id') = json_extract(e.data_json, '$.assistant_message_id')
    ORDER BY s.seq DESC LIMIT 1)"""

_V5 = f"""
CREATE TABLE step_usage (
    session_id TEXT NOT NULL REFERENCES session (id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    at INTEGER NOT NULL,
    model TEXT NOT NULL,
    agent TEXT NOT NULL,
    input_tokens INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL,
    reasoning_tokens INTEGER NOT NULL,
    cache_read_tokens INTEGER NOT NULL,
    cache_write_tokens INTEGER NOT NULL,
    cost REAL,
    cost_source TEXT,
    PRIMARY KEY (session_id, seq)
);
CREATE INDEX step_usage_at ON step_usage (at);
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
"""What each step spent (one row per ``step.ended`` or ``step.failed`` with usage), with the model and
agent that spent it: the ledger ``agent-tui usage`` and ``/usage`` aggregate in SQL. The ``message``
rows hold usage too, but a fork copies them and a rewind deletes them, while what was spent stays
spent (like the session row's totals); and a retry overwrites the row's usage with the last
attempt's. The migration fills the table from the log, so older sessions are counted."""

_V6 = """
CREATE TABLE permission_revocation (
    project_root TEXT NOT NULL,
    action TEXT NOT NULL,
    pattern TEXT NOT NULL,
    revoked INTEGER NOT NULL,
    PRIMARY KEY (project_root, action, pattern)
)
"""
"""Saved approvals the user revoked (``/permissions``, ``agent-tui permissions revoke``). Not a projection:
an approval is projected from the ``permission.replied`` event that saved it, so a rebuild brings it
back; this table is the user's own word that hides every approval of that pattern saved up to then.
An "always" given later is newer than the revocation and counts again."""

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
