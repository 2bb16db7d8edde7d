"""The tables both engines declare alike, written once: SQLite's schema changes, PostgreSQL's v2.

Each script is what one SQLite schema version (``store/schema.py``) did to the projections and to
``permission_revocation``; PostgreSQL's v2 (``store/pg/schema.py``) runs them all in order, so its
tables are SQLite's column for column by construction. A column's type is written once where the
engines differ: ``{int64}`` (a seq, a time in ms, a count: SQLite's ``INTEGER``, already 64 bits;
PostgreSQL's ``BIGINT``) and ``{float64}`` (a cost: ``REAL``, ``DOUBLE PRECISION``), filled in
from the connection's :class:`~agent_tui.core.projections.sql.Dialect` by :func:`ddl`. A plain
``INTEGER`` is a 0/1 flag, 32 bits on PostgreSQL.

What differs beyond a type stays with its engine: the ``event`` log, the search index (FTS5
beside ``search_doc`` on SQLite, a generated ``tsvector`` on PostgreSQL), SQLite's backfill of
``step_usage`` from an older file's log, PostgreSQL's triggers and leases. Every script here is a
migration both engines have applied: a later change is a new script, and a new migration on each.
"""

from __future__ import annotations

from agent_tui.core.projections.sql import Dialect

SESSIONS = """
CREATE TABLE session (
    id TEXT PRIMARY KEY,
    title TEXT,
    title_source TEXT,
    location TEXT NOT NULL,
    project_root TEXT NOT NULL,
    agent TEXT NOT NULL,
    model TEXT,
    parent_id TEXT,
    created {int64} NOT NULL,
    updated {int64} NOT NULL,
    message_count {int64} NOT NULL DEFAULT 0,
    last_message TEXT,
    input_tokens {int64} NOT NULL DEFAULT 0,
    output_tokens {int64} NOT NULL DEFAULT 0,
    cost {float64} NOT NULL DEFAULT 0,
    head_seq {int64} NOT NULL DEFAULT 0
);
CREATE INDEX session_updated ON session (updated DESC, id);
CREATE INDEX session_location_updated ON session (location, updated DESC, id);
CREATE TABLE message (
    id TEXT PRIMARY KEY,
    session_id TEXT NOT NULL REFERENCES session (id) ON DELETE CASCADE,
    seq {int64} NOT NULL,
    kind TEXT NOT NULL,
    data_json TEXT NOT NULL,
    created {int64} NOT NULL,
    updated {int64} NOT NULL
);
CREATE INDEX message_session_seq ON message (session_id, seq);
CREATE TABLE tool_call (
    session_id TEXT NOT NULL REFERENCES session (id) ON DELETE CASCADE,
    assistant_message_id TEXT NOT NULL,
    call_id TEXT NOT NULL,
    seq {int64} NOT NULL,
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
    admitted_seq {int64} NOT NULL,
    promoted_seq {int64},
    settled_seq {int64},
    withdrawn INTEGER NOT NULL DEFAULT 0,
    created {int64} NOT NULL
);
CREATE INDEX session_input_pending ON session_input (session_id, admitted_seq)
    WHERE promoted_seq IS NULL AND withdrawn = 0;
CREATE UNIQUE INDEX session_input_one_pending_compaction ON session_input (session_id)
    WHERE kind = 'compaction' AND promoted_seq IS NULL AND withdrawn = 0;
CREATE TABLE instruction_checkpoint (
    session_id TEXT PRIMARY KEY REFERENCES session (id) ON DELETE CASCADE,
    baseline TEXT NOT NULL,
    baseline_seq {int64} NOT NULL,
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
    seq {int64} NOT NULL,
    assistant_message_id TEXT,
    call_id TEXT,
    action TEXT NOT NULL,
    resources_json TEXT NOT NULL,
    save_json TEXT NOT NULL,
    detail_json TEXT NOT NULL,
    reply TEXT,
    message TEXT,
    replied_seq {int64},
    created {int64} NOT NULL
);
CREATE INDEX permission_request_pending ON permission_request (session_id, seq)
    WHERE reply IS NULL;
CREATE TABLE permission_approval (
    project_root TEXT NOT NULL,
    action TEXT NOT NULL,
    pattern TEXT NOT NULL,
    created {int64} NOT NULL,
    PRIMARY KEY (project_root, action, pattern)
);
"""
"""SQLite's v1 but the log and search: sessions, their messages, tool calls, inputs, instruction
checkpoint, context, permission requests, and the saved approvals."""

