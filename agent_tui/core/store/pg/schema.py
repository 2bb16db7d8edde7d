"""The PostgreSQL schema: the event log, per-session heads, the ownership leases and the projections.

``event`` keeps the SQLite store's columns (same types, same ``data_json`` text from
``events.encode``) so a log copies between the engines unchanged, plus two: ``fence``, the lease
token the write carried, and ``input_id``, the admission key of a prompt or compaction barrier.

Two rules live in the database, not in the client, so no writer can skip them:

* ``event_fenced``: while a session's lease is held, an event is inserted only with the fencing
  token of that lease (unfenced writes are let in while nobody holds it, ``_V3``). The trigger reads the lease row ``FOR SHARE``, so a takeover (an ``UPDATE`` of that
  row) waits for a write in flight to commit, and every write after the takeover sees the new
  token. Unfenced writes go in while nobody holds the lease (v3); while another host holds it, only
  an admission (``input_id`` set) and the steering events of :data:`STEERING_TYPES` (v4).
* ``session_lease_token_grows``: a lease's token never goes back, so a token names one tenure.

``event_notify`` signals every statement's new heads on :data:`CHANNEL`; PostgreSQL delivers a
notification only when its transaction commits, so a tail never hears of an uncommitted event.

Migrations are forward-only, applied under a transaction-scoped advisory lock so two hosts
starting at once migrate once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agent_tui.core.errors import DatabaseTooNew
from agent_tui.core.projections.sql import POSTGRES
from agent_tui.core.store import shared_schema as shared
from agent_tui.core.store.schema import PROJECTION_TABLES as SQLITE_PROJECTION_TABLES
from agent_tui.core.store.shared_schema import ddl

if TYPE_CHECKING:
    from psycopg import AsyncConnection

CHANNEL = "agent_tui_head"
"""The ``NOTIFY`` channel ``event_notify`` signals; the payload is ``<session_id> <head seq>``, a hint to re-query."""

STALE_FENCE = "AT409"
"""The SQLSTATE ``event_fenced`` raises: the write's token is not the current lease's."""

MIGRATION_LOCK = 0x6167_7475  # "agtu": the advisory lock key of schema changes

_REFUSE_STALE = """    IF NEW.fence IS NULL OR current_token IS DISTINCT FROM NEW.fence THEN
        RAISE EXCEPTION 'session %: fencing token % is not the current lease''s (%)',
            NEW.session_id, coalesce(NEW.fence::text, 'none'), coalesce(current_token::text, 'no lease')
            USING ERRCODE = 'AT409';
    END IF;
    RETURN NEW;
END $$;"""
"""The end of ``event_fenced`` (v1 and v3): a write whose token is not the current lease's is refused."""

_V1 = f"""
CREATE TABLE event (
    session_id TEXT NOT NULL,
    seq BIGINT NOT NULL,
    type TEXT NOT NULL,
    created_ms BIGINT NOT NULL,
    data_json TEXT NOT NULL,
    fence BIGINT,
    input_id TEXT,
    PRIMARY KEY (session_id, seq)
);
CREATE UNIQUE INDEX event_input ON event (input_id) WHERE input_id IS NOT NULL;
CREATE TABLE session_head (
    session_id TEXT PRIMARY KEY,
    head BIGINT NOT NULL
);
CREATE TABLE session_lease (
    session_id TEXT PRIMARY KEY,
    owner TEXT,
    token BIGINT NOT NULL CHECK (token > 0),
    expires_at TIMESTAMPTZ NOT NULL
);
CREATE FUNCTION session_lease_token_grows() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.token < OLD.token THEN
        RAISE EXCEPTION 'fencing token of session % cannot go back from % to %',
            OLD.session_id, OLD.token, NEW.token USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER session_lease_token_grows BEFORE UPDATE ON session_lease
    FOR EACH ROW EXECUTE FUNCTION session_lease_token_grows();
CREATE FUNCTION event_fenced() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    current_token BIGINT;
BEGIN
    IF NEW.fence IS NULL AND NEW.input_id IS NOT NULL THEN
        RETURN NEW;
    END IF;
    SELECT token INTO current_token FROM session_lease
        WHERE session_id = NEW.session_id AND owner IS NOT NULL FOR SHARE;
{_REFUSE_STALE}
CREATE TRIGGER event_fenced BEFORE INSERT ON event
    FOR EACH ROW EXECUTE FUNCTION event_fenced();
CREATE FUNCTION event_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('{CHANNEL}', session_id || ' ' || max(seq)) FROM inserted GROUP BY session_id;
    RETURN NULL;
END $$;
CREATE TRIGGER event_notify AFTER INSERT ON event REFERENCING NEW TABLE AS inserted
    FOR EACH STATEMENT EXECUTE FUNCTION event_notify();
"""

_SQLITE_V1_TO_V6 = (shared.SESSIONS, shared.QUEUE, shared.PLAN, shared.SPAWNED, shared.STEP_USAGE, shared.REVOCATIONS)
"""The shared tables as SQLite's v6 left them: v2 below is frozen, so a later shared script is a later migration."""

