"""A SQLite store as one end of ``db copy``: raw rows out, raw rows in with their projections.

Copied rows go in through the store's writer, one transaction per batch: each row is inserted as
stored and projected in the same transaction, exactly as ``rebuild`` replays it, so an interrupted
copy leaves a destination whose projections match its events, and the next run resumes after the
last committed batch. The batch names the session's head so other processes' tails wake up (and
the kill-after-commit test seam counts it as a commit).
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Sequence
from pathlib import Path

from agent_tui.core.errors import CopyConflict, DatabaseUnavailable
from agent_tui.core.projections.sql import SQLITE
from agent_tui.core.settings.config_sections import StorageSettings
from agent_tui.core.store.log_rows import FirstRow, LogRow, fork_points_sql
from agent_tui.core.store.replay import replay
from agent_tui.core.store.store import Store
from agent_tui.core.store.writer import Tx


class SqliteLog:
    """The event log of one SQLite file, through its :class:`Store`."""

    def __init__(self, store: Store) -> None:
        if store.path is None:
            raise ValueError("a SqliteLog needs a SQLite store")
        self._store = store
        self._path = store.path
        self.location = store.where

    @classmethod
    async def open(cls, path: Path, settings: StorageSettings | None = None, *, create: bool) -> SqliteLog:
        """Open the file; a source must exist (opening never creates one to copy from)."""
        if not create and not path.is_file():
            raise DatabaseUnavailable(path, "no such file")
        return cls(await Store.open(path, settings))

    async def close(self) -> None:
        await self._store.close()

    async def done(self, session_id: str) -> None:
        """Nothing to give back: each batch was its own transaction."""

    async def first_rows(self) -> list[FirstRow]:
        return [
            FirstRow(sid, LogRow(seq, type_, at, data))
            for sid, seq, type_, at, data in await self._store.first_event_rows()
        ]

    async def head(self, session_id: str) -> int:
        return await self._store.head_seq(session_id)

    async def fork_points(self) -> dict[str, int]:
        return await asyncio.to_thread(self._fork_points)

    def _fork_points(self) -> dict[str, int]:
        """One read on a connection of its own (read-only): the store's readers serve its own queries."""
        conn = sqlite3.connect(f"{self._path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            return dict(conn.execute(fork_points_sql(SQLITE, "rowid")).fetchall())
        finally:
            conn.close()

    async def rows(self, session_id: str, after: int, limit: int) -> list[LogRow]:
        return [LogRow(*row) for row in await self._store.event_rows(session_id, after, limit)]

    async def write(self, session_id: str, after: int, rows: Sequence[LogRow]) -> None:
        def job(tx: Tx) -> None:
            head = tx.head(session_id) or 0
            if head != after:
                raise CopyConflict(
                    session_id, f"{self.location} gained events during the copy (head {head}, not {after})"
                )
            tx.conn.executemany(
                "INSERT INTO event (session_id, seq, type, created_ms, data_json) VALUES (?, ?, ?, ?, ?)",
                [(session_id, *row) for row in rows],
            )
            replay(tx.conn, ((session_id, *row) for row in rows), doing="copy")
            tx.heads[session_id] = rows[-1].seq

        if rows:
            await self._store.transact(job)
