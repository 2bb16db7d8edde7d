"""The PostgreSQL schema: the event log, per-session heads and the ownership leases.

``event`` keeps the SQLite store's columns (same types, same ``data_json`` text from
``events.encode``) so a log copies between the engines unchanged, plus two: ``fence``, the lease
token the write carried, and ``input_id``, the admission key of a prompt or compaction barrier.

Two rules live in the database, not in the client, so no writer can skip them:

* ``event_fenced``: an event is inserted only with the fencing token of the session's current,
  held lease. The trigger reads the lease row ``FOR SHARE``, so a takeover (an ``UPDATE`` of that
  row) waits for a write in flight to commit, and every write after the takeover sees the new
  token. An admission (``input_id`` set) is the one unfenced write: any host may admit a prompt.
* ``session_lease_token_grows``: a lease's token never goes back, so a token names one tenure.

``event_notify`` signals every statement's new heads on :data:`CHANNEL`; PostgreSQL delivers a
notification only when its transaction commits, so a tail never hears of an uncommitted event.

Migrations are forward-only, applied under a transaction-scoped advisory lock so two hosts
starting at once migrate once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agent_tui.core.errors import DatabaseTooNew

if TYPE_CHECKING:
    from psycopg import AsyncConnection

CHANNEL = "agent_tui_head"
"""The ``NOTIFY`` channel ``event_notify`` signals; the payload is ``<session_id> <head seq>``, a hint to re-query."""

STALE_FENCE = "AT409"
"""The SQLSTATE ``event_fenced`` raises: the write's token is not the current lease's."""

MIGRATION_LOCK = 0x6167_7475  # "agtu": the advisory lock key of schema changes

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
    IF NEW.fence IS NULL OR current_token IS DISTINCT FROM NEW.fence THEN
        RAISE EXCEPTION 'session %: fencing token % is not the current lease''s (%)',
            NEW.session_id, coalesce(NEW.fence::text, 'none'), coalesce(current_token::text, 'no lease')
            USING ERRCODE = 'AT409';
    END IF;
    RETURN NEW;
END $$;
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

MIGRATIONS: tuple[str, ...] = (_V1,)
CURRENT_VERSION = len(MIGRATIONS)


async def migrate(conn: AsyncConnection[tuple[Any, ...]], where: str) -> None:
    """Bring the database to :data:`CURRENT_VERSION`; refuse one that is newer."""
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