_V2 = f"""
ALTER TABLE event ADD COLUMN pos BIGINT GENERATED ALWAYS AS IDENTITY;
CREATE UNIQUE INDEX event_pos ON event (pos);
{"".join(ddl(script, POSTGRES) for script in _SQLITE_V1_TO_V6)}
CREATE TABLE search_doc (
    session_id TEXT NOT NULL,
    message_id TEXT NOT NULL,
    text TEXT NOT NULL,
    tsv TSVECTOR GENERATED ALWAYS AS (to_tsvector('simple', text)) STORED,
    PRIMARY KEY (session_id, message_id)
);
CREATE INDEX search_doc_tsv ON search_doc USING GIN (tsv);
"""
"""The projections (SQLite's tables at its v6, column for column: ``shared_schema.py``'s scripts with
PostgreSQL's types, ``BIGINT`` and ``DOUBLE PRECISION``), written by the same projectors in the
append's transaction (``pg/write.py``). Search is one table: ``search_doc`` keeps the text and a
generated ``tsvector`` under a GIN index where SQLite pairs ``search_doc`` with an FTS5 table. The
``simple`` configuration (lower case, no stemming, no stop words) is the nearest to FTS5's
``unicode61``; unlike it, it keeps diacritics. ``event.pos`` is the log's global order (SQLite's
``rowid``), which ``rebuild`` replays: a fork copies its parent as it stood then."""

_FENCED_UNLESS_FREE = (
    """
CREATE OR REPLACE FUNCTION event_fenced() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    current_token BIGINT;
    expires TIMESTAMPTZ;
BEGIN
    IF NEW.fence IS NULL AND {unfenced} THEN
        RETURN NEW;
    END IF;
    SELECT token, expires_at INTO current_token, expires FROM session_lease
        WHERE session_id = NEW.session_id AND owner IS NOT NULL FOR SHARE;
    IF NEW.fence IS NULL AND (current_token IS NULL OR expires <= clock_timestamp()) THEN
        RETURN NEW;
    END IF;
"""
    + _REFUSE_STALE
    + "\n"
)
"""``event_fenced`` of v3 on: ``unfenced`` names the writes let in without a token whoever holds the lease."""

_V3 = _FENCED_UNLESS_FREE.format(unfenced="NEW.input_id IS NOT NULL")
"""An unfenced write (``fence`` NULL) is let in while nobody holds the session's lease (none taken,
released, or expired): the ``Store`` facade writes so until its runner holds the lease
(docs/scaling.md, step 3). While a lease is held, every write must carry its token, as before."""

STEERING_TYPES: tuple[str, ...] = (
    "session.renamed.1",
    "session.agent.selected.1",
    "session.model.selected.1",
    "session.prompt.withdrawn.1",
    "session.queue.reordered.1",
    "session.queue.paused.1",
    "session.shell.admitted.1",
    "session.context.put.1",
    "session.context.deleted.1",
    "session.permission.replied.1",
    "session.elicitation.answered.1",
    "session.sampling.answered.1",
)
"""Events a person writes into a session from any host, even while another host runs it (``_V4``).

Each is a request the runner reads at its next step or while it waits (a title, the next step's
agent or model, the inbox's order, pause and withdrawals, a ``!command``, a context entry, the
answer to an ask), the kind of write that on one machine also lands between the drain's own, from
another task, serialized by the head row here as by SQLite's writer there. None is a runner's
output: a stale runner is still refused, since its writes carry its (stale) token. Not listed, so
refused while another host runs the session: everything the runner writes (steps, tools, text,
execution, compaction, instructions, asks, snapshots, hooks) and what must not change under a
running drain (a rewind or its undo, which rewrite the owner's files; a move)."""

_V4 = _FENCED_UNLESS_FREE.format(
    unfenced=f"(NEW.input_id IS NOT NULL OR NEW.type IN ({', '.join(repr(type_) for type_ in STEERING_TYPES)}))"
)
"""v3, and an unfenced steering event (:data:`STEERING_TYPES`) is let in while another host holds the lease."""

MIGRATIONS: tuple[str, ...] = (_V1, _V2, _V3, _V4)

PROJECTION_TABLES: tuple[str, ...] = tuple(table for table in SQLITE_PROJECTION_TABLES if table != "search")
"""SQLite's projection tables (children before parents) but FTS5's ``search``: ``search_doc`` holds the text."""
CURRENT_VERSION = len(MIGRATIONS)


async def migrate(conn: AsyncConnection[tuple[Any, ...]], where: str) -> int:
    """Bring the database to :data:`CURRENT_VERSION`; refuse one that is newer. Returns the version found."""
    async with conn.transaction():
        await conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
        await conn.execute("CREATE TABLE IF NOT EXISTS agent_tui_schema (version INTEGER NOT NULL)")
        row = await (await conn.execute("SELECT max(version) FROM agent_tui_schema")).fetchone()
        version = int(row[0] or 0) if row else 0
        if version > CURRENT_VERSION:
            raise DatabaseTooNew(where, version, CURRENT_VERSION)
        for script in MIGRATIONS[version:]:
            await conn.execute(script.encode())
        if version < CURRENT_VERSION:
            await conn.execute("INSERT INTO agent_tui_schema (version) VALUES (%s)", (CURRENT_VERSION,))
    return version