QUEUE = """
ALTER TABLE session_input ADD COLUMN queue_rank {int64};
CREATE TABLE queue_state (
    session_id TEXT PRIMARY KEY REFERENCES session (id) ON DELETE CASCADE,
    paused INTEGER NOT NULL
);
"""
"""SQLite's v2: where a queued input stands when the user reordered the queue (else its
``admitted_seq``), and whether the user paused the queue."""

PLAN = """
CREATE TABLE plan_update (
    session_id TEXT NOT NULL REFERENCES session (id) ON DELETE CASCADE,
    seq {int64} NOT NULL,
    call_id TEXT NOT NULL,
    items_json TEXT NOT NULL,
    PRIMARY KEY (session_id, seq)
);
"""
"""SQLite's v3: every plan the ``todo`` tool wrote, at the seq of its ``tool.success``: the session's
plan is the newest visible row, so a rewind that hides the later rows brings the earlier plan back."""

SPAWNED = """
ALTER TABLE session ADD COLUMN spawned_by TEXT;
ALTER TABLE session ADD COLUMN spawned_message_id TEXT;
ALTER TABLE session ADD COLUMN spawned_call_id TEXT;
CREATE INDEX session_spawned_by ON session (spawned_by, created) WHERE spawned_by IS NOT NULL;
"""
"""SQLite's v4: a subagent's session names the parent session and the ``task`` call that started it
(``session.created``'s ``spawned_by``): the picker lists children under their parent."""

STEP_USAGE = """
CREATE TABLE step_usage (
    session_id TEXT NOT NULL REFERENCES session (id) ON DELETE CASCADE,
    seq {int64} NOT NULL,
    at {int64} NOT NULL,
    model TEXT NOT NULL,
    agent TEXT NOT NULL,
    input_tokens {int64} NOT NULL,
    output_tokens {int64} NOT NULL,
    reasoning_tokens {int64} NOT NULL,
    cache_read_tokens {int64} NOT NULL,
    cache_write_tokens {int64} NOT NULL,
    cost {float64},
    cost_source TEXT,
    PRIMARY KEY (session_id, seq)
);
CREATE INDEX step_usage_at ON step_usage (at);
"""
"""SQLite's v5: what each step spent (one row per ``step.ended`` or ``step.failed`` with usage), with
the model and agent that spent it: the ledger ``agent-tui usage`` and ``/usage`` aggregate in SQL.
The ``message`` rows hold usage too, but a fork copies them and a rewind deletes them, while what
was spent stays spent (like the session row's totals); and a retry overwrites the row's usage with
the last attempt's."""

REVOCATIONS = """
CREATE TABLE permission_revocation (
    project_root TEXT NOT NULL,
    action TEXT NOT NULL,
    pattern TEXT NOT NULL,
    revoked {int64} NOT NULL,
    PRIMARY KEY (project_root, action, pattern)
);
"""
"""SQLite's v6: saved approvals the user revoked (``/permissions``, ``agent-tui permissions revoke``).
Not a projection: an approval is projected from the ``permission.replied`` event that saved it, so
a rebuild brings it back; this table is the user's own word that hides every approval of that
pattern saved up to then. An "always" given later is newer than the revocation and counts again."""


def ddl(script: str, dialect: Dialect) -> str:
    """``script`` with the engine's column types filled in."""
    return script.format(int64=dialect.int64_type, float64=dialect.float64_type)
