"""The projections on either engine, behind one small surface the engine-parametrized tests use.

SQLite is the real ``Store`` on a file; PostgreSQL is ``PgEventLog`` on a real server (the
``pg_url`` fixture), each session appended under its own lease. Both get a clock that moves one
millisecond per reading, and events go in one per append, so both stamp the same times and the
projected rows must be equal, column for column (SQLite's columns name what is compared).
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_tui.core.log import events as ev
from agent_tui.core.store.pg.event_log import PgEventLog
from agent_tui.core.store.schema import PROJECTION_TABLES, migrate
from agent_tui.core.store.store import Store

Snapshot = dict[str, list[tuple[Any, ...]]]
OWNER = "host-a:1"
TTL_MS = 60_000


@dataclass
class TickingClock:
    """Every reading is one millisecond after the last: times differ per event, the same on both engines."""

    now: int = 1_700_000_000_000

    def now_ms(self) -> int:
        self.now += 1
        return self.now

    async def sleep(self, seconds: float) -> None:  # pragma: no cover - the projections never sleep
        raise AssertionError("unexpected sleep")


def _columns(table: str) -> list[str]:
    """SQLite's columns of a projection table: the ones both engines must hold."""
    conn = sqlite3.connect(":memory:", isolation_level=None)
    migrate(conn, Path(":memory:"))
    names = [row[1] for row in conn.execute(f"PRAGMA table_info({table})")]
    conn.close()
    return names


COMPARED = {table: _columns(table) for table in PROJECTION_TABLES if table not in {"search", "search_doc"}}
SEARCH_SQLITE = "SELECT d.session_id, d.message_id, s.text FROM search s JOIN search_doc d ON d.id = s.rowid"
SEARCH_PG = "SELECT session_id, message_id, text FROM search_doc"


def normalized(rows_by_table: Snapshot) -> Snapshot:
    return {table: sorted(rows, key=repr) for table, rows in rows_by_table.items()}


def sqlite_snapshot(path: Path) -> Snapshot:
    """Every projected row of a SQLite file, in the columns both engines hold."""
    conn = sqlite3.connect(path)
    try:
        rows = {t: conn.execute(f"SELECT {', '.join(c)} FROM {t}").fetchall() for t, c in COMPARED.items()}
        rows["search"] = conn.execute(SEARCH_SQLITE).fetchall()
    finally:
        conn.close()
    return normalized(rows)


def pg_snapshot(url: str) -> Snapshot:
    """Every projected row of a PostgreSQL database, comparable with :func:`sqlite_snapshot`'s."""
    import psycopg

    with psycopg.connect(url) as conn:
        rows = {t: conn.execute(f"SELECT {', '.join(c)} FROM {t}".encode()).fetchall() for t, c in COMPARED.items()}
        rows["search"] = conn.execute(SEARCH_PG).fetchall()
    return normalized(rows)


@dataclass
class SqliteEngine:
    store: Store
    name: str = "sqlite"

    async def append(self, session_id: str, event: ev.DurableEvent) -> None:
        await self.store.publish(session_id, event)

    async def rebuild(self) -> int:
        return await self.store.rebuild()

    async def search(self, text: str) -> list[str]:
        return [s.id for s in await self.store.list_sessions(search=text)]

    async def head(self, session_id: str) -> int:
        return await self.store.head_seq(session_id)

    async def snapshot(self) -> Snapshot:
        return sqlite_snapshot(self.store.path)


@dataclass
class PostgresEngine:
    log: PgEventLog
    url: str
    name: str = "postgresql"
    tokens: dict[str, int] = field(default_factory=dict)

    async def append(self, session_id: str, event: ev.DurableEvent) -> None:
        if session_id not in self.tokens:
            self.tokens[session_id] = (await self.log.acquire(session_id, OWNER, TTL_MS)).token
        await self.log.append(session_id, [event], self.tokens[session_id])

    async def rebuild(self) -> int:
        return await self.log.rebuild()

    async def search(self, text: str) -> list[str]:
        return await self.log.search(text)

    async def head(self, session_id: str) -> int:
        return await self.log.head_seq(session_id)

    async def snapshot(self) -> Snapshot:
        return pg_snapshot(self.url)


Engine = SqliteEngine | PostgresEngine


async def open_engine(name: str, tmp_path: Path, pg_url: str | None) -> Engine:
    clock = TickingClock()
    if name == "sqlite":
        return SqliteEngine(await Store.open(tmp_path / "store.db", clock=clock))
    assert pg_url is not None
    return PostgresEngine(await PgEventLog.open(pg_url, clock=clock), pg_url)


async def close_engine(engine: Engine) -> None:
    if isinstance(engine, SqliteEngine):
        await engine.store.close()
    else:
        await engine.log.close()
